# Formatting shared by the library and the CLI.
list(APPEND ROOFLINE_SOURCES
  src/format/text_table.cc)
