// Across devices (roofline/measure/skew.hpp): stragglers per step and the
// waits in collective calls, on a trace built by hand (figures counted in
// the comments), on the real TPU v6e x4 profile, on two Kineto ranks read as
// one job, and through partials that merge to one pass exactly.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "roofline/measure/op_stats.hpp"
#include "roofline/measure/skew.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "roofline/report/json.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

using namespace roofline;
using roofline::testing::test_data;
using roofline::testing::fresh_temp_dir;
using roofline::testing::slurp;
namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kUs = 1'000'000;  // picoseconds

// Events here nest in nothing, so self time = duration.
Event event(std::uint32_t op, std::uint32_t line, std::int64_t start_us, std::int64_t duration_us) {
  Event e;
  e.start_ps = start_us * kUs;
  e.duration_ps = e.self_ps = duration_us * kUs;
  e.op = op;
  e.line = line;
  return e;
}

Step step(const std::string& name, std::int64_t start_us, std::int64_t duration_us) {
  Step s;
  s.name = name;
  s.start_ps = start_us * kUs;
  s.duration_ps = duration_us * kUs;
  return s;
}

OpInfo op(const std::string& name, const std::string& module, const std::string& category, OpClass c) {
  OpInfo o;
  o.name = name;
  o.module = module;
  o.category = category;
  o.op_class = c;
  return o;
}

// Three TPUs, ops 0 (a fusion) and 1 (an all-reduce). Steps, in µs:
//   TPU:0  "1" 100, "2" 120, "3" 90      TPU:1  "1" 130, "2" 110      TPU:2  "1" 100, "2" 150
// All-reduce calls in start order, in µs:
//   TPU:0  20, 10 (and a 1000 on its async line, not a call of its own)
//   TPU:1   5 (on a second stream, starting first), 30
//   TPU:2  12, 10, 40
Trace three_devices() {
  Trace t;
  t.source = "hand-made";
  t.ops = {op("fusion", "jit_step", "loop fusion", OpClass::kCompute),
           op("all-reduce.1", "jit_step", "all-reduce", OpClass::kCollective)};
  for (int id = 0; id < 3; ++id) {
    Device d;
    d.id = id;
    d.host = "h";
    d.name = "/device:TPU:" + std::to_string(id);
    d.kind = DeviceKind::kTpu;
    t.devices.push_back(std::move(d));
  }
  Device& d0 = t.devices[0];
  d0.lines = {{.id = 1, .name = "XLA Ops", .role = LineRole::kOps}, {.id = 2, .name = "Async XLA Ops", .role = LineRole::kAsyncOps}};
  d0.events = {event(0, 0, 0, 5), event(1, 0, 10, 20), event(1, 0, 50, 10), event(1, 1, 0, 1000)};
  d0.steps = {step("1", 0, 100), step("2", 100, 120), step("3", 220, 90)};
  Device& d1 = t.devices[1];
  d1.lines = {{.id = 1, .name = "Stream #1", .role = LineRole::kOps}, {.id = 2, .name = "Stream #2", .role = LineRole::kOps}};
  d1.events = {event(1, 0, 50, 30), event(1, 1, 10, 5)};  // by (line, start): the later call comes first
  d1.steps = {step("1", 0, 130), step("2", 130, 110)};
  Device& d2 = t.devices[2];
  d2.lines = {{.id = 1, .name = "XLA Ops", .role = LineRole::kOps}};
  d2.events = {event(1, 0, 10, 12), event(1, 0, 50, 10), event(1, 0, 90, 40)};
  d2.steps = {step("1", 0, 100), step("2", 100, 150)};
  return t;
}

void replace_once(std::string& text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  text.replace(at, from.size(), to);
}

// kineto_small.json as rank0, and as rank1 with its GPU step 130 µs long
// (rank0's: 104) and its one NCCL all-reduce 35 µs (rank0's: 50).
fs::path two_ranks(const std::string& name) {
  const fs::path root = fresh_temp_dir("skew_test", name);
  std::string text = slurp(test_data("trace/kineto_small.json"));
  std::ofstream(root / "rank0.json", std::ios::binary) << text;
  replace_once(text, R"("ts": 1100.000, "dur": 104.000)", R"("ts": 1100.000, "dur": 130.000)");
  replace_once(text, R"("ts": 1120.000, "dur": 50.000)", R"("ts": 1120.000, "dur": 35.000)");
  std::ofstream(root / "rank1.json", std::ios::binary) << text;
  return root;
}

std::string rendered(const Trace& t, const TraceStats& s) { return to_json(t, s, s.ops.size()).dump(); }

}  // namespace

TEST_CASE("skew: three devices, two steps and a collective called twice, counted by hand") {
  const Trace t = three_devices();
  const TraceStats s = compute_op_stats(t);
  REQUIRE(s.devices.size() == 3);
  REQUIRE(s.skew);
  const SkewStats& k = *s.skew;

  // Step "3" ran on TPU:0 alone: not listed. Step "1": 100, 130, 100 ->
  // slowest TPU:1, fastest TPU:0 (tied with TPU:2, listed first), median
  // 100, skew 30. Step "2": 120, 110, 150 -> slowest TPU:2, fastest TPU:1,
  // median 120, skew 40. In TPU:0's order.
  REQUIRE(k.steps.size() == 2);
  CHECK(k.steps[0].step == "1");
  CHECK(k.steps[0].repeat == 0);
  CHECK(k.steps[0].devices == 3);
  CHECK(k.steps[0].slowest_device == 1);
  CHECK(k.steps[0].fastest_device == 0);
  CHECK(k.steps[0].slowest_s == Approx(130e-6));
  CHECK(k.steps[0].fastest_s == Approx(100e-6));
  CHECK(k.steps[0].median_s == Approx(100e-6));
  CHECK(k.steps[0].skew_s == Approx(30e-6));
  CHECK(k.steps[1].step == "2");
  CHECK(k.steps[1].slowest_device == 2);
  CHECK(k.steps[1].fastest_device == 1);
  CHECK(k.steps[1].median_s == Approx(120e-6));
  CHECK(k.steps[1].skew_s == Approx(40e-6));

  // Call 1: 20, 5, 12 -> shortest TPU:1; waits 15, 0, 7 (22); skew 15.
  // Call 2: 10, 30, 10 -> shortest TPU:0 and TPU:2 alike, so no one was
  // the last to arrive; waits 0, 20, 0 (20); skew 20. Call 3: TPU:2 alone,
  // not matched. The async 1000 µs is not a call. Total wait 42, max skew
  // 20, median skew (15 + 20) / 2 = 17.5; the one call with a single
  // shortest device names TPU:1.
  REQUIRE(k.collectives.size() == 1);
  const CollectiveSkew& c = k.collectives[0];
  CHECK(c.op == 1);
  CHECK(c.name == "all-reduce.1");
  CHECK(c.module == "jit_step");
  CHECK(c.occurrences == 2);
  CHECK(c.wait_s == Approx(42e-6));
  CHECK(c.max_skew_s == Approx(20e-6));
  CHECK(c.median_skew_s == Approx(17.5e-6));
  CHECK(c.waited_for == std::optional<std::size_t>(1));
  CHECK(c.waited_for_count == 1);

  // Per device: waits 15, 20, 7 (they add up to the collective's 42);
  // slowest in step "1" TPU:1, in "2" TPU:2; shortest call TPU:1 (call 1;
  // call 2's shortest is shared).
  REQUIRE(k.devices.size() == 3);
  CHECK(k.devices[0].collective_wait_s == Approx(15e-6));
  CHECK(k.devices[1].collective_wait_s == Approx(20e-6));
  CHECK(k.devices[2].collective_wait_s == Approx(7e-6));
  CHECK(k.devices[0].slowest_steps == 0);
  CHECK(k.devices[1].slowest_steps == 1);
  CHECK(k.devices[2].slowest_steps == 1);
  CHECK(k.devices[0].waited_for_count == 0);
  CHECK(k.devices[1].waited_for_count == 1);
  CHECK(k.devices[2].waited_for_count == 0);

  // The report's entry point gives the same figures.
  const std::vector<std::size_t> all = {0, 1, 2};
  const SkewStats direct = compute_skew(t, all);
  CHECK(direct.collectives.size() == 1);
  CHECK(direct.collectives[0].wait_s == c.wait_s);
  CHECK(direct.steps.size() == 2);

  // The JSON names devices by their place in "devices".
  const nlohmann::json j = nlohmann::json::parse(to_json(t, s, 10).dump());
  REQUIRE(j.contains("across_devices"));
  CHECK(j["across_devices"]["steps"][1]["slowest"]["device"] == 2);
  CHECK(j["across_devices"]["steps"][1]["slowest"]["name"] == "/device:TPU:2");
  CHECK(j["across_devices"]["collectives"][0]["waited_for"]["device"] == 1);
  CHECK(j["across_devices"]["devices"][1]["collective_wait_s"].get<double>() == Approx(20e-6));
}

TEST_CASE("skew: one device has none; --device keeps one, so none either") {
  const Trace t = three_devices();
  CHECK_FALSE(compute_op_stats(t, {.device_id = 1}).skew);
  const nlohmann::json j = nlohmann::json::parse(to_json(t, compute_op_stats(t, {.device_id = 1}), 10).dump());
  CHECK_FALSE(j.contains("across_devices"));
  const std::vector<std::size_t> one = {2};
  CHECK(compute_skew(t, one).devices.empty());
}

TEST_CASE("skew: a step or call every device took alike has no straggler") {
  Trace t = three_devices();
  // Every call 10 µs, every step 100 µs: waits 0, skews 0, and no device
  // counted as slowest or waited for; the rows still name devices by the
  // tie rule (the first listed).
  for (Device& d : t.devices) {
    for (Event& e : d.events)
      if (d.lines[e.line].role == LineRole::kOps && e.op == 1) e.duration_ps = e.self_ps = 10 * kUs;
    for (Step& s : d.steps) s.duration_ps = 100 * kUs;
  }
  const TraceStats s = compute_op_stats(t);
  REQUIRE(s.skew);
  REQUIRE(s.skew->steps.size() == 2);
  CHECK(s.skew->steps[0].skew_s == 0);
  CHECK(s.skew->steps[0].slowest_device == 0);
  REQUIRE(s.skew->collectives.size() == 1);
  CHECK(s.skew->collectives[0].occurrences == 2);
  CHECK(s.skew->collectives[0].wait_s == 0);
  CHECK_FALSE(s.skew->collectives[0].waited_for);
  CHECK(s.skew->collectives[0].waited_for_count == 0);
  for (const DeviceSkew& d : s.skew->devices) {
    CHECK(d.slowest_steps == 0);
    CHECK(d.waited_for_count == 0);
    CHECK(d.collective_wait_s == 0);
  }
}

TEST_CASE("skew: a step name met twice on a device meets the second of that name elsewhere") {
  Trace t = three_devices();
  // TPU:0 runs "1" again (60 µs) and TPU:2 too (80 µs): a step ("1", repeat
  // 1) on two devices, skew 20, slowest TPU:2; after "3" in TPU:0's order.
  t.devices[0].steps.push_back(step("1", 400, 60));
  t.devices[2].steps.push_back(step("1", 400, 80));
  const TraceStats s = compute_op_stats(t);
  REQUIRE(s.skew);
  REQUIRE(s.skew->steps.size() == 3);
  const StepSkew& again = s.skew->steps[2];
  CHECK(again.step == "1");
  CHECK(again.repeat == 1);
  CHECK(again.devices == 2);
  CHECK(again.slowest_device == 2);
  CHECK(again.skew_s == Approx(20e-6));
}

TEST_CASE("skew: TPU v6e x4, the all-reduce called 3 times on every chip") {
  // The same file as ../shared/data/real/xprof/tpu_v6e_x4_inference_2.xplane.pb, kept in examples/.
  auto t = read_trace(roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string());
  REQUIRE(t.ok());
  const TraceStats s = compute_op_stats(*t);
  REQUIRE(s.devices.size() == 4);
  REQUIRE(s.skew);
  const SkewStats& k = *s.skew;
  CHECK(k.steps.empty());  // the chips have no steps, the host none either
  REQUIRE(k.collectives.size() == 1);
  const CollectiveSkew& c = k.collectives[0];
  CHECK(c.name == "all-reduce");
  CHECK(c.module == "jit__psum");
  CHECK(c.occurrences == 3);
  CHECK(c.max_skew_s >= c.median_skew_s);
  CHECK(c.median_skew_s >= 0);
  // Each call: the shortest device waits 0, the others its difference, so
  // the devices' waits are >= 0 and add up to the collective's; one device
  // is the shortest of each call (no call took all four chips alike).
  double waits = 0;
  std::int64_t shortest = 0;
  REQUIRE(k.devices.size() == 4);
  for (const DeviceSkew& d : k.devices) {
    CHECK(d.collective_wait_s >= 0);
    waits += d.collective_wait_s;
    shortest += d.waited_for_count;
  }
  CHECK(c.wait_s >= 0);
  CHECK(waits == Approx(c.wait_s).epsilon(1e-12));
  CHECK(shortest == 3);
  // The calls are ~121.7 ms; their skew is far below that (0.02 ms between
  // the shortest and longest self time of all 12 calls, docs/traces.md).
  CHECK(c.max_skew_s < 1e-3);
}

TEST_CASE("skew: two Kineto ranks read as one job, and their partials merged") {
  const fs::path root = two_ranks("ranks");
  const std::vector<std::string> paths = {(root / "rank0.json").string(), (root / "rank1.json").string()};
  auto t = read_traces(paths);
  REQUIRE(t.ok());
  const TraceStats s = compute_op_stats(*t);
  REQUIRE(s.devices.size() == 2);
  REQUIRE(s.skew);
  const SkewStats& k = *s.skew;
  // Each rank's GPU 0 has its own ProfilerStep#1: 104 and 130 µs -> slowest
  // rank1, skew 26, median (104 + 130) / 2 = 117.
  REQUIRE(k.steps.size() == 1);
  CHECK(k.steps[0].step == "ProfilerStep#1");
  CHECK(t->devices[k.steps[0].slowest_device].host == "rank1");
  CHECK(t->devices[k.steps[0].fastest_device].host == "rank0");
  CHECK(k.steps[0].skew_s == Approx(26e-6));
  CHECK(k.steps[0].median_s == Approx(117e-6));
  // One NCCL all-reduce call each, 50 and 35 µs: the same op in both files,
  // one call matched; rank0 waited 15 µs for rank1.
  REQUIRE(k.collectives.size() == 1);
  CHECK(k.collectives[0].occurrences == 1);
  CHECK(k.collectives[0].wait_s == Approx(15e-6));
  REQUIRE(k.collectives[0].waited_for);
  CHECK(t->devices[*k.collectives[0].waited_for].host == "rank1");
  CHECK(k.devices[0].collective_wait_s == Approx(15e-6));
  CHECK(k.devices[1].collective_wait_s == 0);
  CHECK(k.devices[1].slowest_steps == 1);

  // Per-file partials, merged (and through their files), print what one pass prints.
  std::vector<StatsPartial> parts;
  for (const std::string& p : paths) {
    auto one = read_traces({p});
    REQUIRE(one.ok());
    auto back = parse_stats_partial(stats_partial_json(stats_partial(std::move(*one))), p);
    REQUIRE(back.ok());
    parts.push_back(std::move(*back));
  }
  auto m = merge_partials(parts);
  REQUIRE(m.ok());
  const TraceStats merged = finish_stats(*m);
  REQUIRE(merged.skew);
  CHECK(rendered(trace_outline(*m), merged) == rendered(*t, s));
  fs::remove_all(root);
}
