// What a calibration is fitted to: one measured op beside its roofline. A
// sample is one predicted op of a Report (roofline/match/match.hpp) that ran
// synchronously and has a measured median: its three roofline terms for one
// occurrence and the median time one occurrence took.
//
//   auto report = roofline::make_report(*trace, {});
//   std::vector<roofline::CalibrationSample> s = roofline::calibration_samples(*report, "run.json.gz");
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/calibration.hpp"
#include "roofline/predict.hpp"
#include "roofline/match/report.hpp"

namespace roofline {

struct CalibrationSample {
  std::string trace = {};  // the trace it was measured in, as given
  std::string op = {};     // OpReport::name
  std::string family = {}; // kernel_family(op): which family curve may time it
  std::string chip = {};   // Report::chip
  CostClass cost_class = CostClass::kMemory;
  PeakClass peak_used = PeakClass::kBf16;
  // The roofline's terms for one occurrence: Prediction's t_math_s, t_hbm_s
  // and t_ici_s (the link term includes a host transfer's PCIe time, as the
  // prediction that expected_s() reads does).
  double t_math_s = 0;
  double t_mem_s = 0;
  double t_link_s = 0;
  // The bytes at HBM's bandwidth (Prediction::t_hbm_cold_s): the memory
  // term the expectation stretches. t_mem_s, the bound's, may be L2's.
  double t_mem_cold_s = 0;
  // The work of one occurrence (Prediction's flops and hbm_bytes): what
  // the calibration's size curves read (calibration.hpp, size_factors);
  // 0 where unknown, then no size curve applies.
  double flops = 0;
  double hbm_bytes = 0;
  // The GEMM of one occurrence, where known (OpReport::gemm): what the
  // calibration's tile and wave quantization reads.
  std::optional<GemmShape> gemm = {};
  // Median of one occurrence; a collective's less its wait for the slowest
  // peer where that is known (wait_total_s): the transfer, what the model
  // times.
  double measured_s = 0;
  std::int64_t count = 0;  // occurrences in the trace
  // A collective's wait for its slowest peer over every occurrence, taken
  // from the skew across the ranks read (Report::across_devices), and
  // already taken out of measured_s (as wait_total_s / count).
  double wait_total_s = 0;
  // False for a collective whose calls were not matched across two or more
  // ranks (one rank read): its time holds a wait that cannot be told apart,
  // and a fit leaves it out (fit_calibration).
  bool wait_separable = true;
};

// Whether an op of a report can be compared with its prediction: predicted,
// not the exposed wait of an async transfer (its measured time is not the
// transfer's), measured (median > 0) and costed (a roofline > 0).
bool comparable(const OpReport& op);

// One sample per comparable op of `report`, in the report's order; a
// collective's wait taken out of its time, or marked not separable.
std::vector<CalibrationSample> calibration_samples(const Report& report, std::string_view trace);

// The roofline of one occurrence (max of the three terms).
double roofline_s(const CalibrationSample& s);

// The memory term an expectation stretches: the bytes at HBM's bandwidth,
// never below the bound's own term.
double expected_mem_s(const CalibrationSample& s);

// The calibrated expectation of one occurrence: roofline::expected_s() on
// the sample's terms.
double expected_s(const CalibrationSample& s, const ChipCalibration& calibration);

// |measured / expected - 1|: how far off an expectation is, as a fraction.
double abs_error(double measured_s, double expected_s);

// The q-quantile (0..1) of `values`, interpolated linearly between the two
// nearest ranks (numpy's default); 0 for no values.
double quantile(std::vector<double> values, double q);

}  // namespace roofline
