// The wire-level half of the HloProto reader (proto_reader.cc): reading
// fields of bytes find_wire_error has already walked, the fields of one
// xla.HloInstructionProto decoded into plain values (proto_fields.cc), and
// shapes with their layouts (proto_shape.cc).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "roofline/hlo/shape.hpp"
#include "src/hlo/attributes.hpp"
#include "src/wire/proto_wire.hpp"

namespace roofline::detail::hlo_proto {

struct Span {
  std::size_t begin = 0, end = 0;
};

// Reading fields of bytes find_wire_error has already walked.
class Wire {
 public:
  explicit Wire(std::string_view bytes) : p_(reinterpret_cast<const std::uint8_t*>(bytes.data())) {}

  template <class F>
  void fields(Span s, F f) const {
    std::size_t pos = s.begin;
    WireField w;
    while (pos < s.end && detail::read_wire_field(p_, pos, s.end, w) == detail::WireFault::kNone) f(w);
  }
  std::string_view str(const WireField& w) const {
    return {reinterpret_cast<const char*>(p_) + w.begin, w.end - w.begin};
  }
  // A repeated integer, one value or packed.
  void ints(const WireField& w, IntList* out) const {
    if (w.type == detail::kVarint) {
      out->push_back(static_cast<std::int64_t>(w.value));
    } else if (w.type == detail::kLen) {
      std::size_t q = w.begin;
      std::uint64_t v;
      while (q < w.end && detail::read_varint(p_, q, w.end, v)) out->push_back(static_cast<std::int64_t>(v));
    }
  }

 private:
  const std::uint8_t* p_;
};

// Scalars as libprotobuf reads them: a field of another wire type is an
// unknown field and leaves the value alone.
inline void set(const WireField& w, std::int64_t* v) {
  if (w.type == detail::kVarint) *v = static_cast<std::int64_t>(w.value);
}
inline void set(const WireField& w, std::int32_t* v) {
  if (w.type == detail::kVarint) *v = static_cast<std::int32_t>(static_cast<std::uint32_t>(w.value));
}
inline void set(const WireField& w, bool* v) {
  if (w.type == detail::kVarint) *v = w.value != 0;
}
inline bool is_len(const WireField& w) { return w.type == detail::kLen; }
inline Span span(const WireField& w) { return {w.begin, w.end}; }

// xla.IotaReplicaGroupListProto.
struct IotaList {
  std::int64_t num_replica_groups = 0, num_devices_per_group = 0;
  IntList reshape_dims, transpose_perm;
};

// xla.MeshAxesReplicaGroupListProto: the mesh (axes, device_ids or an iota
// transform) and the axes the groups span.
struct MeshAxesList {
  struct Axis {
    std::string_view name;
    std::int64_t size = 0;
  };
  struct AxisRef {
    std::int64_t index = 0, pre_size = 0, size = 0;
    bool sub_axis = false;
  };
  std::vector<Axis> axes;
  IntList device_ids, reshape_dims, transpose_perm;
  bool iota_transform = false;
  std::vector<AxisRef> refs;
};

// The fields of one xla.HloInstructionProto the reader uses. Message fields
// seen twice merge, as libprotobuf merges them.
struct InstructionFields {
  std::string_view name, opcode, fusion_kind, custom_call_target, backend_config, comparison_direction,
      async_execution_thread;
  std::vector<Span> shape;
  std::string_view op_type, op_name, source_file;
  std::int32_t source_line = 0, stack_frame_id = 0;
  std::int64_t parameter_number = 0, tuple_index = 0, feature_group_count = 0, batch_group_count = 0,
               channel_id = 0, id = 0, k = 0;
  std::int32_t exponent_bits = 0, mantissa_bits = 0;
  bool is_host_transfer = false, is_stable = false, custom_call_has_side_effect = false,
       use_global_device_ids = false, largest = false;
  IntList dimensions, dynamic_slice_sizes, fft_length, gather_slice_sizes, operand_ids, called;
  IntList literal_ints;  // literal (8): its s32s/s64s/u32s/u64s (4-7), for integer scalar constants
  std::vector<WindowDimension> window;
  bool has_conv = false;
  detail::ConvDims conv;
  std::vector<std::array<std::int64_t, 3>> slices, padding;
  bool has_dot = false;
  IntList lhs_contracting, rhs_contracting, lhs_batch, rhs_batch;
  IntList groups, group_starts;  // replica_groups (49), flattened
  std::vector<std::pair<std::int64_t, std::int64_t>> source_target_pairs;
  bool has_device_list = false;  // collective_device_list (87)
  IntList list_groups, list_group_starts;
  bool has_list_iota = false;  // its iota list (field 2, older XLA)
  IotaList list_iota;
  bool has_iota = false;  // iota_collective_device_list (92)
  IotaList iota;
  bool has_mesh = false;  // mesh_axes_replica_group_list (93)
  MeshAxesList mesh;

  void clear() { *this = InstructionFields{}; }
};

// Decodes the instruction message at `s` into `i` (cleared by the caller).
void read_instruction(const Wire& w, Span s, InstructionFields* i);

// Decodes an xla.ShapeProto (the fields at `spans` merge) and its layout
// into `s`. Errors name `origin` and `where` ("m.pb: instruction 'x': rank
// above 64").
absl::Status read_shape(const Wire& w, const std::vector<Span>& spans, Shape* s, std::string_view origin,
                        const std::string& where);

}  // namespace roofline::detail::hlo_proto
