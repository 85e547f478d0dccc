// report --by scope on eager PyTorch (Kineto) traces: each kernel under the
// record_function and nn.Module ranges around its launch and the GPU
// annotations around it (src/trace/chrome/kineto_scopes.hpp), an op split
// over the scopes it ran in, and hostile ranges kept bounded.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/chip_io.hpp"
#include "roofline/match/match.hpp"
#include "roofline/match/scope.hpp"
#include "roofline/report/scopes.hpp"
#include "roofline/trace/read.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using roofline::testing::run_cli;

namespace {

// scripts/make_kineto_scopes_fixture.py says what it holds.
const std::string kFixture = "trace/kineto_scopes.json";

roofline::Report fixture_report() {
  auto trace = roofline::read_trace(roofline::testing::test_data(kFixture).string());
  REQUIRE(trace.ok());
  auto chip = roofline::find_chip("h100-sxm");
  REQUIRE(chip.ok());
  roofline::ReportOptions options;
  options.chip = *chip;
  auto r = roofline::make_report(*trace, options);
  REQUIRE(r.ok());
  return *std::move(r);
}

const roofline::OpReport& op_launched_by(const roofline::Report& r, const std::string& launcher) {
  for (const roofline::OpReport& o : r.ops)
    if (o.module == launcher) return o;
  FAIL("no op launched by " << launcher);
  return r.ops.front();
}

const roofline::ScopeNode* child(const roofline::ScopeNode& n, const std::string& name) {
  for (const roofline::ScopeNode& c : n.children)
    if (c.name == name) return &c;
  return nullptr;
}

// A Kineto trace: one kernel launched at `launch_us` (for 1 us) on the
// host thread that holds `ranges` (complete 'X' events).
std::string one_launch(const std::string& ranges, double launch_us) {
  return R"({"deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}], "traceEvents": [)" + ranges +
         R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(launch_us) + R"(, "dur": 1, "args": {"correlation": 9}},)" +
         R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 5000, "dur": 2,)" +
         R"( "args": {"correlation": 9, "device": 0, "stream": 7}}]})";
}

std::string range(const std::string& name, double ts, double dur, const char* cat = "user_annotation") {
  return std::string(R"({"ph": "X", "cat": ")") + cat + R"(", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + "},";
}

// The scope path of the trace's one kernel ("" for none).
std::string kernel_scope(const roofline::Trace& t) {
  for (const roofline::Device& d : t.devices)
    for (const roofline::Event& e : d.events)
      if (t.ops[e.op].name == "k")
        return e.call == roofline::kNoCall || t.calls[e.call].scope == roofline::kNoScopePath
                   ? std::string()
                   : t.scopes[t.calls[e.call].scope];
  FAIL("no kernel k");
  return {};
}

bool any_warning(const roofline::Trace& t, const std::string& part) {
  for (const std::string& w : t.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("eager scopes: each kernel under the ranges around its launch", "[scope][kineto]") {
  const roofline::Report r = fixture_report();
  // One op for the two matmuls (one launcher, one shape), split over its two
  // modules by occurrences (1 : 1) and self time (30 us : 20 us).
  const roofline::OpReport& mm = op_launched_by(r, "aten::mm");
  CHECK(mm.count == 2);
  CHECK(mm.scope == "forward/Net_0");
  CHECK(mm.scope_source == "record_function + nn.Module");
  REQUIRE(mm.scope_shares.size() == 2);
  for (const roofline::ScopeShare& s : mm.scope_shares) {
    CHECK(s.count_fraction == Approx(0.5));
    CHECK(s.sources == std::vector<std::string>{"record_function", "nn.Module"});
    if (s.path == "forward/Net_0/Linear_0") CHECK(s.time_fraction == Approx(0.6));
    else CHECK((s.path == "forward/Net_0/Linear_1" && s.time_fraction == Approx(0.4)));
  }
  CHECK(op_launched_by(r, "aten::relu").scope == "forward/Net_0/act");
  // Launched outside any host range, run inside the GPU annotation.
  CHECK(op_launched_by(r, "aten::mul").scope == "optimizer");
  CHECK(op_launched_by(r, "aten::mul").scope_source == "gpu annotation");
  CHECK(op_launched_by(r, "aten::add").scope.empty());  // ProfilerStep#1 is a step, not a scope
}

TEST_CASE("eager scopes: the tree splits an op by its scopes and totals as the report", "[scope][kineto]") {
  const roofline::Report r = fixture_report();
  const roofline::OpReport& mm = op_launched_by(r, "aten::mm");
  const roofline::ScopeTree t = roofline::scope_tree(r, 3);
  CHECK(t.root.measured_s == Approx(70e-6));
  const roofline::ScopeNode* forward = child(t.root, "forward");
  REQUIRE(forward != nullptr);
  CHECK(forward->measured_s == Approx(55e-6));
  CHECK(forward->ops == 2);  // the matmul op counts once, though it runs in two of its scopes
  const roofline::ScopeNode* net = child(*forward, "Net_0");
  REQUIRE(net != nullptr);
  const roofline::ScopeNode* l0 = child(*net, "Linear_0");
  const roofline::ScopeNode* l1 = child(*net, "Linear_1");
  REQUIRE((l0 != nullptr && l1 != nullptr));
  CHECK(l0->measured_s == Approx(30e-6));
  CHECK(l1->measured_s == Approx(20e-6));
  CHECK(l0->predicted_s == Approx(mm.prediction.t_lower_s / 2));
  CHECK(l1->expected_s == Approx(mm.expected_s / 2));
  CHECK(l0->sources == std::vector<std::string>{"nn.Module", "record_function"});
  REQUIRE(child(t.root, "optimizer") != nullptr);
  CHECK(child(t.root, "optimizer")->sources == std::vector<std::string>{"gpu annotation"});
  CHECK(t.root.children.back().unscoped);
  CHECK(t.root.children.back().measured_s == Approx(5e-6));
  // Folded to depth 1, the modules' time is forward's.
  const roofline::ScopeTree top = roofline::scope_tree(r, 1);
  REQUIRE(child(top.root, "forward") != nullptr);
  CHECK(child(top.root, "forward")->children.empty());
  CHECK(child(top.root, "forward")->measured_s == Approx(55e-6));
}

TEST_CASE("report --by scope on an eager PyTorch trace, in every format", "[scope][kineto][cli]") {
  const std::string trace = "'" + roofline::testing::test_data(kFixture).string() + "'";
  const auto text = run_cli("report " + trace + " --by scope");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("    Linear_0") != std::string::npos);
  CHECK(text.out.find("nn.Module, record_function") != std::string::npos);
  CHECK(text.out.find("no op carries a scope") == std::string::npos);
  const auto json = run_cli("report " + trace + " --by scope --format json");
  REQUIRE(json.exit_code == 0);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["scopes"]["children"][0]["path"] == "forward");
  CHECK(j["scopes"]["children"][0]["children"][0]["children"][0]["path"] == "forward/Net_0/Linear_0");
  const auto csv = run_cli("report " + trace + " --by scope --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.find("forward/Net_0/Linear_1,Linear_1,3,") != std::string::npos);
  for (const char* f : {"md", "html"}) CHECK(run_cli("report " + trace + " --by scope --format " + f).exit_code == 0);
  // The op report keeps one row for the two matmuls, with their common scope.
  const auto ops = nlohmann::json::parse(run_cli("report " + trace + " --format json").out);
  int matmuls = 0;
  for (const auto& o : ops["ops"])
    if (o["module"] == "aten::mm") {
      ++matmuls;
      CHECK(o["scope"] == "forward/Net_0");
      CHECK(o["count"] == 2);
    }
  CHECK(matmuls == 1);
}

TEST_CASE("eager scopes: nn.Module names lose their prefix; other python functions are no scope", "[scope][kineto]") {
  auto t = roofline::parse_chrome_trace(
      one_launch(range("nn.Module: Block_0", 10, 100, "python_function") +
                     range("torch/nn/modules/linear.py(124): forward", 20, 50, "python_function") +
                     range("ProfilerStep#3", 0, 200),
                 30),
      "mod.json");
  REQUIRE(t.ok());
  CHECK(kernel_scope(*t) == "Block_0");
}

TEST_CASE("eager scopes: ranges nested a hundred thousand deep stay bounded", "[scope][kineto][hostile]") {
  std::string ranges;
  const int n = 100000;
  ranges.reserve(static_cast<std::size_t>(n) * 110);
  for (int i = 0; i < n; ++i) ranges += range("r", i * 0.001, 1000 - i * 0.002);
  auto t = roofline::parse_chrome_trace(one_launch(ranges, 500), "deep.json");
  REQUIRE(t.ok());
  const std::string path = kernel_scope(*t);
  CHECK(std::count(path.begin(), path.end(), '/') + 1 == 64);  // kMaxScopeDepth
  CHECK(any_warning(*t, "nest deeper than 64"));
}

TEST_CASE("eager scopes: huge names are cut, overlapping and unclosed ranges stay defined", "[scope][kineto][hostile]") {
  const std::string huge(1 << 20, 'x');
  auto cut = roofline::parse_chrome_trace(one_launch(range(huge, 0, 100), 50), "huge.json");
  REQUIRE(cut.ok());
  CHECK(kernel_scope(*cut) == std::string(256, 'x'));
  CHECK(any_warning(*cut, "cut to that length"));
  // a [0, 100) and b [50, 150) overlap without nesting: b does not end
  // inside a, so it is not a's child; a launch in both is b's.
  auto overlap = roofline::parse_chrome_trace(one_launch(range("a", 0, 100) + range("b", 50, 100), 60), "o.json");
  REQUIRE(overlap.ok());
  CHECK(kernel_scope(*overlap) == "b");
  // A 'B' range never ended names no scope (the reader warns of it).
  auto open = roofline::parse_chrome_trace(
      one_launch(R"({"ph": "B", "cat": "user_annotation", "name": "open", "pid": 1, "tid": 1, "ts": 0},)", 60),
      "open.json");
  REQUIRE(open.ok());
  CHECK(kernel_scope(*open).empty());
  CHECK(any_warning(*open, "never ended"));
}

TEST_CASE("eager scopes: files read as one job keep each one's scopes", "[scope][kineto][cli]") {
  // A first file with a scope of its own: the fixture's scopes are numbered
  // after it in the merged trace (read_measured, merge_part).
  const std::filesystem::path dir = roofline::testing::fresh_temp_dir("eager_scopes", "job");
  std::ofstream(dir / "a.json") << one_launch(range("other", 0, 100), 50);
  const std::string fixture = roofline::testing::test_data(kFixture).string();
  const auto out = run_cli("report '" + (dir / "a.json").string() + "' '" + fixture +
                           "' --chip h100-sxm --by scope --format json");
  REQUIRE(out.exit_code == 0);
  const auto j = nlohmann::json::parse(out.out);
  std::vector<std::string> paths;
  for (const auto& c : j["scopes"]["children"]) {
    paths.push_back(c["path"]);
    for (const auto& g : c["children"])
      for (const auto& l : g["children"]) paths.push_back(l["path"]);
  }
  CHECK(std::find(paths.begin(), paths.end(), "other") != paths.end());
  CHECK(std::find(paths.begin(), paths.end(), "forward/Net_0/Linear_1") != paths.end());
  CHECK(std::find(paths.begin(), paths.end(), "optimizer") != paths.end());
}
