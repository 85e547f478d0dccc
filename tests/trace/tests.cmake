# Paths are relative to tests/.
roofline_add_test(trace_test
  trace/xplane_test.cc
  trace/chrome_json_test.cc
  trace/read_trace_test.cc
  trace/real_traces_test.cc
  LIBS nlohmann_json::nlohmann_json ZLIB::ZLIB)
add_dependencies(trace_test roofline_cli)
