// Format sniffing, directories, and one real jax run read through both its
// XPlane and its JSON export (tests/data/trace/jax_cpu, written by
// scripts/make_trace_fixtures.py).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "roofline/measure/op_stats.hpp"
#include "roofline/trace/read.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using namespace roofline;
using roofline::testing::run_cli;
using roofline::testing::test_data;
using roofline::testing::fresh_temp_dir;
namespace fs = std::filesystem;

namespace {

const fs::path kRun = fs::path("trace/jax_cpu/plugins/profile/2026_01_01_00_00_00");

}  // namespace

TEST_CASE("read: the XPlane and the trace.json.gz of one jax run give the same op stats") {
  auto xp = read_trace(test_data((kRun / "vm.xplane.pb").string()).string());
  auto js = read_trace(test_data((kRun / "vm.trace.json.gz").string()).string());
  auto pf = read_trace(test_data((kRun / "perfetto_trace.json.gz").string()).string());
  REQUIRE(xp.ok());
  REQUIRE(js.ok());
  REQUIRE(pf.ok());
  CHECK(xp->formats.front() == TraceFormat::kXPlane);
  CHECK(js->formats.front() == TraceFormat::kTslJson);
  const TraceStats a = compute_op_stats(*xp), b = compute_op_stats(*js), c = compute_op_stats(*pf);
  // jax on CPU: XLA's thunks run on host threads; they form the XLA:CPU device.
  REQUIRE(a.devices.size() == 1);
  CHECK(a.devices[0].name == "XLA:CPU");
  REQUIRE(a.ops.size() >= 3);
  REQUIRE(b.ops.size() == a.ops.size());
  REQUIRE(c.ops.size() == a.ops.size());
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    INFO(a.ops[i].name);
    CHECK(b.ops[i].name == a.ops[i].name);
    CHECK(b.ops[i].module == a.ops[i].module);
    CHECK(b.ops[i].count == a.ops[i].count);
    // The JSON prints µs with 17 significant digits: picoseconds survive,
    // within one rounding per event.
    CHECK(std::abs(b.ops[i].total_s - a.ops[i].total_s) <= static_cast<double>(a.ops[i].count) * 1e-12);
    CHECK(c.ops[i].total_s == b.ops[i].total_s);
    CHECK(a.ops[i].program_id.has_value());     // the XPlane has program ids
    CHECK_FALSE(b.ops[i].program_id.has_value());  // the JSON export drops them
  }
  CHECK(b.devices[0].busy_s == Approx(a.devices[0].busy_s).epsilon(1e-9));
}

TEST_CASE("read: XLA:CPU thunks of eight virtual devices are eight devices, by device_ordinal") {
  // tests/data/trace/jax_cpu8.xplane.pb (scripts/make_trace_fixtures.py
  // jax_cpu8): a psum'd matmul over 8 virtual CPU devices, 3 steps. Each
  // device ran ynn_fusion (its partial matmul) and psum_invariant.7 (the
  // all-reduce) 3 times, on whichever host threads were free: 6 op events.
  auto t = read_trace(test_data("trace/jax_cpu8.xplane.pb").string());
  REQUIRE(t.ok());
  REQUIRE(t->devices.size() == 8);
  for (int i = 0; i < 8; ++i) {
    const Device& d = t->devices[static_cast<std::size_t>(i)];
    INFO(d.name);
    CHECK(d.id == i);
    CHECK(d.name == "XLA:CPU:" + std::to_string(i));
    CHECK(d.kind == DeviceKind::kCpu);
    CHECK(d.events.size() == 6);
    std::map<std::string, int> per_op;
    for (const Event& e : d.events) ++per_op[t->ops[e.op].name];
    CHECK(per_op == std::map<std::string, int>{{"psum_invariant.7", 3}, {"ynn_fusion", 3}});
  }
  // Each device's busy time is within its own span: no device is busy for
  // longer than its window (the merged device was, 333-676 %).
  for (const DeviceStats& d : compute_op_stats(*t).devices) {
    INFO(d.name);
    CHECK(d.busy_s <= d.window_s);
  }
}

TEST_CASE("read: the JSON export of the same capture splits the same eight devices") {
  // jax_cpu8.trace.json.gz is the TSL JSON jax wrote beside the XPlane; its
  // thunk events carry args.device_ordinal too.
  auto x = read_trace(test_data("trace/jax_cpu8.xplane.pb").string());
  auto j = read_trace(test_data("trace/jax_cpu8.trace.json.gz").string());
  REQUIRE(x.ok());
  REQUIRE(j.ok());
  REQUIRE(j->devices.size() == 8);
  const auto xs = compute_op_stats(*x).devices;
  const auto js = compute_op_stats(*j).devices;
  REQUIRE(xs.size() == js.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    INFO(js[i].name);
    CHECK(j->devices[i].id == static_cast<int>(i));
    CHECK(j->devices[i].events.size() == 6);
    // The JSON export rounds times to ns (XPlane keeps ps).
    CHECK(js[i].busy_s == Approx(xs[i].busy_s).epsilon(1e-6));
  }
}

TEST_CASE("cli: stats --device 3 picks one of eight XLA:CPU devices") {
  auto r = run_cli("stats '" + test_data("trace/jax_cpu8.xplane.pb").string() + "' --device 3 --format json");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["devices"].size() == 1);
  CHECK(j["devices"][0]["name"] == "XLA:CPU:3");
  CHECK(j["devices"][0]["op_events"] == 6);
}

TEST_CASE("read: a profile directory reads the XPlane, not its JSON copies") {
  auto t = read_trace(test_data("trace/jax_cpu").string());
  REQUIRE(t.ok());
  REQUIRE(t->files.size() == 1);
  CHECK(fs::path(t->files[0]).filename() == "vm.xplane.pb");
}

TEST_CASE("read: sibling capture folders - the newest is read, with a warning") {
  const fs::path root = fresh_temp_dir("trace_test", "runs");
  for (const char* run : {"2026_01_01_00_00_00", "2026_01_02_00_00_00"}) {
    fs::create_directories(root / "plugins/profile" / run);
    fs::copy_file(test_data("trace/kineto_small.json"), root / "plugins/profile" / run / "host.pt.trace.json");
  }
  auto t = read_trace(root.string());
  REQUIRE(t.ok());
  REQUIRE(t->files.size() == 1);
  CHECK(t->files[0].find("2026_01_02_00_00_00") != std::string::npos);
  REQUIRE_FALSE(t->warnings.empty());
  CHECK_THAT(t->warnings[0], Catch::Contains("2 capture folders; read the newest"));
  fs::remove_all(root);
}

TEST_CASE("read: several hosts in one folder are merged, each file naming its host") {
  const fs::path root = fresh_temp_dir("trace_test", "hosts");
  fs::copy_file(test_data("trace/kineto_small.json"), root / "rank0.pt.trace.json");
  fs::copy_file(test_data("trace/kineto_small.json.gz"), root / "rank1.pt.trace.json.gz");
  auto t = read_trace(root.string());
  REQUIRE(t.ok());
  REQUIRE(t->devices.size() == 2);
  CHECK(t->devices[0].host == "rank0");
  CHECK(t->devices[1].host == "rank1");
  // The same kernel on both ranks is one op with twice the occurrences.
  const TraceStats s = compute_op_stats(*t);
  CHECK(s.ops.front().count == 2);
  fs::remove_all(root);
}

TEST_CASE("read: JSON that is not a trace is skipped in a directory, a damaged trace is not") {
  const fs::path root = fresh_temp_dir("trace_test", "skip");
  fs::copy_file(test_data("trace/kineto_small.json"), root / "rank0.pt.trace.json");
  std::ofstream(root / "config.json") << R"({"batch_size": 32})";
  auto t = read_trace(root.string());
  REQUIRE(t.ok());
  CHECK(t->files.size() == 1);
  REQUIRE_FALSE(t->warnings.empty());
  CHECK_THAT(t->warnings[0], Catch::StartsWith("skipped ") && Catch::Contains("config.json: no traceEvents"));
  std::ofstream(root / "rank1.pt.trace.json") << R"({"traceEvents":[{"ph":"X",)";
  auto bad = read_trace(root.string());
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(std::string(bad.status().message()), Catch::Contains("rank1.pt.trace.json: truncated JSON"));
  fs::remove_all(root);
}

TEST_CASE("read: the format is sniffed from the content, not the name") {
  const fs::path root = fresh_temp_dir("trace_test", "sniff");
  fs::copy_file(test_data("trace/kineto_small.json.gz"), root / "profile.bin");
  fs::copy_file(test_data((kRun / "vm.xplane.pb").string()), root / "profile.dat");
  auto a = read_trace((root / "profile.bin").string());
  auto b = read_trace((root / "profile.dat").string());
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->formats.front() == TraceFormat::kKinetoJson);
  CHECK(b->formats.front() == TraceFormat::kXPlane);
  std::ofstream(root / "notes.txt") << "just some notes\n";
  auto c = read_trace((root / "notes.txt").string());
  REQUIRE_FALSE(c.ok());
  CHECK(std::string(c.status().message()) ==
        (root / "notes.txt").string() +
            ": not a trace: neither gzip, JSON nor an XSpace protobuf (starts with 6a 75 73 74 20 73 6f 6d)");
  std::ofstream(root / "empty.json");
  auto e = read_trace((root / "empty.json").string());
  REQUIRE_FALSE(e.ok());
  CHECK_THAT(std::string(e.status().message()), Catch::Contains("empty file, not a trace"));
  auto missing = read_trace((root / "nope.xplane.pb").string());
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(std::string(missing.status().message()), Catch::Contains("nope.xplane.pb: cannot open"));
  fs::remove_all(root);
}

TEST_CASE("cli: stats --format json has the documented keys") {
  auto r = run_cli("stats '" + test_data("trace/kineto_small.json").string() + "' --format json");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["devices"].size() == 1);
  for (const char* key : {"name", "chip", "busy_s", "idle_s", "duty_cycle"}) CHECK(j["devices"][0].contains(key));
  CHECK(j["devices"][0]["chip"] == "h100-sxm");
  CHECK(j["devices"][0]["busy_s"].get<double>() == Approx(74e-6));
  REQUIRE(j["ops"].size() == 4);
  for (const char* key : {"name", "module", "category", "count", "total_s", "mean_s", "median_s", "min_s", "max_s",
                          "share", "xla_flops", "xla_bytes"})
    CHECK(j["ops"][0].contains(key));
  CHECK(j["ops"][0]["name"] == "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)");
  CHECK(j["ops"][0]["total_s"].get<double>() == Approx(50e-6));
}

TEST_CASE("cli: stats text, csv, --device and --top") {
  const std::string trace = "'" + test_data("trace/tsl_tpu_nested.json").string() + "'";
  auto text = run_cli("stats " + trace);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("/device:TPU:0"));
  CHECK_THAT(text.out, Catch::Contains("largest idle gaps"));
  CHECK_THAT(text.out, Catch::Contains("PjitFunction(g)"));
  auto csv = run_cli("stats " + trace + " --format csv --top 2");
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out, Catch::StartsWith("module,program_id,name,kernel,category,class,async,count,total_s"));
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 3);  // header + 2 rows
  auto dev = run_cli("stats " + trace + " --device 3");
  CHECK(dev.exit_code != 0);
  CHECK_THAT(dev.err, Catch::Contains("no device 3 with op events"));
  auto bad = run_cli("stats /nonexistent/trace.json");
  CHECK(bad.exit_code != 0);
  CHECK_THAT(bad.err, Catch::Contains("/nonexistent/trace.json: cannot open"));
}

TEST_CASE("cli: stats on the real v6e trace reports the all-reduce") {
  const auto path = roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb");
  auto r = run_cli("stats '" + path.string() + "' --device 0 --format json");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["devices"].size() == 1);
  CHECK(j["devices"][0]["chip"] == "tpu-v6e");
  bool found = false;
  for (const auto& op : j["ops"])
    if (op["name"] == "all-reduce") {
      found = true;
      CHECK(op["module"] == "jit__psum");
      CHECK(op["count"] == 3);
      CHECK(op["median_s"].get<double>() == Approx(0.12169).margin(2e-5));
      CHECK(op["xla_flops"] == 1342177280);
      CHECK(op["xla_bytes"] == 10737418240);
    }
  CHECK(found);
}
