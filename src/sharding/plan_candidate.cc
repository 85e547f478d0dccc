// The texts of a plan candidate, the ranking rule, and the words of a
// rejection (roofline/sharding/planner.hpp).
#include <tuple>

#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/planner.hpp"
#include "src/sharding/planner_detail.hpp"

namespace roofline {

std::string mesh_text(std::span<const MeshAxis> axes) {
  std::string s;
  for (const MeshAxis& a : axes)
    s += detail::cat(s.empty() ? "" : ",", a.name, "=", a.size, a.network == AxisNetwork::kDcn ? ":dcn" : "");
  return s;
}

std::string mesh_text(const Mesh& mesh) { return mesh_text(std::span<const MeshAxis>(mesh.axes)); }

std::string layout_text(std::span<const MeshAxis> axes, const ParallelLayout& layout) {
  std::string out;
  const auto role = [&](const char* name, AxisMask mask) {
    std::string names;
    for (std::size_t i = 0; i < axes.size() && i < kMaxMeshAxes; ++i)
      if (mask & (AxisMask{1} << i)) names += detail::cat(names.empty() ? "" : ",", axes[i].name);
    if (!names.empty()) out += detail::cat(out.empty() ? "" : " ", name, "=", names);
  };
  role("fsdp", layout.fsdp);
  role("dp", layout.data & ~layout.fsdp);
  role("tp", layout.model);
  if (layout.pipeline_axis >= 0 && layout.pipeline_axis < static_cast<int>(axes.size()))
    role("pp", AxisMask{1} << layout.pipeline_axis);
  return out;
}

std::string layout_text(const Mesh& mesh, const ParallelLayout& layout) {
  return layout_text(std::span<const MeshAxis>(mesh.axes), layout);
}

std::string strategy_name(const PlanCandidate& c) { return strategy_name(c.mesh, c.layout, c.microbatches); }

int slice_count(const Mesh& mesh) {
  int n = 1;
  for (const MeshAxis& a : mesh.axes)
    if (a.network == AxisNetwork::kDcn) n *= a.size;
  return n;
}

int pipeline_stages(const Mesh& mesh, const ParallelLayout& layout) {
  if (layout.pipeline_axis < 0 || layout.pipeline_axis >= static_cast<int>(mesh.axes.size())) return 1;
  return mesh.axes[static_cast<std::size_t>(layout.pipeline_axis)].size;
}

bool plan_order(const PlanCandidate& a, const PlanCandidate& b) {
  const auto numbers = [](const PlanCandidate& c) {
    return std::make_tuple(ranking_time_s(c.step), c.step.step_time_s, c.step.roofline.t_upper_s,
                           c.step.memory.total_bytes, slice_count(c.mesh), pipeline_stages(c.mesh, c.layout));
  };
  if (numbers(a) != numbers(b)) return numbers(a) < numbers(b);
  const std::string ma = mesh_text(a.mesh), mb = mesh_text(b.mesh);
  if (ma != mb) return ma < mb;
  const std::string la = layout_text(a.mesh, a.layout), lb = layout_text(b.mesh, b.layout);
  if (la != lb) return la < lb;
  return std::tie(a.remat, a.microbatches) < std::tie(b.remat, b.microbatches);
}

std::string_view reject_kind_name(RejectKind k) {
  switch (k) {
    case RejectKind::kMemory: return "memory";
    case RejectKind::kConstraint: return "constraint";
    case RejectKind::kShape: return "shape";
  }
  return "shape";
}

namespace detail {

absl::Status check_request(const PlanRequest& req) {
  if (absl::Status s = validate(req.model); !s.ok()) return s;
  if (req.chips < 1) return absl::InvalidArgumentError(cat("chips must be >= 1, got ", req.chips));
  if (req.batch_tokens < 1)
    return absl::InvalidArgumentError(cat("the batch must have >= 1 token, got ", req.batch_tokens));
  if (!req.chip.has(req.dtypes.compute))
    return absl::InvalidArgumentError(
        cat(req.chip.name, " has no ", peak_class_name(peak_class(req.dtypes.compute)), " peak"));
  const std::int64_t seq = plan_seq_len(req);
  if (req.batch_tokens % seq != 0)
    return absl::InvalidArgumentError(
        cat("the batch of ", req.batch_tokens, " tokens is not a whole number of ", seq, "-token sequences"));
  const PlanConstraints& c = req.constraints;
  if (c.slices < 0) return absl::InvalidArgumentError(cat("slices must be >= 0 (0: chosen), got ", c.slices));
  if (c.max_pipeline_stages < 0)
    return absl::InvalidArgumentError(
        cat("the pipeline stage cap must be >= 0 (0: none), got ", c.max_pipeline_stages));
  if (c.max_microbatches < 0)
    return absl::InvalidArgumentError(cat("the microbatch cap must be >= 0 (0: none), got ", c.max_microbatches));
  for (int d : c.slice_shape)
    if (d < 1) return absl::InvalidArgumentError(cat("slice shape dimensions must be >= 1, got ", d));
  return absl::OkStatus();
}

ChipCalibration calibration_for(const PlanRequest& req) {
  return req.calibration ? *req.calibration : default_calibration(req.chip);
}

std::string memory_reason(const MemoryPerChip& m, Remat remat) {
  // A step just over the HBM would read "needs 102 GB of 102 GB" at three
  // digits: more digits until the two differ.
  int digits = 3;
  while (digits < 9 && format_si(m.total_bytes, "B", digits) == format_si(m.hbm_bytes, "B", digits)) ++digits;
  std::string s = cat("needs ", format_si(m.total_bytes, "B", digits), " of ", format_si(m.hbm_bytes, "B", digits),
                      " HBM: weights, gradients and optimizer ",
                      format_bytes(m.params_bytes + m.grads_bytes + m.optimizer_bytes), ", activations ",
                      format_bytes(m.activations_bytes), " (remat ", remat_name(remat), ")");
  if (m.gathered_weights_bytes > 0) s += cat(", gathered FSDP weights ", format_bytes(m.gathered_weights_bytes));
  return s;
}

std::string stages_reason(int stages, const PlanConstraints& c) {
  if (c.max_pipeline_stages == 0 || stages <= c.max_pipeline_stages) return "";
  if (c.max_pipeline_stages == 1) return cat(stages, " pipeline stages; pipelining is off (--no-pp)");
  return cat(stages, " pipeline stages > the cap of ", c.max_pipeline_stages, " (--max-pp)");
}

std::string microbatches_reason(int microbatches, const PlanConstraints& c) {
  if (c.max_microbatches == 0 || microbatches <= c.max_microbatches) return "";
  return cat(microbatches, " microbatches > the cap of ", c.max_microbatches, " (--max-microbatches)");
}

CriticalBatch critical_of(const PlanRequest& req, const Mesh& mesh, const ParallelLayout& layout) {
  AxisMask dcn = 0;
  for (std::size_t i = 0; i < mesh.axes.size() && i < kMaxMeshAxes; ++i)
    if (mesh.axes[i].network == AxisNetwork::kDcn) dcn |= AxisMask{1} << i;
  return critical_batch(req.chip, mesh, layout.data & ~dcn, layout.model, layout.data & dcn, req.model.d_ff,
                        req.dtypes.compute);
}

}  // namespace detail
}  // namespace roofline
