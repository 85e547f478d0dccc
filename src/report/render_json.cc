// The report as JSON (roofline/report/json.hpp; keys in docs/json.md):
// times in seconds, rates in SI units, utilisations as fractions of 1, and
// null, never 0, for figures an op does not have.
#include "roofline/report/json.hpp"
#include "roofline/report/labels.hpp"
#include "roofline/report/render.hpp"

namespace roofline {
namespace {

// The keys an unpredicted op writes as null.
constexpr const char* kPredictedKeys[] = {"predicted_s", "t_math_s",  "t_hbm_s",
                                          "t_ici_s",     "bound",     "ratio",
                                          "flop_util",   "bw_util",   "achieved_flops_per_s",
                                          "achieved_bytes_per_s", "lost_s",
                                          "expected_s", "expected_ratio", "lost_expected_s", "cost_class"};

Json op_json(const OpReport& op) {
  Json j = Json::object({{"name", op.name},
                         {"module", op.module},
                         {"scope", op.scope}, {"scope_source", op.scope_source},
                         {"category", op.category},
                         {"hlo_category", op.hlo_category},
                         {"shapes", op.shapes},
                         {"count", op.count},
                         {"measured_s", op.measured_s},
                         {"median_s", op.median_s},
                         {"predicted", op.predicted},
                         {"async", op.async},
                         {"match", match_source_name(op.match)},
                         {"reason", op.reason},
                         {"below_roofline", op.below_roofline},
                         {"flops", op.prediction.flops},
                         {"hbm_bytes", op.prediction.hbm_bytes},
                         {"ici_bytes", op.prediction.ici_bytes},
                         {"host_bytes", op.prediction.host_bytes},
                         {"t_host_s", op.prediction.t_host_s},
                         {"dtype", op.dtype() ? Json(dtype_name(*op.dtype())) : Json()},
                         {"xla_flops", op.xla_flops},
                         {"xla_bytes", op.xla_bytes},
                         {"target_predicted_s", op.target_predicted_s},
                         {"target_expected_s", op.target_expected_s},
                         {"target_bound", op.target_bound ? Json(bound_name(*op.target_bound)) : Json()}});
  // With --target-chip only: how target_expected_s was found.
  if (op.target_method) j["target_method"] = std::string(target_method_name(*op.target_method));
  for (const char* k : kPredictedKeys) j[k] = Json();
  if (!op.predicted) return j;
  j["predicted_s"] = op.prediction.t_lower_s;
  j["t_math_s"] = op.prediction.t_math_s;
  j["t_hbm_s"] = op.prediction.t_hbm_s;
  j["t_ici_s"] = op.prediction.t_ici_s;
  j["bound"] = std::string(bound_name(op.prediction.bound));
  j["ratio"] = op.ratio;
  j["flop_util"] = op.flop_util;
  j["bw_util"] = op.bw_util;
  j["achieved_flops_per_s"] = op.achieved_flops_per_s;
  j["achieved_bytes_per_s"] = op.achieved_bytes_per_s;
  // Below the roofline, time lost against it would be negative: unknown.
  j["lost_s"] = op.below_roofline ? Json() : Json(op.lost_s);
  j["expected_s"] = op.expected_s;
  j["expected_ratio"] = op.expected_s > 0 ? Json(expected_ratio(op)) : Json();
  j["lost_expected_s"] = op.lost_expected_s;
  j["cost_class"] = cost_class_name(op.cost_class);
  return j;
}

Json summary_json(const ReportSummary& s) {
  Json by_category = Json::array();
  for (const CategoryTime& c : s.by_category)
    by_category.push_back(Json::object(
        {{"category", c.category}, {"measured_s", c.measured_s}, {"predicted_s", c.predicted_s}, {"ops", c.ops}}));
  Json steps = Json::array();
  for (const StepSummary& st : s.steps)
    steps.push_back(Json::object({{"name", st.name},
                                  {"device", st.device},
                                  {"measured_s", st.measured_s},
                                  {"busy_s", st.busy_s},
                                  {"predicted_s", st.predicted_s},
                                  {"model_flops", st.model_flops},
                                  {"mfu", st.mfu}}));
  Json modules = Json::array();
  for (const ModuleSummary& m : s.modules)
    modules.push_back(Json::object({{"name", m.name},
                                    {"ops", m.ops},
                                    {"measured_s", m.measured_s},
                                    {"predicted_s", m.predicted_s},
                                    {"matched_measured_s", m.matched_measured_s},
                                    {"model_flops", m.model_flops}}));
  return Json::object({{"measured_s", s.measured_s},
                       {"wall_s", s.wall_s},
                       {"predicted_s", s.predicted_s},
                       {"expected_s", s.expected_s},
                       {"matched_measured_s", s.matched_measured_s},
                       {"unmatched_s", s.unmatched_s},
                       {"below_roofline_ops", s.below_roofline_ops},
                       {"below_roofline_measured_s", s.below_roofline_measured_s},
                       {"async_measured_s", s.async_measured_s},
                       {"async_predicted_s", s.async_predicted_s},
                       {"model_flops", s.model_flops},
                       {"hardware_flops", s.hardware_flops},
                       {"mfu", s.mfu},
                       {"hfu", s.hfu},
                       {"mfu_convention", s.mfu_convention},
                       {"duty_cycle", s.duty_cycle},
                       {"idle_s", s.idle_s},
                       {"by_category", std::move(by_category)},
                       {"steps", std::move(steps)},
                       {"modules", std::move(modules)}});
}

// Where the expected times came from, for the chip and the what-if chip.
Json calibration_json(const Report& r) {
  const auto origin = [](const std::string& o) { return o.empty() ? Json() : Json(o); };
  return Json::object({{"origin", origin(r.calibration)},
                       {"target_origin", r.target_chip.empty() ? Json() : origin(r.target_calibration)}});
}

// Stragglers and collective waits (Report::across_devices); devices by
// their names in "devices", "" for none.
Json across_devices_json(const AcrossDevices& a) {
  Json steps = Json::array();
  for (const StepStraggler& st : a.steps)
    steps.push_back(Json::object({{"step", st.step},
                                  {"repeat", st.repeat},
                                  {"devices", st.devices},
                                  {"slowest_device", st.slowest_device},
                                  {"slowest_s", st.slowest_s},
                                  {"fastest_device", st.fastest_device},
                                  {"fastest_s", st.fastest_s},
                                  {"median_s", st.median_s},
                                  {"skew_s", st.skew_s}}));
  Json collectives = Json::array();
  for (const CollectiveWait& c : a.collectives)
    collectives.push_back(Json::object({{"name", c.name},
                                        {"module", c.module},
                                        {"calls", c.calls},
                                        {"wait_s", c.wait_s},
                                        {"max_skew_s", c.max_skew_s},
                                        {"median_skew_s", c.median_skew_s},
                                        {"waited_for_device", c.waited_for_device.empty() ? Json() : Json(c.waited_for_device)},
                                        {"waited_for_count", c.waited_for_count}}));
  Json devices = Json::array();
  for (const DeviceWait& d : a.devices)
    devices.push_back(Json::object({{"device", d.device},
                                    {"collective_wait_s", d.collective_wait_s},
                                    {"slowest_steps", d.slowest_steps},
                                    {"waited_for_count", d.waited_for_count}}));
  return Json::object({{"steps", std::move(steps)}, {"collectives", std::move(collectives)}, {"devices", std::move(devices)}});
}

}  // namespace

Json to_json(const Report& r) {
  Json devices = Json::array();
  for (const DeviceSummary& d : r.devices)
    devices.push_back(Json::object({{"id", d.id},
                                    {"name", d.name},
                                    {"chip", d.chip},
                                    {"busy_s", d.busy_s},
                                    {"idle_s", d.idle_s},
                                    {"duty_cycle", d.duty_cycle}}));
  Json ops = Json::array();
  for (const OpReport& op : r.ops) ops.push_back(op_json(op));
  const std::optional<std::string> none = nothing_predicted_headline(r);
  Json out = Json::object({{"trace", r.trace_path},
                       {"chip", r.chip},
                       {"chip_source", r.chip_source},
                       {"target_chip", r.target_chip.empty() ? Json() : Json(r.target_chip)},
                       {"calibration", calibration_json(r)},
                       {"dominant_dtype", r.dominant_dtype},
                       {"peak_flops_per_s", r.peak_flops_per_s},
                       {"hbm_bytes_per_s", r.hbm_bytes_per_s},
                       {"devices", std::move(devices)},
                       {"summary", summary_json(r.summary)},
                       {"ops", std::move(ops)},
                       {"nothing_predicted", none ? Json(*none) : Json()},
                       {"notes", r.notes}});
  // Only with 2 or more devices, so a single device's JSON is as before.
  if (r.across_devices) out["across_devices"] = across_devices_json(*r.across_devices);
  return out;
}

std::string render_json(const Report& r) { return to_json(r).dump() + "\n"; }

}  // namespace roofline
