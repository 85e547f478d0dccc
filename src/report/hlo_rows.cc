// Notes and bounds of `roofline hlo` rows (roofline/report/hlo_rows.hpp).
#include "roofline/report/hlo_rows.hpp"

#include "roofline/detail/cat.hpp"

namespace roofline {

std::vector<std::string> hlo_row_notes(const HloPredictionRow& r, const Chip& chip) {
  std::vector<std::string> n;
  const HloCostFlags& f = r.cost.flags;
  if (r.aggregate) {
    if (r.instruction->opcode == HloOpcode::kWhile)
      n.push_back(f.trip_count_unknown ? "loop total, trip count unknown (counted once)"
                  : r.runs_capped
                      ? detail::cat("loop total, ", r.cost.trip_count,
                                    " trips charged as 1: its runs would pass 1e270 (see the warning)")
                      : detail::cat("loop total, ", r.cost.trip_count, " trips"));
    else
      n.push_back("total of the called computation");
  } else {
    if (f.unknown_custom_call) n.push_back("unknown custom call: FLOPs unknown, bytes = operands + results");
    if (f.unknown_opcode) n.push_back("no FLOP model for this op");
    if (f.trip_count_unknown) n.push_back("inner loop trip count unknown");
  }
  if (f.unbounded_dynamic_shape) n.push_back("unbounded dynamic shape counted as 0");
  if (f.collective_not_timed) n.push_back("collective not timed");
  if (f.conditional_max) n.push_back("max over branches");
  if (f.size_saturated) n.push_back("a shape of 2^63 bytes or more: its size counted as 2^63 (the module is broken)");
  if (r.prediction.host_bytes > 0) n.push_back("host transfer over PCIe");
  // The collective plan's rewrites (roofline/hlo/collective_rewrites.hpp).
  if (r.cost.collective && r.cost.collective->from_all_reduce)
    n.push_back("costed as reduce-scatter (all-reduce + dynamic-slice of this device's shard)");
  if (r.cost.collective && r.cost.collective->combined_ops > 1)
    n.push_back(detail::cat("combined with ", r.cost.collective->combined_ops - 1,
                            " other all-reduce(s): its share of one combined op"));
  // The chip has no unit for the type (bf16 on a V100, fp32 on a TPU):
  // select_peak timed the arithmetic at another peak; say which.
  if (r.cost.flops > 0 && r.prediction.peak.fallback()) n.push_back("timed at the " + peak_label(r.prediction.peak, chip));
  return n;
}

std::string hlo_row_bound(const Prediction& p) { return p.t_upper_s > 0 ? std::string(bound_name(p.bound)) : "none"; }

}  // namespace roofline
