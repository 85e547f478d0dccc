// A tampered partial is refused where it is read (src/measure/stats_partial_check.cc):
// the figures issue 38 found printed as facts by `roofline merge` (an op at
// -30.5 us, a share of -32.3%, a duty cycle of 750%, 99 s busy in a 104 us
// window, busy_share 8.9e8) each give one error naming the file and the
// JSON place, while every partial a read makes still reads back.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "roofline/measure/stats_partial.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

using namespace roofline;
using roofline::testing::test_data;

namespace {

std::string partial_text(const std::string& path) {
  auto t = read_traces({path});
  REQUIRE(t.ok());
  return stats_partial_json(stats_partial(std::move(*t)));
}

}  // namespace

TEST_CASE("stats partial check: every partial a read makes reads back") {
  for (const std::string& path :
       {test_data("trace/kineto_small.json").string(), test_data("trace/tsl_tpu_nested.json").string(),
        test_data("trace/jax_cpu8.xplane.pb").string(), test_data("trace/old_kineto_epoch.json").string(),
        test_data("trace/old_kineto_external_is_correlation.json").string(),
        roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string()}) {
    INFO(path);
    auto p = parse_stats_partial(partial_text(path), "p.json");
    CHECK(p.ok());
    if (!p.ok()) UNSCOPED_INFO(p.status().message());
  }
}

TEST_CASE("stats partial check: impossible figures are refused with the file and the JSON place") {
  const std::string good = partial_text(test_data("trace/kineto_small.json").string());
  REQUIRE(parse_stats_partial(good, "part.json").ok());
  auto fails = [&](auto change, const std::string& says) {
    nlohmann::json j = nlohmann::json::parse(good);
    change(j["devices"][0]["stats"], j);
    auto p = parse_stats_partial(j.dump(), "part.json");
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(std::string(p.status().message()), Catch::StartsWith("part.json: ") && Catch::Contains(says));
  };
  using J = nlohmann::json;
  // The duty cycle: busy over window, never above 1.
  fails([](J& s, J&) { s["duty_cycle"] = 7.5; }, "/devices/0/stats/duty_cycle: expected 0 to 1 (got 7.5)");
  fails([](J& s, J&) { s["duty_cycle"] = 951923; }, "/devices/0/stats/duty_cycle: expected 0 to 1");
  fails([](J& s, J&) { s["duty_cycle"] = 0.5 * s["duty_cycle"].get<double>(); },
        "/devices/0/stats/duty_cycle: expected busy_s / window_s");
  // 99 s busy in the window of the trace (which is shorter).
  fails([](J& s, J&) { s["busy_s"] = 99.0; }, "/devices/0/stats/busy_s: expected at most the window (busy 99 s");
  fails([](J& s, J&) { s["window_s"] = -1.0; }, "/devices/0/stats/window_s: expected a time of at least 0");
  fails([](J& s, J&) { s["idle_s"] = -s["idle_s"].get<double>() - 1e-6; },
        "/devices/0/stats/idle_s: expected a time of at least 0");
  fails([](J& s, J&) { s["idle_s"] = s["idle_s"].get<double>() + 1e-3; },
        "/devices/0/stats/idle_s: expected window_s - busy_s");
  fails([](J& s, J&) { s["compute_s"] = s["compute_s"].get<double>() + 1e-3; },
        "/devices/0/stats/busy_s: expected compute_s + collective_s + data_movement_s");
  // An op at -30.5 us with a share of -32.3%.
  fails([](J& s, J&) { s["ops"][0]["total_s"] = -30.5e-6; }, "/devices/0/stats/ops/0/total_s: expected a time or share of at least 0");
  fails([](J& s, J&) { s["ops"][0]["share"] = -0.323; }, "/devices/0/stats/ops/0/share: expected a time or share of at least 0");
  fails([](J& s, J&) { s["ops"][0]["share"] = 1.5; }, "/devices/0/stats/ops/0/share: expected a share of the busy self time");
  fails([](J& s, J&) { s["ops"][0]["total_s"] = 2 * s["ops"][0]["total_s"].get<double>(); },
        "/devices/0/stats/ops/0/total_s: expected count x mean_s");
  fails([](J& s, J&) { s["ops"][0]["min_s"] = 1.0; }, "/devices/0/stats/ops/0/median_s: expected min_s <= median_s <= max_s");
  fails([](J& s, J&) { s["ops"][0]["count"] = s["ops"][0]["count"].get<std::int64_t>() + 1; },
        "/devices/0/stats/ops/0/total_s: expected count x mean_s");
  // Categories: busy_share 8.9e8, busy time past the device's.
  fails([](J& s, J&) { s["categories"][0]["busy_share"] = 8.9e8; }, "/devices/0/stats/categories/0/busy_share: expected 0 to 1");
  fails([](J& s, J&) { s["categories"][0]["busy_s"] = 99.0; },
        "/devices/0/stats/categories/0/busy_s: expected at most the device's busy time");
  fails([](J& s, J&) { s["categories"][0]["share"] = -0.1; }, "/devices/0/stats/categories/0/share: expected at least 0");
  // Sums: the busy ops' self time, the events the ops count.
  fails([](J& s, J&) { s["busy_self_ps"] = 2 * s["busy_self_ps"].get<std::int64_t>() + 1000000; },
        "/devices/0/stats/busy_self_ps: expected the busy ops' total self time");
  fails([](J& s, J&) { s["idle_gaps"][0]["duration_s"] = -1e-6; }, "/devices/0/stats/idle_gaps/0/duration_s: expected 0 to");
  // Self times and durations are never negative.
  fails([](J&, J& j) { j["rows"][0]["self_ps"][0][0] = -30500000; }, "/rows/0/self_ps/0/0: expected a non-negative integer");
  fails([](J& s, J&) { s["skew"]["steps"][0]["duration_ps"] = -1; },
        "/devices/0/stats/skew/steps/0/duration_ps: expected a non-negative integer");
}
