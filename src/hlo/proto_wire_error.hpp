// The part of XLA's HloProto (xla/service/hlo.proto, xla/xla_data.proto) the
// HLO proto reader walks, as a table of which fields hold which messages, and
// the walk that says where a serialized message stops being well-formed
// ("module.pb: byte 4012: truncated length-delimited field 3").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace roofline::detail {

// The messages of the subset. Field numbers are XLA's; every other field is
// skipped by wire type, as libprotobuf skips unknown fields.
enum class HloMsg : std::uint8_t {
  kNone,  // not a message: a scalar, a string, or a field we do not read
  kHloProto,
  kModule,
  kStackFrameIndex,
  kFileLocation,
  kStackFrame,
  kComputation,
  kInstruction,
  kSliceDimensions,
  kShape,
  kLayout,
  kTile,
  kMetadata,
  kWindow,
  kWindowDimension,
  kConvolutionDimensions,
  kDotDimensions,
  kPaddingConfig,
  kPaddingDimension,
  kGatherDimensions,
  kScatterDimensions,
  kReplicaGroup,
  kSourceTarget,
  kCollectiveDeviceList,
  kIotaReplicaGroupList,
  kMeshAxesReplicaGroupList,
  kMesh,
  kMeshAxis,
  kMeshIotaTransform,
  kAxisRef,
  kSubAxis,
  kDeviceAssignment,
  kComputationDevice,
};

// The message type of field `field` of message `m` (kNone for a non-message).
HloMsg hlo_child_message(HloMsg m, std::uint32_t field);

struct WireError {
  std::size_t offset = 0;
  std::string message;
};

// Walks the message of type `m` in p[begin, end) and reports the first place
// it cannot continue (true, with `err` set). Known message fields are walked
// into, and packed repeated integers must be whole varints; everything else
// is skipped by wire type.
bool find_wire_error(const unsigned char* p, std::size_t begin, std::size_t end, HloMsg m, int depth,
                     WireError* err);

}  // namespace roofline::detail
