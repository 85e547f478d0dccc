// Reading an instruction's typed attributes (roofline/hlo/attributes.hpp)
// from its attribute text, once, for both readers: link_module calls
// read_typed_attributes for every instruction. Each reader below keeps the
// rule the cost model applied when it parsed the text on every call, so
// costs are unchanged; what a rule makes of malformed text is written beside it.
#include <algorithm>
#include <string>

#include "src/hlo/attributes.hpp"
#include "src/hlo/backend_config.hpp"
#include "src/hlo/module_data.hpp"
#include "src/hlo/opcode_families.hpp"
#include "src/hlo/text_util.hpp"

namespace roofline {
namespace detail {
namespace {

// ---- storage ------------------------------------------------------------

std::span<const std::int64_t> store(StringArena& arena, std::span<const std::int64_t> v) {
  return arena.store_array(v);
}

// One value in the arena (trivially copyable types only).
template <class T>
const T* store_one(StringArena& arena, const T& v) {
  return arena.store_array(std::span<const T>(&v, 1)).data();
}

const DotDimensionNumbers* store(StringArena& arena, const DotDims& d) {
  return store_one(arena, DotDimensionNumbers{.lhs_batch = store(arena, d.lhs_batch),
                                              .lhs_contracting = store(arena, d.lhs_contracting),
                                              .rhs_batch = store(arena, d.rhs_batch),
                                              .rhs_contracting = store(arena, d.rhs_contracting)});
}

// ---- one reader per attribute group --------------------------------------

// dot: all four lists must read (a list not written is empty).
const DotDimensionNumbers* read_dot(const HloInstruction& ins, StringArena& arena) {
  DotDims d;
  if (!dot_dims_from_attributes(ins, &d)) return nullptr;
  return store(arena, d);
}

// A library GEMM: backend_config's dot_dimension_numbers (under
// gemm_backend_config, or at the top), else lhs_contracting_dims= when it
// names a dimension. Lists a malformed JSON object read before failing stay
// in `d` and the attributes add to them, as the cost model always did.
const DotDimensionNumbers* read_gemm_dot(const HloInstruction& ins, StringArena& arena) {
  DotDims d;
  bool have = backend_config_gemm_dims(ins.attribute("backend_config"), &d);
  if (!have) have = dot_dims_from_attributes(ins, &d) && !d.lhs_contracting.empty();
  if (!have) return nullptr;
  return store(arena, d);
}

// convolution: dim_labels= must read; window= (when written), and the group
// counts (when written) too, and be consistent with dim_labels.
const ConvolutionAttributes* read_convolution(const HloInstruction& ins, StringArena& arena) {
  ConvDims d;
  if (!parse_dim_labels(ins.attribute("dim_labels"), &d)) return nullptr;
  WindowList window;
  if (const std::string_view w = ins.attribute("window"); !w.empty() && !parse_window(w, &window)) return nullptr;
  const std::size_t spatial = d.input_spatial.size();
  if (window.size() != spatial) {
    if (!window.empty()) return nullptr;
    window.assign(spatial, WindowDimension{});  // no window (or "{}"): size 1 everywhere
  }
  std::int64_t fgc = 1, bgc = 1;
  if (const std::string_view g = ins.attribute("feature_group_count"); !g.empty() && !parse_int(g, &fgc)) return nullptr;
  if (const std::string_view g = ins.attribute("batch_group_count"); !g.empty() && !parse_int(g, &bgc)) return nullptr;
  if (fgc < 1 || bgc < 1) return nullptr;
  return store_one(arena, ConvolutionAttributes{
      .dims = {.input_batch = d.input_batch,
               .input_feature = d.input_feature,
               .input_spatial = store(arena, d.input_spatial),
               .kernel_input_feature = d.kernel_input_feature,
               .kernel_output_feature = d.kernel_output_feature,
               .kernel_spatial = store(arena, d.kernel_spatial),
               .output_batch = d.output_batch,
               .output_feature = d.output_feature,
               .output_spatial = store(arena, d.output_spatial)},
      .window = arena.store_array(std::span<const WindowDimension>(window)),
      .feature_group_count = fgc,
      .batch_group_count = bgc});
}

// reduce-window, select-and-scatter: empty when absent or unreadable.
std::span<const WindowDimension> read_window(const HloInstruction& ins, StringArena& arena) {
  WindowList w;
  if (!parse_window(ins.attribute("window"), &w)) return {};
  return arena.store_array(std::span<const WindowDimension>(w));
}

std::optional<std::span<const std::int64_t>> read_int_list(const HloInstruction& ins, std::string_view key,
                                                           StringArena& arena) {
  IntList v;
  if (!parse_int_list(ins.attribute(key), &v)) return std::nullopt;
  return store(arena, v);
}

// replica_groups, channel_id, use_global_device_ids, is_host_transfer and,
// for a permute, source_target_pairs.
void read_collective(const HloInstruction& ins, HloOpcode op, StringArena& arena, HloTypedAttributes* t) {
  const std::string_view groups = ins.attribute("replica_groups");
  // Not written: all devices, like {}.
  t->replica_groups = groups.empty() ? ReplicaGroupSizes{} : read_replica_group_sizes(groups);
  std::int64_t channel = 0;
  if (parse_int(ins.attribute("channel_id"), &channel)) t->channel_id = channel;
  t->use_global_device_ids = ins.attribute("use_global_device_ids") == "true";
  t->is_host_transfer = ins.attribute("is_host_transfer") == "true";
  if (op != HloOpcode::kCollectivePermute && op != HloOpcode::kCollectivePermuteStart) return;
  IntList values, starts;
  if (!read_int_lists(ins.attribute("source_target_pairs"), &values, &starts)) return;
  const std::span<const std::int64_t> stored = store(arena, values);
  absl::InlinedVector<std::span<const std::int64_t>, 8> pairs;
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const auto begin = static_cast<std::size_t>(starts[k]);
    const std::size_t end = k + 1 < starts.size() ? static_cast<std::size_t>(starts[k + 1]) : values.size();
    pairs.push_back(stored.subspan(begin, end - begin));
  }
  t->source_target_pairs = arena.store_array(std::span<const std::span<const std::int64_t>>(pairs));
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

CustomCallKind custom_call_kind(std::string_view t) {
  if (t == "Sharding" || t == "SPMDFullToShardShape" || t == "SPMDShardToFullShape" || t == "MoveToHost" ||
      t == "MoveToDevice" || t == "AllocateBuffer" || t == "annotate_device_placement" || t == "LayoutConstraint" ||
      t == "ShardBarrierFrom" || t == "ShardBarrierTo")
    return CustomCallKind::kAnnotation;
  // XLA on ROCm emits the cuBLAS names for hipBLASLt calls.
  if (starts_with(t, "__cublas$gemm") || starts_with(t, "__cublas$lt$matmul") || starts_with(t, "__rocblas$gemm") ||
      starts_with(t, "__hipblaslt$matmul"))
    return CustomCallKind::kGemm;
  if (starts_with(t, "__cudnn$conv") || starts_with(t, "__miopen$conv")) {
    if (t.find("BackwardInput") != std::string_view::npos) return CustomCallKind::kConvolutionBackwardInput;
    if (t.find("BackwardFilter") != std::string_view::npos) return CustomCallKind::kConvolutionBackwardFilter;
    return CustomCallKind::kConvolutionForward;
  }
  if (t == "__cub$DeviceRadixSort") return CustomCallKind::kRadixSort;
  return CustomCallKind::kOther;
}

void read_custom_call(const HloInstruction& ins, StringArena& arena, HloTypedAttributes* t) {
  std::string_view target = ins.attribute("custom_call_target");
  if (target.size() >= 2 && target.front() == '"') target = target.substr(1, target.size() - 2);
  t->custom_call_target = target;
  t->custom_call_kind = custom_call_kind(target);
  switch (t->custom_call_kind) {
    case CustomCallKind::kGemm: t->dot_dimensions = read_gemm_dot(ins, arena); break;
    case CustomCallKind::kConvolutionForward:
    case CustomCallKind::kConvolutionBackwardInput:
    case CustomCallKind::kConvolutionBackwardFilter: t->convolution = read_convolution(ins, arena); break;
    default: break;
  }
}

FusionKind fusion_kind(std::string_view kind) {
  if (kind == "kLoop") return FusionKind::kLoop;
  if (kind == "kInput") return FusionKind::kInput;
  if (kind == "kOutput") return FusionKind::kOutput;
  if (kind == "kCustom") return FusionKind::kCustom;
  return FusionKind::kOther;
}

// A fusion's only typed attribute is its kind: every fusion of a kind shares
// one constant, so a module of 40,000 fusions stores five.
constexpr HloTypedAttributes fusion_of(FusionKind kind) {
  HloTypedAttributes t;
  t.fusion_kind = kind;
  return t;
}
constexpr HloTypedAttributes kFusionOf[] = {
    fusion_of(FusionKind::kOther),  fusion_of(FusionKind::kLoop),   fusion_of(FusionKind::kInput),
    fusion_of(FusionKind::kOutput), fusion_of(FusionKind::kCustom),
};

// The op whose attributes an instruction carries: for async sugar
// (reduce-scatter-start) the wrapped one.
HloOpcode attribute_op(const HloInstruction& i) {
  return i.opcode == HloOpcode::kAsyncStart && i.wrapped_opcode != HloOpcode::kUnknown ? i.wrapped_opcode : i.opcode;
}

// Whether the cost model reads any attribute of `op` (as the op an
// instruction performs; while, fusion and custom-call only as themselves).
bool has_typed_attributes(const HloInstruction& i, HloOpcode op) {
  switch (op) {
    case HloOpcode::kDot: case HloOpcode::kConvolution: case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter: case HloOpcode::kTranspose: case HloOpcode::kFft:
      return true;
    case HloOpcode::kWhile: case HloOpcode::kCustomCall:
      return i.opcode == op;
    default:
      return is_collective(op) && !is_async_tail(op);
  }
}

}  // namespace

void read_typed_attributes(HloInstruction& ins, StringArena& arena) {
  if (ins.opcode == HloOpcode::kFusion) {
    ins.typed = &kFusionOf[static_cast<std::size_t>(fusion_kind(ins.attribute("kind")))];
    return;
  }
  const HloOpcode op = attribute_op(ins);
  if (!has_typed_attributes(ins, op)) {
    ins.typed = &kNoTypedAttributes;
    return;
  }
  HloTypedAttributes t;
  switch (op) {
    case HloOpcode::kDot: t.dot_dimensions = read_dot(ins, arena); break;
    case HloOpcode::kConvolution: t.convolution = read_convolution(ins, arena); break;
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter: t.window = read_window(ins, arena); break;
    case HloOpcode::kTranspose: t.dimensions = read_int_list(ins, "dimensions", arena); break;
    case HloOpcode::kFft: {
      IntList lengths;  // kept up to a malformed entry (the result is ignored on purpose)
      parse_int_list(ins.attribute("fft_length"), &lengths);
      t.fft_length = store(arena, lengths);
      break;
    }
    case HloOpcode::kWhile: t.known_trip_count = backend_config_trip_count(ins.attribute("backend_config")); break;
    case HloOpcode::kCustomCall: read_custom_call(ins, arena, &t); break;
    default: read_collective(ins, op, arena, &t); break;
  }
  ins.typed = store_one(arena, t);
}

}  // namespace detail

// ---- equality --------------------------------------------------------------

namespace {

template <class T>
bool same(std::span<const T> a, std::span<const T> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

template <class T>
bool same(const std::optional<T>& a, const std::optional<T>& b) {
  return a.has_value() == b.has_value() && (!a || same(*a, *b));
}

template <class T>
bool same_pointee(const T* a, const T* b) {
  return a == nullptr ? b == nullptr : b != nullptr && *a == *b;
}

bool same_pairs(std::span<const std::span<const std::int64_t>> a, std::span<const std::span<const std::int64_t>> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (!same(a[k], b[k])) return false;
  return true;
}

}  // namespace

bool operator==(const DotDimensionNumbers& a, const DotDimensionNumbers& b) {
  return same(a.lhs_batch, b.lhs_batch) && same(a.lhs_contracting, b.lhs_contracting) &&
         same(a.rhs_batch, b.rhs_batch) && same(a.rhs_contracting, b.rhs_contracting);
}

bool operator==(const ConvolutionDimensionNumbers& a, const ConvolutionDimensionNumbers& b) {
  return a.input_batch == b.input_batch && a.input_feature == b.input_feature &&
         same(a.input_spatial, b.input_spatial) && a.kernel_input_feature == b.kernel_input_feature &&
         a.kernel_output_feature == b.kernel_output_feature && same(a.kernel_spatial, b.kernel_spatial) &&
         a.output_batch == b.output_batch && a.output_feature == b.output_feature &&
         same(a.output_spatial, b.output_spatial);
}

bool operator==(const ConvolutionAttributes& a, const ConvolutionAttributes& b) {
  return a.dims == b.dims && same(a.window, b.window) && a.feature_group_count == b.feature_group_count &&
         a.batch_group_count == b.batch_group_count;
}

bool operator==(const HloTypedAttributes& a, const HloTypedAttributes& b) {
  return same_pointee(a.dot_dimensions, b.dot_dimensions) && same_pointee(a.convolution, b.convolution) &&
         same(a.window, b.window) &&
         same(a.dimensions, b.dimensions) && same(a.fft_length, b.fft_length) &&
         a.replica_groups == b.replica_groups && a.channel_id == b.channel_id &&
         a.use_global_device_ids == b.use_global_device_ids && a.is_host_transfer == b.is_host_transfer &&
         a.source_target_pairs.has_value() == b.source_target_pairs.has_value() &&
         (!a.source_target_pairs || same_pairs(*a.source_target_pairs, *b.source_target_pairs)) &&
         a.known_trip_count == b.known_trip_count && a.fusion_kind == b.fusion_kind &&
         a.custom_call_target == b.custom_call_target && a.custom_call_kind == b.custom_call_kind;
}

}  // namespace roofline
