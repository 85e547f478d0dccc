// Where an HloProto stops being well-formed, and which of its fields hold
// which messages. The reader runs this walk first, so its decoding passes
// read bytes already known to be well-formed.
#include "src/hlo/proto_wire_error.hpp"

#include "roofline/detail/cat.hpp"
#include "src/wire/proto_wire.hpp"

namespace roofline::detail {

HloMsg hlo_child_message(HloMsg m, std::uint32_t field) {
  using M = HloMsg;
  switch (m) {
    case M::kHloProto: return field == 1 ? M::kModule : M::kNone;
    case M::kModule:
      switch (field) {
        case 3: return M::kComputation;
        case 15: return M::kDeviceAssignment;
        case 17: return M::kStackFrameIndex;
        default: return M::kNone;
      }
    case M::kStackFrameIndex:
      return field == 3 ? M::kFileLocation : field == 4 ? M::kStackFrame : M::kNone;
    case M::kComputation: return field == 2 ? M::kInstruction : M::kNone;
    case M::kInstruction:
      switch (field) {
        case 3: return M::kShape;
        case 7: return M::kMetadata;
        case 15: return M::kWindow;
        case 16: return M::kConvolutionDimensions;
        case 17: return M::kSliceDimensions;
        case 21: return M::kPaddingConfig;
        case 30: return M::kDotDimensions;
        case 33: return M::kGatherDimensions;
        case 48: return M::kScatterDimensions;
        case 49: return M::kReplicaGroup;
        case 52: return M::kSourceTarget;
        case 87: return M::kCollectiveDeviceList;
        case 92: return M::kIotaReplicaGroupList;
        case 93: return M::kMeshAxesReplicaGroupList;
        default: return M::kNone;
      }
    case M::kShape: return field == 4 ? M::kShape : field == 5 ? M::kLayout : M::kNone;
    case M::kLayout: return field == 6 ? M::kTile : M::kNone;
    case M::kWindow: return field == 1 ? M::kWindowDimension : M::kNone;
    case M::kPaddingConfig: return field == 1 ? M::kPaddingDimension : M::kNone;
    case M::kCollectiveDeviceList:
      // Field 2 is the iota list older XLA kept here (now field 92 of the instruction).
      return field == 1 ? M::kReplicaGroup : field == 2 ? M::kIotaReplicaGroupList : M::kNone;
    case M::kMeshAxesReplicaGroupList: return field == 1 ? M::kMesh : field == 2 ? M::kAxisRef : M::kNone;
    case M::kMesh: return field == 1 ? M::kMeshAxis : field == 3 ? M::kMeshIotaTransform : M::kNone;
    case M::kAxisRef: return field == 2 ? M::kSubAxis : M::kNone;
    case M::kDeviceAssignment: return field == 3 ? M::kComputationDevice : M::kNone;
    default: return M::kNone;
  }
}

namespace {

// Repeated integer fields the reader reads; written packed, their payload
// must be whole varints.
bool is_packed_integers(HloMsg m, std::uint32_t field) {
  using M = HloMsg;
  switch (m) {
    case M::kInstruction:
      return field == 14 || field == 20 || field == 32 || field == 34 || field == 36 || field == 38;
    case M::kShape: return field == 3 || field == 6;
    case M::kLayout: return field == 1;
    case M::kTile: return field == 1;
    case M::kConvolutionDimensions: return field == 6 || field == 11 || field == 12;
    case M::kDotDimensions: return field >= 1 && field <= 4;
    case M::kReplicaGroup: return field == 1;
    case M::kIotaReplicaGroupList: return field == 3 || field == 4;
    case M::kMesh: return field == 2;
    case M::kMeshIotaTransform: return field == 1 || field == 2;
    case M::kComputationDevice: return field == 1;
    default: return false;
  }
}

}  // namespace

bool find_wire_error(const unsigned char* p, std::size_t begin, std::size_t end, HloMsg m, int depth,
                     WireError* err) {
  if (depth > 100) {
    *err = {begin, "messages nested more than 100 deep"};
    return true;
  }
  std::size_t pos = begin;
  WireField f;
  while (pos < end) {
    switch (read_wire_field(p, pos, end, f)) {
      case WireFault::kNone: break;
      case WireFault::kTag: *err = {f.at, "truncated or malformed field tag"}; return true;
      case WireFault::kFieldZero:
        *err = {f.at, f.number == 0 ? "field number 0" : "field number above 2^29"};
        return true;
      case WireFault::kVarint: *err = {f.at, detail::cat("truncated varint in field ", f.number)}; return true;
      case WireFault::kFixed64: *err = {f.at, detail::cat("truncated fixed64 field ", f.number)}; return true;
      case WireFault::kFixed32: *err = {f.at, detail::cat("truncated fixed32 field ", f.number)}; return true;
      case WireFault::kLength:
      case WireFault::kLenPastEnd:
        *err = {f.at, detail::cat("truncated length-delimited field ", f.number)};
        return true;
      case WireFault::kWireType:
        *err = {f.at, detail::cat("unsupported wire type ", f.type, " in field ", f.number)};
        return true;
    }
    if (f.type != kLen) continue;
    if (const HloMsg child = hlo_child_message(m, f.number); child != HloMsg::kNone) {
      if (find_wire_error(p, f.begin, f.end, child, depth + 1, err)) return true;
    } else if (is_packed_integers(m, f.number)) {
      std::size_t q = f.begin;
      std::uint64_t v;
      while (q < f.end) {
        if (!read_varint(p, q, f.end, v)) {
          *err = {f.at, detail::cat("malformed packed integers in field ", f.number)};
          return true;
        }
      }
    }
  }
  return false;
}

}  // namespace roofline::detail
