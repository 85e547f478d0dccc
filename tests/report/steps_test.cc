// roofline stats --by step: per-step time, busy, duty cycle, gaps with
// their host activity, and the variance of step times, on a PyTorch/XLA
// StepTrace fixture (figures by hand in its "comment"), a jax
// StepTraceAnnotation profile in both of its files, and a real Kineto
// profile's ProfilerStep#N.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/measure/steps.hpp"
#include "roofline/report/steps.hpp"
#include "roofline/trace/read.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using Catch::Detail::Approx;

namespace {

roofline::StepBreakdown breakdown(const std::string& data) {
  auto t = roofline::read_trace(roofline::testing::test_data(data).string());
  REQUIRE(t.ok());
  return roofline::compute_step_breakdown(*t);
}

}  // namespace

TEST_CASE("steps: PyTorch/XLA StepTrace marks host steps", "[steps]") {
  const roofline::StepBreakdown b = breakdown("trace/torch_xla_steptrace.json");
  REQUIRE(b.devices.size() == 1);
  const roofline::DeviceSteps& d = b.devices[0];
  CHECK(d.from_host);
  REQUIRE(d.steps.size() == 3);
  CHECK(d.steps[0].name == "train_step 0");
  CHECK(d.steps[2].name == "train_step 2");
  // 100, 120, 110 us; 60 us of ops in each.
  CHECK(d.steps[1].duration_s == Approx(120e-6));
  for (const roofline::StepTime& s : d.steps) CHECK(s.busy_s == Approx(60e-6));
  CHECK(d.steps[1].duty_cycle == Approx(0.5));
  // Mean 110 us; sample stdev sqrt((10^2 + 10^2 + 0) / 2) = 10 us.
  CHECK(d.variance.count == 3);
  CHECK(d.variance.mean_s == Approx(110e-6));
  CHECK(d.variance.stdev_s == Approx(10e-6));
  CHECK(d.variance.min_s == Approx(100e-6));
  CHECK(d.variance.max_s == Approx(120e-6));
  CHECK(d.variance.cv == Approx(10.0 / 110.0));
  // Step 1's largest gap is 100..160 us, before its first op, where the
  // host ran the data loader for 50 us.
  REQUIRE_FALSE(d.steps[1].gaps.empty());
  const roofline::IdleGap& g = d.steps[1].gaps[0];
  CHECK(g.start_s == Approx(100e-6));
  CHECK(g.duration_s == Approx(60e-6));
  REQUIRE_FALSE(g.host.empty());
  CHECK(g.host[0].name == "DataLoader.__next__");
  CHECK(g.host[0].overlap_s == Approx(50e-6));
}

TEST_CASE("steps: jax StepTraceAnnotation, the XPlane and its JSON export agree", "[steps]") {
  const roofline::StepBreakdown x = breakdown("trace/jax_steps.xplane.pb");
  const roofline::StepBreakdown j = breakdown("trace/jax_steps.trace.json.gz");
  REQUIRE(x.devices.size() == 1);
  REQUIRE(j.devices.size() == 1);
  REQUIRE(x.devices[0].steps.size() == 4);
  REQUIRE(j.devices[0].steps.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    const roofline::StepTime& a = x.devices[0].steps[i];
    const roofline::StepTime& b = j.devices[0].steps[i];
    CHECK(a.name == "train " + std::to_string(i));
    CHECK(a.name == b.name);
    // The JSON writes times in whole nanoseconds.
    CHECK(std::abs(a.duration_s - b.duration_s) < 1e-9);
    CHECK(std::abs(a.busy_s - b.busy_s) < 4e-9);
    CHECK(a.busy_s > 0);
    CHECK(a.busy_s <= a.duration_s);
    CHECK(a.duty_cycle == Approx(a.busy_s / a.duration_s));
  }
  CHECK(x.devices[0].variance.cv > 0);
}

TEST_CASE("steps: a trace without step markers has none", "[steps]") {
  CHECK(breakdown("trace/jax_cpu8.xplane.pb").devices.empty());
}

TEST_CASE("steps: the CLI's --by step in text and JSON", "[steps]") {
  const std::string trace = roofline::testing::test_data("trace/torch_xla_steptrace.json").string();
  auto r = roofline::testing::run_cli("stats '" + trace + "' --by step --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["devices"].size() == 1);
  CHECK(j["devices"][0]["steps"].size() == 3);
  CHECK(j["devices"][0]["variance"]["count"] == 3);
  auto text = roofline::testing::run_cli("stats '" + trace + "' --by step --top 2");
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("3 steps, mean 110 us, stdev 10.0 us"));
  CHECK_THAT(text.out, Catch::Contains("DataLoader.__next__ 50.0 us"));
  CHECK_THAT(text.out, Catch::Contains("(1 more steps)"));
  CHECK(roofline::testing::run_cli("stats '" + trace + "' --by step --format csv").exit_code != 0);
  CHECK(roofline::testing::run_cli("stats '" + trace + "' --by op").exit_code != 0);
}

TEST_CASE("steps: a real Kineto profile's ProfilerStep#N", "[steps][real]") {
  const auto p = roofline::testing::shared_real_dir() / "kineto/v100_resnet50_worker0.pt.trace.json.gz";
  if (!std::filesystem::exists(p)) {
    WARN("skipped: " << p.string() << " is absent");
    return;
  }
  auto t = roofline::read_trace(p.string());
  REQUIRE(t.ok());
  const roofline::StepBreakdown b = roofline::compute_step_breakdown(*t);
  REQUIRE(b.devices.size() == 1);
  const roofline::DeviceSteps& d = b.devices[0];
  CHECK(d.from_host);
  REQUIRE(d.variance.count == 6);
  CHECK(d.steps[0].name.rfind("ProfilerStep#", 0) == 0);
  for (const roofline::StepTime& s : d.steps) {
    CHECK(s.busy_s <= s.duration_s);
    REQUIRE_FALSE(s.gaps.empty());
  }
  // Measured: the data loader is the host's largest activity in each
  // step's largest gap (ProfilerStep#5: 47.1 ms of a 69.1 ms gap).
  CHECK(d.steps[0].gaps[0].host[0].name.find("DataLoader") != std::string::npos);
}

TEST_CASE("steps: report --by step joins the report's roofline per step", "[steps]") {
  const std::string trace = roofline::testing::test_data("trace/jax_steps.xplane.pb").string();
  auto r = roofline::testing::run_cli("report '" + trace + "' --chip h100-sxm --by step --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["chip"] == "h100-sxm");
  REQUIRE(j["devices"].size() == 1);
  const auto& steps = j["devices"][0]["steps"];
  REQUIRE(steps.size() == 4);
  // Each step ran the one jit_step program: the same roofline in each,
  // and no step is faster than its roofline.
  for (const auto& s : steps) {
    REQUIRE(s.contains("predicted_s"));
    CHECK(s["predicted_s"].get<double>() > 0);
    CHECK(s["predicted_s"] == steps[0]["predicted_s"]);
    CHECK(s["predicted_s"].get<double>() <= s["busy_s"].get<double>());
  }
  auto text = roofline::testing::run_cli("report '" + trace + "' --chip h100-sxm --by step");
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("train 3"));
  CHECK_THAT(text.out, Catch::Contains("roofline"));
  CHECK(roofline::testing::run_cli("report '" + trace + "' --chip h100-sxm --by step --format csv").exit_code != 0);
  CHECK(roofline::testing::run_cli("report '" + trace + "' --chip h100-sxm --by step --format perfetto").exit_code != 0);
}
