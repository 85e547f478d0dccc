// Writing HloProtos in tests without libprotobuf: a message is an ordered
// list of fields (integers, bytes, nested messages) serialized in the order
// they were added, so a test writes exactly the bytes XLA would, or exactly
// the oddity it needs. Field numbers are XLA's (xla/service/hlo.proto,
// xla/xla_data.proto); the names below say which is which.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace roofline::testing {

class PbMessage {
 public:
  // An integer field (varint; negative values as XLA's int64 writes them).
  PbMessage& i(int field, std::int64_t v) {
    fields_.push_back({field, static_cast<std::uint64_t>(v), {}, nullptr});
    return *this;
  }
  // A repeated integer field, packed as proto3 writes it.
  PbMessage& packed(int field, const std::vector<std::int64_t>& values) {
    std::string payload;
    for (std::int64_t v : values) put_varint(&payload, static_cast<std::uint64_t>(v));
    return s(field, payload);
  }
  PbMessage& s(int field, const std::string& bytes) {
    fields_.push_back({field, 0, bytes, nullptr, true});
    return *this;
  }
  // A new nested message in `field` (a repeated field gets one per call).
  PbMessage& add(int field) {
    children_.push_back(std::make_unique<PbMessage>());
    fields_.push_back({field, 0, {}, children_.back().get()});
    return *children_.back();
  }
  // The nested message in `field`, made on first use (a singular field).
  PbMessage& one(int field) {
    for (const Field& f : fields_)
      if (f.number == field && f.child) return *f.child;
    return add(field);
  }

  std::string str() const {
    std::string out;
    for (const Field& f : fields_) {
      if (f.child || f.is_bytes) {
        const std::string payload = f.child ? f.child->str() : f.bytes;
        put_varint(&out, (static_cast<std::uint64_t>(f.number) << 3) | 2);
        put_varint(&out, payload.size());
        out += payload;
      } else {
        put_varint(&out, static_cast<std::uint64_t>(f.number) << 3);
        put_varint(&out, f.value);
      }
    }
    return out;
  }

  std::int64_t id = 0;  // for the test's own bookkeeping (instruction ids); not serialized

 private:
  struct Field {
    int number = 0;
    std::uint64_t value = 0;
    std::string bytes;
    PbMessage* child = nullptr;
    bool is_bytes = false;
  };
  static void put_varint(std::string* s, std::uint64_t v) {
    while (v >= 0x80) {
      s->push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    s->push_back(static_cast<char>(v));
  }
  std::vector<Field> fields_;
  std::vector<std::unique_ptr<PbMessage>> children_;
};

// Field numbers of the messages the tests write.
namespace hlo_field {
// xla.HloModuleProto
inline constexpr int kModuleName = 1, kEntryComputationName = 2, kComputations = 3, kEntryComputationId = 6,
                     kDeviceAssignment = 15;
// xla.DeviceAssignmentProto
inline constexpr int kReplicaCount = 1, kComputationCount = 2;
// xla.HloComputationProto
inline constexpr int kComputationName = 1, kInstructions = 2, kComputationId = 5, kRootId = 6;
// xla.HloInstructionProto
inline constexpr int kName = 1, kOpcode = 2, kShape = 3, kParameterNumber = 9, kFusionKind = 11, kDimensions = 14,
                     kWindow = 15, kConvolutionDimensionNumbers = 16, kChannelId = 26, kCustomCallTarget = 28,
                     kDotDimensionNumbers = 30, kFftLength = 32, kId = 35, kOperandIds = 36,
                     kCalledComputationIds = 38, kBackendConfig = 43, kReplicaGroups = 49, kSourceTargetPairs = 52,
                     kComparisonDirection = 63, kUseGlobalDeviceIds = 71, kCollectiveDeviceList = 87,
                     kIotaCollectiveDeviceList = 92, kMeshAxesReplicaGroupList = 93;
// xla.ShapeProto / xla.LayoutProto
inline constexpr int kElementType = 2, kShapeDimensions = 3, kTupleShapes = 4, kLayout = 5, kMinorToMajor = 1;
// xla.CollectiveDeviceListProto (field 2: the iota list of older XLA)
inline constexpr int kListReplicaGroups = 1, kListIota = 2;
// xla.IotaReplicaGroupListProto
inline constexpr int kNumReplicaGroups = 1, kNumDevicesPerGroup = 2, kIotaReshapeDims = 3, kIotaTransposePerm = 4;
// xla.MeshAxesReplicaGroupListProto, xla.MeshProto, xla.AxisRefProto
inline constexpr int kMesh = 1, kMeshAxes = 2;
inline constexpr int kMeshAxis = 1, kMeshDeviceIds = 2, kMeshIotaTransform = 3;
inline constexpr int kAxisName = 1, kAxisSize = 2;
inline constexpr int kMeshAxisIndex = 1, kSubAxisInfo = 2, kPreSize = 1, kSubAxisSize = 2;
}  // namespace hlo_field

}  // namespace roofline::testing
