# Measured traces: XSpace protobuf (hand-written wire decoder), Chrome
# trace-event JSON (streaming tokenizer, zlib for .gz), op statistics.
find_package(Threads REQUIRED)
list(APPEND ROOFLINE_SOURCES
  src/trace/byte_stream.cc
  src/trace/trace_builder.cc
  src/trace/xplane_assembler.cc
  src/trace/xplane_wire.cc
  src/trace/json_stream.cc
  src/trace/chrome_document.cc
  src/trace/chrome_event_scan.cc
  src/trace/chrome_event_decode.cc
  src/trace/chrome_stage.cc
  src/trace/kineto_link.cc
  src/trace/chrome_json_assemble.cc
  src/trace/chrome_json.cc
  src/trace/read_trace.cc
  src/trace/op_stats.cc)
list(APPEND ROOFLINE_PRIVATE_DEPS absl::flat_hash_map absl::hash Threads::Threads)
