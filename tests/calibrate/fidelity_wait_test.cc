// A collective's wait for its slowest peer in the fidelity benchmark: held
// apart from the transfer where several ranks were read, counted in its own
// row where one rank was (docs/fidelity.md, "Collectives: the wait").
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "roofline/calibrate/fidelity.hpp"
#include "roofline/core.hpp"
#include "roofline/report/fidelity.hpp"

namespace roofline {
namespace {

// A memory op of `count` occurrences, measured at twice its HBM time.
OpReport memory_op(const std::string& name, double t_mem_s, std::int64_t count) {
  const double n = static_cast<double>(count);
  OpReport o;
  o.name = name;
  o.count = count;
  o.median_s = 2 * t_mem_s;
  o.measured_s = o.median_s * n;
  o.predicted = true;
  o.match = MatchSource::kInputDims;
  o.cost_class = CostClass::kMemory;
  o.prediction.t_hbm_s = o.prediction.t_hbm_cold_s = o.prediction.t_lower_s = t_mem_s * n;
  o.prediction.hbm_bytes = t_mem_s * 3.35e12 * n;
  return o;
}

// An NCCL all-reduce of 4 calls of 1 ms median, its link bound 0.2 ms and
// its built-in expectation (the report's) 0.7 ms per call.
OpReport all_reduce() {
  OpReport o;
  o.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
  o.count = 4;
  o.median_s = 1e-3;
  o.measured_s = 4e-3;
  o.predicted = true;
  o.match = MatchSource::kCollectiveArgs;
  o.cost_class = CostClass::kCollective;
  o.prediction.t_ici_s = o.prediction.t_lower_s = 4 * 0.2e-3;
  o.expected_s = 4 * 0.7e-3;
  return o;
}

FidelityTrace trace_with(const std::string& name, bool several_ranks) {
  FidelityTrace t{.trace = name, .chip = chip("h100-sxm")};
  t.report.chip = "h100-sxm";
  for (int i = 0; i < 6; ++i) t.report.ops.push_back(memory_op("copy." + std::to_string(i), (i + 1) * 1e-4, 3));
  t.report.ops.push_back(all_reduce());
  if (several_ranks) {
    // 4 calls on 2 ranks: 1.2 ms of wait in all, 0.3 ms per call.
    t.report.across_devices = AcrossDevices{};
    CollectiveWait w;
    w.name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
    w.calls = 2;
    w.wait_s = 1.2e-3;
    t.report.across_devices->collectives.push_back(w);
  }
  return t;
}

const FidelityOp& collective_of(const FidelityResult& r, const std::string& trace) {
  for (const FidelityOp& o : r.ops)
    if (o.cost_class == CostClass::kCollective && o.trace == trace) return o;
  FAIL("no collective op of " << trace);
  return r.ops.front();
}

TEST_CASE("fidelity: several ranks read, a collective's wait is held apart from its transfer") {
  const std::vector<FidelityTrace> traces = {trace_with("two-ranks", true)};
  const FidelityResult r = run_fidelity(traces);
  const FidelityOp& o = collective_of(r, "two-ranks");
  REQUIRE(o.wait_s);
  CHECK(*o.wait_s == Approx(0.3e-3));
  CHECK(o.transfer_s == Approx(0.7e-3));
  CHECK(o.measured_s == Approx(1e-3));  // the whole call, as measured
  CHECK(o.builtin_s == Approx(0.7e-3));  // the report's shape model
  CHECK(o.wait_separable);
  // Held to the transfer: the collective class's built-in error is 0, and
  // the whole ratio takes the calls less their wait.
  bool found = false;
  for (const FidelityRow& c : r.classes)
    if (c.name == "collective") {
      found = true;
      CHECK(c.ops == 1);
      CHECK(c.builtin.median_abs_error == Approx(0).margin(1e-12));
      CHECK(c.builtin.whole_ratio == Approx(1));
    }
  CHECK(found);
  CHECK(r.overall.ops == 7);
  const std::string json = render_fidelity(r, FidelityFormat::kJson);
  CHECK(json.find("\"wait_s\": 0.000") != std::string::npos);
  CHECK(render_fidelity(r, FidelityFormat::kText).find("wait 300 us, transfer 700 us") != std::string::npos);
}

TEST_CASE("fidelity: one rank read, a collective's wait is not separable and counts in its own row") {
  const std::vector<FidelityTrace> traces = {trace_with("one-rank", false)};
  const FidelityResult r = run_fidelity(traces);
  const FidelityOp& o = collective_of(r, "one-rank");
  CHECK_FALSE(o.wait_s);
  CHECK_FALSE(o.wait_separable);
  CHECK(o.transfer_s == Approx(1e-3));
  CHECK(r.overall.ops == 6);  // the six copies; the all-reduce only in its row
  REQUIRE(r.traces.size() == 1);
  CHECK(r.traces[0].ops == 6);
  bool own_row = false, class_row = false;
  for (const FidelityRow& c : r.classes) {
    if (c.name == kWaitNotSeparableRow) {
      own_row = true;
      CHECK(c.ops == 1);
      CHECK(c.builtin.median_abs_error == Approx(1e-3 / 0.7e-3 - 1));
    }
    if (c.name == "collective") class_row = true;
  }
  CHECK(own_row);
  CHECK_FALSE(class_row);
  const std::string text = render_fidelity(r, FidelityFormat::kText);
  CHECK(text.find("not separable (one rank read)") != std::string::npos);
  CHECK(text.find("class collective, wait not separable") != std::string::npos);
  CHECK(render_fidelity(r, FidelityFormat::kJson).find("\"wait_s\": null") != std::string::npos);
}

}  // namespace
}  // namespace roofline
