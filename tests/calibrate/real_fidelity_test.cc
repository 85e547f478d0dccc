// The fidelity benchmark on real traces of ../shared/data/real (skipped when absent).
#include <catch2/catch.hpp>

#include "roofline/calibrate/fidelity.hpp"
#include "roofline/report/fidelity.hpp"
#include "roofline/chip_io.hpp"
#include "tests/match/report_support.hpp"

namespace roofline {
namespace {

FidelityTrace real(const std::string& relative) {
  FidelityTrace t{.trace = relative, .report = testing::report_of(relative)};
  auto c = find_chip(t.report.chip);
  REQUIRE(c.ok());
  t.chip = **c;
  return t;
}

TEST_CASE("fidelity: the four JAX micro-benchmarks on MI300X, left out in turn") {
  const std::vector<FidelityTrace> traces = {real("tracelens/mi300x_jax08_gemm.xplane.pb"),
                                             real("tracelens/mi300x_jax08_elementwise.xplane.pb"),
                                             real("tracelens/mi300x_jax08_attention.xplane.pb"),
                                             real("tracelens/mi300x_jax08_conv3d.xplane.pb")};
  const FidelityResult r = run_fidelity(traces);
  INFO(render_fidelity(r, FidelityFormat::kText));
  // Every trace has predicted ops (the report's own tests count them).
  for (const FidelityRow& row : r.traces) CHECK(row.ops > 0);
  CHECK(r.chips.size() == 1);
  // A fit on the other three traces predicts the fourth better than the
  // bare roofline does.
  CHECK(r.overall.calibrated.median_abs_error < r.overall.roofline.median_abs_error);
  // And a calibration fitted to all four, judged on them, fits them at least
  // as well as the cross-validated ones.
  std::vector<CalibrationSample> samples;
  for (const FidelityTrace& t : traces)
    for (CalibrationSample& s : calibration_samples(t.report, t.trace)) samples.push_back(s);
  CalibrationFile file;
  file.chips.push_back(fit_calibration(traces[0].chip, samples));
  const FidelityResult own = run_fidelity(traces, {.calibration = &file});
  CHECK(own.overall.calibrated.median_abs_error <= r.overall.calibrated.median_abs_error);
  CHECK(own.overall.calibrated.median_abs_error == Approx(file.chips[0].calibration.quality.median_abs_error));
}

}  // namespace
}  // namespace roofline
