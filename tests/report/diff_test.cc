// roofline diff: ops matched by what they are, the gate, every format.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/report/diff.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using roofline::testing::run_cli;

namespace {

roofline::OpReport op(std::string name, std::string shapes, double measured_s, double flops) {
  roofline::OpReport o;
  o.name = std::move(name);
  o.module = "jit_step";
  o.category = "compute";
  o.shapes = std::move(shapes);
  o.count = 2;
  o.measured_s = measured_s;
  o.predicted = true;
  o.prediction.flops = flops;
  o.prediction.hbm_bytes = flops / 10;
  o.prediction.t_lower_s = measured_s / 2;
  o.expected_s = measured_s * 0.8;
  return o;
}

roofline::Report report(std::vector<roofline::OpReport> ops, double wall_s) {
  roofline::Report r;
  r.chip = "h100-sxm";
  r.devices.push_back({});
  r.summary.wall_s = wall_s;
  r.summary.mfu = 0.4;
  for (const auto& o : ops) r.summary.measured_s += o.measured_s;
  r.ops = std::move(ops);
  return r;
}

}  // namespace

TEST_CASE("diff: ops renumbered by a recompilation are the same ops") {
  // fusion.253 and fusion.251: XLA renumbered them; a diff by name would
  // show one vanished and one appeared.
  const auto before = report({op("fusion.253", "f32[256,512]", 1e-3, 2e9), op("dot.4", "f32[512,512]", 2e-3, 4e9)}, 4e-3);
  const auto after = report({op("fusion.251", "f32[256,512]", 1.5e-3, 2e9), op("dot.7", "f32[512,512]", 2e-3, 4e9)}, 4.5e-3);
  const roofline::ReportDiff d = roofline::diff(before, after);
  REQUIRE(d.ops.size() == 2);
  CHECK(d.ops[0].kind == "fusion");
  CHECK(d.ops[0].change == roofline::DiffChange::kChanged);
  CHECK(d.ops[0].example_before == "fusion.253");
  CHECK(d.ops[0].example_after == "fusion.251");
  CHECK(d.ops[0].delta_measured_s() == Approx(0.5e-3));
  CHECK(d.ops[1].delta_measured_s() == Approx(0));
  CHECK(d.after.step_time_s == Approx(4.5e-3));  // no steps: the wall span per device
}

TEST_CASE("diff: a grown op is resized; a new one appeared; a gone one vanished") {
  const auto before = report({op("dot.1", "f32[256,1024]", 1e-3, 2e9), op("copy.3", "f32[8]", 1e-6, 0)}, 2e-3);
  const auto after = report({op("dot.1", "f32[256,2048]", 2e-3, 4e9), op("sort.2", "f32[64]", 3e-6, 1e3)}, 3e-3);
  const roofline::ReportDiff d = roofline::diff(before, after);
  REQUIRE(d.ops.size() == 3);
  CHECK(d.ops[0].change == roofline::DiffChange::kResized);
  CHECK(d.ops[0].shapes_before == "f32[256,1024]");
  CHECK(d.ops[0].shapes == "f32[256,2048]");
  CHECK(d.ops[0].delta_measured_s() == Approx(1e-3));
  CHECK(d.ops[1].change == roofline::DiffChange::kAppeared);
  CHECK(d.ops[1].kind == "sort");
  CHECK(d.ops[2].change == roofline::DiffChange::kVanished);
  CHECK(d.ops[2].kind == "copy");
}

TEST_CASE("diff: totals are per step where both reports mark steps") {
  auto before = report({op("dot.1", "f32[8,8]", 4e-3, 1e6)}, 5e-3);
  auto after = report({op("dot.1", "f32[8,8]", 8e-3, 1e6)}, 10e-3);
  for (int i = 0; i < 2; ++i) before.summary.steps.push_back({.name = std::to_string(i), .measured_s = 2.5e-3});
  for (int i = 0; i < 4; ++i) after.summary.steps.push_back({.name = std::to_string(i), .measured_s = 2.5e-3});
  const roofline::ReportDiff d = roofline::diff(before, after);
  CHECK(d.per_step);
  CHECK(d.ops[0].before.measured_s == Approx(2e-3));  // 4 ms over 2 steps
  CHECK(d.ops[0].after.measured_s == Approx(2e-3));   // 8 ms over 4 steps
  CHECK(d.after.step_time_s == Approx(2.5e-3));
  REQUIRE(!d.notes.empty());
  CHECK(d.notes[0].find("2 and 4 steps") != std::string::npos);
}

TEST_CASE("diff --fail-if: the grammar, and errors that name the place") {
  auto g = roofline::parse_gate("mfu<-2% or step_time>+5%");
  REQUIRE(g.ok());
  REQUIRE(g->any_of.size() == 2);
  CHECK(g->any_of[0][0].limit == Approx(-0.02));
  CHECK(g->any_of[1][0].unit == "%");
  auto t = roofline::parse_gate("busy > 1.5ms and duty_cycle <= -3pp");
  REQUIRE(t.ok());
  REQUIRE(t->any_of.size() == 1);
  CHECK(t->any_of[0][0].limit == Approx(1.5e-3));
  CHECK(t->any_of[0][1].limit == Approx(-0.03));
  for (const char* bad : {"", "speed>5%", "mfu", "mfu<", "mfu<x", "mfu<5", "mfu<5ms", "step_time>5pp",
                          "mfu<5% xor busy>1%", "mfu<5% or"}) {
    INFO(bad);
    const auto r = roofline::parse_gate(bad);
    REQUIRE(!r.ok());
    CHECK(std::string(r.status().message()).find("--fail-if") != std::string::npos);
  }
  CHECK(std::string(roofline::parse_gate("mfu<5").status().message()).find("character 6") != std::string::npos);
}

TEST_CASE("diff --fail-if: evaluated on the headline's change") {
  const auto before = report({op("dot.1", "f32[8,8]", 4e-3, 1e6)}, 10e-3);
  auto after = report({op("dot.1", "f32[8,8]", 4e-3, 1e6)}, 10.6e-3);  // step time +6%
  after.summary.mfu = 0.39;                                              // MFU -2.5% (relative)
  const roofline::ReportDiff d = roofline::diff(before, after);
  const auto eval = [&](const char* text) { return roofline::evaluate(*roofline::parse_gate(text), d); };
  CHECK(eval("step_time>+5%").failed);
  CHECK_FALSE(eval("step_time>+7%").failed);
  CHECK(eval("mfu<-2%").failed);
  CHECK_FALSE(eval("mfu<-1.5pp").failed);  // 40% -> 39%: -1 point
  CHECK(eval("mfu<-0.5pp").failed);
  CHECK_FALSE(eval("step_time>+5% and mfu<-3%").failed);  // and: both must hold
  CHECK(eval("step_time>+7% or mfu<-2%").failed);
  CHECK(eval("step_time>+0.5ms").failed);
  const auto r = eval("step_time>+5%");
  REQUIRE(r.reasons.size() == 1);
  CHECK(r.reasons[0] == "step_time>+5%: step_time changed +6%");

  auto unknown = after;
  unknown.summary.mfu = std::numeric_limits<double>::quiet_NaN();
  const auto u = roofline::evaluate(*roofline::parse_gate("mfu<-50%"), roofline::diff(before, unknown));
  CHECK(u.failed);  // an unknown never passes a gate
  CHECK(u.reasons[0].find("unknown on the after side") != std::string::npos);
}

TEST_CASE("diff: every format; names from traces escaped") {
  const auto before = report({op("fus<ion>.1\x1b[31m", "f32[8]", 1e-3, 1e6)}, 2e-3);
  const auto after = report({op("fus<ion>.2\x1b[31m", "f32[8]", 2e-3, 1e6)}, 3e-3);
  const roofline::ReportDiff d = roofline::diff(before, after);
  const std::string text = roofline::render_diff(d, roofline::ReportFormat::kText);
  CHECK(text.find('\x1b') == std::string::npos);
  const std::string html = roofline::render_diff(d, roofline::ReportFormat::kHtml);
  CHECK(html.find("<ion>") == std::string::npos);
  CHECK(html.find("&lt;ion&gt;") != std::string::npos);
  const auto j = nlohmann::json::parse(roofline::render_diff(d, roofline::ReportFormat::kJson));
  CHECK(j["ops"][0]["change"] == "changed");
  CHECK(j["ops"][0]["delta_measured_s"].get<double>() == Approx(1e-3));
  const std::string csv = roofline::render_diff(d, roofline::ReportFormat::kCsv);
  CHECK(csv.rfind("kind,module,scope,category,shapes,shapes_before,change,", 0) == 0);
  CHECK(roofline::render_diff(d, roofline::ReportFormat::kMarkdown).find("| step time |") != std::string::npos);
}

TEST_CASE("cli diff: two profiles of one program before and after a change") {
  // scripts/make_diff_fixtures.py: the MLP's hidden size doubles (jax on CPU).
  const std::string before = roofline::testing::test_data("diff/before.xplane.pb.gz").string();
  const std::string after = roofline::testing::test_data("diff/after.xplane.pb.gz").string();
  const auto gated = run_cli("diff '" + before + "' '" + after + "' --chip h100-sxm --fail-if 'mfu<-2% or step_time>+5%'");
  CHECK(gated.exit_code == 1);
  CHECK(gated.err.find("fail-if held: step_time>+5%: step_time changed +") != std::string::npos);
  // The MLP's element-wise fusions grew with it: named, with both shapes.
  CHECK(gated.out.find("multiply_add_fusion") != std::string::npos);
  CHECK(gated.out.find("f32[256,1024] -> f32[256,2048]  resized") != std::string::npos);

  const auto same = run_cli("diff '" + before + "' '" + before + "' --chip h100-sxm --fail-if 'step_time>+1%' --format json");
  CHECK(same.exit_code == 0);
  const auto j = nlohmann::json::parse(same.out);
  CHECK(j["fail_if"]["failed"] == false);
  for (const auto& o : j["ops"]) CHECK(o["change"] == "changed");

  const auto out = std::filesystem::temp_directory_path() / ("roofline_diff_" + std::to_string(::getpid()) + ".html");
  const auto written = run_cli("diff '" + before + "' '" + after + "' --chip h100-sxm --format html -o '" + out.string() + "'");
  CHECK(written.exit_code == 0);
  CHECK(written.out.empty());
  CHECK(std::filesystem::file_size(out) > 1000);
  std::filesystem::remove(out);

  CHECK(run_cli("diff '" + before + "'").exit_code == 2);
  const auto bad = run_cli("diff '" + before + "' '" + after + "' --fail-if 'mfu<<2%'");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--fail-if \"mfu<<2%\": at character 5: expected a number") != std::string::npos);
}
