// The JSON of a plan and of one evaluated layout (roofline/report/plan.hpp);
// keys in docs/json.md and docs/planner.md.
#include <string>

#include "roofline/report/json.hpp"
#include "roofline/report/plan.hpp"
#include "roofline/sharding/model_config.hpp"

namespace roofline {
namespace {

// A time of 0 (a step with no work) is null, never a figure.
Json known(double v) { return v > 0 ? Json(v) : Json(); }

Json memory_json(const MemoryPerChip& m) {
  return Json::object({{"params_bytes", m.params_bytes},
                       {"grads_bytes", m.grads_bytes},
                       {"optimizer_bytes", m.optimizer_bytes},
                       {"gathered_weights_bytes", m.gathered_weights_bytes},
                       {"activations_bytes", m.activations_bytes},
                       {"activations_no_remat_bytes", m.activations_no_remat_bytes},
                       {"activations_remat_bytes", m.activations_remat_bytes},
                       {"host_activations_bytes", m.host_activations_bytes},
                       {"total_bytes", m.total_bytes},
                       {"hbm_bytes", m.hbm_bytes},
                       {"fits", m.fits}});
}

Json critical_batch_json(const CriticalBatch& c) {
  return Json::object({{"data_parallel_tokens_per_chip", c.data_parallel_tokens_per_chip},
                       {"tensor_parallel_max_ways", c.tensor_parallel_max_ways},
                       {"fsdp_tp_tokens_per_chip", c.fsdp_tp_tokens_per_chip},
                       {"dcn_tokens_per_slice", c.dcn_tokens_per_slice}});
}

// What was asked: the model, chips, batch and constraints.
Json request_json(const PlanRequest& req) {
  const PlanConstraints& c = req.constraints;
  Json remats = Json::array();
  for (Remat r : c.remat) remats.push_back(remat_name(r));
  Json shape = Json::array();
  for (int d : c.slice_shape) shape.push_back(d);
  return Json::object(
      {{"model", req.model.name},
       {"params", total_params(req.model)},
       {"chip", req.chip.name},
       {"chips", req.chips},
       {"batch_tokens", req.batch_tokens},
       {"seq_len", plan_seq_len(req)},
       {"dtype", dtype_name(req.dtypes.compute)},
       {"attention", attention_kernel_name(req.attention)},
       {"calibration", req.calibration ? req.calibration->origin : default_calibration(req.chip).origin},
       {"constraints", Json::object({{"slices", c.slices > 0 ? Json(c.slices) : Json()},
                                     {"remat", std::move(remats)},
                                     {"max_pipeline_stages", c.max_pipeline_stages > 0 ? Json(c.max_pipeline_stages) : Json()},
                                     {"slice_shape", std::move(shape)},
                                     {"max_microbatches", c.max_microbatches > 0 ? Json(c.max_microbatches) : Json()}})}});
}

}  // namespace

Json to_json(const PlanCandidate& c) {
  using K = PredictionKey;
  const TrainingStep& s = c.step;
  Json parts = Json::array();
  for (const StepPart& p : s.parts) {
    if (p.roofline.flops == 0 && p.roofline.hbm_bytes == 0 && p.roofline.t_ici_s == 0 && p.roofline.t_host_s == 0)
      continue;
    Json part = Json::object({{"part", p.name}});
    put(part, p.roofline, {K::kFlops, K::kHbmBytes, K::kTMath, K::kTHbm, K::kTIci});
    part["expected_s"] = p.expected_s;
    part["expected_forward_s"] = p.expected_forward_s;
    parts.push_back(std::move(part));
  }
  Json j = Json::object({{"mesh", mesh_text(c.mesh)},
                         {"layout", layout_text(c.mesh, c.layout)},
                         {"placement", describe_layout(c.mesh)},
                         {"strategy", strategy_name(c)},
                         {"remat", remat_name(c.remat)},
                         {"microbatches", c.microbatches},
                         {"slices", slice_count(c.mesh)},
                         {"pipeline_stages", pipeline_stages(c.mesh, c.layout)},
                         {"expected_s", known(s.expected_s)},
                         {"expected_compute_s", known(s.expected_compute_s)},
                         {"expected_exposed_s", s.expected_exposed_s},
                         {"t_host_s", s.roofline.t_host_s},
                         {"ranking_s", ranking_time_s(s)},
                         {"step_time_s", s.step_time_s},
                         {"bubble_factor", s.bubble_factor},
                         {"mfu", s.mfu},
                         {"mfu_expected", s.expected_s > 0 ? Json(s.mfu_expected) : Json()},
                         {"mfu_no_overlap", known(s.mfu_no_overlap)},
                         {"tokens_per_chip", s.tokens_per_chip},
                         {"memory", memory_json(s.memory)},
                         {"critical_batch", critical_batch_json(c.critical)},
                         {"parts", std::move(parts)}});
  put(j, s.roofline, {K::kTLower, K::kTUpper, K::kTMath, K::kTHbm, K::kTIci, K::kBound});
  return j;
}

Json to_json(const RejectedCandidate& r) {
  const bool predicted = r.kind == RejectKind::kMemory;
  return Json::object({{"mesh", mesh_text(r.axes)},
                       {"layout", layout_text(r.axes, r.layout)},
                       {"remat", r.remat ? Json(remat_name(*r.remat)) : Json()},
                       {"microbatches", r.microbatches > 0 ? Json(r.microbatches) : Json()},
                       {"kind", reject_kind_name(r.kind)},
                       {"reason", r.reason},
                       {"total_bytes", predicted ? Json(r.memory.total_bytes) : Json()},
                       {"hbm_bytes", predicted ? Json(r.memory.hbm_bytes) : Json()}});
}

Json plan_json(const PlanRequest& req, const Plan& plan, std::size_t top) {
  Json cands = Json::array();
  for (std::size_t i = 0; i < plan.ranked.size() && i < top; ++i) {
    Json c = to_json(plan.ranked[i]);
    c["rank"] = i + 1;
    cands.push_back(std::move(c));
  }
  Json rejected = Json::array();
  for (const RejectedCandidate& r : plan.rejected) rejected.push_back(to_json(r));
  Json j = request_json(req);
  j["slices"] = plan.slices;
  j["ranking"] = plan_ranking_rule();
  j["considered"] = plan.considered;
  j["evaluated"] = plan.evaluated;
  j["rejected_memory"] = plan.rejected_memory;
  j["rejected_constraint"] = plan.rejected_constraint;
  j["rejected_shape"] = plan.rejected_shape;
  j["fitting"] = plan.ranked.size();
  j["search_seconds"] = plan.search_seconds;
  j["mfu_convention"] = kMfuConvention;
  j["candidates"] = std::move(cands);
  j["rejected"] = std::move(rejected);
  return j;
}

Json evaluation_json(const PlanRequest& req, const LayoutEvaluation& ev) {
  Json j = request_json(req);
  j["fits"] = ev.fits;
  j["reason"] = ev.fits ? Json() : Json(ev.reason);
  j["mfu_convention"] = kMfuConvention;
  j["candidate"] = to_json(ev.candidate);
  return j;
}

}  // namespace roofline
