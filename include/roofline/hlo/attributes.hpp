// The attributes of an HLO instruction that the cost model reads, typed.
//
// The readers (roofline/hlo/reader.hpp) fill them once, from the attribute
// text HLO prints after `key=` (the proto reader renders its fields as that
// text first), so a module read from HLO text and the same module read from
// its HloProto have equal typed attributes, and costing an instruction reads
// fields instead of parsing text. The text itself stays in
// HloInstruction::attributes for anyone who prints it.
//
// A value the reader cannot read is not an error: the module still loads (a
// newer XLA may print what we do not model) and the field says so (null,
// nullopt, or empty where that is what the cost model makes of it); the cost model
// then flags the instruction or falls back, as docs/hlo_cost.md describes.
//
//   const roofline::HloTypedAttributes& a = *instruction.typed;
//   if (a.dot_dimensions != nullptr) for (std::int64_t d : a.dot_dimensions->lhs_contracting) ...
//   if (a.known_trip_count) std::printf("%lld trips\n", static_cast<long long>(*a.known_trip_count));
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace roofline {

// The dimension numbers of a dot: lhs_batch_dims={0}, lhs_contracting_dims={2},
// rhs_batch_dims=..., rhs_contracting_dims=... (a list not written is empty).
struct DotDimensionNumbers {
  std::span<const std::int64_t> lhs_batch;
  std::span<const std::int64_t> lhs_contracting;
  std::span<const std::int64_t> rhs_batch;
  std::span<const std::int64_t> rhs_contracting;
};

// One dimension of window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1
// rhs_dilate=1x1 rhs_reversal=0x1}; what is not written has the default below.
struct WindowDimension {
  std::int64_t size = 1;
  std::int64_t stride = 1;
  std::int64_t pad_low = 0;
  std::int64_t pad_high = 0;
  std::int64_t window_dilation = 1;  // rhs_dilate
  std::int64_t base_dilation = 1;    // lhs_dilate
  bool reversal = false;             // rhs_reversal

  friend bool operator==(const WindowDimension&, const WindowDimension&) = default;
};

// dim_labels=b01f_01io->b01f: the dimension number of each role in the input
// (b, f, spatial 0..n-1), the kernel (i, o, spatial) and the output (b, f, spatial).
struct ConvolutionDimensionNumbers {
  std::int64_t input_batch = 0;
  std::int64_t input_feature = 0;
  std::span<const std::int64_t> input_spatial;
  std::int64_t kernel_input_feature = 0;
  std::int64_t kernel_output_feature = 0;
  std::span<const std::int64_t> kernel_spatial;
  std::int64_t output_batch = 0;
  std::int64_t output_feature = 0;
  std::span<const std::int64_t> output_spatial;
};

// What the convolution FLOP count needs, read together: dim_labels=, window=
// (one WindowDimension per spatial dimension; without window= each has size 1),
// feature_group_count= and batch_group_count= (1 when not written).
struct ConvolutionAttributes {
  ConvolutionDimensionNumbers dims;
  std::span<const WindowDimension> window;
  std::int64_t feature_group_count = 1;
  std::int64_t batch_group_count = 1;
};

// The sizes of replica_groups=, explicit ({{0,1},{2,3}}), iota
// ([4,2]<=[2,4]T(1,0)) or over mesh axes (mesh['a'=4,'b'=2] {'b'}). `{}`, and no attribute at all, mean one group of all
// devices: all_devices is set and the module decides the size
// (replica_count / num_partitions). roofline/hlo/replica_groups.hpp lists the
// devices themselves.
struct ReplicaGroupSizes {
  std::int64_t num_groups = 1;
  std::int64_t group_size = 0;  // devices in the largest group; 0 with all_devices
  bool all_devices = true;

  friend bool operator==(const ReplicaGroupSizes&, const ReplicaGroupSizes&) = default;
};

// A fusion's kind=.
enum class FusionKind : std::uint8_t {
  kOther,  // kind= not written, or a kind XLA may add later
  kLoop,
  kInput,
  kOutput,
  kCustom,
};

// What a custom call's target names, as far as the cost model knows it.
enum class CustomCallKind : std::uint8_t {
  kOther,                      // anything else: Pallas/Mosaic, Triton, user FFI (cost unknown)
  kGemm,                       // __cublas$gemm, __cublas$lt$matmul*, __rocblas$gemm, __hipblaslt$matmul*
  kConvolutionForward,         // __cudnn$conv*, __miopen$conv* (not a backward one)
  kConvolutionBackwardInput,   // ...$convBackwardInput
  kConvolutionBackwardFilter,  // ...$convBackwardFilter
  kAnnotation,                 // Sharding, SPMDFullToShardShape, MoveToHost, ...: runs nothing
  kRadixSort,                  // __cub$DeviceRadixSort
};

// The typed attributes of one instruction. Each field is filled for the
// opcodes listed beside it (for async sugar such as reduce-scatter-start, the
// wrapped op's) and keeps its default otherwise. Lists, and what the
// pointers point to, are storage the module owns.
struct HloTypedAttributes {
  // dot: lhs_/rhs_ batch and contracting dims. A library GEMM custom call: the
  // dot_dimension_numbers of its backend_config (gemm_backend_config, proto3
  // JSON), else its lhs_contracting_dims= attributes when they name a
  // contracting dimension. Null: a list that cannot be read (the dot has no
  // FLOPs), or a GEMM with no dimension numbers (flagged unknown).
  const DotDimensionNumbers* dot_dimensions = nullptr;

  // convolution and cuDNN / MIOpen convolution custom calls. Null when
  // dim_labels= is missing or unreadable, window= or a group count is
  // unreadable, a group count is below 1, or the window's rank is not the
  // number of spatial dimensions (the convolution is then flagged).
  const ConvolutionAttributes* convolution = nullptr;

  // reduce-window, select-and-scatter: window=. Empty when absent or unreadable
  // (a window of one element).
  std::span<const WindowDimension> window;

  // transpose: dimensions=, the permutation. nullopt when absent or unreadable.
  std::optional<std::span<const std::int64_t>> dimensions;

  // fft: fft_length=. A list that breaks off keeps the lengths before the break.
  std::span<const std::int64_t> fft_length;

  // Collectives (all-reduce, all-gather, reduce-scatter, all-to-all,
  // collective-permute, send/recv, ..., their -start forms and async sugar).
  // replica_groups: nullopt when written in a form we cannot read (the
  // mesh form naming an axis not in its mesh, malformed text); the collective
  // is then not timed.
  std::optional<ReplicaGroupSizes> replica_groups;
  std::int64_t channel_id = 0;  // 0: not written, or not a number
  bool use_global_device_ids = false;
  bool is_host_transfer = false;
  // collective-permute: source_target_pairs={{0,1},{1,2}} as written (a pair
  // is a list of two devices). nullopt when absent or unreadable.
  std::optional<std::span<const std::span<const std::int64_t>>> source_target_pairs;

  // while: backend_config={"known_trip_count":{"n":"10"}} (n may be a JSON
  // number or string). nullopt when XLA did not record one.
  std::optional<std::int64_t> known_trip_count;

  // fusion: kind=.
  FusionKind fusion_kind = FusionKind::kOther;

  // custom-call: custom_call_target= without its quotes, and what it names.
  std::string_view custom_call_target;
  CustomCallKind custom_call_kind = CustomCallKind::kOther;
};

// What an instruction without typed attributes points to.
inline constexpr HloTypedAttributes kNoTypedAttributes{};

// Field by field, lists by their elements (not by where they are stored), so
// an instruction read from text and from proto compare equal.
bool operator==(const DotDimensionNumbers& a, const DotDimensionNumbers& b);
bool operator==(const ConvolutionDimensionNumbers& a, const ConvolutionDimensionNumbers& b);
bool operator==(const ConvolutionAttributes& a, const ConvolutionAttributes& b);
bool operator==(const HloTypedAttributes& a, const HloTypedAttributes& b);

}  // namespace roofline
