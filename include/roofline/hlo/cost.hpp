// What one HLO instruction costs: FLOPs, transcendentals and the bytes it
// moves, following the conventions of XLA's HloCostAnalysis
// (xla/service/hlo_cost_analysis.cc; docs/hlo_cost.md has every formula):
//
//   dot          2 x elements(result) x prod(lhs contracting dims)
//   convolution  2 x (in_features / feature_groups) x out_features
//                  x (batch / batch_groups) x valid kernel positions
//   elementwise  1 FLOP per result element; exp, log, tanh, sqrt, ... count
//                as transcendentals instead
//   reduce       (elements in - elements out) x cost of the reducer
//   fusion       FLOPs of the fused instructions; bytes = what it reads from
//                its parameters (a sliced parameter only the slice) + what it
//                writes (a dynamic-update-slice root only the update)
//   parameter, constant, get-tuple-element, bitcast, tuple: free
//   collectives  bytes in and out, plus the group size and the full array
//                size V that the collective model times (T_ici)
//   library GEMM / convolution custom calls (cuBLAS, cuBLASLt, hipBLASLt,
//                cuDNN/MIOpen): costed as the dot / convolution they compute;
//                any other custom call is flagged `unknown`
//   while        trip count (backend_config known_trip_count) x (body + condition);
//                flagged when XLA did not state a trip count
//
// Bytes are HBM bytes: padded (tiled) sizes of the arrays an instruction
// reads and writes in device memory. Arrays in on-chip memory spaces (S(1)
// VMEM, ...) cost none; arrays in host memory (S(5)) count as host bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "roofline/collectives/collective_kind.hpp"
#include "roofline/dtype.hpp"
#include "roofline/hlo/module.hpp"

namespace roofline {

enum class HloCategory : std::uint8_t {
  kMatmul,         // dot, GEMM custom calls, fusions around a dot
  kConvolution,    // convolution, cuDNN custom calls, fusions around one
  kLoopFusion,     // fusion kind=kLoop
  kInputFusion,    // fusion kind=kInput (reductions)
  kOutputFusion,   // fusion kind=kOutput
  kCustomFusion,   // fusion kind=kCustom (Triton, cuDNN graphs, CPU library fusions)
  kElementwise,
  kReduction,      // reduce, reduce-window, select-and-scatter
  kDataMovement,   // copies, transposes, slices, gathers, constants, ...
  kCollective,     // all-reduce, all-gather, ..., send/recv, host transfers
  kCustomCall,     // custom calls other than library GEMMs / convolutions
  kControl,        // parameter, tuple, get-tuple-element, while, call, conditional, ...
};

// "matmul", "convolution", "loop fusion", "input fusion", "output fusion",
// "custom fusion", "elementwise", "reduction", "data movement", "collective",
// "custom call", "control".
std::string_view category_name(HloCategory c);

// What the collective model needs to time one collective instruction.
struct HloCollective {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  // V: the whole array the collective works on, in bytes: the gathered result
  // of an all-gather, the unreduced input of a reduce-scatter, the operand of
  // an all-reduce, the input of an all-to-all, the shard a permute sends.
  double array_bytes = 0;
  std::int64_t group_size = 0;   // devices per replica group (0: unknown)
  std::int64_t num_groups = 0;
  int permute_shift = 1;         // positions a collective-permute moves data
  // Set by the collective plan of a module (roofline/hlo/collective_rewrites.hpp),
  // never by cost(): the time under the module's mesh and the accelerator's
  // rewrites, which predict uses instead of collective_time_on_group.
  std::optional<CollectiveTime> timed;
  bool from_all_reduce = false;  // an all-reduce + dynamic-slice costed as this reduce-scatter
  int combined_ops = 1;          // all-reduces combined into the one this is part of
};

// Why a cost is incomplete; shown beside the numbers, never hidden.
struct HloCostFlags {
  bool unknown_custom_call = false;     // no cost model for this target: FLOPs unknown
  bool unknown_opcode = false;          // an opcode this reader does not know
  bool trip_count_unknown = false;      // a while without known_trip_count: counted once
  bool unbounded_dynamic_shape = false; // a `?` dimension: counted as size 0
  bool collective_not_timed = false;    // a collective without a network model (send/recv, groups unknown)
  bool conditional_max = false;         // a conditional: the maximum over its branches
  bool size_saturated = false;          // a shape of 2^63 bytes or more: its size counted as 2^63 - 1

  bool any() const {
    return unknown_custom_call || unknown_opcode || trip_count_unknown || unbounded_dynamic_shape ||
           collective_not_timed || conditional_max || size_saturated;
  }
  HloCostFlags& operator|=(const HloCostFlags& o) {
    unknown_custom_call |= o.unknown_custom_call;
    unknown_opcode |= o.unknown_opcode;
    trip_count_unknown |= o.trip_count_unknown;
    unbounded_dynamic_shape |= o.unbounded_dynamic_shape;
    collective_not_timed |= o.collective_not_timed;
    conditional_max |= o.conditional_max;
    size_saturated |= o.size_saturated;
    return *this;
  }
};

struct HloCost {
  double flops = 0;
  double transcendentals = 0;
  double bytes_read = 0;     // HBM
  double bytes_written = 0;  // HBM
  double host_bytes = 0;     // moved between device and host memory (PCIe)
  HloCategory category = HloCategory::kDataMovement;
  DType dtype = DType::kF32;  // the type whose peak bounds the arithmetic
  HloCostFlags flags;
  std::optional<HloCollective> collective;
  // For while loops: the trip count the body was multiplied by (1 when unknown).
  std::int64_t trip_count = 1;

  double hbm_bytes() const { return bytes_read + bytes_written; }
};

// The cost of one execution of `instruction`. For while/call/conditional it
// is the cost of what they run (a while: trip count x (body + condition));
// for an async -done or -update it is zero (the -start carries the work).
HloCost cost(const HloInstruction& instruction);

// The trip count XLA recorded in a while's backend_config
// ({"known_trip_count":{"n":"10"}}), if any: HloTypedAttributes::known_trip_count,
// read by the reader (nullopt for an instruction that is not a while).
std::optional<std::int64_t> known_trip_count(const HloInstruction& while_instruction);

// HBM bytes of a shape: padded bytes of its array leaves in device memory.
double hbm_bytes_of(const Shape& shape);
// Bytes of its array leaves in host memory (S(5)).
double host_bytes_of(const Shape& shape);

}  // namespace roofline
