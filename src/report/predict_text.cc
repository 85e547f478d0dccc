// The text of `roofline predict` (roofline/report/prediction.hpp): a matmul,
// a collective, a sharded matmul's strategies.
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "roofline/format/appendf.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/units.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/report/labels.hpp"
#include "roofline/report/prediction.hpp"

namespace roofline {
namespace {

std::string prediction_lines(const Prediction& p) {
  std::string out;
  appendf(out,
          "  FLOPs       %s\n  HBM bytes   %s\n  T_math      %s\n  T_hbm       %s\n"
          "  T_ici       %s\n  lower bound %s (max)   upper bound %s (sum)\n"
          "  bound       %s   intensity %.1f FLOP/B vs ridge %.1f FLOP/B\n",
          format_si(p.flops, "FLOP", 4).c_str(), format_bytes(p.hbm_bytes).c_str(),
          format_seconds(p.t_math_s).c_str(), format_seconds(p.t_hbm_s).c_str(),
          format_seconds(p.t_ici_s).c_str(), format_seconds(p.t_lower_s).c_str(),
          format_seconds(p.t_upper_s).c_str(), std::string(bound_name(p.bound)).c_str(),
          p.intensity_flops_per_byte, p.ridge_flops_per_byte);
  return out;
}

// The line under a roofline that gives the expected time beside it:
// "  expected    96.2 ms (matmul curve; calibration: built-in: ...)", with
// `label` padded as the lines above it.
std::string expected_line(const char* label, double expected_s, CostClass c, const ChipCalibration& cal) {
  return std::string("  ") + label + format_seconds(expected_s) + " (" + std::string(cost_class_name(c)) +
         " curve; calibration: " + for_terminal(cal.origin) + ")\n";
}

// A collective's line: the curve's, or the published model that expects it.
std::string expected_line(const char* label, const CollectiveExpected& e, const ChipCalibration& cal) {
  if (e.model.empty()) return expected_line(label, e.expected_s, CostClass::kCollective, cal);
  return std::string("  ") + label + format_seconds(e.expected_s) + " (" + for_terminal(e.model) +
         "; calibration: " + for_terminal(cal.origin) + ")\n";
}

// One strategy: the local matmul, each collective, the whole, and their
// expected times.
void strategy_lines(std::string& out, const ShardedMatmulStrategy& s, const Chip& chip, const ChipCalibration& cal) {
  const ShardedExpected e = expected(s, chip, cal);
  out += "    local " + s.local_text + ": ";
  appendf(out, "[%lld] x [%lld,%lld] @ [%lld,%lld]  T_math %s  T_hbm %s\n",
          static_cast<long long>(s.local.batch), static_cast<long long>(s.local.m),
          static_cast<long long>(s.local.k), static_cast<long long>(s.local.k),
          static_cast<long long>(s.local.n), format_seconds(s.local_prediction.t_math_s).c_str(),
          format_seconds(s.local_prediction.t_hbm_s).c_str());
  for (std::size_t i = 0; i < s.collectives.size(); ++i) {
    const CollectiveStep& c = s.collectives[i];
    out += "    " + c.what + ": ";
    appendf(out, "V = %s, %s, expected %s", format_bytes(c.array_bytes).c_str(),
            format_seconds(c.time.t_ici_s).c_str(), format_seconds(e.collectives_s[i]).c_str());
    out += e.collectives_model[i].empty() ? "\n" : " (" + for_terminal(e.collectives_model[i]) + ")\n";
  }
  appendf(out, "    T_math %s  T_hbm %s  T_ici %s  lower %s (overlap)  upper %s (none)  %s-bound\n",
          format_seconds(s.whole.t_math_s).c_str(), format_seconds(s.whole.t_hbm_s).c_str(),
          format_seconds(s.whole.t_ici_s).c_str(), format_seconds(s.whole.t_lower_s).c_str(),
          format_seconds(s.whole.t_upper_s).c_str(), std::string(bound_name(s.whole.bound)).c_str());
  appendf(out, "    expected %s (local matmul %s, overlapped with the collectives as the lower bound is)\n",
          format_seconds(e.whole_s).c_str(), format_seconds(e.local_s).c_str());
}

}  // namespace

std::string matmul_text(const Matmul& mm, const Prediction& p, const Chip& chip, const ChipCalibration& cal) {
  std::string out;
  appendf(out, "matmul [%lld] x [%lld,%lld] @ [%lld,%lld] %s ", static_cast<long long>(mm.batch),
          static_cast<long long>(mm.m), static_cast<long long>(mm.k), static_cast<long long>(mm.k),
          static_cast<long long>(mm.n), std::string(dtype_name(mm.dtype)).c_str());
  out += "on " + for_terminal(chip.name) + "\n";
  out += prediction_lines(p);
  out += expected_line("expected    ", expected_s(p, CostClass::kMatmul, cal), CostClass::kMatmul, cal);
  return out;
}

std::string collective_text(const CollectiveQuery& q, const CollectiveTime& t, const Chip& chip,
                            const ChipCalibration& cal) {
  std::string axes;
  for (int i : q.axes) axes += (axes.empty() ? "" : ",") + q.mesh->axes[static_cast<std::size_t>(i)].name;
  std::string out = q.op + " over " + axes + " (";
  appendf(out, "%d devices) of V = %s on ", q.mesh->size(mask_of(q.axes)), format_bytes(q.array_bytes).c_str());
  out += for_terminal(chip.name) + "\n";
  out += "  layout         " + describe_layout(*q.mesh) + "\n";
  out += "  T_ici          " + format_seconds(t.t_ici_s) + "\n";
  out += expected_line(
      "expected       ",
      expected_collective_s(
          {.kind = q.kind, .array_bytes = q.array_bytes, .group_size = q.mesh->size(mask_of(q.axes))}, t, chip, cal),
      cal);
  appendf(out, "  bandwidth term %s   latency floor %s (%d hops)\n", format_seconds(t.t_bandwidth_s).c_str(),
          format_seconds(t.t_latency_s).c_str(), t.hops);
  appendf(out, "  busiest link   %s one way   (%s)\n", format_bytes(t.bytes_per_link).c_str(),
          t.t_latency_s > t.t_bandwidth_s ? "latency-bound" : "bandwidth-bound");
  return out;
}

std::string sharded_matmul_text(const ShardedMatmulQuery& q, const ShardedMatmul& r, const Chip& chip,
                                const ChipCalibration& cal) {
  std::string out = for_terminal(q.expression) + " on " + for_terminal(chip.name) + ", mesh " + for_terminal(q.mesh_spec) + ", " +
                    std::string(dtype_name(q.dtype)) + "\n";
  out += "  layout: " + describe_layout(*q.mesh) + "\n";
  for (int c : r.cases) out += "  " + case_description(c) + "\n";
  out += "  expected times: " + calibration_label(cal.origin) + "\n";
  out += "chosen: " + r.chosen().name + "\n";
  strategy_lines(out, r.chosen(), chip, cal);
  for (std::size_t i = 1; i < r.strategies.size(); ++i) {
    out += "alternative " + std::to_string(i) + ": " + r.strategies[i].name + "\n";
    strategy_lines(out, r.strategies[i], chip, cal);
  }
  return out;
}

}  // namespace roofline
