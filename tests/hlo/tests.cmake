# HLO reader, padded sizes, cost model, module prediction and the `roofline hlo` CLI.
roofline_add_test(hlo_test
  hlo/shape_test.cc
  hlo/text_parser_test.cc
  hlo/proto_reader_test.cc
  hlo/replica_groups_test.cc
  hlo/cost_test.cc
  hlo/predict_test.cc
  hlo/real_data_test.cc
  hlo/cli_hlo_test.cc
  hlo/attributes_test.cc
  LIBS nlohmann_json::nlohmann_json protobuf::libprotobuf)
# attributes_test.cc writes HloProtos with the generated classes of
# src/hlo/proto/hlo_subset.proto (compiled into the library).
target_include_directories(hlo_test PRIVATE ${ROOFLINE_HLO_PROTO_DIR})
add_dependencies(hlo_test roofline_cli)
