# Each cmd_*.cc registers one subcommand; list new ones here.
list(APPEND ROOFLINE_CLI_SOURCES
  src/cli/main.cc
  src/cli/args.cc
  src/cli/cmd_chips.cc
  src/cli/cmd_predict_matmul.cc
  src/cli/cmd_demo.cc)
foreach(part hlo trace sharding report)
  include(src/cli/${part}.cmake OPTIONAL)
endforeach()
