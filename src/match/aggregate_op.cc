// Step 6, per op: an op's measured figures, its roofline totalled over its
// occurrences, and what one compares to the other.
#include <algorithm>
#include <limits>
#include <string>

#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"
#include "roofline/match/scope.hpp"
#include "src/match/aggregate.hpp"
#include "src/match/peaks.hpp"

namespace roofline::detail {
namespace {

// What the trace measured, and what it says about the op.
OpReport measured_figures(const Trace& trace, const OpGroup& g) {
  const OpInfo& op = trace.ops[g.op];
  OpReport o;
  o.name = op.name;
  o.module = g.xla ? op.module : eager_module(trace, g);
  if (g.call != kNoCall) o.shapes = trace.calls[g.call].input_dims;
  o.category = class_label(op.op_class);
  o.hlo_category = op.category;
  o.count = g.count();
  o.measured_s = static_cast<double>(g.self_ps) * 1e-12;
  o.median_s = g.median_s();
  if (op.flops) o.xla_flops = static_cast<double>(*op.flops);
  if (op.bytes_accessed) o.xla_bytes = static_cast<double>(*op.bytes_accessed);
  if (g.per_kernel.size() > 1) o.reason = cat(g.per_kernel.size(), " kernels; ");
  return o;
}

// A transfer to or from host memory crosses the host link (PCIe), which
// Prediction times as t_host_s: say over which bandwidth, or that the chip
// has none. `p` is one occurrence.
void host_link_note(OpReport& o, const Prediction& p, const Chip& chip) {
  if (p.host_bytes <= 0) return;
  const std::string note =
      chip.pcie_bytes_per_s > 0
          ? cat(format_bytes(p.host_bytes), " over the host link at ", chip.name, "'s PCIe ",
                format_si(chip.pcie_bytes_per_s, "B/s"))
          : cat(format_bytes(p.host_bytes), " to or from host memory: host link not modelled (", chip.name,
                " has no PCIe bandwidth)");
  o.reason += cat(o.reason.empty() ? "" : "; ", note);
}

// The roofline of `p`, one occurrence, times the op's count, and the
// utilisations its measured time implies.
void predicted_figures(OpReport& o, const Prediction& p, const CostSource& cost, const Chip& chip) {
  o.predicted = true;
  o.prediction = repeated(p, static_cast<double>(o.count));
  host_link_note(o, p, chip);
  const double predicted_s = o.prediction.t_lower_s;
  o.ratio = predicted_s > 0 ? o.measured_s / predicted_s : 0;
  o.async = cost.async_done;
  // A hidden transfer loses no time; an exposed one loses what it waited beyond its roofline.
  o.lost_s = o.async ? std::max(0.0, o.measured_s - predicted_s) : o.measured_s - predicted_s;
  if (o.measured_s > 0 && !o.async) {
    o.achieved_flops_per_s = o.prediction.flops / o.measured_s;
    o.achieved_bytes_per_s = o.prediction.hbm_bytes / o.measured_s;
    const double peak = peak_flops_per_s(chip, p.dtype);
    o.flop_util = peak > 0 ? o.achieved_flops_per_s / peak : 0;
    // Against the bandwidth that timed the op (L2 when its bytes fit there).
    const double bandwidth = p.memory_bytes_per_s > 0 ? p.memory_bytes_per_s : chip.hbm_bytes_per_s;
    o.bw_util = o.achieved_bytes_per_s / bandwidth;
  }
  // Faster than the roofline lower bound: the trace and the cost disagree
  // (an aten::mm of 8192 cubed in 30.5 us is 36 PFLOP/s on an H100), so
  // its utilisations are no measurement (achieved over peak would pass 1).
  if (!o.async && predicted_s > 0 && o.measured_s < predicted_s) {
    o.below_roofline = true;
    o.flop_util = o.bw_util = std::numeric_limits<double>::quiet_NaN();
    o.reason += cat(o.reason.empty() ? "" : "; ", "measured ", format_seconds(o.measured_s),
                    " is below the roofline lower bound ", format_seconds(predicted_s),
                    ", which no kernel reaches: the trace and the cost disagree (wrong shapes, a clock, a kernel "
                    "that does not do the work); left out of MFU and the summary's roofline totals");
  }
  if (predicted_s == 0 && o.reason.empty()) o.reason = "no work by the cost model (control or layout op)";
  // A chip without a unit for the op's type (bf16 on a V100) cannot bound
  // its arithmetic: say so rather than call the op memory-bound.
  if (p.flops > 0 && !has_peak(chip, p.dtype))
    o.reason += cat(o.reason.empty() ? "" : "; ", chip.name, " has no ", peak_class_name(peak_class(p.dtype)),
                    " peak: T_math not predicted");
}

// The calibrated expectation totalled over the op's occurrences, and the
// time lost against it. Like lost_s, an async transfer's exposed wait loses
// only what exceeds the whole transfer's expectation.
void expected_figures(OpReport& o, const MatchedOp& m) {
  const double n = static_cast<double>(o.count);
  o.cost_class = m.cost_class;
  o.expected_s = m.expected_s.value_or(0) * n;
  o.lost_expected_s = o.async ? std::max(0.0, o.measured_s - o.expected_s) : o.measured_s - o.expected_s;
  if (m.target_expected_s) {
    o.target_expected_s = *m.target_expected_s * n;
    o.target_method = m.target_method;
  }
}

}  // namespace

std::string class_label(OpClass c) {
  std::string s(op_class_name(c));
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

OpReport op_report(const Trace& trace, const MatchedOp& m, const Chip& chip) {
  OpReport o = measured_figures(trace, m.group);
  set_op_scope(o, trace, m.group, m.cost.instruction);
  o.match = m.cost.source;
  o.reason += m.cost.note;
  if (!m.cost.hlo_category.empty()) o.hlo_category = m.cost.hlo_category;
  if (!m.cost.shape.empty()) o.shapes = m.cost.shape;
  if (!m.prediction) {
    if (o.reason.empty()) o.reason = "no cost found";
    return o;
  }
  predicted_figures(o, *m.prediction, m.cost, chip);
  expected_figures(o, m);
  o.gemm = m.gemm;
  // A launch or a loop container does no work of its own: it has no dtype.
  if (m.cost.model &&
      (std::holds_alternative<AsyncStartModel>(*m.cost.model) || std::holds_alternative<LoopContainerModel>(*m.cost.model)))
    o.container = true;
  if (m.target_prediction) {
    o.target_predicted_s = m.target_prediction->t_lower_s * static_cast<double>(o.count);
    o.target_bound = m.target_prediction->bound;
  }
  return o;
}

}  // namespace roofline::detail
