// One given layout, predicted and checked as the planner checks its own
// (roofline/sharding/planner.hpp).
#include <algorithm>

#include "roofline/detail/cat.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/planner.hpp"
#include "src/sharding/planner_detail.hpp"

namespace roofline {

absl::StatusOr<LayoutEvaluation> evaluate_layout(const PlanRequest& req, const Mesh& mesh,
                                                 const ParallelLayout& layout, Remat remat, int microbatches) {
  using detail::cat;
  if (absl::Status s = detail::check_request(req); !s.ok()) return s;
  if (mesh.device_count() != req.chips)
    return absl::InvalidArgumentError(
        cat("the mesh ", mesh_text(mesh), " has ", mesh.device_count(), " chips, the request ", req.chips));
  const TrainingConfig cfg{.batch_tokens = req.batch_tokens,
                           .seq_len = plan_seq_len(req),
                           .dtypes = req.dtypes,
                           .remat = remat,
                           .mask = req.mask,
                           .attention = req.attention,
                           .microbatches = microbatches};
  if (absl::Status s = validate_training_step(req.model, req.chip, mesh, layout, cfg); !s.ok()) return s;
  const ChipCalibration cal = detail::calibration_for(req);
  LayoutEvaluation ev{.candidate = {.mesh = mesh,
                                    .layout = layout,
                                    .remat = remat,
                                    .microbatches = microbatches,
                                    .step = training_step(req.model, req.chip, mesh, layout, cfg, &cal),
                                    .critical = detail::critical_of(req, mesh, layout)},
                      .fits = false,
                      .reason = {}};
  // Every reason it would not be ranked, the memory first.
  std::vector<std::string> reasons;
  const MemoryPerChip& m = ev.candidate.step.memory;
  if (!m.fits) reasons.push_back(detail::memory_reason(m, remat));
  const PlanConstraints& c = req.constraints;
  if (c.slices > 0 && slice_count(mesh) != c.slices)
    reasons.push_back(cat(slice_count(mesh), " slices across DCN, not the ", c.slices, " asked (--slices)"));
  if (std::string r = detail::stages_reason(pipeline_stages(mesh, layout), c); !r.empty()) reasons.push_back(r);
  if (std::string r = detail::microbatches_reason(microbatches, c); !r.empty()) reasons.push_back(r);
  if (!c.remat.empty() && std::find(c.remat.begin(), c.remat.end(), remat) == c.remat.end())
    reasons.push_back(cat("remat ", remat_name(remat), " is not among the policies allowed"));
  ev.fits = reasons.empty();
  for (const std::string& r : reasons) ev.reason += cat(ev.reason.empty() ? "" : "; ", r);
  return ev;
}

}  // namespace roofline
