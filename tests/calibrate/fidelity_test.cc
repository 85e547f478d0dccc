#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <cstdio>
#include <fstream>
#include <string>

#include "roofline/calibrate/fidelity.hpp"
#include "roofline/report/fidelity.hpp"
#include "roofline/core.hpp"
#include "roofline/detail/cat.hpp"
#include "tests/calibrate/synthetic.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

namespace roofline {
namespace {

// A report row for a sample (its totals are per-occurrence figures times count).
OpReport op_of(const CalibrationSample& s) {
  const double n = static_cast<double>(s.count);
  OpReport o;
  o.name = s.op;
  o.count = s.count;
  o.median_s = s.measured_s;
  o.measured_s = s.measured_s * n;
  o.predicted = true;
  o.match = MatchSource::kInputDims;
  o.category = "compute";
  o.prediction.t_math_s = s.t_math_s * n;
  o.prediction.t_hbm_s = s.t_mem_s * n;
  o.prediction.t_hbm_cold_s = s.t_mem_cold_s * n;
  o.prediction.t_ici_s = s.t_link_s * n;
  o.prediction.t_lower_s = roofline_s(s) * n;
  o.prediction.hbm_bytes = s.hbm_bytes * n;
  o.prediction.flops = s.flops * n;
  o.cost_class = s.cost_class;
  o.prediction.peak.used = s.peak_used;
  return o;
}

FidelityTrace trace_of(const std::string& name, const std::vector<CalibrationSample>& samples) {
  FidelityTrace t{.trace = name, .chip = chip("h100-sxm")};
  t.report.chip = "h100-sxm";
  for (const CalibrationSample& s : samples)
    if (s.op.find("out") == std::string::npos) t.report.ops.push_back(op_of(s));
  return t;
}

TEST_CASE("fidelity: two traces on the model's curve, left out in turn, predict each other exactly") {
  const std::vector<FidelityTrace> traces = {trace_of("a", testing::known_curve_samples("a")),
                                             trace_of("b", testing::known_curve_samples("b"))};
  const FidelityResult r = run_fidelity(traces);
  REQUIRE(r.traces.size() == 2);
  // known_curve_samples has 35 samples on the curve (the outliers are left out above).
  CHECK(r.traces[0].ops == 35);
  CHECK(r.overall.ops == 70);
  CHECK(r.overall.bounds_above == 0);
  CHECK(r.overall.calibrated.median_abs_error < 1e-6);
  CHECK(r.overall.calibrated.p90_abs_error < 1e-6);
  // The roofline column is measured / max(terms) - 1, by definition; check
  // one op: gemm.0 has T_math 1 us, T_mem 0.25 us, measured 3 us + 1 us /
  // (0.7 x the size curve's share at its 0.989 GFLOP, (0.1 + 0.5 x 0.989) / 0.95).
  std::vector<double> raw;
  for (const OpReport& o : traces[0].report.ops) raw.push_back(o.median_s / (o.prediction.t_lower_s / o.count) - 1);
  CHECK(r.traces[0].roofline.median_abs_error == Approx(quantile(raw, 0.5)));
  CHECK(raw[0] == Approx((3e-6 + 1e-6 / (0.7 * (0.1 + 0.5 * 0.989) / 0.95)) / 1e-6 - 1));
  // The built-in column is the chip's default calibration.
  std::vector<double> builtin;
  const ChipCalibration d = default_calibration(chip("h100-sxm"));
  for (const CalibrationSample& s : calibration_samples(traces[0].report, "a"))
    builtin.push_back(abs_error(s.measured_s, expected_s(s, d)));
  CHECK(r.traces[0].builtin.median_abs_error == Approx(quantile(builtin, 0.5)));
  CHECK(r.notes.empty());
}

TEST_CASE("fidelity: one trace is split in two folds of its ops, and a bound above measured is named") {
  FidelityTrace t = trace_of("only", testing::known_curve_samples("only"));
  // 1 MB charged at HBM bandwidth, measured at 0.4x that roofline: it fits
  // in the H100's 50 MB L2.
  CalibrationSample hot = testing::model_sample("only", "hot_add", CostClass::kMemory, PeakClass::kFp32, 0, 1e-5, 0, 1, 1);
  hot.measured_s = 4e-6;
  t.report.ops.push_back(op_of(hot));
  const FidelityResult r = run_fidelity(std::vector<FidelityTrace>{t});
  CHECK(r.overall.ops == 36);
  CHECK(r.overall.bounds_above == 1);
  REQUIRE(r.bounds_above.size() == 1);
  const BoundAbove& b = r.bounds_above[0];
  CHECK(b.op == "hot_add");
  CHECK(b.ratio == Approx(2.5));
  CHECK(b.reason.find("input-dims cost, memory class") == 0);
  CHECK(b.reason.find("fits in l2 (50.0 MB)") != std::string::npos);
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("h100-sxm: one trace with compared ops (only): calibrated figures from two folds") == 0);
  // Each fold fits the same curve from its half: the hash puts 10 of the 20
  // matmuls and 6 of the 15 memory ops in fold 1 (at least 3 per class in
  // each, or the built-in curve would be kept and the error would not be 0);
  // hot_add, far off the curve, gets no weight.
  CHECK(r.overall.calibrated.median_abs_error < 1e-6);
}

TEST_CASE("fidelity: a one-trace chip's folds split its distinct ops, one kernel's sizes falling on both sides") {
  // 20 matmuls and 15 memory ops on the curve that share two names, told
  // apart by their shapes as a kernel run at many sizes is. Split by name,
  // each class would lie in one fold and the other fold could not fit it.
  // The trace's path holds a newline, which the notes show escaped.
  FidelityTrace t = trace_of("one\nfake", testing::known_curve_samples("one\nfake"));
  for (OpReport& o : t.report.ops) {
    o.shapes = "[" + o.name.substr(o.name.find('.') + 1) + "]";
    o.name = o.name.substr(0, o.name.find('.'));
  }
  const FidelityResult r = run_fidelity(std::vector<FidelityTrace>{t});
  REQUIRE(r.notes.size() == 1);
  INFO(r.notes[0]);
  const std::string text = render_fidelity(r, FidelityFormat::kText);
  CHECK(text.find("(one\\x0afake)") != std::string::npos);
  CHECK(text.find("\nfake") == std::string::npos);
  CHECK(r.notes[0].find("two folds of its ops (") != std::string::npos);
  CHECK(r.notes[0].find("(0 and") == std::string::npos);
  CHECK(r.notes[0].find("and 0,") == std::string::npos);
  CHECK(r.overall.calibrated.median_abs_error < 1e-6);
  CHECK(r.overall.calibrated.p90_abs_error < 1e-6);
}

TEST_CASE("fidelity: rows alike in name, shapes and work are one op and fall in one fold") {
  // Each op of the curve four times, launched from four framework ops (as
  // aten::add and aten::add_ launch one kernel on the same tensors): each
  // fold holds all four rows of an op or none.
  FidelityTrace t = trace_of("twins", testing::known_curve_samples("twins"));
  std::vector<OpReport> rows;
  for (const OpReport& o : t.report.ops)
    for (const char* module : {"aten::add", "aten::add_", "aten::sum", "aten::copy_"}) {
      rows.push_back(o);
      rows.back().module = module;
    }
  t.report.ops = rows;
  const FidelityResult r = run_fidelity(std::vector<FidelityTrace>{t});
  REQUIRE(r.notes.size() == 1);
  INFO(r.notes[0]);
  const std::size_t at = r.notes[0].find("two folds of its ops (");
  REQUIRE(at != std::string::npos);
  const int first = std::stoi(r.notes[0].substr(at + 22));
  CHECK(first > 0);
  CHECK(first < 140);
  CHECK(first % 4 == 0);
  REQUIRE(r.ops.size() == 140);
  std::map<std::string, std::set<int>> folds;  // by op name and its terms
  for (const FidelityOp& o : r.ops) folds[detail::cat(o.op, ' ', o.bound_s, ' ', o.measured_s)].insert(o.fold);
  CHECK(folds.size() == 35);
  for (const auto& [op, in] : folds) {
    INFO(op);
    CHECK(in.size() == 1);
    CHECK(*in.begin() >= 0);
  }
}

TEST_CASE("fidelity: every op compared is listed with its three expectations, furthest first") {
  FidelityTrace t = trace_of("a", testing::known_curve_samples("a"));
  // Far off the curve, so furthest from any fit. Its name holds an escape
  // sequence, a '|' and a newline that would start a line of its own: text
  // and Markdown show them escaped.
  const std::string name = "slow\x1b[2J|\n  99.00x  fake";
  t.report.ops.push_back(op_of(testing::model_sample("a", name, CostClass::kMemory, PeakClass::kFp32, 0, 2e-5, 2e-6, 0.7, 0.85, 9)));
  t.report.ops.back().shapes = "[[8,128]]";
  const FidelityResult r = run_fidelity(std::vector<FidelityTrace>{t, trace_of("b", testing::known_curve_samples("b"))});
  REQUIRE(r.ops.size() == static_cast<std::size_t>(r.overall.ops));
  CHECK(r.ops.size() == 71);
  CHECK(r.ops[0].op == name);
  CHECK(r.ops[0].trace == "a");
  CHECK(r.ops[0].shapes == "[[8,128]]");
  CHECK(r.ops[0].fold == -1);  // its trace was left out whole
  CHECK(r.ops[0].count == 3);
  // 2e-5 s of HBM time on an H100 is 67 MB: the H100's size curve's share
  // of the largest copies' rate at that size.
  const double share = relative_size_efficiency(default_calibration(chip("h100-sxm")).memory_size_steps, 2e-5 * chip("h100-sxm").hbm_bytes_per_s);
  CHECK(r.ops[0].measured_s == Approx(9 * (2e-6 + 2e-5 / (0.85 * share))));
  CHECK(r.ops[0].bound_s == Approx(2e-5));
  // Fitted on trace b alone, which is on the curve: the expectation is the curve's.
  CHECK(r.ops[0].calibrated_s == Approx(2e-6 + 2e-5 / (0.85 * share)).epsilon(1e-6));
  CHECK(r.ops[0].builtin_s == Approx(expected_s(calibration_samples(t.report, "a").back(), default_calibration(chip("h100-sxm")))));
  for (std::size_t i = 1; i < r.ops.size(); ++i)
    CHECK(abs_error(r.ops[i - 1].measured_s, r.ops[i - 1].calibrated_s) >= abs_error(r.ops[i].measured_s, r.ops[i].calibrated_s));
  const std::string text = render_fidelity(r, FidelityFormat::kText);
  CHECK(text.find("Furthest from the calibrated expectation (15 of 71; every op in --format json):\n  9.00x  h100-sxm  "
                  "slow\\x1b[2J|\\x0a  99.00x  fake  (a)\n") != std::string::npos);
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find("\n  99.00x") == std::string::npos);
  // 15 ops shown, two lines each, then the end of the text (no notes: two traces).
  const std::string listed = text.substr(text.find("Furthest from"));
  CHECK(std::count(listed.begin(), listed.end(), '\n') == 1 + 2 * 15);
  const std::string md = render_fidelity(r, FidelityFormat::kMarkdown);
  CHECK(md.find("| a | slow\\x1b[2J\\|\\x0a  99.00x  fake | h100-sxm | memory | 3 |") != std::string::npos);
  CHECK(md.find('\x1b') == std::string::npos);
  const std::string json = render_fidelity(r, FidelityFormat::kJson);
  CHECK(json.find("\"ops\": [\n    {\n      \"bound_s\": ") != std::string::npos);
  CHECK(json.find("\"op\": \"slow\\u001b[2J|\\n  99.00x  fake\"") != std::string::npos);
  CHECK(json.find("\"cost_class\": \"memory\"") != std::string::npos);
  CHECK(json.find("\"shapes\": \"[[8,128]]\"") != std::string::npos);
}

TEST_CASE("fidelity: a class a chip's own traces cannot fit takes the fit of a part of the same die") {
  // h200 and h100-sxm are both GH100 (Chip::die). The H200 trace has 4
  // memory ops on the H100 curve: 2 per fold, fewer than 3, so its own folds
  // keep the built-in curve, and the H100 trace's fit predicts them exactly.
  // They move 290 MB to 0.98 GB, past the largest step of both parts' size
  // curves (expected/memory.hpp scales the GH100 curve by each part's
  // streaming rate, so below it the two parts' curves differ).
  // (Its folds borrow matmul too, but the note names only classes of ops tested.)
  std::vector<CalibrationSample> few;
  for (const CalibrationSample& s : testing::known_curve_samples("h200"))
    if (s.op == "add.11" || s.op == "add.12" || s.op == "add.13" || s.op == "add.14") few.push_back(s);
  FidelityTrace h200 = trace_of("h200", few);
  h200.chip = chip("h200");
  h200.report.chip = "h200";
  REQUIRE(chip("h200").die == chip("h100-sxm").die);
  const std::vector<FidelityTrace> traces = {trace_of("a", testing::known_curve_samples("a")), h200};
  const FidelityResult r = run_fidelity(traces);
  REQUIRE(r.traces.size() == 2);
  CHECK(r.traces[1].ops == 4);
  CHECK(r.traces[1].calibrated.p90_abs_error < 1e-6);
  CHECK(r.traces[1].builtin.median_abs_error > 0.05);  // what it would have had
  const bool noted = std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
    return n.find("h200: classes its own training traces cannot fit (memory) take h100-sxm's fit") == 0;
  });
  INFO(r.notes.size() << " notes, the last: " << (r.notes.empty() ? "" : r.notes.back()));
  CHECK(noted);
  // The H100 trace is unchanged by it: it fits its own classes.
  CHECK(r.traces[0].calibrated.median_abs_error < 1e-6);
}

TEST_CASE("fidelity: a calibration given is judged as it is") {
  const std::vector<FidelityTrace> traces = {trace_of("a", testing::known_curve_samples("a"))};
  CalibrationFile file;
  file.chips.push_back(fit_calibration(chip("h100-sxm"), testing::known_curve_samples("fit")));
  const FidelityResult r = run_fidelity(traces, {.calibration = &file});
  CHECK(r.calibrated == "the calibration given");
  CHECK(r.overall.calibrated.p90_abs_error < 1e-6);
  CalibrationFile other;
  other.chips.push_back(fit_calibration(chip("mi300x"), {}));
  const FidelityResult s = run_fidelity(traces, {.calibration = &other});
  CHECK(s.overall.calibrated.median_abs_error == s.overall.builtin.median_abs_error);
  REQUIRE(s.notes.size() == 1);
  CHECK(s.notes[0] == "the calibration given has no entry for h100-sxm: its built-in calibration is used");
}

TEST_CASE("fidelity: a calibration given without an entry for a chip uses and names a same-die one") {
  FidelityTrace h200 = trace_of("h200", testing::known_curve_samples("h200"));
  h200.chip = chip("h200");
  h200.report.chip = "h200";
  CalibrationFile file;
  file.chips.push_back(fit_calibration(chip("h100-sxm"), testing::known_curve_samples("fit")));
  add_same_die_entries(file);
  const FidelityResult r = run_fidelity(std::vector<FidelityTrace>{h200}, FidelityOptions{.calibration = &file});
  CHECK(r.overall.calibrated.median_abs_error < 1e-6);  // the H100 fit, on the same curve
  REQUIRE(r.notes.size() == 1);
  CHECK(r.notes[0].find("the calibration given has no entry for h200: the same GH100 die as h100-sxm: its fit to") == 0);
}

TEST_CASE("fidelity: the mean error and the whole ratio, by trace and by class") {
  // Two memory ops whose roofline is their T_mem: 1 us measured 2 us once
  // (|2 / 1 - 1| = 1), and 4 us measured 2 us three times (|2 / 4 - 1| =
  // 0.5); one matmul, T_math 10 us measured 15 us twice (0.5).
  CalibrationSample a = testing::model_sample("t", "copy", CostClass::kMemory, PeakClass::kFp32, 0, 1e-6, 0, 1, 1);
  a.measured_s = 2e-6;
  a.count = 1;
  CalibrationSample b = testing::model_sample("t", "add", CostClass::kMemory, PeakClass::kFp32, 0, 4e-6, 0, 1, 1);
  b.measured_s = 2e-6;
  b.count = 3;
  CalibrationSample m = testing::model_sample("t", "gemm", CostClass::kMatmul, PeakClass::kBf16, 1e-5, 0, 0, 1, 1);
  m.measured_s = 1.5e-5;
  m.count = 2;
  const FidelityResult r = run_fidelity(std::vector<FidelityTrace>{trace_of("t", {a, b, m})});
  REQUIRE(r.traces.size() == 1);
  const ErrorFigures& raw = r.traces[0].roofline;
  CHECK(raw.mean_abs_error == Approx((1 + 0.5 + 0.5) / 3));
  // Sum measured (2 + 6 + 30 us) over sum of the rooflines (1 + 12 + 20 us).
  CHECK(raw.whole_ratio == Approx(38.0 / 33.0));
  REQUIRE(r.classes.size() == 2);
  CHECK(r.classes[0].name == "matmul");
  CHECK(r.classes[0].roofline.whole_ratio == Approx(1.5));
  CHECK(r.classes[1].name == "memory");
  CHECK(r.classes[1].roofline.mean_abs_error == Approx(0.75));
  CHECK(r.classes[1].roofline.whole_ratio == Approx(8.0 / 13.0));
  // Ops measured below 10 us are left out when asked.
  const FidelityResult large = run_fidelity(std::vector<FidelityTrace>{trace_of("t", {a, b, m})}, {.min_measured_s = 1e-5});
  CHECK(large.overall.ops == 1);
  CHECK(large.overall.roofline.whole_ratio == Approx(1.5));
}

TEST_CASE("fidelity: renders text, Markdown and JSON") {
  const std::vector<FidelityTrace> traces = {trace_of("a", testing::known_curve_samples("a"))};
  const FidelityResult r = run_fidelity(traces);
  const std::string text = render_fidelity(r, FidelityFormat::kText);
  CHECK(text.rfind("35 ops compared; 0 lower bounds above the measured median (0.0%).\n", 0) == 0);
  CHECK(text.find("chip h100-sxm") != std::string::npos);
  const std::string md = render_fidelity(r, FidelityFormat::kMarkdown);
  CHECK(md.find("| trace | chip | ops | bound > measured |") != std::string::npos);
  CHECK(md.find("| built-in mean | built-in measured / expected |") != std::string::npos);
  CHECK(md.find("| class matmul |") != std::string::npos);
  const std::string json = render_fidelity(r, FidelityFormat::kJson);
  CHECK(json.find("\"bounds_above\": []") != std::string::npos);
  CHECK(json.find("\"overall\": {") != std::string::npos);
  CHECK(json.find("\"whole_ratio\": ") != std::string::npos);
  CHECK(json.find("\"classes\": [") != std::string::npos);
}

TEST_CASE("cli fidelity and calibrate: a fixture trace, its calibration file, and report --calibration") {
  const std::string trace = testing::test_data("trace/kineto_small.json").string();
  const std::string cal = "/tmp/roofline_calibrate_test_" + std::to_string(::getpid()) + ".json";
  const auto f = testing::run_cli("fidelity '" + trace + "' --chip h100-sxm");
  INFO(f.err);
  CHECK(f.exit_code == 0);
  CHECK(f.out.find("ops compared") != std::string::npos);
  const auto c = testing::run_cli("calibrate '" + trace + "' --chip h100-sxm -o " + cal);
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  CHECK(c.err.find("h100-sxm: ") == 0);
  const auto r = testing::run_cli("report '" + trace + "' --chip h100-sxm --calibration " + cal + " --format json");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("the calibration given is for") == std::string::npos);
  const auto g = testing::run_cli("fidelity '" + trace + "' --chip h100-sxm --calibration " + cal);
  CHECK(g.exit_code == 0);
  CHECK(g.out.find("calibrated: the calibration given.") != std::string::npos);
  std::remove(cal.c_str());
  // A bad file: one line naming it and the place.
  { std::ofstream(cal) << "{\"format\": \"roofline-calibration\", \"version\": 7, \"chips\": []}"; }
  const auto bad = testing::run_cli("report '" + trace + "' --chip h100-sxm --calibration " + cal);
  CHECK(bad.exit_code != 0);
  CHECK(bad.err == "roofline: " + cal + ": /version: expected 2 (the only version this build reads)\n");
  std::remove(cal.c_str());
}

}  // namespace
}  // namespace roofline
