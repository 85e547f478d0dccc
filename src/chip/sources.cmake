list(APPEND ROOFLINE_SOURCES
  src/chip/dtype.cc
  src/chip/chip_json.cc
  src/chip/chip_registry.cc
  src/chip/identify.cc)
