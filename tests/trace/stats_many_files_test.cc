// The statistics of many files read one file at a time through their
// partials (read_trace_stats, stats_partial_of_traces): the figures, the
// warnings and the errors are those of one read of all of them, whatever
// the number of jobs.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
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
using roofline::testing::fresh_temp_dir;
namespace fs = std::filesystem;

namespace {

// What `roofline stats --format json` and `--format csv` print.
std::string rendered(const Trace& t, const TraceStats& s) {
  return to_json(t, s, s.ops.size()).dump() + "\n" + to_csv(s, s.ops.size());
}

std::string one_pass(const std::vector<std::string>& inputs, const OpStatsOptions& options = {},
                     TraceReadOptions read = {}) {
  auto t = read_traces(inputs, read);
  REQUIRE(t.ok());
  return rendered(*t, compute_op_stats(*t, options));
}

std::string by_partials(const std::vector<std::string>& inputs, unsigned jobs, const OpStatsOptions& options = {},
                        TraceReadOptions read = {}) {
  read.jobs = jobs;
  auto r = read_trace_stats(inputs, read, options);
  REQUIRE(r.ok());
  return rendered(r->trace, r->stats);
}

}  // namespace

TEST_CASE("many files: read through their partials, the statistics are one pass's, with 1 and 3 jobs") {
  const std::string example = roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string();
  const std::vector<std::vector<std::string>> inputs = {
      {test_data("trace/jax_cpu8.xplane.pb").string(), example},
      {test_data("trace/kineto_small.json").string(), test_data("trace/tsl_tpu_nested.json").string(),
       test_data("trace/jax_cpu8.xplane.pb").string()},
      {test_data("trace/old_kineto_epoch.json").string(), test_data("trace/kineto_small.json.gz").string(),
       test_data("trace/jax_cpu8.trace.json.gz").string()},
      {test_data("trace/kineto_small.json").string()},  // one file: read whole, as before
  };
  for (const auto& in : inputs) {
    INFO(in.front() << " + " << in.size() - 1 << " more");
    const std::string expected = one_pass(in);
    CHECK(by_partials(in, 1) == expected);
    CHECK(by_partials(in, 3) == expected);
    const OpStatsOptions only0{.device_id = 0};
    CHECK(by_partials(in, 2, only0) == one_pass(in, only0));
  }
}

TEST_CASE("many files: host planes past host_timelines_up_to_bytes are one pass's among others, and merge exactly") {
  const std::string example = roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string();
  const std::string cpu = test_data("trace/jax_cpu8.xplane.pb").string();
  // The TPU host file's host plane past the limit, the XLA:CPU one (no
  // device plane: its threads are the devices) read as ever.
  TraceReadOptions past;
  past.host_timelines_up_to_bytes = 100'000;
  const std::vector<std::string> in = {cpu, example};
  const std::string expected = one_pass(in, {}, past);
  CHECK(expected != one_pass(in));  // the TPU's gaps lose their host activity
  CHECK(by_partials(in, 1, {}, past) == expected);
  CHECK(by_partials(in, 2, {}, past) == expected);
  // Partials of each file, merged: the same.
  std::vector<StatsPartial> parts;
  for (const std::string& f : in) {
    auto p = stats_partial_of_traces({f}, past);
    REQUIRE(p.ok());
    parts.push_back(std::move(*p));
  }
  auto merged = merge_partials(parts);
  REQUIRE(merged.ok());
  CHECK(rendered(trace_outline(*merged), finish_stats(*merged)) == expected);
  CHECK_THAT(expected, Catch::Contains("host timelines not read"));
}

TEST_CASE("many files: a directory with a file that is no trace and a pattern, as one read says them") {
  const fs::path root = roofline::testing::rank_folder("many_files_test");  // and a config.json, skipped with a warning
  for (const std::vector<std::string>& in :
       {std::vector<std::string>{root.string()}, std::vector<std::string>{(root / "rank*").string(), root.string()}}) {
    const std::string expected = one_pass(in);
    CHECK_THAT(expected, Catch::Contains("skipped"));
    CHECK(by_partials(in, 2) == expected);
    auto p = stats_partial_of_traces(in, {.jobs = 2});
    auto t = read_traces(in);
    REQUIRE(p.ok());
    REQUIRE(t.ok());
    CHECK(stats_partial_json(*p) == stats_partial_json(stats_partial(std::move(*t))));
  }
  fs::remove_all(root);
}

TEST_CASE("many files: inputs a merge refuses are read together, to the same figures") {
  // Both name their host "kineto_small" (their stem): merge_partials refuses
  // them (stats_partial_test), so they are read as one.
  const std::vector<std::string> in = {test_data("trace/kineto_small.json").string(),
                                       test_data("trace/kineto_small.json.gz").string()};
  CHECK(by_partials(in, 2) == one_pass(in));
}

TEST_CASE("many files: errors are one read's: the first damaged file, or no trace at all") {
  const fs::path root = fresh_temp_dir("many_files_test", "errors");
  fs::copy_file(test_data("trace/kineto_small.json"), root / "a.pt.trace.json");
  std::ofstream(root / "b.pt.trace.json") << R"({"traceEvents": [{"ph": "X", "ts": 1, "dur": "x"}]})";
  std::ofstream(root / "c.pt.trace.json") << R"({"traceEvents": [)";
  auto one = read_traces({root.string()});
  auto many = read_trace_stats({root.string()}, {.jobs = 3});
  REQUIRE_FALSE(one.ok());
  REQUIRE_FALSE(many.ok());
  CHECK(many.status() == one.status());
  CHECK_THAT(std::string(many.status().message()), Catch::Contains("b.pt.trace.json"));

  const fs::path none = fresh_temp_dir("many_files_test", "none");
  std::ofstream(none / "a.json") << R"({"batch_size": 32})";
  std::ofstream(none / "b.json") << R"({"lr": 0.1})";
  auto no_trace = read_traces({none.string()});
  auto no_stats = read_trace_stats({none.string()}, {.jobs = 2});
  REQUIRE_FALSE(no_stats.ok());
  CHECK(no_stats.status() == no_trace.status());
  fs::remove_all(root);
  fs::remove_all(none);
}
