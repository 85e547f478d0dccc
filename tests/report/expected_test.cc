// Issue 11, item 3: three figures everywhere. Every report format shows per
// predicted op the roofline, the calibrated expected time and the measured
// time, ranks the ops worth fixing (time lost against the expected) beside
// those losing most against the roofline, and names its calibration;
// `predict` and `hlo` print the expected time beside the bound.
//
// No test here depends on the built-in calibrations' numbers: expected
// times are derived in the test from the formula of roofline/calibration.hpp
// with the calibration the output names (default_calibration(chip), or one
// the test passes through ReportOptions::calibration).
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/format/units.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/match/match.hpp"
#include "roofline/ops/elementwise.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/report/json.hpp"
#include "roofline/report/rank.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/matmul_expression.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/report/render.hpp"
#include "roofline/trace/read.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using roofline::Bound;
using roofline::ChipCalibration;
using roofline::CostClass;
using roofline::OpReport;
using roofline::testing::run_cli;

namespace {

// Three predicted ops and one unpredicted, with expected times a
// calibration could give (each at or above its roofline), chosen so that the
// two rankings differ:
//   op        measured  roofline  expected  lost    lost vs exp
//   fusion.1  50 ms     40 ms     45 ms     10 ms   5 ms
//   add.2     30 ms     10 ms     28 ms     20 ms   2 ms
//   copy.3    10 ms      5 ms      6 ms      5 ms   4 ms
// By time lost: add.2, fusion.1, copy.3. Worth fixing: fusion.1, copy.3, add.2.
roofline::Report sample() {
  roofline::Report r;
  r.trace_path = "sample.json";
  r.chip = "tpu-v5e";
  r.chip_source = "--chip";
  r.calibration = "fit to <3> ops & \"friends\"";  // escaped in HTML
  r.target_chip = "tpu-v6e";
  r.target_calibration = "built-in: v6e";
  r.dominant_dtype = "bf16";
  r.peak_flops_per_s = 1.97e14;
  r.hbm_bytes_per_s = 8.2e11;
  auto op = [](std::string name, double measured, double predicted, double expected, CostClass c) {
    OpReport o;
    o.name = std::move(name);
    o.module = "jit_step(1)";
    o.category = "compute";
    o.count = 2;
    o.measured_s = measured;
    o.predicted = true;
    o.prediction.t_lower_s = predicted;
    o.expected_s = expected;
    o.cost_class = c;
    o.prediction.bound = c == CostClass::kMatmul ? Bound::kCompute : Bound::kMemory;
    o.prediction.flops = c == CostClass::kMatmul ? 7.88e12 : 0;
    o.prediction.hbm_bytes = 1e9;
    o.ratio = measured / predicted;
    o.lost_s = measured - predicted;
    o.lost_expected_s = measured - expected;
    o.target_predicted_s = predicted / 2;
    o.target_expected_s = expected / 2;
    return o;
  };
  r.ops.push_back(op("fusion.1", 0.05, 0.04, 0.045, CostClass::kMatmul));
  r.ops.push_back(op("add.2", 0.03, 0.01, 0.028, CostClass::kMemory));
  r.ops.push_back(op("copy.3", 0.01, 0.005, 0.006, CostClass::kMemory));
  OpReport un;
  un.name = "custom-call.4";
  un.module = "jit_step(1)";
  un.category = "compute";
  un.count = 1;
  un.measured_s = 0.01;
  un.reason = "custom call 'tpu_custom_call' has no cost model";
  r.ops.push_back(un);
  r.summary.measured_s = 0.1;
  r.summary.wall_s = 0.11;
  r.summary.predicted_s = 0.055;
  r.summary.expected_s = 0.079;  // 45 + 28 + 6 ms
  r.summary.matched_measured_s = 0.09;
  r.summary.unmatched_s = 0.01;
  r.summary.by_category = {{"compute", 0.1, 0.055, 4}, {"idle", 0.01, 0, 0}};
  return r;
}

// The text between a section title and the next blank line.
std::string section(const std::string& text, const std::string& title) {
  const auto at = text.find(title);
  if (at == std::string::npos) return "";
  const auto end = text.find("\n\n", at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The formula of roofline/calibration.hpp on an op's totals: max() scales
// with the count, the floor is paid once per occurrence.
// The expectation's memory term is the op's bytes at HBM's bandwidth, not
// its bound's t_hbm_s (L2's rate where the bytes fit there).
// Each efficiency is scaled by the share an op of its size reaches
// (size_factors: the FLOPs and bytes of one occurrence).
double expected_total(const OpReport& o, const ChipCalibration& cal) {
  const roofline::Prediction& p = o.prediction;
  if (p.t_math_s <= 0 && p.t_hbm_s <= 0 && p.t_ici_s <= 0 && p.t_host_s <= 0) return 0;
  const roofline::ClassCurve& k = cal.curve(o.cost_class);
  const double n = static_cast<double>(o.count);
  const roofline::SizeFactors size = roofline::size_factors(p.flops / n, p.hbm_bytes / n, o.cost_class, cal);
  const double t_mem_s = p.hbm_bytes / roofline::chip(cal.chip).hbm_bytes_per_s;
  return n * k.floor_s + std::max({p.t_math_s / (cal.math_efficiency(o.cost_class, p.peak.used) * size.math),
                                   t_mem_s / (k.memory_efficiency * size.memory),
                                   (p.t_ici_s + p.t_host_s) / k.link_efficiency});
}

absl::StatusOr<roofline::Trace> kineto_small() {
  return roofline::read_trace(roofline::testing::test_data("trace/kineto_small.json").string());
}

}  // namespace

TEST_CASE("expected: the worth-fixing list ranks by time lost against the expected") {
  const roofline::Report r = sample();
  const auto fixing = roofline::ops_by_time_lost_expected(r, 10);
  REQUIRE(fixing.size() == 3);  // the unpredicted op is in neither list
  CHECK(fixing[0]->name == "fusion.1");
  CHECK(fixing[1]->name == "copy.3");
  CHECK(fixing[2]->name == "add.2");
  const auto lost = roofline::ops_by_time_lost(r, 10);
  CHECK(lost[0]->name == "add.2");
  CHECK(roofline::ops_by_time_lost_expected(r, 2).size() == 2);
}

TEST_CASE("expected: text and Markdown show both ranked lists, three figures per op, --top rows each") {
  const roofline::Report r = sample();
  const std::string text = roofline::render_text(r, {.top = 1});
  const std::string fixing = section(text, "Worth fixing");
  const std::string lost =
      section(roofline::render_text(r, {.top = 1, .rank = roofline::ReportRank::kRoofline}), "Most time lost against the roofline");
  REQUIRE_FALSE(fixing.empty());
  REQUIRE_FALSE(lost.empty());
  // Title with its intro, header, rule, one row (--top 1): fusion.1, not copy.3.
  CHECK(std::count(fixing.begin(), fixing.end(), '\n') == 3);
  CHECK_THAT(fixing, Catch::Contains("fusion.1"));
  CHECK(fixing.find("copy.3") == std::string::npos);
  CHECK_THAT(fixing, Catch::Contains("lost vs exp"));
  CHECK_THAT(lost, Catch::Contains("add.2"));
  for (const char* column : {"measured", "roofline", "expected", "x roofline", "x expected", "time on target", "method"})
    CHECK_THAT(fixing, Catch::Contains(column));
  // fusion.1: 50 / 45 = 1.11x the expected, 50 / 40 = 1.25x the roofline;
  // lost vs exp 50 - 45 = 5 ms.
  CHECK_THAT(fixing, Catch::Contains("1.11x"));
  CHECK_THAT(fixing, Catch::Contains("1.25x"));
  CHECK_THAT(fixing, Catch::Contains("5.00 ms"));
  // Headline: 79 ms expected; measured 90 / 79 = 1.14x; the calibration named.
  CHECK_THAT(text, Catch::Contains("calibrated expected of the same ops 79.0 ms: measured is 1.14x the expected"));
  CHECK_THAT(text, Catch::Contains("calibration: fit to <3> ops"));
  // What-if: the time on the target 22.5 + 14 + 3 = 39.5 ms.
  CHECK_THAT(text, Catch::Contains("they would take 39.5 ms"));
  CHECK_THAT(text, Catch::Contains("built-in: v6e"));
  const std::string md = roofline::render_markdown(r, {.top = 1});
  CHECK_THAT(md, Catch::Contains("## Worth fixing: most time lost against the expected"));
  CHECK_THAT(md, Catch::Contains("| x expected |"));
}

TEST_CASE("expected: JSON has expected_s, lost_expected_s, expected_ratio, cost_class and the calibration") {
  const auto j = nlohmann::json::parse(roofline::render_json(sample()));
  CHECK(j["calibration"]["origin"] == "fit to <3> ops & \"friends\"");
  CHECK(j["calibration"]["target_origin"] == "built-in: v6e");
  CHECK(j["summary"]["expected_s"].get<double>() == Approx(0.079));
  const auto& fusion = j["ops"][0];
  CHECK(fusion["expected_s"].get<double>() == 0.045);
  CHECK(fusion["lost_expected_s"].get<double>() == Approx(0.005));
  CHECK(fusion["expected_ratio"].get<double>() == Approx(0.05 / 0.045));
  CHECK(fusion["cost_class"] == "matmul");
  CHECK(fusion["target_expected_s"].get<double>() == 0.0225);
  CHECK(j["ops"][1]["cost_class"] == "memory");
  const auto& un = j["ops"][3];
  for (const char* k : {"expected_s", "lost_expected_s", "expected_ratio", "cost_class", "target_expected_s"}) {
    INFO(k);
    CHECK(un[k].is_null());
  }
  // Without a what-if chip, no target calibration.
  roofline::Report plain = sample();
  plain.target_chip.clear();
  CHECK(nlohmann::json::parse(roofline::render_json(plain))["calibration"]["target_origin"].is_null());
}

TEST_CASE("expected: CSV adds its columns at the end; the columns before keep their places") {
  const std::string csv = roofline::render_csv(sample());
  const std::string header = csv.substr(0, csv.find('\n'));
  CHECK(header ==
        "name,module,category,hlo_category,count,measured_s,predicted_s,t_math_s,t_hbm_s,t_ici_s,bound,ratio,"
        "flop_util,bw_util,lost_s,flops,hbm_bytes,xla_flops,xla_bytes,match,reason,target_predicted_s,shapes,"
        "host_bytes,t_host_s,expected_s,expected_ratio,lost_expected_s,cost_class,target_expected_s,scope,scope_source,"
        "target_method");
  // fusion.1: expected 0.045, 0.05 / 0.045 = 1.11111111, lost 0.005 (to nine digits); no method (made by hand).
  CHECK_THAT(csv, Catch::Contains(",0.045,1.11111111,0.005,matmul,0.0225,,,\n"));
  // Without --target-chip the method column is not there.
  roofline::Report plain = sample();
  plain.target_chip.clear();
  const std::string plain_csv = roofline::render_csv(plain);
  CHECK_THAT(plain_csv.substr(0, plain_csv.find('\n')), Catch::EndsWith(",scope,scope_source"));
  // The unpredicted op: empty cells.
  CHECK_THAT(csv, Catch::Contains("custom-call.4"));
  CHECK_THAT(csv, Catch::EndsWith(",,,,,\n"));
}

TEST_CASE("expected: HTML shows the three figures, both ranked lists and the calibration, escaped") {
  const std::string html = roofline::render_html(sample(), {.top = 2});
  CHECK_THAT(html, Catch::Contains("<h2>Worth fixing</h2>"));
  CHECK_THAT(html, Catch::Contains("<h2>Most time lost against the roofline</h2>"));
  CHECK_THAT(html, Catch::Contains("<th>expected</th><th>ratio</th><th>x expected</th>"));
  CHECK_THAT(html, Catch::Contains("<th>time on tpu-v6e</th><th>method on tpu-v6e</th>"));
  CHECK_THAT(html, Catch::Contains("calibration: fit to &lt;3&gt; ops &amp; &quot;friends&quot;"));
  CHECK(html.find("fit to <3>") == std::string::npos);
  CHECK_THAT(html, Catch::Contains("79.0 ms"));  // total expected
  // Two ranked tables of --top 2 rows each.
  std::regex ranked_row("<tr data-op=\"[0-9]+\"><td[ >]");
  const std::string::size_type ops_at = html.find("<table id=\"ops\"");
  const std::string ranked = html.substr(0, ops_at);
  CHECK(std::distance(std::sregex_iterator(ranked.begin(), ranked.end(), ranked_row), std::sregex_iterator()) == 4);
  // The worth-fixing table lists fusion.1 (op 0) then copy.3 (op 2).
  const std::string fixing = ranked.substr(ranked.find("<h2>Worth fixing</h2>"));
  CHECK(fixing.find("data-op=\"0\"") < fixing.find("data-op=\"2\""));
}

TEST_CASE("expected: a report times each op through its class's curve of the calibration given") {
  auto trace = kineto_small();
  REQUIRE(trace.ok());
  const roofline::Chip& h100 = roofline::chip("h100-sxm");
  ChipCalibration cal = roofline::default_calibration(h100);
  cal.origin = "test calibration";
  cal.matmul_math_efficiency = {};  // one matmul efficiency for every peak
  for (roofline::ClassCurve& k : cal.classes) k = {.floor_s = 2e-6, .math_efficiency = 0.8, .memory_efficiency = 0.5,
                                                    .link_efficiency = 0.25};
  cal.collective_shape_model = false;  // the collective too through its class's curve, as a fitted calibration
  roofline::ReportOptions o;
  o.calibration = &cal;
  auto r = roofline::make_report(*trace, o);
  REQUIRE(r.ok());
  CHECK(r->calibration == "test calibration");
  int predicted = 0;
  double total = 0;
  for (const OpReport& op : r->ops) {
    if (!op.predicted) continue;
    if (!op.async) total += op.expected_s;
    INFO(op.name);
    ++predicted;
    CHECK(op.expected_s == Approx(expected_total(op, cal)));
    CHECK(op.expected_s > op.prediction.t_lower_s);  // a floor and efficiencies under 1
    CHECK(op.lost_expected_s == Approx(op.measured_s - op.expected_s));
  }
  CHECK(predicted > 0);
  CHECK(r->summary.expected_s == Approx(total));
  const auto j = nlohmann::json::parse(roofline::render_json(*r));
  CHECK(j["calibration"]["origin"] == "test calibration");
  CHECK(j["summary"]["expected_s"].get<double>() == Approx(total));
}

TEST_CASE("expected: a kernel is timed on its family's curve where the calibration has one") {
  auto trace = kineto_small();
  REQUIRE(trace.ok());
  const roofline::Chip& h100 = roofline::chip("h100-sxm");
  ChipCalibration cal = roofline::default_calibration(h100);
  for (roofline::ClassCurve& k : cal.classes) k = {.floor_s = 2e-6, .math_efficiency = 0.8, .memory_efficiency = 0.5,
                                                    .link_efficiency = 0.25};
  cal.collective_shape_model = false;
  const std::string family = "at::native::vectorized_elementwise_kernel";
  cal.families.push_back({.cost_class = CostClass::kMemory,
                          .family = family,
                          .curve = {.floor_s = 7e-6, .math_efficiency = 1, .memory_efficiency = 0.2, .link_efficiency = 1},
                          .quality = {}});
  roofline::ReportOptions o;
  o.calibration = &cal;
  auto r = roofline::make_report(*trace, o);
  REQUIRE(r.ok());
  int on_family = 0;
  for (const OpReport& op : r->ops) {
    if (!op.predicted) continue;
    INFO(op.name);
    if (roofline::kernel_family(op.name) != family || op.cost_class != CostClass::kMemory) {
      CHECK(op.expected_s == Approx(expected_total(op, cal)));
      continue;
    }
    ++on_family;
    // The family's curve, under the calibration's size curve for its bytes.
    const double n = static_cast<double>(op.count);
    const double t_mem_s = op.prediction.hbm_bytes / h100.hbm_bytes_per_s;
    CHECK(op.expected_s == Approx(n * 7e-6 + t_mem_s / (0.2 * roofline::relative_size_efficiency(cal.memory_size_steps, op.prediction.hbm_bytes / n))));
  }
  CHECK(on_family > 0);
}

TEST_CASE("expected: without a calibration the report uses the chip's built-in one, the what-if chip's too") {
  auto trace = kineto_small();
  REQUIRE(trace.ok());
  const roofline::Chip& b200 = roofline::chip("b200");
  roofline::ReportOptions o;
  o.target_chip = &b200;
  auto r = roofline::make_report(*trace, o);
  REQUIRE(r.ok());
  const ChipCalibration own = roofline::default_calibration(roofline::chip("h100-sxm"));
  CHECK(r->calibration == own.origin);
  CHECK(r->target_calibration == roofline::default_calibration(b200).origin);
  for (const OpReport& op : r->ops)
    if (op.predicted) {
      INFO(op.name);
      // A collective by its own shape (NCCL's cost model), the rest by
      // their class's curve.
      if (op.cost_class == CostClass::kCollective)
        CHECK_THAT(op.reason, Catch::Contains("expected by NCCL 2.17.1 cost model"));
      else
        CHECK(op.expected_s == Approx(expected_total(op, own)));
      CHECK(op.expected_s >= op.prediction.t_lower_s);
      CHECK(op.target_expected_s.has_value());
    }
  const auto text = roofline::render_text(*r);
  CHECK_THAT(text, Catch::Contains("calibration: " + own.origin));
}

TEST_CASE("expected: a working set within L2's reach is bounded at L2's rate and expected at HBM's") {
  // A 12.6 MB fp32 copy on an A100 (40 MB L2): 25.2 MB moved. The bound
  // may find it in L2 (7.219 TB/s: 3.49 us); the expectation fetches it from
  // HBM (2.039 TB/s: 12.36 us). The A100 trace in ../shared measures such a
  // copy at 14 us.
  const roofline::Chip& a100 = roofline::chip("a100-sxm");
  const roofline::Elementwise copy{.elements = 3'150'000, .inputs = 1, .flops_per_element = 0,
                                   .dtype = roofline::DType::kF32};
  const roofline::Prediction p = roofline::predict(copy, a100);
  REQUIRE(p.hbm_bytes == Approx(25.2e6));
  CHECK(p.memory_tier == 0);  // a100's only on-chip tier, l2
  CHECK(p.t_hbm_s == Approx(25.2e6 / 7.219e12));
  CHECK(p.t_hbm_cold_s == Approx(25.2e6 / 2.039e12));
  ChipCalibration unit = roofline::default_calibration(a100);
  for (roofline::ClassCurve& k : unit.classes) k = {};  // floor 0, every efficiency 1
  unit.memory_size_steps.clear();                       // and no size curve
  CHECK(roofline::expected_s(p, CostClass::kMemory, unit) == Approx(25.2e6 / 2.039e12));
  // A working set past every tier: both at HBM's rate (the partly served
  // L2 aside, select_memory_tier), so the two terms meet as bytes grow.
  const roofline::Prediction big = roofline::predict(roofline::Elementwise{.elements = 1'000'000'000, .inputs = 1,
                                                                           .flops_per_element = 0,
                                                                           .dtype = roofline::DType::kF32},
                                                     a100);
  CHECK(big.t_hbm_cold_s == Approx(8e9 / 2.039e12));
  CHECK(big.t_hbm_s / big.t_hbm_cold_s == Approx(1 - 40e6 / 8e9));
  // A sum carries both terms.
  roofline::Prediction sum;
  roofline::accumulate(sum, p, 2);
  CHECK(sum.t_hbm_cold_s == Approx(2 * p.t_hbm_cold_s));
}

TEST_CASE("cli predict matmul: the expected time beside the bound, with its calibration") {
  // The README's worked example: the bound stays 2 x 32768 x 8192 x 32768 /
  // 1.97e14 = 89.3 ms; the expected time is the matmul curve of v5e's
  // built-in calibration applied to that roofline.
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  const roofline::Matmul mm{.m = 32768, .k = 8192, .n = 32768};
  const ChipCalibration cal = roofline::default_calibration(v5e);
  const double expected = roofline::expected_s(roofline::predict(mm, v5e), CostClass::kMatmul, cal);
  auto r = run_cli("predict matmul --chip tpu-v5e --m 32768 --k 8192 --n 32768 --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["t_lower_s"].get<double>() == Approx(0.0893).epsilon(5e-4));
  CHECK(j["expected_s"].get<double>() == Approx(expected));
  CHECK(j["expected_s"].get<double>() >= j["t_lower_s"].get<double>());
  CHECK(j["cost_class"] == "matmul");
  CHECK(j["calibration"]["origin"] == cal.origin);
  auto text = run_cli("predict matmul --chip tpu-v5e --m 32768 --k 8192 --n 32768");
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("lower bound 89.3 ms"));
  CHECK_THAT(text.out, Catch::Contains("  expected    " + roofline::format_seconds(expected) +
                                       " (matmul curve; calibration: " + cal.origin + ")"));
}

TEST_CASE("cli predict collective and sharded: expected times through the collective model and matmul curve") {
  const ChipCalibration cal = roofline::default_calibration(roofline::chip("tpu-v5e"));
  auto c = run_cli("predict collective --op all-gather --chip tpu-v5e --mesh X=8,Y=4 --axes Y --bytes 1e9 "
                   "--format json");
  REQUIRE(c.exit_code == 0);
  const auto cj = nlohmann::json::parse(c.out);
  // The built-in calibration expects a TPU collective by the published
  // stretch of its link bound (collectives/expected.hpp), as the report does.
  const auto stretch = [](const nlohmann::json& op) {
    const std::optional<roofline::CollectiveKind> k = roofline::parse_collective(op.get<std::string>());
    REQUIRE(k);
    return roofline::tpu_collective_stretch(*k);
  };
  CHECK(cj["expected_s"].get<double>() == Approx(cj["t_ici_s"].get<double>() / 0.95));
  CHECK(cj["expected_model"] == "published TPU all-gather: 1.05 x the link bound");
  CHECK(cj["cost_class"] == "collective");
  CHECK(cj["calibration"]["origin"] == cal.origin);
  auto ct = run_cli("predict collective --op all-gather --chip tpu-v5e --mesh X=8,Y=4 --axes Y --bytes 1e9");
  CHECK_THAT(ct.out, Catch::Contains(" (published TPU all-gather: 1.05 x the link bound; calibration: "));

  auto s = run_cli("predict 'x[B_X, D_Y] @ w[D_Y, F]' --chip tpu-v5e --mesh X=8,Y=4 --dims B=8192,D=8192,F=32768 "
                   "--format json");
  REQUIRE(s.exit_code == 0);
  const auto sj = nlohmann::json::parse(s.out);
  CHECK(sj["calibration"]["origin"] == cal.origin);
  const roofline::ClassCurve& mm = cal.curve(CostClass::kMatmul);
  REQUIRE(sj["strategies"].size() > 0);
  for (const auto& st : sj["strategies"]) {
    INFO(st["strategy"]);
    const auto& local = st["local_matmul"];
    const double local_expected =
        mm.floor_s + std::max(local["t_math_s"].get<double>() / cal.math_efficiency(CostClass::kMatmul,
                                                                                   roofline::PeakClass::kBf16),
                              local["t_hbm_s"].get<double>() / mm.memory_efficiency);
    CHECK(local["expected_s"].get<double>() == Approx(local_expected));
    double collectives = 0;
    for (const auto& step : st["collectives"]) {
      CHECK(step["expected_s"].get<double>() == Approx(step["t_ici_s"].get<double>() * stretch(step["op"])));
      CHECK(step["expected_model"].is_string());
      collectives += step["expected_s"].get<double>();
    }
    CHECK(st["expected_s"].get<double>() == Approx(std::max(local_expected, collectives)));
  }
  auto st = run_cli("predict 'x[B_X, D_Y] @ w[D_Y, F]' --chip tpu-v5e --mesh X=8,Y=4 --dims B=8192,D=8192,F=32768");
  CHECK_THAT(st.out, Catch::Contains("expected times: calibration: " + cal.origin));
  CHECK_THAT(st.out, Catch::Contains("    expected "));
}

TEST_CASE("cli hlo: each row's expected time through its class's curve or model, and the module's total") {
  const ChipCalibration cal = roofline::default_calibration(roofline::chip("tpu-v5e"));
  const std::string hlo = roofline::testing::test_data("hlo/psum.hlo.txt").string();
  auto r = run_cli("hlo '" + hlo + "' --chip tpu-v5e --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["calibration"]["origin"] == cal.origin);
  double total = 0;
  for (const auto& row : j["instructions"]) {
    INFO(row["name"]);
    if (row["aggregate"].get<bool>()) {
      CHECK(row["expected_s"].is_null());
      continue;
    }
    const std::string name = row["cost_class"];
    const CostClass c = name == "matmul"       ? CostClass::kMatmul
                        : name == "collective" ? CostClass::kCollective
                        : name == "host link"  ? CostClass::kHostLink
                                               : CostClass::kMemory;
    const roofline::ClassCurve& k = cal.curve(c);
    const double t_math = row["t_math_s"], t_hbm = row["t_hbm_s"], t_ici = row["t_ici_s"];
    // The psum: the published TPU all-reduce figure (5.12 / 3.35 of the
    // link bound), as the report expects it; the rest through their curves.
    const double expected =
        t_math <= 0 && t_hbm <= 0 && t_ici <= 0 ? 0
        : c == CostClass::kCollective
            ? t_ici * 5.12 / 3.35
            : k.floor_s + std::max({t_math / cal.math_efficiency(c, roofline::PeakClass::kBf16),
                                    t_hbm / k.memory_efficiency, t_ici / k.link_efficiency});
    CHECK(row["expected_s"].get<double>() == Approx(expected));
    CHECK(row["expected_model"].is_string() == (c == CostClass::kCollective && expected > 0));
    total += row["expected_s"].get<double>() * row["executions"].get<double>();
  }
  CHECK(j["total"]["expected_s"].get<double>() == Approx(total));
  auto text = run_cli("hlo '" + hlo + "' --chip tpu-v5e");
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains(" expected "));
  CHECK_THAT(text.out, Catch::Contains("expected by published TPU all-reduce: 1.53 x the link bound"));
  CHECK_THAT(text.out, Catch::Contains("  expected " + roofline::format_seconds(j["total"]["expected_s"]) +
                                       " (each row through its class's curve or model; calibration: " + cal.origin + ")"));
  auto csv = run_cli("hlo '" + hlo + "' --chip tpu-v5e --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out.substr(0, csv.out.find('\n')), Catch::EndsWith(",notes,expected_s,cost_class"));
}

TEST_CASE("expected.hpp: collectives, sharded strategies and HLO rows through a calibration given") {
  // Efficiencies under 1 and a floor, so that every expected time differs
  // from its roofline: floor 1 us, math 0.8, memory 0.5, link 0.25.
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  ChipCalibration cal = roofline::default_calibration(v5e);
  cal.matmul_math_efficiency = {};
  for (roofline::ClassCurve& k : cal.classes) k = {.floor_s = 1e-6, .math_efficiency = 0.8, .memory_efficiency = 0.5,
                                                    .link_efficiency = 0.25};
  // Every collective on the curve, as a fitted calibration has it.
  cal.collective_shape_model = false;
  // A collective: 1 us + T_ici / 0.25.
  const roofline::CollectiveTime t{.t_ici_s = 1e-3};
  CHECK(roofline::expected_s(t, cal) == Approx(1e-6 + 4e-3));

  // A sharded matmul: the local matmul 1 us + max(T_math / 0.8, T_hbm / 0.5),
  // each collective 1 us + T_ici / 0.25, the whole the larger of the local
  // matmul and the collectives' sum.
  auto mesh = roofline::parse_mesh("X=8,Y=4", v5e);
  REQUIRE(mesh.ok());
  auto expr = roofline::parse_matmul_expression("x[B_X, D_Y] @ w[D_Y, F]");
  REQUIRE(expr.ok());
  auto dims = roofline::parse_dim_sizes("B=8192,D=8192,F=32768");
  REQUIRE(dims.ok());
  auto r = roofline::predict_sharded_matmul(*expr, *mesh, v5e, *dims, roofline::DType::kBF16);
  REQUIRE(r.ok());
  for (const roofline::ShardedMatmulStrategy& s : r->strategies) {
    INFO(s.name);
    const roofline::ShardedExpected e = roofline::expected(s, v5e, cal);
    const double local = 1e-6 + std::max(s.local_prediction.t_math_s / 0.8, s.local_prediction.t_hbm_s / 0.5);
    CHECK(e.local_s == Approx(local));
    double collectives = 0;
    REQUIRE(e.collectives_s.size() == s.collectives.size());
    for (std::size_t i = 0; i < s.collectives.size(); ++i) {
      CHECK(e.collectives_s[i] == Approx(1e-6 + s.collectives[i].time.t_ici_s / 0.25));
      collectives += e.collectives_s[i];
    }
    CHECK(e.whole_s == Approx(std::max(local, collectives)));
    const auto j = nlohmann::json::parse(roofline::to_json(s, e).dump());
    CHECK(j["expected_s"].get<double>() == Approx(e.whole_s));
    CHECK(j["local_matmul"]["expected_s"].get<double>() == Approx(local));
  }

  // An HLO module: the all-reduce through the collective curve, the
  // parameter (no work) 0; the total their sum times executions.
  auto m = roofline::read_hlo_file(roofline::testing::test_data("hlo/psum.hlo.txt").string());
  REQUIRE(m.ok());
  const roofline::HloModulePrediction mp = roofline::predict(*m, v5e);
  double total = 0;
  for (const roofline::HloPredictionRow& row : mp.rows) {
    INFO(row.instruction->name);
    const std::optional<double> e = roofline::expected_s(row, v5e, cal);
    REQUIRE(e.has_value());
    const roofline::Prediction& p = row.prediction;
    const double want = p.t_math_s <= 0 && p.t_hbm_s <= 0 && p.t_ici_s <= 0
                            ? 0
                            : 1e-6 + std::max({p.t_math_s / 0.8, p.t_hbm_s / 0.5, p.t_ici_s / 0.25});
    CHECK(*e == Approx(want));
    total += *e * row.executions;
    const auto j = nlohmann::json::parse(roofline::to_json(row, v5e, cal).dump());
    CHECK(j["expected_s"].get<double>() == Approx(want));
  }
  CHECK(total > mp.total.t_lower_s);
  CHECK(roofline::expected_total_s(mp, v5e, cal) == Approx(total));
  // With a curve for the all-reduce's family ("psum.7": "psum"),
  // its row takes that one, as the report's op would.
  roofline::ChipCalibration with_family = cal;
  with_family.families.push_back({.cost_class = CostClass::kCollective,
                                  .family = "psum",
                                  .curve = {.floor_s = 9e-6, .math_efficiency = 1, .memory_efficiency = 1,
                                            .link_efficiency = 0.1},
                                  .quality = {}});
  int on_family = 0;
  for (const roofline::HloPredictionRow& row : mp.rows) {
    if (roofline::kernel_family(row.instruction->name) != "psum" || row.aggregate) continue;
    ++on_family;
    CHECK(*roofline::expected_s(row, v5e, with_family) == Approx(9e-6 + row.prediction.t_ici_s / 0.1));
  }
  CHECK(on_family == 1);
}
