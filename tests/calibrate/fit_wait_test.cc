// roofline calibrate and a collective's wait for its slowest peer: read on
// several ranks, the fit takes the transfer (the call less the wait); read
// on one rank, where the wait cannot be told apart, it fits none of it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "roofline/calibrate/fit.hpp"
#include "roofline/calibrate/io.hpp"
#include "roofline/calibrate/sample.hpp"
#include "roofline/core.hpp"

namespace roofline {
namespace {

// Five NCCL all-reduces of 8 calls each, link bounds 0.1 .. 0.5 ms, whose
// transfer takes 20 us + T_link / 0.5 and whose calls each wait 0.4 ms
// for a slower peer: a wait that grows with nothing the model times.
constexpr double kFloorS = 20e-6, kLinkEfficiency = 0.5, kWaitS = 0.4e-3;
constexpr std::int64_t kCalls = 8;

Report report_of(bool several_ranks) {
  Report r;
  r.chip = "h100-sxm";
  if (several_ranks) r.across_devices = AcrossDevices{};
  for (int i = 1; i <= 5; ++i) {
    const double t_link_s = i * 0.1e-3;
    OpReport o;
    o.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL." + std::to_string(i);
    o.count = kCalls;
    o.median_s = kFloorS + t_link_s / kLinkEfficiency + kWaitS;
    o.measured_s = o.median_s * kCalls;
    o.predicted = true;
    o.match = MatchSource::kCollectiveArgs;
    o.cost_class = CostClass::kCollective;
    o.prediction.t_ici_s = o.prediction.t_lower_s = t_link_s * kCalls;
    r.ops.push_back(o);
    if (several_ranks) {
      // 2 ranks: the waiting one's calls hold the whole wait.
      CollectiveWait w;
      w.name = o.name;
      w.calls = kCalls;
      w.wait_s = kWaitS * kCalls;
      r.across_devices->collectives.push_back(w);
    }
  }
  return r;
}

TEST_CASE("calibrate: several ranks read, a collective is fitted by its transfer", "[fit_wait]") {
  const std::vector<CalibrationSample> s = calibration_samples(report_of(true), "two-ranks.json");
  REQUIRE(s.size() == 5);
  for (const CalibrationSample& x : s) {
    CHECK(x.wait_separable);
    CHECK(x.wait_total_s == Approx(kWaitS * kCalls));
    CHECK(x.measured_s == Approx(kFloorS + x.t_link_s / kLinkEfficiency));
  }
  const CalibrationFit f = fit_calibration(chip("h100-sxm"), s);
  REQUIRE(f.classes[static_cast<int>(CostClass::kCollective)].origin == CurveOrigin::kFitted);
  const ClassCurve& k = f.calibration.curve(CostClass::kCollective);
  // The transfer's own curve, not the call's (whose 0.4 ms would read as a
  // larger floor).
  CHECK(k.floor_s == Approx(kFloorS).epsilon(0.02));
  CHECK(k.link_efficiency == Approx(kLinkEfficiency).epsilon(0.02));
}

TEST_CASE("calibrate: one rank read, a collective's wait is not fitted as a transfer", "[fit_wait]") {
  const std::vector<CalibrationSample> s = calibration_samples(report_of(false), "one-rank.json");
  REQUIRE(s.size() == 5);
  for (const CalibrationSample& x : s) {
    CHECK_FALSE(x.wait_separable);
    CHECK(x.measured_s == Approx(kFloorS + x.t_link_s / kLinkEfficiency + kWaitS));
  }
  const CalibrationFit f = fit_calibration(chip("h100-sxm"), s);
  // Nothing to fit the class to: it keeps the built-in way (NCCL's model).
  CHECK(f.classes[static_cast<int>(CostClass::kCollective)].origin == CurveOrigin::kBuiltIn);
  CHECK(f.samples.empty());
  bool noted = false;
  for (const std::string& n : f.notes) noted = noted || n.find("5 collective ops left out: read on one rank") == 0;
  CHECK(noted);
}

// Whether a fit times collectives by their shape's model, in memory and
// as its file reads back.
bool shape_model_after_round_trip(const CalibrationFit& f) {
  CalibrationFile file;
  file.chips.push_back(f);
  auto back = parse_calibration(calibration_to_json(file), "fit.json");
  REQUIRE(back.ok());
  REQUIRE(back->chips.size() == 1);
  return back->chips[0].calibration.collective_shape_model;
}

TEST_CASE("calibrate: a fit that kept collectives built-in keeps their shape model", "[fit_wait]") {
  const CalibrationFit kept = fit_calibration(chip("h100-sxm"), calibration_samples(report_of(false), "one-rank.json"));
  CHECK(kept.calibration.collective_shape_model);
  CHECK(shape_model_after_round_trip(kept));
  const CalibrationFit fitted = fit_calibration(chip("h100-sxm"), calibration_samples(report_of(true), "two-ranks.json"));
  CHECK_FALSE(fitted.calibration.collective_shape_model);
  CHECK_FALSE(shape_model_after_round_trip(fitted));
}

}  // namespace
}  // namespace roofline
