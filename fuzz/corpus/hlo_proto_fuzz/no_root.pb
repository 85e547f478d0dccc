main0Q
main(0
xnegate˜¢
nnegate˜¢
p	parameter˜