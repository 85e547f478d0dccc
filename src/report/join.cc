// make_report: groups a trace's op events, finds each group's cost, and
// totals measured against predicted per op, per module, per step and for the
// whole run.
#include "roofline/report/join.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>

#include "absl/status/status.h"
#include "roofline/chip_identity.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/trace/op_stats.hpp"
#include "roofline/report/units.hpp"
#include "src/report/op_cost.hpp"

namespace roofline {
namespace {

using detail::cat;
using detail::OpCost;

// The chip a measured device is and its model as shown (the trace records
// only what the profiler reported).
IdentifiedChip identify(const Device& d) {
  return identify_chip({.vendor = d.vendor,
                        .model = d.model,
                        .compute_capability_major = d.caps.compute_capability_major,
                        .compute_capability_minor = d.caps.compute_capability_minor,
                        .core_count = d.caps.core_count,
                        .memory_bytes = d.caps.memory_bytes});
}

// The HLO modules an op may come from: those the trace embeds (parsed on
// first use) and those the user gave with --hlo.
class ModuleIndex {
 public:
  ModuleIndex(const Trace& t, const std::vector<HloModule>* extra, std::vector<std::string>& notes)
      : trace_(t), extra_(extra), notes_(notes), parsed_(t.hlo_modules.size()) {}

  const HloInstruction* find(const OpInfo& op) {
    const std::string_view name = strip(op.name);
    // Embedded modules: the program id is exact; the name is a fallback.
    for (std::size_t i = 0; i < trace_.hlo_modules.size(); ++i) {
      const HloModuleBytes& m = trace_.hlo_modules[i];
      const bool same_program = op.program_id && m.program_id && *op.program_id == *m.program_id;
      const bool same_name = !op.module.empty() && m.module == op.module &&
                             (!op.program_id || !m.program_id);
      if (!same_program && !same_name) continue;
      if (const HloModule* mod = embedded(i))
        if (const HloInstruction* inst = mod->instruction(name)) return inst;
    }
    if (extra_) {
      for (const HloModule& m : *extra_)
        if (!op.module.empty() && m.name() == op.module)
          if (const HloInstruction* inst = m.instruction(name)) return inst;
      // Traces that do not name modules (or name them differently from the
      // dump) still match by instruction name when exactly one module has it.
      const HloInstruction* only = nullptr;
      int hits = 0;
      for (const HloModule& m : *extra_)
        if (const HloInstruction* inst = m.instruction(name)) only = inst, ++hits;
      if (hits == 1) return only;
    }
    return nullptr;
  }

  bool has_modules() const { return !trace_.hlo_modules.empty() || (extra_ && !extra_->empty()); }

 private:
  static std::string_view strip(std::string_view n) {
    if (!n.empty() && n.front() == '%') n.remove_prefix(1);
    return n;
  }

  const HloModule* embedded(std::size_t i) {
    if (!parsed_[i]) {
      const HloModuleBytes& m = trace_.hlo_modules[i];
      auto mod = parse_hlo_proto(m.bytes, cat(trace_.source, ": embedded HLO of ", m.module));
      if (!mod.ok()) {
        notes_.push_back(cat("could not read the embedded HLO of module ", m.module, ": ",
                             std::string(mod.status().message())));
        parsed_[i] = std::make_unique<std::optional<HloModule>>();
      } else {
        parsed_[i] = std::make_unique<std::optional<HloModule>>(*std::move(mod));
      }
    }
    return parsed_[i]->has_value() ? &**parsed_[i] : nullptr;
  }

  const Trace& trace_;
  const std::vector<HloModule>* extra_;
  std::vector<std::string>& notes_;
  std::vector<std::unique_ptr<std::optional<HloModule>>> parsed_;
};

// All occurrences of one op on the selected devices.
struct Group {
  std::uint32_t op = 0;              // first OpInfo seen (its kernel names one of several)
  std::uint32_t call = kNoCall;      // eager kernels: the launching op and its shapes
  std::map<std::uint32_t, std::int64_t> per_kernel;  // OpInfo -> occurrences
  std::int64_t self_ps = 0;
  std::vector<std::int64_t> samples_ps;  // self time of each event (per kernel, not per op run)
  bool xla = false;
};

bool is_xla_op(const OpInfo& op) { return !op.module.empty() || op.program_id.has_value(); }

std::string group_key(const Trace& t, const Event& e) {
  const OpInfo& op = t.ops[e.op];
  if (is_xla_op(op)) return cat("x|", op.module, "|", op.program_id.value_or(0), "|", op.name);
  return cat("e|", e.op, "|", e.call);
}

std::string eager_module(const Trace& t, const Group& g) {
  if (g.call == kNoCall) return "";
  const CallInfo& c = t.calls[g.call];
  if (!c.collective.empty()) return cat("nccl:", c.collective);
  return c.launcher;
}

OpCost find_cost(const Trace& t, const Group& g, ModuleIndex& modules) {
  const OpInfo& op = t.ops[g.op];
  if (g.xla) {
    if (const HloInstruction* inst = modules.find(op)) {
      OpCost c = detail::cost_from_hlo(*inst);
      if (c.predict || !(op.flops || op.bytes_accessed)) return c;
      OpCost x = detail::cost_from_xla_stats(op);
      x.note = c.note + "; using " + x.note;
      return x;
    }
    OpCost x = detail::cost_from_xla_stats(op);
    if (!x.predict && modules.has_modules())
      x.note = cat("instruction ", op.name, " not found in the HLO modules, and no XLA cost figures");
    return x;
  }
  const bool transfer = op.category == "gpu_memcpy" || op.category == "gpu_memset";
  if (g.call != kNoCall && !transfer) {
    const CallInfo& call = t.calls[g.call];
    OpCost c = call.collective.empty() ? detail::cost_from_input_dims(call, op.name)
                                       : detail::cost_from_collective_args(call);
    if (c.predict || !(op.flops || op.bytes_accessed)) return c;
    return detail::cost_from_xla_stats(op);
  }
  OpCost c = detail::cost_from_xla_stats(op);
  if (c.predict) return c;
  if (op.category == "gpu_memcpy") c.note = "memory copy: host/device transfers are not modelled";
  else if (op.category == "gpu_memset") c.note = "memset (often inside a library call): not modelled";
  else if (!g.xla)
    c.note = "no launching op recorded for this kernel (e.g. queued before the host trace began), "
             "so no shapes to cost it from";
  return c;
}

double peak_for(const Chip& chip, DType t) { return chip.peak_flops_per_s_for(t); }

}  // namespace

absl::StatusOr<Report> make_report(const Trace& trace, const ReportOptions& options) {
  Report r;
  r.trace_path = trace.source;
  // Devices: every device with op events, or the one asked for.
  std::vector<std::size_t> selected;
  std::set<int> ids;
  for (std::size_t i = 0; i < trace.devices.size(); ++i) {
    const Device& d = trace.devices[i];
    ids.insert(d.id);
    if (options.device_id && d.id != *options.device_id) continue;
    const bool has_ops = std::any_of(d.events.begin(), d.events.end(), [&](const Event& e) {
      return d.lines[e.line].role == LineRole::kOps;
    });
    if (has_ops) selected.push_back(i);
  }
  if (selected.empty()) {
    if (options.device_id) {
      std::string known;
      for (int id : ids) known += cat(known.empty() ? "" : ", ", id);
      return absl::NotFoundError(cat(trace.source, ": no device ", *options.device_id,
                                     " with op events (devices: ", known.empty() ? "none" : known, ")"));
    }
    return absl::InvalidArgumentError(cat(trace.source, ": the trace has no device op events to report on"));
  }

  // The chip: given, or the one the devices name.
  const Chip* chip = options.chip;
  if (chip) {
    r.chip_source = "--chip";
    for (std::size_t i : selected) {
      const IdentifiedChip d = identify(trace.devices[i]);
      if (d.chip && d.chip->name != chip->name) {
        r.notes.push_back(cat("the trace says the devices are ", d.model, " (", d.chip->name,
                              "); predicting on ", chip->name, " as asked"));
        break;
      }
    }
  } else {
    for (std::size_t i : selected)
      if (const IdentifiedChip d = identify(trace.devices[i]); d.chip) {
        chip = d.chip;
        r.chip_source = cat("detected from device '", d.model, "'");
        break;
      }
    if (!chip) {
      const Device& d = trace.devices[selected.front()];
      const std::string model = identify(d).model;
      return absl::InvalidArgumentError(
          cat(trace.source, ": cannot tell which chip device '", d.name, "' (",
              model.empty() ? "no model name" : model, ") is; pass --chip NAME"));
    }
  }
  r.chip = chip->name;
  r.hbm_bytes_per_s = chip->hbm_bytes_per_s;
  if (options.target_chip) r.target_chip = options.target_chip->name;

  // Group op events.
  std::vector<Group> groups;
  std::unordered_map<std::string, std::size_t> by_key;
  std::vector<std::vector<std::int32_t>> event_group(trace.devices.size());
  for (std::size_t di : selected) {
    const Device& d = trace.devices[di];
    event_group[di].assign(d.events.size(), -1);
    for (std::size_t ei = 0; ei < d.events.size(); ++ei) {
      const Event& e = d.events[ei];
      if (d.lines[e.line].role != LineRole::kOps) continue;
      auto [it, fresh] = by_key.try_emplace(group_key(trace, e), groups.size());
      if (fresh) {
        Group g;
        g.op = e.op;
        g.xla = is_xla_op(trace.ops[e.op]);
        g.call = g.xla ? kNoCall : e.call;
        groups.push_back(g);
      }
      Group& g = groups[it->second];
      g.per_kernel[e.op] += 1;
      g.self_ps += e.self_ps;
      g.samples_ps.push_back(e.self_ps);
      event_group[di][ei] = static_cast<std::int32_t>(it->second);
    }
  }

  // Cost every group once, on the chip and the what-if chip.
  ModuleIndex modules(trace, options.hlo_modules, r.notes);
  std::vector<double> per_occurrence_s(groups.size(), 0), per_occurrence_flops(groups.size(), 0);
  std::vector<bool> model_flops(groups.size(), true);
  std::map<DType, double> flops_by_dtype;
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    const OpInfo& op = trace.ops[g.op];
    OpReport o;
    o.name = op.name;
    o.module = g.xla ? op.module : eager_module(trace, g);
    if (g.call != kNoCall) o.shapes = trace.calls[g.call].input_dims;
    o.category = std::string(op_class_name(op.op_class));
    std::replace(o.category.begin(), o.category.end(), '_', ' ');
    o.hlo_category = op.category;
    for (const auto& [k, n] : g.per_kernel) o.count = std::max(o.count, n);
    o.measured_s = static_cast<double>(g.self_ps) * 1e-12;
    if (!g.samples_ps.empty()) {
      std::vector<std::int64_t> v = g.samples_ps;
      auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
      std::nth_element(v.begin(), mid, v.end());
      double median = static_cast<double>(*mid);
      if (v.size() % 2 == 0) median = (median + static_cast<double>(*std::max_element(v.begin(), mid))) / 2;
      // An op that runs as several kernels has no per-run samples to take
      // a median of: report its mean run instead.
      if (g.per_kernel.size() > 1) median = static_cast<double>(g.self_ps) / static_cast<double>(o.count);
      o.median_s = median * 1e-12;
    }
    if (op.flops) o.xla_flops = static_cast<double>(*op.flops);
    if (op.bytes_accessed) o.xla_bytes = static_cast<double>(*op.bytes_accessed);
    if (g.per_kernel.size() > 1) o.reason = cat(g.per_kernel.size(), " kernels; ");

    OpCost c = find_cost(trace, g, modules);
    o.match = c.source;
    o.reason += c.note;
    if (!c.hlo_category.empty()) o.hlo_category = c.hlo_category;
    if (!c.shape.empty()) o.shapes = c.shape;
    if (c.predict) {
      const Prediction p = c.predict(*chip);
      const double n = static_cast<double>(o.count);
      o.predicted = true;
      o.flops = p.flops * n;
      o.hbm_bytes = p.hbm_bytes * n;
      o.ici_bytes = p.ici_bytes * n;
      o.t_math_s = p.t_math_s * n;
      o.t_hbm_s = p.t_hbm_s * n;
      o.t_ici_s = p.t_ici_s * n;
      o.predicted_s = p.t_lower_s * n;
      o.bound = p.bound;
      o.dtype = p.dtype;
      o.ratio = o.predicted_s > 0 ? o.measured_s / o.predicted_s : 0;
      o.async = c.async_done;
      // A hidden transfer loses no time; an exposed one loses what it waited beyond its roofline.
      o.lost_s = o.async ? std::max(0.0, o.measured_s - o.predicted_s) : o.measured_s - o.predicted_s;
      if (o.measured_s > 0 && !o.async) {
        o.achieved_flops_per_s = o.flops / o.measured_s;
        o.achieved_bytes_per_s = o.hbm_bytes / o.measured_s;
        const double peak = peak_for(*chip, p.dtype);
        o.flop_util = peak > 0 ? o.achieved_flops_per_s / peak : 0;
        o.bw_util = o.achieved_bytes_per_s / chip->hbm_bytes_per_s;
      }
      if (o.predicted_s == 0 && o.reason.empty()) o.reason = "no work by the cost model (control or layout op)";
      // A chip without a unit for the op's type (bf16 on a V100) cannot
      // bound its arithmetic: say so rather than call the op memory-bound.
      if (p.flops > 0 && !chip->has(p.dtype))
        o.reason += detail::cat(o.reason.empty() ? "" : "; ", chip->name, " has no ",
                                peak_class_name(peak_class(p.dtype)), " peak: T_math not predicted");
      per_occurrence_s[gi] = p.t_lower_s;
      per_occurrence_flops[gi] = p.flops;
      model_flops[gi] = !c.rematerialised;
      flops_by_dtype[p.dtype] += o.flops;
      if (options.target_chip) {
        const Prediction t = c.predict(*options.target_chip);
        o.target_predicted_s = t.t_lower_s * n;
        o.target_bound = t.bound;
      }
    } else if (o.reason.empty()) {
      o.reason = "no cost found";
    }
    r.ops.push_back(std::move(o));
  }

  // Two jit functions of one name are two programs: name them as XLA's
  // "XLA Modules" line does, "name(program id)", but only where it matters.
  {
    std::map<std::string, std::set<std::uint64_t>> programs;
    for (const Group& g : groups)
      if (g.xla && trace.ops[g.op].program_id) programs[trace.ops[g.op].module].insert(*trace.ops[g.op].program_id);
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const OpInfo& op = trace.ops[groups[gi].op];
      if (groups[gi].xla && op.program_id && programs[op.module].size() > 1)
        r.ops[gi].module += cat("(", *op.program_id, ")");
    }
  }

  // Summary over the selected devices.
  ReportSummary& s = r.summary;
  const TraceStats stats = compute_op_stats(trace, OpStatsOptions{.device_id = options.device_id});
  for (const DeviceStats& d : stats.devices) {
    if (std::find(selected.begin(), selected.end(), d.device) == selected.end()) continue;
    const Chip* device_chip = identify(trace.devices[d.device]).chip;
    r.devices.push_back({.id = d.id, .name = d.name + (d.host.empty() ? "" : " @ " + d.host),
                         .chip = device_chip ? device_chip->name : "", .busy_s = d.busy_s,
                         .idle_s = d.idle_s, .duty_cycle = d.duty_cycle});
    s.measured_s += d.busy_s;
    s.idle_s += d.idle_s;
    s.wall_s += d.window_s;
  }
  s.duty_cycle = s.wall_s > 0 ? s.measured_s / s.wall_s : 0;
  std::map<std::string, CategoryTime> cats;
  for (std::size_t gi = 0; gi < r.ops.size(); ++gi) {
    const OpReport& o = r.ops[gi];
    CategoryTime& c = cats[o.category];
    c.category = o.category;
    c.measured_s += o.measured_s;
    if (!o.async) c.predicted_s += o.predicted_s;
    c.ops += 1;
    if (o.async) {
      s.async_measured_s += o.measured_s;
      s.async_predicted_s += o.predicted_s;
    } else if (o.predicted) {
      s.predicted_s += o.predicted_s;
      s.matched_measured_s += o.measured_s;
      s.hardware_flops += o.flops;
      if (model_flops[gi]) s.model_flops += o.flops;
    } else {
      s.unmatched_s += o.measured_s;
    }
  }
  for (auto& [name, c] : cats) s.by_category.push_back(c);
  std::sort(s.by_category.begin(), s.by_category.end(),
            [](const CategoryTime& a, const CategoryTime& b) { return a.measured_s > b.measured_s; });
  s.by_category.push_back({.category = "idle", .measured_s = s.idle_s});

  // MFU against the dense peak of the dtype that carries the most FLOPs.
  DType dominant = chip->has(DType::kBF16) ? DType::kBF16 : DType::kF16;
  double most = -1;
  for (const auto& [t, f] : flops_by_dtype)
    if (f > most) most = f, dominant = t;
  r.dominant_dtype = std::string(peak_class_name(peak_class(dominant)));
  r.peak_flops_per_s = peak_for(*chip, dominant);
  const double denom = s.wall_s * r.peak_flops_per_s;
  s.mfu = denom > 0 ? s.model_flops / denom : 0;
  s.hfu = denom > 0 ? s.hardware_flops / denom : 0;
  s.mfu_convention = cat("model FLOPs from our cost model (rematerialised ops excluded; HFU includes them) "
                         "over wall span x ", selected.size(), " device(s) x dense ", r.dominant_dtype,
                         " peak ", format_si(r.peak_flops_per_s, "FLOP/s"), " of ", chip->name);

  // Steps: the device's own step markers, else the host's ProfilerStep ranges.
  for (std::size_t di : selected) {
    const Device& d = trace.devices[di];
    const std::vector<Step>& steps = d.steps.empty() ? trace.host_steps : d.steps;
    if (d.steps.empty() && !trace.host_steps.empty() && s.steps.empty())
      r.notes.push_back("steps are the host's ProfilerStep ranges; device work may lag them");
    for (const Step& st : steps) {
      if (s.steps.size() >= 500) break;
      StepSummary out{.name = st.name, .device = d.id, .measured_s = st.duration_ps * 1e-12};
      for (std::size_t ei = 0; ei < d.events.size(); ++ei) {
        const std::int32_t g = event_group[di][ei];
        const Event& e = d.events[ei];
        if (g < 0 || e.start_ps < st.start_ps || e.start_ps >= st.start_ps + st.duration_ps) continue;
        out.busy_s += e.self_ps * 1e-12;
        out.predicted_s += per_occurrence_s[g];
        if (model_flops[g]) out.model_flops += per_occurrence_flops[g];
      }
      const double step_denom = out.measured_s * r.peak_flops_per_s;
      out.mfu = step_denom > 0 ? out.model_flops / step_denom : 0;
      s.steps.push_back(out);
    }
    if (steps.data() == trace.host_steps.data()) break;  // host steps once, not per device
  }

  // Modules.
  std::map<std::string, ModuleSummary> mods;
  for (const OpReport& o : r.ops) {
    ModuleSummary& m = mods[o.module];
    m.name = o.module.empty() ? "(no module)" : o.module;
    m.ops += 1;
    m.measured_s += o.measured_s;
    if (o.predicted) {
      m.predicted_s += o.predicted_s;
      m.matched_measured_s += o.measured_s;
      m.model_flops += o.flops;
    }
  }
  for (auto& [k, m] : mods) s.modules.push_back(m);
  std::sort(s.modules.begin(), s.modules.end(),
            [](const ModuleSummary& a, const ModuleSummary& b) { return a.measured_s > b.measured_s; });

  std::stable_sort(r.ops.begin(), r.ops.end(),
                   [](const OpReport& a, const OpReport& b) { return a.measured_s > b.measured_s; });
  if (selected.size() > 1)
    r.notes.push_back(cat("times are summed over ", selected.size(),
                          " devices (device-seconds); use --device N for one"));
  for (const std::string& w : trace.warnings)
    if (r.notes.size() < 20) r.notes.push_back("trace: " + w);
  return r;
}

}  // namespace roofline
