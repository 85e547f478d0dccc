// The checked entry points: each checks what the header-only model takes as
// a precondition and says which is broken, then runs the model.
#include "roofline/sharding/checked.hpp"

#include <algorithm>
#include <optional>
#include <iterator>
#include <set>
#include <utility>

#include "roofline/detail/cat.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/parse.hpp"

namespace roofline {
namespace {

bool overlaps(AxisMask a, AxisMask b) { return (a & b) != 0; }

// An operand of the expression with its subscripts resolved on the mesh;
// errors point at the dim's column.
absl::StatusOr<ShardedArray> resolve(const ShardedOperand& op, const Mesh& mesh,
                                const std::map<std::string, std::int64_t>& sizes) {
  ShardedArray out;
  out.name = op.name;
  for (const ShardedDim& d : op.dims) {
    std::vector<int> axes;
    if (!d.subscript.empty()) {
      absl::StatusOr<std::vector<int>> r = resolve_axes(mesh, d.subscript);
      if (!r.ok())
        return absl::InvalidArgumentError(detail::cat("expression:1:", d.column, ": ", std::string(r.status().message())));
      axes = *r;
    }
    for (int a : axes)
      for (std::size_t j = 0; j < out.axes.size(); ++j)
        if (std::find(out.axes[j].begin(), out.axes[j].end(), a) != out.axes[j].end())
          return absl::InvalidArgumentError(detail::cat(
              "expression:1:", d.column, ": ", op.name, " shards dims ", out.dims[j], " and ", d.name,
              " over the same mesh axis ", mesh.axes[static_cast<std::size_t>(a)].name,
              " (a mesh axis can shard one dim of an array)"));
    auto it = sizes.find(d.name);
    if (it == sizes.end())
      return absl::InvalidArgumentError(detail::cat("expression:1:", d.column, ": no size given for dim '", d.name,
                                                    "' (--dims ", d.name, "=...)"));
    double n = 1;
    for (int a : axes) n *= mesh.axes[static_cast<std::size_t>(a)].size;
    if (it->second <= 0)
      return absl::InvalidArgumentError(detail::cat("dim ", d.name, "=", it->second, " must be positive"));
    if (it->second % static_cast<std::int64_t>(n) != 0)
      return absl::InvalidArgumentError(detail::cat("expression:1:", d.column, ": dim ", d.name, "=", it->second,
                                                    " does not divide evenly over its ", static_cast<long long>(n),
                                                    " shards"));
    out.dims.push_back(d.name);
    out.axes.push_back(std::move(axes));
  }
  return out;
}

// sharded_matmul()'s preconditions on the dims: every --dims entry is used,
// no operand has more elements than a double counts exactly (and a Matmul
// holds), the result names the dims the contraction leaves, and something
// is contracted.
absl::Status check_dims(const MatmulExpression& expr, const ShardedMatmulSpec& spec,
                        const detail::sharded::Roles& roles) {
  using detail::sharded::find_dim;
  for (const auto& [name, size] : spec.sizes) {
    (void)size;
    if (find_dim(spec.lhs, name) < 0 && find_dim(spec.rhs, name) < 0)
      return absl::InvalidArgumentError(detail::cat("--dims names '", name, "', which the expression does not use"));
  }
  // Element counts stay exact in a double and fit the int64 of Matmul.
  constexpr double kMaxElements = 9007199254740992.0;  // 2^53
  for (const ShardedArray* op : {&spec.lhs, &spec.rhs}) {
    double n = 1;
    for (const std::string& d : op->dims) n *= static_cast<double>(spec.sizes.at(d));
    if (n > kMaxElements) return absl::InvalidArgumentError(detail::cat(op->name, " has more than 2^53 elements"));
  }
  if (spec.out) {
    const std::set<std::string> want(spec.out->dims.begin(), spec.out->dims.end());
    const std::set<std::string> have(roles.result_dims.begin(), roles.result_dims.end());
    if (want != have) {
      std::string listed;
      for (const std::string& d : roles.result_dims) listed += detail::cat(listed.empty() ? "" : ", ", d);
      return absl::InvalidArgumentError(detail::cat("expression:1:", expr.out->column, ": the result ",
                                                    to_string(*expr.out), " must have the dims [", listed,
                                                    "] left after contracting the operands"));
    }
  }
  bool any_contract = false;
  for (const auto& [d, r] : roles.of) any_contract = any_contract || r == detail::sharded::Role::kContract;
  if (!any_contract)
    return absl::InvalidArgumentError(detail::cat("expression:1:", expr.rhs.column, ": ", expr.lhs.name, " and ",
                                                  expr.rhs.name, " share no dim to contract"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Mesh> make_mesh(std::vector<MeshAxis> axes, const Chip& chip, std::span<const int> slice_shape) {
  std::string why;
  std::optional<Mesh> mesh = lay_out_mesh(std::move(axes), chip, &why, slice_shape);
  if (!mesh) return absl::InvalidArgumentError(why);
  return *std::move(mesh);
}

absl::Status check_mesh_chip(const Mesh& mesh, const Chip& chip) {
  if (mesh.chip_name == chip.name) return absl::OkStatus();
  std::string axes;
  for (const MeshAxis& a : mesh.axes)
    axes += detail::cat(axes.empty() ? "" : ",", a.name, "=", a.size, a.network == AxisNetwork::kDcn ? ":dcn" : "");
  return absl::InvalidArgumentError(detail::cat(
      "mesh ", axes, " was laid on ", mesh.chip_name.empty() ? std::string("no chip") : mesh.chip_name,
      ", not on ", chip.name, ": a mesh carries its chip's link figures; make it for ", chip.name,
      " (make_mesh or parse_mesh with that chip)"));
}

absl::StatusOr<CollectiveTime> collective_time(const Mesh& mesh, CollectiveKind kind, std::string_view axes,
                                               double v_bytes, int shift) {
  if (!(v_bytes >= 0)) return absl::InvalidArgumentError(detail::cat("array bytes must be >= 0, got ", v_bytes));
  absl::StatusOr<std::vector<int>> idx = resolve_axes(mesh, axes);
  if (!idx.ok()) return idx.status();
  return collective_time(mesh, kind, mask_of(*idx), v_bytes, shift);
}

absl::StatusOr<ShardedMatmul> predict_sharded_matmul(const MatmulExpression& expr, const Mesh& mesh,
                                                     const Chip& chip,
                                                     const std::map<std::string, std::int64_t>& dims,
                                                     DType dtype) {
  if (absl::Status s = check_mesh_chip(mesh, chip); !s.ok()) return s;
  if (!chip.has(dtype))
    return absl::InvalidArgumentError(detail::cat(chip.name, " has no ", peak_class_name(peak_class(dtype)), " peak"));
  ShardedMatmulSpec spec;
  spec.sizes = dims;
  spec.dtype = dtype;
  absl::StatusOr<ShardedArray> lhs = resolve(expr.lhs, mesh, dims);
  if (!lhs.ok()) return lhs.status();
  spec.lhs = *std::move(lhs);
  absl::StatusOr<ShardedArray> rhs = resolve(expr.rhs, mesh, dims);
  if (!rhs.ok()) return rhs.status();
  spec.rhs = *std::move(rhs);
  if (expr.out) {
    absl::StatusOr<ShardedArray> out = resolve(*expr.out, mesh, dims);
    if (!out.ok()) return out.status();
    spec.out = *std::move(out);
  }
  const detail::sharded::Roles roles = detail::sharded::dim_roles(spec.lhs, spec.rhs, spec.out);
  if (absl::Status s = check_dims(expr, spec, roles); !s.ok()) return s;
  const std::size_t candidates = detail::sharded::gather_candidates(spec.lhs, spec.rhs, roles, mesh).size();
  if (candidates > detail::sharded::kMaxCandidateAxes)
    return absl::InvalidArgumentError(detail::cat("the expression shards contracting or shared dims over ",
                                                  candidates, " mesh axes; at most ",
                                                  detail::sharded::kMaxCandidateAxes, " are enumerated"));
  ShardedMatmul res = sharded_matmul(spec, mesh, chip);
  if (res.strategies.empty())
    return absl::InvalidArgumentError(detail::cat("no valid way to multiply ", to_string(expr.lhs), " @ ",
                                                  to_string(expr.rhs), " on this mesh"));
  return res;
}

absl::Status validate(const ModelConfig& m) {
  if (m.layers <= 0 || m.d_model <= 0 || m.d_ff <= 0 || m.heads <= 0 || m.kv_heads <= 0 || m.head_dim <= 0 ||
      m.vocab <= 0 || m.seq_len <= 0)
    return absl::InvalidArgumentError(detail::cat("model ", m.name, ": every size must be positive"));
  if (m.heads % m.kv_heads != 0)
    return absl::InvalidArgumentError(
        detail::cat("model ", m.name, ": kv_heads (", m.kv_heads, ") must divide heads (", m.heads, ")"));
  return absl::OkStatus();
}

namespace {

// Kept state (master weights, gradients, optimizer moments) is stored in a
// floating-point type of whole bytes: an integer or sub-byte type there is
// a slip, not a choice the model can cost.
bool is_state_dtype(DType t) {
  switch (t) {
    case DType::kF16: case DType::kBF16: case DType::kF32: case DType::kF64:
    case DType::kF8E3M4: case DType::kF8E4M3: case DType::kF8E4M3FN: case DType::kF8E4M3B11FNUZ:
    case DType::kF8E4M3FNUZ: case DType::kF8E5M2: case DType::kF8E5M2FNUZ: return true;
    default: return false;
  }
}

absl::Status validate_training_dtypes(const TrainingDTypes& d) {
  const std::pair<const char*, DType> kept[] = {{"params", d.params}, {"grads", d.grads}, {"optimizer", d.optimizer}};
  for (const auto& [what, t] : kept)
    if (!is_state_dtype(t))
      return absl::InvalidArgumentError(detail::cat("training dtypes: ", what, " is ", dtype_name(t),
                                                    "; expected a floating-point type (f32, bf16, f16, f8...)"));
  if (d.optimizer_states < 0)
    return absl::InvalidArgumentError(
        detail::cat("training dtypes: the optimizer keeps >= 0 states per parameter, not ", d.optimizer_states));
  return absl::OkStatus();
}

}  // namespace

absl::Status validate_training_step(const ModelConfig& model, const Chip& chip, const Mesh& mesh,
                                    const ParallelLayout& lay, const TrainingConfig& cfg) {
  if (absl::Status s = validate(model); !s.ok()) return s;
  if (absl::Status s = check_mesh_chip(mesh, chip); !s.ok()) return s;
  if (!chip.has(cfg.dtypes.compute))
    return absl::InvalidArgumentError(
        detail::cat(chip.name, " has no ", peak_class_name(peak_class(cfg.dtypes.compute)), " peak"));
  const AxisMask all = mesh.all_axes();
  if ((lay.data | lay.fsdp | lay.model) & ~all)
    return absl::InvalidArgumentError("layout names axes the mesh does not have");
  if (overlaps(lay.data, lay.model))
    return absl::InvalidArgumentError("a mesh axis cannot be both a data and a tensor-parallel axis");
  if (lay.fsdp & ~lay.data) return absl::InvalidArgumentError("FSDP axes must also be data axes");
  int stages = 1;
  if (lay.pipeline_axis >= 0) {
    if (lay.pipeline_axis >= static_cast<int>(mesh.axes.size()))
      return absl::InvalidArgumentError("the pipeline axis is not a mesh axis");
    const AxisMask pm = AxisMask{1} << lay.pipeline_axis;
    if (overlaps(pm, lay.data | lay.model))
      return absl::InvalidArgumentError("the pipeline axis cannot also be a data or tensor-parallel axis");
    stages = mesh.axes[static_cast<std::size_t>(lay.pipeline_axis)].size;
  }
  if (model.layers % stages != 0)
    return absl::InvalidArgumentError(
        detail::cat(stages, " pipeline stages do not divide the model's ", model.layers, " layers"));
  if (cfg.microbatches < 1) return absl::InvalidArgumentError("microbatches must be >= 1");
  if (stages == 1 && cfg.microbatches != 1)
    return absl::InvalidArgumentError("microbatches apply to a pipeline; without one use 1");
  const std::int64_t seq = cfg.seq_len > 0 ? cfg.seq_len : model.seq_len;
  if (cfg.batch_tokens <= 0 || cfg.batch_tokens % seq != 0)
    return absl::InvalidArgumentError(
        detail::cat("the batch of ", cfg.batch_tokens, " tokens is not a whole number of ", seq, "-token sequences"));
  const std::int64_t sequences = cfg.batch_tokens / seq;
  const int x = mesh.size(lay.data);
  if (sequences % (static_cast<std::int64_t>(x) * cfg.microbatches) != 0)
    return absl::InvalidArgumentError(detail::cat(sequences, " sequences do not split evenly over ", x,
                                                  " data shards x ", cfg.microbatches, " microbatches"));
  const int y = mesh.size(lay.model);
  if (model.heads % y != 0 || model.d_ff % y != 0 || model.d_model % y != 0)
    return absl::InvalidArgumentError(detail::cat(y, "-way tensor parallelism needs heads (", model.heads,
                                                  "), d_ff and d_model divisible by ", y));
  if (model.kv_heads % y != 0 && y % model.kv_heads != 0)
    return absl::InvalidArgumentError(
        detail::cat(y, "-way tensor parallelism and ", model.kv_heads, " kv heads: one must divide the other"));
  if (absl::Status s = validate_training_dtypes(cfg.dtypes); !s.ok()) return s;
  if (std::find(std::begin(kAllRemats), std::end(kAllRemats), cfg.remat) == std::end(kAllRemats))
    return absl::InvalidArgumentError(
        detail::cat("remat policy ", static_cast<int>(cfg.remat), " is none of ", kRematPolicyNames));
  if (offloads_to_host(cfg.remat) && !(chip.pcie_bytes_per_s > 0))
    return absl::InvalidArgumentError(
        detail::cat("remat ", remat_name(cfg.remat), " needs a host link: ", chip.name, " has no pcie_bytes_per_s"));
  return absl::OkStatus();
}

absl::StatusOr<TrainingStep> predict_training_step(const ModelConfig& model, const Chip& chip, const Mesh& mesh,
                                                   const ParallelLayout& layout, const TrainingConfig& config,
                                                   const ChipCalibration* calibration) {
  if (absl::Status s = validate_training_step(model, chip, mesh, layout, config); !s.ok()) return s;
  return training_step(model, chip, mesh, layout, config, calibration);
}

}  // namespace roofline
