# Formatting shared by the library and the CLI: the JSON writer and the text table.
list(APPEND ROOFLINE_SOURCES
  src/format/json.cc
  src/format/text_table.cc)
