// The JSON of `roofline stats` (roofline/report/json.hpp): the profiler's
// own view of a trace, per device, op and category. XLA's recorded cost
// figures are `xla_flops` / `xla_bytes`, as in the report.
#include <string>

#include "roofline/match/identify.hpp"
#include "roofline/report/json.hpp"

namespace roofline {
namespace {

Json op_json(const OpStat& o) {
  return Json::object({{"name", o.name},
                       {"module", o.module},
                       {"program_id", o.program_id},
                       {"kernel", o.kernel},
                       {"category", o.category},
                       {"class", op_class_name(o.op_class)},
                       {"async", o.async},
                       {"count", o.count},
                       {"total_s", o.total_s},
                       {"mean_s", o.mean_s},
                       {"median_s", o.median_s},
                       {"min_s", o.min_s},
                       {"max_s", o.max_s},
                       {"share", o.share},
                       {"xla_flops", o.flops},
                       {"xla_bytes", o.bytes_accessed}});
}

Json category_json(const CategoryStat& c) {
  return Json::object({{"category", c.category},
                       {"class", op_class_name(c.op_class)},
                       {"count", c.count},
                       {"total_s", c.total_s},
                       {"share", c.share},
                       {"busy_s", c.busy_s},
                       {"busy_share", c.busy_share}});
}

Json idle_gaps_json(const DeviceStats& d) {
  Json gaps = Json::array();
  for (const IdleGap& g : d.idle_gaps) {
    Json host = Json::array();
    for (const HostActivity& h : g.host) host.push_back(Json::object({{"name", h.name}, {"overlap_s", h.overlap_s}}));
    gaps.push_back(Json::object({{"start_s", g.start_s}, {"duration_s", g.duration_s}, {"host", std::move(host)}}));
  }
  return gaps;
}

Json steps_json(const std::optional<StepStats>& s) {
  if (!s) return Json();
  return Json::object({{"count", s->count},
                       {"from_host", s->from_host},
                       {"mean_s", s->mean_s},
                       {"median_s", s->median_s},
                       {"min_s", s->min_s},
                       {"max_s", s->max_s}});
}

Json device_json(const Trace& t, const DeviceStats& d) {
  const Device& dev = t.devices[d.device];
  const IdentifiedChip id = identify_device(dev);
  const Chip* chip = id.chip;
  return Json::object({{"id", d.id},
                       {"name", d.name},
                       {"host", d.host},
                       {"kind", device_kind_name(dev.kind)},
                       {"model", id.model},
                       {"model_inferred", id.inferred},
                       {"chip", chip ? Json(chip->name) : Json()},
                       {"chip_warning", id.warning.empty() ? Json() : Json(id.warning)},
                       {"trace_peak_flops_per_s", dev.caps.peak_flops_per_s},
                       {"trace_hbm_bytes_per_s", dev.caps.hbm_bytes_per_s},
                       {"op_events", d.op_events},
                       {"wall_s", d.window_s},
                       {"busy_s", d.busy_s},
                       {"idle_s", d.idle_s},
                       {"duty_cycle", d.duty_cycle},
                       {"compute_s", d.compute_s},
                       {"collective_s", d.collective_s},
                       {"data_movement_s", d.data_movement_s},
                       {"sync_s", d.sync_s},
                       {"steps", steps_json(d.steps)},
                       {"idle_gaps", idle_gaps_json(d)}});
}

// A device named by its place in the "devices" array (that of TraceStats::
// devices), its name and host.
Json device_ref(const Trace& t, const TraceStats& s, std::size_t device) {
  std::size_t at = 0;
  while (at < s.devices.size() && s.devices[at].device != device) ++at;
  const Device& d = t.devices[device];
  return Json::object({{"device", at}, {"name", d.name}, {"host", d.host}});
}

// Stragglers and collective waits (roofline/measure/skew.hpp).
Json across_devices_json(const Trace& t, const TraceStats& s, const SkewStats& k) {
  Json steps = Json::array();
  for (const StepSkew& st : k.steps)
    steps.push_back(Json::object({{"step", st.step},
                                  {"repeat", st.repeat},
                                  {"devices", st.devices},
                                  {"slowest", device_ref(t, s, st.slowest_device)},
                                  {"slowest_s", st.slowest_s},
                                  {"fastest", device_ref(t, s, st.fastest_device)},
                                  {"fastest_s", st.fastest_s},
                                  {"median_s", st.median_s},
                                  {"skew_s", st.skew_s}}));
  Json collectives = Json::array();
  for (const CollectiveSkew& c : k.collectives)
    collectives.push_back(Json::object({{"name", c.name},
                                        {"module", c.module},
                                        {"program_id", c.program_id},
                                        {"kernel", c.kernel},
                                        {"occurrences", c.occurrences},
                                        {"wait_s", c.wait_s},
                                        {"max_skew_s", c.max_skew_s},
                                        {"median_skew_s", c.median_skew_s},
                                        {"waited_for", c.waited_for ? device_ref(t, s, *c.waited_for) : Json()},
                                        {"waited_for_count", c.waited_for_count}}));
  Json devices = Json::array();
  for (const DeviceSkew& d : k.devices) {
    Json ref = device_ref(t, s, d.device);
    ref["collective_wait_s"] = d.collective_wait_s;
    ref["slowest_steps"] = d.slowest_steps;
    ref["waited_for_count"] = d.waited_for_count;
    devices.push_back(std::move(ref));
  }
  return Json::object({{"steps", std::move(steps)}, {"collectives", std::move(collectives)}, {"devices", std::move(devices)}});
}

}  // namespace

Json to_json(const Trace& trace, const TraceStats& s, std::size_t max_ops) {
  Json formats = Json::array();
  for (TraceFormat f : trace.formats) formats.push_back(trace_format_name(f));
  Json devices = Json::array();
  for (const DeviceStats& d : s.devices) devices.push_back(device_json(trace, d));
  Json ops = Json::array();
  for (std::size_t i = 0; i < s.ops.size() && i < max_ops; ++i) ops.push_back(op_json(s.ops[i]));
  Json categories = Json::array();
  for (const CategoryStat& c : s.categories) categories.push_back(category_json(c));
  Json out = Json::object({{"source", trace.source},
                           {"files", trace.files},
                           {"formats", std::move(formats)},
                           {"devices", std::move(devices)},
                           {"busy_s", s.busy_s},
                           {"idle_s", s.idle_s},
                           {"duty_cycle", s.duty_cycle},
                           {"sync_s", s.sync_s},
                           {"ops", std::move(ops)},
                           {"categories", std::move(categories)},
                           {"warnings", trace.warnings}});
  // Only with 2 or more devices, so a single device's JSON is as before.
  if (s.skew) out["across_devices"] = across_devices_json(trace, s, *s.skew);
  return out;
}

}  // namespace roofline
