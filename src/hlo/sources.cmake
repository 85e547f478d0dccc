# The HLO reader: shapes, HLO text, HloProto, and the cost of every instruction.
list(APPEND ROOFLINE_SOURCES
  src/hlo/shape.cc
  src/hlo/shape_parser.cc
  src/hlo/opcode.cc
  src/hlo/module.cc
  src/hlo/text_parser.cc
  src/hlo/proto_reader.cc
  src/hlo/proto_wire_error.cc
  src/hlo/attributes.cc
  src/hlo/typed_attributes.cc
  src/hlo/backend_config.cc
  src/hlo/replica_groups.cc
  # The cost model: one file per opcode family (src/hlo/cost/handlers.hpp).
  src/hlo/cost/dispatch.cc
  src/hlo/cost/common.cc
  src/hlo/cost/elementwise.cc
  src/hlo/cost/dot_conv.cc
  src/hlo/cost/reduce.cc
  src/hlo/cost/data_movement.cc
  src/hlo/cost/sort_fft_linalg.cc
  src/hlo/cost/collective.cc
  src/hlo/cost/control.cc
  src/hlo/cost/custom_call.cc
  src/hlo/cost/fusion.cc
  src/hlo/predict.cc
  src/hlo/read_file.cc)

# C++ for our subset of XLA's hlo.proto, generated with Debian's protoc into
# the build tree; only src/hlo/proto_reader.cc includes it.
set(ROOFLINE_HLO_PROTO_DIR ${PROJECT_BINARY_DIR}/generated/hlo)
set(ROOFLINE_HLO_PROTO_SRC ${PROJECT_SOURCE_DIR}/src/hlo/proto/hlo_subset.proto)
file(MAKE_DIRECTORY ${ROOFLINE_HLO_PROTO_DIR})
add_custom_command(
  OUTPUT ${ROOFLINE_HLO_PROTO_DIR}/hlo_subset.pb.cc ${ROOFLINE_HLO_PROTO_DIR}/hlo_subset.pb.h
  COMMAND protobuf::protoc
          --cpp_out=${ROOFLINE_HLO_PROTO_DIR}
          --proto_path=${PROJECT_SOURCE_DIR}/src/hlo/proto
          ${ROOFLINE_HLO_PROTO_SRC}
  DEPENDS ${ROOFLINE_HLO_PROTO_SRC} protobuf::protoc
  COMMENT "protoc: src/hlo/proto/hlo_subset.proto"
  VERBATIM)
list(APPEND ROOFLINE_SOURCES ${ROOFLINE_HLO_PROTO_DIR}/hlo_subset.pb.cc)
# Generated code is not ours: no -Werror on it.
set_source_files_properties(${ROOFLINE_HLO_PROTO_DIR}/hlo_subset.pb.cc PROPERTIES
  GENERATED TRUE
  COMPILE_OPTIONS "-w")
list(APPEND ROOFLINE_PRIVATE_INCLUDES ${ROOFLINE_HLO_PROTO_DIR})
list(APPEND ROOFLINE_PRIVATE_DEPS protobuf::libprotobuf absl::flat_hash_map)
