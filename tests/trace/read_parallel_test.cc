// Many files read at once (TraceReadOptions::jobs) and lists of files,
// directories and glob patterns (read_traces): the result is the sequential
// read's, whatever the threads did. Fixtures are copies of the small test
// traces under several host names, made in a temp folder.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "roofline/measure/op_stats.hpp"
#include "roofline/report/json.hpp"
#include "roofline/trace/read.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"
#include "tests/trace/xspace_writer.hpp"

using namespace roofline;
using roofline::testing::run_cli;
using roofline::testing::test_data;
using roofline::testing::fresh_temp_dir;
namespace fs = std::filesystem;

namespace {

// Six ranks, plain and gzip'd Kineto, and an eight-device jax export: mixed
// formats and sizes, so that the files finish out of order.
fs::path make_ranks(const std::string& name) {
  const fs::path root = fresh_temp_dir("parallel_test", name);
  for (int r = 0; r < 6; ++r)
    fs::copy_file(test_data(r % 2 ? "trace/kineto_small.json.gz" : "trace/kineto_small.json"),
                  root / ("rank" + std::to_string(r) + (r % 2 ? ".pt.trace.json.gz" : ".pt.trace.json")));
  fs::copy_file(test_data("trace/jax_cpu8.trace.json.gz"), root / "vm.trace.json.gz");
  return root;
}

// What `roofline stats --format json` prints for the trace, all ops, without
// its source (a list names its entries, a directory itself).
std::string stats_json(const Trace& t) {
  nlohmann::json j = nlohmann::json::parse(to_json(t, compute_op_stats(t), static_cast<std::size_t>(-1)).dump());
  j.erase("source");
  return j.dump();
}

}  // namespace

TEST_CASE("read: a directory of several hosts reads the same with 1 and 4 jobs") {
  const fs::path root = make_ranks("jobs");
  std::ofstream(root / "config.json") << R"({"batch_size": 32})";  // skipped, with a warning
  auto one = read_trace(root.string(), {.jobs = 1});
  REQUIRE(one.ok());
  // Six Kineto ranks with one GPU each, and the eight XLA:CPU devices of vm.
  REQUIRE(one->devices.size() == 6 + 8);
  CHECK(one->devices[0].host == "rank0");
  CHECK(one->devices[5].host == "rank5");
  CHECK(one->files.size() == 7);
  for (int run = 0; run < 5; ++run) {
    auto four = read_trace(root.string(), {.jobs = 4});
    REQUIRE(four.ok());
    CHECK(four->source == one->source);
    CHECK(four->files == one->files);
    CHECK(four->warnings == one->warnings);
    CHECK(stats_json(*four) == stats_json(*one));
  }
  fs::remove_all(root);
}

TEST_CASE("read_traces: a glob list equals the directory read") {
  const fs::path root = make_ranks("glob");
  auto dir = read_trace(root.string(), {.jobs = 1});
  REQUIRE(dir.ok());
  auto listed = read_traces({(root / "rank*.pt.trace.json*").string(), (root / "vm.trace.json.gz").string()},
                            {.jobs = 3});
  REQUIRE(listed.ok());
  CHECK(listed->files == dir->files);
  CHECK(stats_json(*listed) == stats_json(*dir));
  CHECK(listed->source == (root / "rank*.pt.trace.json*").string() + " " + (root / "vm.trace.json.gz").string());
  // The directory itself in a list, and a file of it named again: read once.
  auto again = read_traces({root.string(), (root / "rank0.pt.trace.json").string()}, {.jobs = 2});
  REQUIRE(again.ok());
  CHECK(again->files == dir->files);
  CHECK(stats_json(*again) == stats_json(*dir));
  // One entry naming one file is read_trace of it: no host from the stem.
  auto single = read_traces({(root / "rank0.pt.trace.json").string()});
  REQUIRE(single.ok());
  CHECK(single->devices.front().host.empty());
  fs::remove_all(root);
}

TEST_CASE("read_traces: the error of the first failing file in file order is reported") {
  const fs::path root = make_ranks("errors");
  // rank1 is damaged early, rank4 too: rank4 may well fail first in time.
  std::ofstream(root / "rank1.pt.trace.json.gz", std::ios::trunc) << R"({"traceEvents":[{"ph":"X",)";
  std::ofstream(root / "rank4.pt.trace.json", std::ios::trunc) << R"({"traceEvents":[{"ph":"X",)";
  for (unsigned jobs : {1u, 2u, 4u, 8u}) {
    auto t = read_trace(root.string(), {.jobs = jobs});
    REQUIRE_FALSE(t.ok());
    const std::string message(t.status().message());
    CHECK_THAT(message, Catch::Contains("rank1.pt.trace.json.gz: truncated JSON"));
    CHECK_THAT(message, !Catch::Contains("rank4"));
  }
  fs::remove_all(root);
}

TEST_CASE("read_traces: a pattern that matches nothing is an error naming it") {
  const fs::path root = make_ranks("nomatch");
  const std::string pattern = (root / "host*.xplane.pb").string();
  auto t = read_traces({root.string(), pattern});
  REQUIRE_FALSE(t.ok());
  CHECK(std::string(t.status().message()) == pattern + ": no file matches the pattern");
  CHECK(t.status().code() == absl::StatusCode::kNotFound);
  auto none = read_traces({});
  CHECK_FALSE(none.ok());
  fs::remove_all(root);
}

TEST_CASE("read_traces: JSON without a trace is skipped when a pattern found it, an error when named") {
  const fs::path root = make_ranks("named");
  std::ofstream(root / "config.json") << R"({"batch_size": 32})";
  auto found = read_traces({(root / "*.json").string(), (root / "vm.trace.json.gz").string()});
  REQUIRE(found.ok());
  REQUIRE(found->warnings.size() >= 1);
  CHECK_THAT(found->warnings[0], Catch::StartsWith("skipped ") && Catch::Contains("config.json: no traceEvents"));
  auto named = read_traces({(root / "config.json").string(), (root / "vm.trace.json.gz").string()});
  REQUIRE_FALSE(named.ok());
  CHECK_THAT(std::string(named.status().message()), Catch::Contains("config.json: no traceEvents"));
  fs::remove_all(root);
}

TEST_CASE("read: progress is called on the calling thread once per file, up to the total") {
  const fs::path root = make_ranks("progress");
  std::uint64_t bytes = 0;
  for (const auto& e : fs::directory_iterator(root)) bytes += e.file_size();
  std::vector<TraceReadProgress> seen;
  std::set<std::thread::id> threads;
  TraceReadOptions options{.jobs = 4};
  options.progress = [&](const TraceReadProgress& p) {
    seen.push_back(p);
    threads.insert(std::this_thread::get_id());
  };
  auto t = read_trace(root.string(), options);
  REQUIRE(t.ok());
  REQUIRE(seen.size() == 7);
  CHECK(threads == std::set<std::thread::id>{std::this_thread::get_id()});
  std::set<std::string> files;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    CHECK(seen[i].files_done == i + 1);
    CHECK(seen[i].files_total == 7);
    CHECK(seen[i].bytes_total == bytes);
    files.insert(seen[i].file);
  }
  CHECK(seen.back().bytes_done == bytes);
  CHECK(files.size() == 7);
  fs::remove_all(root);
}

TEST_CASE("cli: stats takes several traces and patterns, and --jobs") {
  const fs::path root = make_ranks("cli");
  auto dir = run_cli("stats '" + root.string() + "' --format json --jobs 1");
  REQUIRE(dir.exit_code == 0);
  auto list = run_cli("stats '" + (root / "rank*").string() + "' '" + (root / "vm.trace.json.gz").string() +
                      "' --format json --jobs 4");
  REQUIRE(list.exit_code == 0);
  // stderr is a file here, not a terminal: no progress line.
  CHECK(list.err.empty());
  auto a = nlohmann::json::parse(dir.out), b = nlohmann::json::parse(list.out);
  a.erase("source");
  b.erase("source");
  CHECK(a == b);
  auto report = run_cli("report '" + (root / "rank*").string() + "' --format json --jobs 2");
  REQUIRE(report.exit_code == 0);
  CHECK(report.err.empty());
  auto zero = run_cli("stats '" + root.string() + "' --jobs 0");
  CHECK(zero.exit_code == 2);
  CHECK_THAT(zero.err, Catch::Contains("--jobs: expected an integer from 1 to 4096, got '0'"));
  auto nomatch = run_cli("stats '" + (root / "host*.xplane.pb").string() + "'");
  CHECK(nomatch.exit_code == 2);
  CHECK_THAT(nomatch.err, Catch::Contains("host*.xplane.pb: no file matches the pattern"));
  fs::remove_all(root);
}

TEST_CASE("cli: stats of host files past --host-timelines-up-to says so once, naming the files") {
  const fs::path root = fresh_temp_dir("parallel_test", "past_hosts");
  const fs::path example =
      roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb");  // 863 kB
  for (const char* host : {"host0", "host1", "host2", "host3", "host4"})
    fs::copy_file(example, root / (std::string(host) + ".xplane.pb"));
  auto past = run_cli("stats '" + root.string() + "' --host-timelines-up-to 100000");
  REQUIRE(past.exit_code == 0);
  CHECK_THAT(past.out, Catch::Contains("xplane (5 files); 20 devices (20 with ops), 0 host timelines"));
  const std::string said =
      "warning: host timelines not read: its host planes are past 100000 bytes (--host-timelines-up-to, "
      "TraceReadOptions::host_timelines_up_to_bytes), so idle gaps show no host activity and host events go "
      "unchecked; in 5 files: " +
      (root / "host0.xplane.pb").string() + ", " + (root / "host1.xplane.pb").string() + ", " +
      (root / "host2.xplane.pb").string() + " and 2 more\n";
  CHECK_THAT(past.out, Catch::Contains(said));
  CHECK(past.out.find("host timelines not read") == past.out.rfind("host timelines not read"));
  // Under the limit (the default), the host timelines are read.
  auto read = run_cli("stats '" + root.string() + "'");
  REQUIRE(read.exit_code == 0);
  CHECK_THAT(read.out, Catch::Contains("xplane (5 files); 20 devices (20 with ops), 5 host timelines"));
  CHECK(read.out.find("host timelines not read") == std::string::npos);
  auto negative = run_cli("stats '" + root.string() + "' --host-timelines-up-to -1");
  CHECK(negative.exit_code == 2);
  fs::remove_all(root);
}

TEST_CASE("cli: stats reads host timelines up to 64 MiB of host planes by default") {
  // A TPU and a host plane padded (an unknown field, which readers skip)
  // to the default limit, then one byte past it.
  const fs::path root = fresh_temp_dir("parallel_test", "default_limit");
  roofline::testing::Pb ops;
  ops.sint(1, 3).bytes(2, "XLA Ops").sint(3, 1000);
  ops.msg(4, roofline::testing::event(1, 0, 1'000'000));
  ops.msg(4, roofline::testing::event(1, 3'000'000, 1'000'000));
  roofline::testing::Pb tpu;
  tpu.sint(1, 2).bytes(2, "/device:TPU:0").msg(3, ops).msg(4, roofline::testing::event_metadata(1, "fusion.1"));
  auto host = [](std::size_t plane_bytes) {
    roofline::testing::Pb thread;
    thread.sint(1, 7).bytes(2, "python/12").sint(3, 0).msg(4, roofline::testing::event(1, 0, 4'000'000));
    roofline::testing::Pb p;
    p.sint(1, 9).bytes(2, "/host:CPU").msg(3, thread).msg(4, roofline::testing::event_metadata(1, "PjitFunction(f)"));
    // Field 15 with a 4-byte length: tag 1 byte, length 4, then the padding.
    const std::size_t pad = plane_bytes - p.str().size() - 5;
    return p.bytes(15, std::string(pad, 'x'));
  };
  for (const auto& [name, bytes] : {std::pair<const char*, std::size_t>{"at", std::size_t{64} << 20},
                                    {"past", (std::size_t{64} << 20) + 1}}) {
    const roofline::testing::Pb h = host(bytes);
    REQUIRE(h.str().size() == bytes);
    const fs::path file = root / (std::string(name) + ".xplane.pb");
    std::ofstream(file, std::ios::binary) << roofline::testing::xspace({tpu, h});
    auto r = run_cli("stats '" + file.string() + "' --format json");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    const bool read = std::string(name) == "at";
    CHECK(j["warnings"].size() == (read ? 0u : 1u));
    // The gap between the two ops: what the host did then, where its
    // timeline is read.
    CHECK(j["devices"][0]["idle_gaps"][0]["host"].size() == (read ? 1u : 0u));
    fs::remove(file);
  }
  fs::remove_all(root);
}

TEST_CASE("cli: stats groups a warning files share, not one a file repeats, by the longest file name") {
  // Two XSpaces whose profiler notes (XSpace warnings) are alike: one says
  // it twice, and the other's name begins with the first's and ": ".
  const fs::path root = fresh_temp_dir("parallel_test", "warnings");
  roofline::testing::Pb ops;
  ops.sint(1, 3).bytes(2, "XLA Ops").sint(3, 1000).msg(4, roofline::testing::event(1, 0, 1'000'000));
  roofline::testing::Pb tpu;
  tpu.sint(1, 2).bytes(2, "/device:TPU:0").msg(3, ops).msg(4, roofline::testing::event_metadata(1, "fusion.1"));
  roofline::testing::Pb twice, once;
  twice.msg(1, tpu).bytes(3, "same note").bytes(3, "same note");
  once.msg(1, tpu).bytes(3, "same note");
  const fs::path a = root / "a.xplane.pb", b = root / "a.xplane.pb: b.xplane.pb";
  std::ofstream(a, std::ios::binary) << twice.str();
  std::ofstream(b, std::ios::binary) << once.str();
  auto r = run_cli("stats '" + root.string() + "'");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("warning: profiler says: same note; in 2 files: " + a.string() + ", " +
                                    b.string() + "\nwarning: " + a.string() + ": profiler says: same note\n"));
  fs::remove_all(root);
}
