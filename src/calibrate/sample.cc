// Samples of a report, and the error figures every calibration is judged by.
#include "roofline/calibrate/sample.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace roofline {

bool comparable(const OpReport& op) {
  return op.predicted && !op.async && op.count > 0 && op.median_s > 0 && op.prediction.t_lower_s > 0 &&
         std::isfinite(op.prediction.t_lower_s);
}

namespace {

// The wait of a collective op of `report` (its calls matched across the
// devices read), or null where fewer than 2 devices were read or its calls
// were never matched.
const CollectiveWait* wait_of(const Report& report, const OpReport& o) {
  if (!report.across_devices) return nullptr;
  for (const CollectiveWait& w : report.across_devices->collectives)
    if (w.name == o.name && w.module == o.module && w.calls > 0) return &w;
  return nullptr;
}

// Takes a collective's wait out of its sample's time, or marks it not
// separable.
void separate_wait(CalibrationSample& s, const Report& report, const OpReport& o) {
  if (s.cost_class != CostClass::kCollective) return;
  const CollectiveWait* w = wait_of(report, o);
  if (w == nullptr) {
    s.wait_separable = false;
    return;
  }
  const double n = static_cast<double>(s.count);
  s.wait_total_s = std::min(w->wait_s, o.measured_s);
  s.measured_s = std::max(0.0, s.measured_s - (n > 0 ? s.wait_total_s / n : 0));
}

}  // namespace

std::vector<CalibrationSample> calibration_samples(const Report& report, std::string_view trace) {
  std::vector<CalibrationSample> out;
  for (const OpReport& o : report.ops) {
    if (!comparable(o)) continue;
    const double n = static_cast<double>(o.count);
    out.push_back(CalibrationSample{.trace = std::string(trace),
                                    .op = o.name,
                                    .family = kernel_family(o.name),
                                    .chip = report.chip,
                                    .cost_class = o.cost_class,
                                    .peak_used = o.prediction.peak.used,
                                    .t_math_s = o.prediction.t_math_s / n,
                                    .t_mem_s = o.prediction.t_hbm_s / n,
                                    // The link an op crosses: the interconnect or the host
                                    // link, one term, as expected_s() stretches it.
                                    .t_link_s = (o.prediction.t_ici_s + o.prediction.t_host_s) / n,
                                    .t_mem_cold_s = o.prediction.t_hbm_cold_s / n,
                                    .flops = o.prediction.flops / n,
                                    .hbm_bytes = o.prediction.hbm_bytes / n,
                                    .gemm = o.gemm,
                                    .measured_s = o.median_s,
                                    .count = o.count});
    separate_wait(out.back(), report, o);
  }
  return out;
}

double roofline_s(const CalibrationSample& s) { return std::max({s.t_math_s, s.t_mem_s, s.t_link_s}); }

double expected_mem_s(const CalibrationSample& s) { return std::max(s.t_mem_s, s.t_mem_cold_s); }

double expected_s(const CalibrationSample& s, const ChipCalibration& calibration) {
  Prediction p;
  p.t_math_s = s.t_math_s;
  p.t_hbm_s = s.t_mem_s;
  p.t_hbm_cold_s = s.t_mem_cold_s;
  p.t_ici_s = s.t_link_s;
  p.flops = s.flops;
  p.hbm_bytes = s.hbm_bytes;
  settle_bounds(p);
  p.peak.used = p.peak.wanted = s.peak_used;
  return expected_s(p, s.cost_class, calibration, s.family, s.gemm);
}

double abs_error(double measured_s, double expected_s) {
  if (!(expected_s > 0)) return std::numeric_limits<double>::infinity();
  return std::abs(measured_s / expected_s - 1);
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double at = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (at - static_cast<double>(lo));
}

}  // namespace roofline
