// Step 6 of the match: from matched ops to the Report, totalled per op, per
// module, per step and over the run (docs/report.md says what each figure
// means). Sums run over ops in order of first occurrence, so totals do not
// depend on how the report is sorted.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"
#include "roofline/match/group.hpp"
#include "roofline/measure/measured.hpp"
#include "roofline/measure/op_stats.hpp"
#include "roofline/measure/skew.hpp"
#include "src/match/aggregate.hpp"
#include "src/match/peaks.hpp"

namespace roofline {

std::string Report::peak_label() const {
  std::string label = peak_dtype + " peak " + format_si(peak_flops_per_s, "FLOP/s");
  if (!dominant_dtype.empty() && dominant_dtype != peak_dtype) label += " (the unit " + dominant_dtype + " ops run on)";
  return label;
}

namespace {

using detail::cat;
using detail::class_label;

// Two jit functions of one name are two programs: name them as XLA's "XLA
// Modules" line does, "name(program id)", but only where it matters.
void name_programs(const Match& m, std::vector<OpReport>& ops) {
  const Trace& trace = *m.trace;
  std::map<std::string, std::set<std::uint64_t>> programs;
  for (const MatchedOp& op : m.ops) {
    const OpInfo& info = trace.ops[op.group.op];
    if (op.group.xla && info.program_id) programs[info.module].insert(*info.program_id);
  }
  for (std::size_t i = 0; i < m.ops.size(); ++i) {
    const OpInfo& info = trace.ops[m.ops[i].group.op];
    if (m.ops[i].group.xla && info.program_id && programs[info.module].size() > 1)
      ops[i].module += cat("(", *info.program_id, ")");
  }
}

// A device as the report names it (DeviceSummary::name).
std::string device_label(const Device& d) { return d.name + (d.host.empty() ? "" : " @ " + d.host); }

// Busy, idle and wall time of the selected devices, and their busy time by
// class (compute, collective, data movement: each busy instant once), from
// the devices' op statistics (compute_op_stats' figures, as measured), so
// stats and report agree. Returns the stragglers and collective waits
// across the selected devices (none for fewer than 2): the figures of the
// statistics over the same devices.
std::optional<SkewStats> add_devices(const Match& m, Report& r, std::map<std::string, double>& busy_by_class) {
  ReportSummary& s = r.summary;
  double sync_s = 0;
  for (std::size_t di : m.devices) {
    const std::optional<DeviceStats>& d = m.measured.devices[di].stats;  // match() checked it is there
    const Chip* chip = reported_chip(m.trace->devices[di]);
    r.devices.push_back({.id = d->id, .name = device_label(m.trace->devices[di]),
                         .chip = chip ? chip->name : "", .busy_s = d->busy_s, .idle_s = d->idle_s,
                         .duty_cycle = d->duty_cycle});
    s.measured_s += d->busy_s;
    s.idle_s += d->idle_s;
    s.wall_s += d->window_s;
    sync_s += d->sync_s;
    busy_by_class[class_label(OpClass::kCompute)] += d->compute_s;
    busy_by_class[class_label(OpClass::kCollective)] += d->collective_s;
    busy_by_class[class_label(OpClass::kDataMovement)] += d->data_movement_s;
  }
  s.duty_cycle = s.wall_s > 0 ? s.measured_s / s.wall_s : 0;
  if (sync_s > 0)
    r.notes.push_back(cat("streams waited (CUDA Stream Sync / Stream Wait Event / Context Sync) for ",
                          format_seconds(sync_s), ": not work, so not busy time, not in any category or op"));
  if (m.devices.size() < 2) return std::nullopt;
  std::vector<DeviceSkewInputs> inputs;
  for (std::size_t di : m.devices) inputs.push_back(*m.measured.devices[di].skew);  // match() checked it is there
  return compute_skew(m.devices, inputs, m.trace->ops);
}

// The skew statistics as report values: devices by their labels, each
// collective's module as the report's op table names it (with the program
// id where two programs share a name). `ops` in the order of m.ops.
AcrossDevices across_devices(const Match& m, const SkewStats& k, const std::vector<OpReport>& ops) {
  const Trace& trace = *m.trace;
  std::map<std::uint32_t, const OpReport*> op_row;  // trace op -> its (first synchronous) report row
  for (std::size_t i = 0; i < m.ops.size(); ++i)
    if (!ops[i].async) op_row.emplace(m.ops[i].group.op, &ops[i]);
  AcrossDevices out;
  for (const StepSkew& st : k.steps)
    out.steps.push_back({.step = st.step, .repeat = st.repeat, .devices = st.devices,
                         .slowest_device = device_label(trace.devices[st.slowest_device]),
                         .fastest_device = device_label(trace.devices[st.fastest_device]),
                         .slowest_s = st.slowest_s, .fastest_s = st.fastest_s, .median_s = st.median_s,
                         .skew_s = st.skew_s});
  for (const CollectiveSkew& c : k.collectives) {
    const auto row = op_row.find(c.op);
    out.collectives.push_back({.name = c.name, .module = row != op_row.end() ? row->second->module : c.module,
                               .calls = c.occurrences, .wait_s = c.wait_s, .max_skew_s = c.max_skew_s,
                               .median_skew_s = c.median_skew_s,
                               .waited_for_device = c.waited_for ? device_label(trace.devices[*c.waited_for]) : "",
                               .waited_for_count = c.waited_for_count});
  }
  for (const DeviceSkew& d : k.devices)
    out.devices.push_back({.device = device_label(trace.devices[d.device]), .collective_wait_s = d.collective_wait_s,
                           .slowest_steps = d.slowest_steps, .waited_for_count = d.waited_for_count});
  return out;
}

// Predicted, matched, unmatched and async totals, FLOPs, and time per
// category: its busy time from `busy_by_class` (so the categories add up to
// the busy time, and with idle to the wall span), its roofline and op count
// from the ops.
void add_totals(const Match& m, const std::vector<OpReport>& ops, const std::map<std::string, double>& busy_by_class,
                ReportSummary& s) {
  std::map<std::string, CategoryTime> cats;
  for (const auto& [name, busy_s] : busy_by_class)
    if (busy_s > 0) cats[name] = {.category = name, .measured_s = busy_s};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OpReport& o = ops[i];
    CategoryTime& c = cats[o.category];
    c.category = o.category;
    if (!o.async) c.predicted_s += o.prediction.t_lower_s;
    c.ops += 1;
    if (o.async) {
      s.async_measured_s += o.measured_s;
      s.async_predicted_s += o.prediction.t_lower_s;
    } else if (o.below_roofline) {
      s.below_roofline_ops += 1;
      s.below_roofline_measured_s += o.measured_s;
    } else if (o.predicted) {
      s.predicted_s += o.prediction.t_lower_s;
      s.expected_s += o.expected_s;
      s.matched_measured_s += o.measured_s;
      s.hardware_flops += o.prediction.flops;
      if (!m.ops[i].cost.rematerialised) s.model_flops += o.prediction.flops;
    } else {
      s.unmatched_s += o.measured_s;
    }
  }
  for (auto& [name, c] : cats) s.by_category.push_back(c);
  std::sort(s.by_category.begin(), s.by_category.end(),
            [](const CategoryTime& a, const CategoryTime& b) { return a.measured_s > b.measured_s; });
  s.by_category.push_back({.category = "idle", .measured_s = s.idle_s});
}

// A utilisation above 1, which no run reaches (FLOPs of ops in another
// dtype than the peak's, or on overlapping streams, counted against one
// peak over the wall span): NaN, shown as unknown, and a note saying so.
double utilisation_or_nan(double u, const std::string& what, std::vector<std::string>& notes) {
  if (u <= 1) return u;
  notes.push_back(cat(what, " would be ", format_percent(u), ", above 100%, which no run reaches: not shown (the "
                      "FLOPs or the time do not describe one run at that peak: ops in another dtype, overlapping "
                      "streams, or a trace and cost that disagree)"));
  return std::numeric_limits<double>::quiet_NaN();
}

// The note on ops measured below their roofline (OpReport::below_roofline).
void note_below_roofline(const ReportSummary& s, std::vector<std::string>& notes) {
  if (s.below_roofline_ops == 0) return;
  notes.push_back(cat(s.below_roofline_ops, " op(s) (", format_seconds(s.below_roofline_measured_s),
                      " measured) ran faster than their roofline lower bound, which no kernel can: the trace and the "
                      "cost disagree for them (wrong shapes, a clock, a kernel that does not do the work); they are "
                      "left out of MFU, HFU and the roofline and expected totals; their ratio to the roofline is marked x! (JSON: "
                      "below_roofline)"));
}

// MFU and HFU against the dense peak of the dtype that carries most FLOPs;
// where no predicted op carries any (copies, collectives and ops the trace
// gives no shapes for), the chip's default, not whichever dtype a copy
// happened to name (an fp32 ResNet's report named the int8 peak).
void add_mfu(const Match& m, const std::vector<OpReport>& ops, Report& r) {
  const Chip& chip = *m.chip.chip;
  std::map<DType, double> flops_by_dtype;
  for (const OpReport& o : ops)
    if (o.dtype()) flops_by_dtype[*o.dtype()] += o.prediction.flops;
  DType dominant = detail::default_mfu_dtype(chip);
  double most = 0;
  for (const auto& [t, f] : flops_by_dtype)
    if (f > most) most = f, dominant = t;
  r.dominant_dtype = std::string(peak_class_name(peak_class(dominant)));
  const PeakChoice peak = select_peak(chip, peak_class(dominant));
  r.peak_dtype = std::string(peak_class_name(peak.used));
  r.peak_flops_per_s = peak.flops_per_s;
  ReportSummary& s = r.summary;
  const double denom = s.wall_s * r.peak_flops_per_s;
  s.mfu = utilisation_or_nan(denom > 0 ? s.model_flops / denom : 0, "MFU", r.notes);
  s.hfu = utilisation_or_nan(denom > 0 ? s.hardware_flops / denom : 0, "HFU", r.notes);
  s.mfu_convention = cat("model FLOPs from our cost model (rematerialised ops excluded; HFU includes them) "
                         "over wall span x ", m.devices.size(), " device(s) x dense ", r.peak_label(), " of ",
                         chip.name);
}

// One step of a device: its measured busy time and the ops that started
// inside it (`mix`: indices into the device's measured ops, occurrences).
StepSummary step_summary(const Match& m, const std::vector<OpReport>& ops, std::size_t device, const Step& st,
                         std::int64_t busy_ps, const StepMix& mix, double peak_flops_per_s) {
  StepSummary out{.name = st.name, .device = m.trace->devices[device].id, .measured_s = st.duration_ps * 1e-12,
                  .busy_s = static_cast<double>(busy_ps) * 1e-12};
  for (const auto& [occurrences, n] : mix) {
    const std::size_t i = m.occurrence_op[device][occurrences];
    const MatchedOp& op = m.ops[i];
    if (!op.prediction || ops[i].below_roofline) continue;
    out.predicted_s += static_cast<double>(n) * op.prediction->t_lower_s;
    if (!op.cost.rematerialised) out.model_flops += static_cast<double>(n) * op.prediction->flops;
  }
  const double denom = out.measured_s * peak_flops_per_s;
  out.mfu = denom > 0 ? out.model_flops / denom : 0;
  if (out.mfu > 1) out.mfu = std::numeric_limits<double>::quiet_NaN();  // as utilisation_or_nan; noted once
  return out;
}

// The mix and busy time of the events of `timeline` (by start) that start
// inside `st`.
StepMix mix_in(const std::vector<TimedOccurrence>& timeline, const Step& st, std::int64_t& busy_ps) {
  auto starting_before = [&](std::int64_t t) {
    return std::lower_bound(timeline.begin(), timeline.end(), t,
                            [](const TimedOccurrence& o, std::int64_t v) { return o.start_ps < v; });
  };
  std::vector<std::uint32_t> kinds;
  busy_ps = 0;
  for (auto it = starting_before(st.start_ps), end = starting_before(st.start_ps + st.duration_ps); it < end; ++it) {
    kinds.push_back(it->occurrences);
    busy_ps += it->self_ps;
  }
  return step_mix(std::move(kinds));
}

// Steps: the device's own step markers, else the host's ProfilerStep ranges
// (once, on the first device without its own, and no device after it); at
// most kMaxReportSteps.
void add_steps(const Match& m, Report& r) {
  const Trace& trace = *m.trace;
  std::vector<StepSummary>& steps = r.summary.steps;
  const std::vector<std::uint32_t> unscoped = trace.scopes.empty() ? std::vector<std::uint32_t>() : unscoped_calls(trace);
  for (std::size_t di : m.devices) {
    const Device& d = trace.devices[di];
    const MeasuredDevice& md = m.measured.devices[di];
    // Occurrences that differ only by their call's scope (CallInfo::scope)
    // count as the first of them: a step sums as it would without scopes.
    std::vector<std::uint32_t> first;
    if (!unscoped.empty()) {
      std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> seen;
      for (std::uint32_t k = 0; k < md.ops.size(); ++k) {
        const OpOccurrences& o = md.ops[k];
        first.push_back(seen.try_emplace({o.op, o.call == kNoCall ? kNoCall : unscoped[o.call]}, k).first->second);
      }
    }
    auto unscoped_mix = [&](const StepMix& mix) {
      if (first.empty()) return mix;
      std::map<std::uint32_t, std::int64_t> by;
      for (const auto& [k, n] : mix) by[first[k]] += n;
      return StepMix(by.begin(), by.end());
    };
    if (d.steps.empty()) {
      if (trace.host_steps.empty()) break;
      if (!md.timeline) {
        r.notes.push_back(cat("the host's steps are not timed on ", device_label(d),
                              ": its measurement kept no timeline (roofline/measure/measured.hpp)"));
        break;
      }
      if (steps.empty()) r.notes.push_back("steps are the host's ProfilerStep ranges; device work may lag them");
      for (const Step& st : trace.host_steps) {
        if (steps.size() >= kMaxReportSteps) break;
        std::int64_t busy_ps = 0;
        const StepMix mix = unscoped_mix(mix_in(*md.timeline, st, busy_ps));
        steps.push_back(step_summary(m, r.ops, di, st, busy_ps, mix, r.peak_flops_per_s));
      }
      break;
    }
    for (std::size_t i = 0; i < md.steps.size() && steps.size() < kMaxReportSteps; ++i)
      steps.push_back(step_summary(m, r.ops, di, d.steps[i], md.steps[i].busy_ps,
                                   unscoped_mix(md.step_mixes[md.steps[i].mix]), r.peak_flops_per_s));
  }
}

// Per HLO module (or launching framework op), largest measured time first.
void add_modules(const std::vector<OpReport>& ops, ReportSummary& s) {
  std::map<std::string, ModuleSummary> mods;
  for (const OpReport& o : ops) {
    ModuleSummary& mod = mods[o.module];
    mod.name = o.module.empty() ? "(no module)" : o.module;
    mod.ops += 1;
    mod.measured_s += o.measured_s;
    if (o.predicted && !o.below_roofline) {
      mod.predicted_s += o.prediction.t_lower_s;
      mod.matched_measured_s += o.measured_s;
      mod.model_flops += o.prediction.flops;
    }
  }
  for (auto& [k, mod] : mods) s.modules.push_back(mod);
  std::sort(s.modules.begin(), s.modules.end(),
            [](const ModuleSummary& a, const ModuleSummary& b) { return a.measured_s > b.measured_s; });
}

}  // namespace

Report aggregate(const Match& m) {
  const Chip& chip = *m.chip.chip;
  Report r;
  r.trace_path = m.trace->source;
  r.chip = chip.name;
  r.chip_source = m.chip.source;
  r.hbm_bytes_per_s = chip.hbm_bytes_per_s;
  if (m.target_chip) r.target_chip = m.target_chip->name;
  r.calibration = m.calibration.origin;
  if (m.target_calibration) r.target_calibration = m.target_calibration->origin;
  r.notes = m.notes;
  for (const MatchedOp& op : m.ops) r.ops.push_back(detail::op_report(*m.trace, op, chip));
  name_programs(m, r.ops);
  std::map<std::string, double> busy_by_class;
  const std::optional<SkewStats> skew = add_devices(m, r, busy_by_class);
  if (skew) r.across_devices = across_devices(m, *skew, r.ops);
  add_totals(m, r.ops, busy_by_class, r.summary);
  add_mfu(m, r.ops, r);
  add_steps(m, r);
  if (std::any_of(r.summary.steps.begin(), r.summary.steps.end(), [](const StepSummary& st) { return std::isnan(st.mfu); }))
    r.notes.push_back("a step's MFU above 100%, which no step reaches, is not shown");
  note_below_roofline(r.summary, r.notes);
  add_modules(r.ops, r.summary);
  std::stable_sort(r.ops.begin(), r.ops.end(),
                   [](const OpReport& a, const OpReport& b) { return a.measured_s > b.measured_s; });
  if (m.devices.size() > 1)
    r.notes.push_back(cat("times are summed over ", m.devices.size(), " devices (device-seconds); ",
                          kOneDeviceAdvice));
  for (const std::string& w : m.trace->warnings)
    if (r.notes.size() < 20) r.notes.push_back("trace: " + w);
  return r;
}

}  // namespace roofline
