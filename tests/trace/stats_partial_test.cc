// Partial statistics (roofline/measure/stats_partial.hpp): merged per-file
// partials give, byte for byte, the JSON and CSV of one pass over the same
// files; merging is associative; a partial round-trips through its file;
// damaged partials fail with located errors.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "roofline/measure/op_stats.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/json.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

using namespace roofline;
using roofline::testing::test_data;

namespace {

std::string path_of(const std::string& name) {
  // "real/...": a profile of ../shared/data/real (the test skips without it).
  return name.rfind("real/", 0) == 0 ? roofline::testing::require_real(name.substr(5)).string() : test_data(name).string();
}

StatsPartial partial_of(const std::string& name, const OpStatsOptions& options = {}) {
  auto t = read_traces({path_of(name)});
  REQUIRE(t.ok());
  return stats_partial(std::move(*t), options);
}

// What `roofline stats --format json` and `--format csv` print.
std::string rendered(const Trace& t, const TraceStats& s) {
  return to_json(t, s, s.ops.size()).dump() + "\n" + to_csv(s, s.ops.size());
}

std::string one_pass(const std::vector<std::string>& names, const OpStatsOptions& options = {}) {
  std::vector<std::string> paths;
  for (const std::string& n : names) paths.push_back(path_of(n));
  auto t = read_traces(paths);
  REQUIRE(t.ok());
  return rendered(*t, compute_op_stats(*t, options));
}

std::string merged(const std::vector<StatsPartial>& parts) {
  auto m = merge_partials(parts);
  REQUIRE(m.ok());
  return rendered(trace_outline(*m), finish_stats(*m));
}

const std::vector<std::vector<std::string>> kCombinations = {
    {"trace/jax_cpu8.xplane.pb", "real/xprof/tpu_v6e_x4_inference_2.xplane.pb"},
    {"trace/kineto_small.json", "trace/tsl_tpu_nested.json", "trace/jax_cpu8.xplane.pb"},
    {"trace/old_kineto_epoch.json", "trace/kineto_small.json.gz", "trace/jax_cpu8.trace.json.gz"},
    {"real/xprof/tpu_v6e_x4_inference_2.xplane.pb", "trace/old_kineto_external_is_correlation.json"},
};

}  // namespace

TEST_CASE("stats partial: merged per-file partials print exactly what one pass over the files prints") {
  for (const auto& names : kCombinations) {
    INFO(names.front() << " + " << names.size() - 1 << " more");
    std::vector<StatsPartial> parts;
    for (const std::string& n : names) parts.push_back(partial_of(n));
    const std::string one = one_pass(names);
    CHECK(merged(parts) == one);
    // Every combination has devices of several files: the figures across
    // devices (stragglers, collective waits) are part of what is compared.
    CHECK(one.find("\"across_devices\"") != std::string::npos);
  }
  // TPU v6e x4's all-reduce calls are matched across its chips in the merge too.
  const TraceStats s = finish_stats(*merge_partials(std::vector{partial_of(kCombinations[0][0]), partial_of(kCombinations[0][1])}));
  REQUIRE(s.skew);
  REQUIRE_FALSE(s.skew->collectives.empty());
  CHECK(s.skew->collectives.front().occurrences == 3);
}

TEST_CASE("stats partial: merging is associative, and a merged partial merges on") {
  const auto& names = kCombinations[1];
  const StatsPartial a = partial_of(names[0]), b = partial_of(names[1]), c = partial_of(names[2]);
  auto ab = merge_partials(std::vector{a, b});
  auto bc = merge_partials(std::vector{b, c});
  REQUIRE(ab.ok());
  REQUIRE(bc.ok());
  auto left = merge_partials(std::vector{*ab, c});
  auto right = merge_partials(std::vector{a, *bc});
  REQUIRE(left.ok());
  REQUIRE(right.ok());
  CHECK(stats_partial_json(*left) == stats_partial_json(*right));
  CHECK(rendered(trace_outline(*left), finish_stats(*left)) == one_pass(names));
}

TEST_CASE("stats partial: with --device, the partials merge to that device's one pass") {
  const OpStatsOptions only0{.device_id = 0};
  const auto& names = kCombinations[0];
  CHECK(merged({partial_of(names[0], only0), partial_of(names[1], only0)}) == one_pass(names, only0));
  auto mixed = merge_partials(std::vector{partial_of(names[0], only0), partial_of(names[1])});
  REQUIRE_FALSE(mixed.ok());
  CHECK_THAT(std::string(mixed.status().message()), Catch::Contains("other statistics options"));
}

TEST_CASE("stats partial: a partial round-trips through its file bit for bit") {
  for (const auto& names : kCombinations) {
    std::vector<StatsPartial> parts;
    for (const std::string& n : names) parts.push_back(partial_of(n));
    auto m = merge_partials(parts);
    REQUIRE(m.ok());
    const std::string text = stats_partial_json(*m);
    auto back = parse_stats_partial(text, "m.json");
    REQUIRE(back.ok());
    CHECK(stats_partial_json(*back) == text);
    CHECK(rendered(trace_outline(*back), finish_stats(*back)) == one_pass(names));
  }
}

TEST_CASE("stats partial: what one read would join is refused, said why") {
  const StatsPartial a = partial_of("trace/jax_cpu8.xplane.pb");
  auto twice = merge_partials(std::vector{a, a});
  REQUIRE_FALSE(twice.ok());
  CHECK_THAT(std::string(twice.status().message()), Catch::Contains("in two partials"));
  // Both Kineto files name their host "kineto_small" (their stem): one read
  // would lend each file's devices the other's host timeline.
  auto shared = merge_partials(std::vector{partial_of("trace/kineto_small.json"), partial_of("trace/kineto_small.json.gz")});
  REQUIRE_FALSE(shared.ok());
  CHECK_THAT(std::string(shared.status().message()), Catch::Contains("host \"kineto_small\""));
  CHECK_FALSE(merge_partials({}).ok());
}

TEST_CASE("stats partial: a damaged partial fails with the file and the place") {
  const std::string good = stats_partial_json(partial_of("trace/kineto_small.json"));
  auto fails = [](const std::string& text, const std::string& says) {
    auto p = parse_stats_partial(text, "p.json");
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(std::string(p.status().message()), Catch::StartsWith("p.json: ") && Catch::Contains(says));
  };
  fails(good.substr(0, good.size() / 2), "byte ");
  fails("[]", "expected an object");
  auto edit = [&](auto change) {
    nlohmann::json j = nlohmann::json::parse(good);
    change(j);
    return j.dump();
  };
  fails(edit([](nlohmann::json& j) { j["version"] = 1; }), "/version: expected 2, the only version this build reads (got 1)");
  fails(edit([](nlohmann::json& j) { j["format"] = "roofline-calibration"; }), "/format: expected \"roofline-stats-partial\"");
  fails(edit([](nlohmann::json& j) { j["rows"][0]["op"] = "x"; }), "/rows/0/op: expected an index into /ops");
  fails(edit([](nlohmann::json& j) { j["rows"][0]["op"] = 100000; }), "/rows/0/op: expected an index into /ops");
  fails(edit([](nlohmann::json& j) { j["rows"][0]["self_ps"][0][1] = 0; }), "/rows/0/self_ps/0/1: expected an integer of at least 1");
  fails(edit([](nlohmann::json& j) { j["devices"][0]["kind"] = "fpga"; }), "/devices/0/kind: expected one of tpu");
  fails(edit([](nlohmann::json& j) { j["devices"][0].erase("caps"); }), "/devices/0/caps: missing required field");
  fails(edit([](nlohmann::json& j) { j["extra"] = 1; }), "/extra: unknown field");
  fails(edit([](nlohmann::json& j) { j["rows"][0]["self_ps"].push_back({0, 1}); }), "self times must ascend strictly");
  fails(edit([](nlohmann::json& j) { j["rows"][0]["self_ps"][0][1] = 1000000; }), "op events");
  // What would take years to finish, or a pod's worth of hosts times thousands.
  fails(edit([](nlohmann::json& j) { j["rows"][0]["self_ps"][0][1] = std::int64_t{1} << 40; }),
        "/rows/0/self_ps/0/1: more than 4294967296 op events in all");
  fails(edit([](nlohmann::json& j) { j["host_timelines"] = 1 << 20; }), "/host_timelines: expected at most 65536");
  fails(R"({"format": "roofline-stats-partial", "version": 1e400})", "not a partial");
  // A device's collective calls (for the figures across devices) name collective ops, each once, in order.
  fails(edit([](nlohmann::json& j) { j["devices"][0]["stats"]["skew"]["collectives"][0]["op"] = 0; }),
        "/devices/0/stats/skew/collectives/0/op: expected a collective op");
  fails(edit([](nlohmann::json& j) { j["devices"][0]["stats"]["skew"]["collectives"][0]["duration_ps"] = nlohmann::json::array(); }),
        "/devices/0/stats/skew/collectives/0/duration_ps: expected a non-empty array");
  fails(edit([](nlohmann::json& j) { j["devices"][0]["stats"]["skew"]["steps"][0].erase("name"); }),
        "/devices/0/stats/skew/steps/0/name: missing required field");
}

TEST_CASE("stats partial: merged partials stay within the limits a read keeps") {
  // Each of these is within kMaxPartialHostTimelines; together they are not.
  StatsPartial a = partial_of("trace/kineto_small.json");
  StatsPartial b = partial_of("trace/jax_cpu8.xplane.pb");
  a.host_timelines = b.host_timelines = static_cast<std::size_t>(kMaxPartialHostTimelines);
  auto m = merge_partials(std::vector<StatsPartial>{a, b});
  REQUIRE_FALSE(m.ok());
  CHECK_THAT(std::string(m.status().message()), Catch::Contains("more than 65536 host timelines in all"));
}
