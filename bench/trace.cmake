# Trace reader throughput (paths relative to bench/). The XSpace schema is
# compiled here only, to measure libprotobuf against the library's own
# wire decoder on the same inputs.
set(_trace_bench_gen "${PROJECT_BINARY_DIR}/generated/trace_bench")
file(MAKE_DIRECTORY "${_trace_bench_gen}")
add_custom_command(
  OUTPUT "${_trace_bench_gen}/xplane_bench.pb.cc" "${_trace_bench_gen}/xplane_bench.pb.h"
  COMMAND protobuf::protoc --cpp_out=${_trace_bench_gen} -I ${CMAKE_CURRENT_SOURCE_DIR}
          ${CMAKE_CURRENT_SOURCE_DIR}/xplane_bench.proto
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/xplane_bench.proto protobuf::protoc
  COMMENT "protoc bench/xplane_bench.proto"
  VERBATIM)
roofline_add_bench(trace_bench trace_bench.cc "${_trace_bench_gen}/xplane_bench.pb.cc")
target_include_directories(trace_bench PRIVATE "${_trace_bench_gen}")
target_link_libraries(trace_bench PRIVATE protobuf::libprotobuf nlohmann_json::nlohmann_json ZLIB::ZLIB
                      absl::flat_hash_map)
get_filename_component(_trace_bench_shared "${PROJECT_SOURCE_DIR}/../shared" ABSOLUTE)
target_compile_definitions(trace_bench PRIVATE ROOFLINE_SHARED_DIR="${_trace_bench_shared}")
find_package(simdjson QUIET)
if(simdjson_FOUND)
  target_link_libraries(trace_bench PRIVATE simdjson::simdjson)
  target_compile_definitions(trace_bench PRIVATE ROOFLINE_BENCH_SIMDJSON)
endif()
# The generated protobuf code is not ours to hold to our warnings.
set_source_files_properties("${_trace_bench_gen}/xplane_bench.pb.cc" PROPERTIES COMPILE_OPTIONS "-Wno-pedantic;-Wno-unused-parameter")
