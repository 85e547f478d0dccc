// target_time(): the method per op (roofline/match/target.hpp).
#include "roofline/match/target.hpp"

#include <cmath>
#include <variant>

namespace roofline {
namespace {

// A kernel of the same code on both chips: memory-bound by its class, a
// kernel of its own (not the wait of an async transfer, not a launch or a
// loop's bookkeeping).
bool same_kernel_on_both(const MatchedOp& op) {
  if (op.cost_class != CostClass::kMemory || op.cost.async_done || !op.cost.model) return false;
  return !std::holds_alternative<AsyncStartModel>(*op.cost.model) &&
         !std::holds_alternative<LoopContainerModel>(*op.cost.model);
}

}  // namespace

TargetTime target_time(const MatchedOp& op, const Chip& from, const Chip& to, double modelled_s) {
  const TargetTime modelled{.t_s = modelled_s, .method = TargetMethod::kModelled};
  const std::int64_t count = op.group.count();
  if (count <= 0 || op.group.self_ps <= 0 || !op.prediction || !op.target_prediction) return modelled;
  const double measured_s = static_cast<double>(op.group.self_ps) * 1e-12 / static_cast<double>(count);
  if (from.name == to.name) return {.t_s = measured_s, .method = TargetMethod::kMeasured};
  // Habitat's evidence: NVIDIA GPUs running the same kernel binary's
  // source. A TPU runs what XLA compiled for it, another vendor's GPU its
  // own libraries: modelled there.
  if (from.kind != ChipKind::kGpu || to.kind != ChipKind::kGpu || from.vendor != to.vendor) return modelled;
  if (!same_kernel_on_both(op)) return modelled;
  const Prediction& p = *op.prediction;
  const ScaledTime scaled =
      wave_scale({.measured_s = measured_s, .flops = p.flops, .hbm_bytes = p.hbm_bytes, .dtype = p.dtype}, from, to);
  if (!std::isfinite(scaled.t_s)) return modelled;
  return {.t_s = scaled_time_s(scaled, measured_s, op.target_prediction->t_lower_s, to),
          .method = TargetMethod::kScaled};
}

}  // namespace roofline
