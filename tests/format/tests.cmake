# Formatting shared by the library and the CLI: SI units, the text table,
# the JSON and CSV writers.
roofline_add_test(format_test
  format/units_test.cc
  format/text_table_test.cc
  format/json_test.cc
  format/csv_test.cc)
