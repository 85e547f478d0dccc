// JSON output. Keys are stable and documented in docs/report.md; times in
// seconds, rates in SI units, utilisations as fractions of 1.
#include <nlohmann/json.hpp>

#include "roofline/report/render.hpp"

namespace roofline {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json op_json(const OpReport& op) {
  json j = {{"name", op.name},
            {"module", op.module},
            {"category", op.category},
            {"hlo_category", op.hlo_category},
            {"shapes", op.shapes},
            {"count", op.count},
            {"measured_s", op.measured_s},
            {"median_s", op.median_s},
            {"predicted", op.predicted},
            {"async", op.async},
            {"match", std::string(match_source_name(op.match))},
            {"reason", op.reason},
            {"flops", op.flops},
            {"hbm_bytes", op.hbm_bytes},
            {"ici_bytes", op.ici_bytes},
            {"dtype", std::string(dtype_name(op.dtype))},
            {"xla_flops", optional_number(op.xla_flops)},
            {"xla_bytes", optional_number(op.xla_bytes)}};
  if (op.predicted) {
    j["predicted_s"] = op.predicted_s;
    j["t_math_s"] = op.t_math_s;
    j["t_hbm_s"] = op.t_hbm_s;
    j["t_ici_s"] = op.t_ici_s;
    j["bound"] = std::string(bound_name(op.bound));
    j["ratio"] = op.ratio;
    j["flop_util"] = op.flop_util;
    j["bw_util"] = op.bw_util;
    j["achieved_flops_per_s"] = op.achieved_flops_per_s;
    j["achieved_bytes_per_s"] = op.achieved_bytes_per_s;
    j["lost_s"] = op.lost_s;
  } else {
    for (const char* k : {"predicted_s", "t_math_s", "t_hbm_s", "t_ici_s", "bound", "ratio",
                          "flop_util", "bw_util", "achieved_flops_per_s",
                          "achieved_bytes_per_s", "lost_s"})
      j[k] = nullptr;
  }
  j["target_predicted_s"] = optional_number(op.target_predicted_s);
  j["target_bound"] = op.target_bound ? json(std::string(bound_name(*op.target_bound))) : json(nullptr);
  return j;
}

}  // namespace

std::string render_json(const Report& r) {
  json devices = json::array();
  for (const DeviceSummary& d : r.devices)
    devices.push_back({{"id", d.id},
                       {"name", d.name},
                       {"chip", d.chip},
                       {"busy_s", d.busy_s},
                       {"idle_s", d.idle_s},
                       {"duty_cycle", d.duty_cycle}});
  json by_category = json::array();
  for (const CategoryTime& c : r.summary.by_category)
    by_category.push_back({{"category", c.category},
                           {"measured_s", c.measured_s},
                           {"predicted_s", c.predicted_s},
                           {"ops", c.ops}});
  json steps = json::array();
  for (const StepSummary& s : r.summary.steps)
    steps.push_back({{"name", s.name}, {"measured_s", s.measured_s}});
  const ReportSummary& s = r.summary;
  json summary = {{"measured_s", s.measured_s},
                  {"wall_s", s.wall_s},
                  {"predicted_s", s.predicted_s},
                  {"matched_measured_s", s.matched_measured_s},
                  {"unmatched_s", s.unmatched_s},
                  {"async_measured_s", s.async_measured_s},
                  {"async_predicted_s", s.async_predicted_s},
                  {"model_flops", s.model_flops},
                  {"hardware_flops", s.hardware_flops},
                  {"mfu", s.mfu},
                  {"hfu", s.hfu},
                  {"mfu_convention", s.mfu_convention},
                  {"duty_cycle", s.duty_cycle},
                  {"idle_s", s.idle_s},
                  {"by_category", by_category},
                  {"steps", steps}};
  json ops = json::array();
  for (const OpReport& op : r.ops) ops.push_back(op_json(op));
  json out = {{"trace", r.trace_path},
              {"chip", r.chip},
              {"chip_source", r.chip_source},
              {"target_chip", r.target_chip.empty() ? json(nullptr) : json(r.target_chip)},
              {"dominant_dtype", r.dominant_dtype},
              {"peak_flops_per_s", r.peak_flops_per_s},
              {"hbm_bytes_per_s", r.hbm_bytes_per_s},
              {"devices", devices},
              {"summary", summary},
              {"ops", ops},
              {"notes", r.notes}};
  // Names come from traces: invalid UTF-8 is replaced, not thrown.
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace roofline
