#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/calibrate/io.hpp"
#include "roofline/core.hpp"
#include "roofline/detail/cat.hpp"
#include "tests/calibrate/synthetic.hpp"

namespace roofline {
namespace {

CalibrationFile two_chips() {
  CalibrationFile f;
  // The memory samples' bounds at L2's rate, a quarter of their HBM time:
  // the round trip must keep the two terms apart.
  std::vector<CalibrationSample> s = testing::known_curve_samples();
  for (CalibrationSample& c : s)
    if (c.cost_class == CostClass::kMemory) c.t_mem_s = c.t_mem_cold_s / 4;
  // And a kernel family off the memory curve, which gets its own.
  double t = 3e-6;
  for (int i = 0; i < 8; ++i, t *= 1.7)
    s.push_back(testing::model_sample("synthetic", "bn." + std::to_string(i), CostClass::kMemory, PeakClass::kFp32, 0,
                                      t, 5e-6, 1, 0.45));
  f.chips.push_back(fit_calibration(chip("h100-sxm"), s));
  f.chips.push_back(fit_calibration(chip("tpu-v6e"), {}));
  return f;
}

std::string error_of(const std::string& text) {
  auto r = parse_calibration(text, "cal.json");
  REQUIRE_FALSE(r.ok());
  return std::string(r.status().message());
}

// The written file with the first `from` replaced by `to`.
std::string edited(std::string_view from, std::string_view to) {
  std::string text = calibration_to_json(two_chips());
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("calibration file: a chip it has no entry for takes the fit of a part of the same die") {
  // two_chips() fits h100-sxm (matmul and memory) and has tpu-v6e built in;
  // h200 is the same GH100 die as h100-sxm.
  auto f = parse_calibration(calibration_to_json(two_chips()), "cal.json");
  REQUIRE(f.ok());
  REQUIRE(f->chips.size() == 2);
  const ChipCalibration* own = f->find("h100-sxm");
  const ChipCalibration* h200 = f->find("h200");
  REQUIRE(own != nullptr);
  REQUIRE(h200 != nullptr);
  CHECK(h200->chip == "h200");
  CHECK(h200->origin.find("the same GH100 die as h100-sxm: its fit to") == 0);
  CHECK(h200->origin.find("for matmul, memory; built-in for the rest") != std::string::npos);
  for (CostClass c : {CostClass::kMatmul, CostClass::kMemory}) {
    CHECK(h200->curve(c).floor_s == own->curve(c).floor_s);
    CHECK(h200->curve(c).memory_efficiency == own->curve(c).memory_efficiency);
  }
  CHECK(h200->matmul_math_efficiency == own->matmul_math_efficiency);
  // The classes h100-sxm kept built-in are the H200's own built-in curves.
  const ChipCalibration builtin = default_calibration(chip("h200"));
  for (CostClass c : {CostClass::kCollective, CostClass::kHostLink}) {
    CHECK(h200->curve(c).floor_s == builtin.curve(c).floor_s);
    CHECK(h200->curve(c).link_efficiency == builtin.curve(c).link_efficiency);
  }
  // No die shared, no entry: the built-in calibration applies.
  CHECK(f->find("b200") == nullptr);
  CHECK(f->find("tpu-v5e") == nullptr);
  // Not written: the file's text is its entries only.
  CHECK(calibration_to_json(*f).find("h200") == std::string::npos);
  // A part's own entry wins over the same die's.
  CalibrationFile both = two_chips();
  both.chips.push_back(fit_calibration(chip("h200"), {}));
  add_same_die_entries(both);
  CHECK(both.find("h200") == &both.chips.back().calibration);
}

TEST_CASE("calibration file: round trip") {
  const CalibrationFile a = two_chips();
  const std::string text = calibration_to_json(a);
  auto b = parse_calibration(text, "cal.json");
  INFO(b.status().message());
  REQUIRE(b.ok());
  REQUIRE(b->chips.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    const CalibrationFit& x = a.chips[i];
    const CalibrationFit& y = b->chips[i];
    CHECK(x.calibration.chip == y.calibration.chip);
    CHECK(x.calibration.origin == y.calibration.origin);
    for (std::size_t k = 0; k < kCostClassCount; ++k) {
      CHECK(x.calibration.classes[k].floor_s == y.calibration.classes[k].floor_s);
      CHECK(x.calibration.classes[k].math_efficiency == y.calibration.classes[k].math_efficiency);
      CHECK(x.calibration.classes[k].memory_efficiency == y.calibration.classes[k].memory_efficiency);
      CHECK(x.calibration.classes[k].link_efficiency == y.calibration.classes[k].link_efficiency);
      CHECK(x.classes[k].origin == y.classes[k].origin);
      CHECK(x.classes[k].quality.p90_abs_error == y.classes[k].quality.p90_abs_error);
    }
    CHECK(x.calibration.matmul_math_efficiency == y.calibration.matmul_math_efficiency);
    REQUIRE(x.calibration.memory_size_steps.size() == y.calibration.memory_size_steps.size());
    for (std::size_t k = 0; k < x.calibration.memory_size_steps.size(); ++k) {
      CHECK(x.calibration.memory_size_steps[k].size == y.calibration.memory_size_steps[k].size);
      CHECK(x.calibration.memory_size_steps[k].efficiency == y.calibration.memory_size_steps[k].efficiency);
    }
    CHECK(x.calibration.matmul_size_steps.size() == y.calibration.matmul_size_steps.size());
    REQUIRE(x.calibration.families.size() == y.calibration.families.size());
    for (std::size_t k = 0; k < x.calibration.families.size(); ++k) {
      const roofline::FamilyCurve& fx = x.calibration.families[k];
      const roofline::FamilyCurve& fy = y.calibration.families[k];
      CHECK(fx.cost_class == fy.cost_class);
      CHECK(fx.family == fy.family);
      CHECK(fx.curve.floor_s == fy.curve.floor_s);
      CHECK(fx.curve.memory_efficiency == fy.curve.memory_efficiency);
      CHECK(fx.quality.median_abs_error == fy.quality.median_abs_error);
    }
    CHECK(x.calibration.quality.median_abs_error == y.calibration.quality.median_abs_error);
    CHECK(x.notes == y.notes);
    REQUIRE(x.samples.size() == y.samples.size());
    for (std::size_t s = 0; s < x.samples.size(); ++s) {
      CHECK(x.samples[s].op == y.samples[s].op);
      CHECK(x.samples[s].cost_class == y.samples[s].cost_class);
      CHECK(x.samples[s].peak_used == y.samples[s].peak_used);
      CHECK(x.samples[s].t_math_s == y.samples[s].t_math_s);
      CHECK(x.samples[s].t_mem_s == y.samples[s].t_mem_s);
      CHECK(x.samples[s].t_mem_cold_s == y.samples[s].t_mem_cold_s);
      CHECK(x.samples[s].measured_s == y.samples[s].measured_s);
      CHECK(x.samples[s].count == y.samples[s].count);
    }
  }
  // Written again, the same bytes.
  CHECK(calibration_to_json(*b) == text);
  REQUIRE(b->find("h100-sxm") != nullptr);
  REQUIRE(b->find("h100-sxm")->family_curve(CostClass::kMemory, "bn") != nullptr);  // the samples' family survives too
  const auto bn = std::find_if(b->chips[0].samples.begin(), b->chips[0].samples.end(),
                               [](const CalibrationSample& s) { return s.op == "bn.0"; });
  REQUIRE(bn != b->chips[0].samples.end());
  CHECK(bn->family == "bn");
  CHECK(b->find("h100-sxm")->curve(CostClass::kMatmul).floor_s == Approx(3e-6));
  CHECK(b->find("mi300x") == nullptr);
  // Samples made under the H100's size curves are fitted best under them:
  // the file keeps the H100's HBM curve (the GH100 curve's four points and
  // the step at 0: expected/memory.hpp); the TPU has none.
  CHECK(b->find("h100-sxm")->memory_size_steps.size() == 5);
  CHECK(b->find("tpu-v6e")->memory_size_steps.empty());
  // A file without them (written before the size curves) reads with none.
  {
    nlohmann::json old = nlohmann::json::parse(text);
    for (auto& c : old["chips"]) c.erase("matmul_size_steps"), c.erase("memory_size_steps");
    auto read = parse_calibration(old.dump(), "old.json");
    REQUIRE(read.ok());
    CHECK(read->chips[0].calibration.memory_size_steps.empty());
  }
  // A file without `families` (written before families were fitted) reads
  // with none.
  nlohmann::json j = nlohmann::json::parse(text);
  for (auto& c : j["chips"]) c.erase("families");
  auto without = parse_calibration(j.dump(), "old.json");
  REQUIRE(without.ok());
  CHECK(without->chips[0].calibration.families.empty());
}

TEST_CASE("calibration file: errors name the file and the place") {
  // Not JSON: line and column. The text is "{\n  \"format\": x" (x at line 2, column 13).
  CHECK(error_of("{\n  \"format\": x}").rfind("cal.json:2:13: invalid JSON", 0) == 0);
  CHECK(error_of("[]") == "cal.json: /: expected an object");
  CHECK(error_of(edited("\"version\": 2", "\"version\": 3")) ==
        "cal.json: /version: expected 2 (the only version this build reads)");
  // A version 1 file: its memory efficiencies meant something else.
  CHECK(error_of(edited("\"version\": 2", "\"version\": 1")) ==
        "cal.json: /version: version 1 times memory efficiency against the roofline's memory term, this build "
        "against HBM's bandwidth (version 2): run roofline calibrate again on the traces");
  CHECK(error_of(edited("\"format\": \"roofline-calibration\"", "\"format\": \"other\"")) ==
        "cal.json: /format: expected \"roofline-calibration\"");
  // The first chip written is h100-sxm (fit), its first class "collective".
  const std::string floor = "\"floor_s\": ";
  std::string text = calibration_to_json(two_chips());
  const std::size_t at = text.find(floor) + floor.size();
  text.replace(at, text.find(',', at) - at, "-1");
  CHECK(error_of(text) == "cal.json: /chips/0/classes/collective/floor_s: expected a number of at least 0");
  CHECK(error_of(edited("\"memory_efficiency\": ", "\"memory_efficiency\": -")) ==
        "cal.json: /chips/0/classes/collective/memory_efficiency: expected an efficiency from 1e-4 to 1000");
  CHECK(error_of(edited("\"class\": \"matmul\"", "\"class\": \"gemm\"")) ==
        "cal.json: /chips/0/samples/25/class: expected one of matmul, memory, collective, host link");
  {
    // A family without a name, and a family's curve twice.
    nlohmann::json j = nlohmann::json::parse(calibration_to_json(two_chips()));
    nlohmann::json& families = j["chips"][0]["families"];
    REQUIRE(families.size() >= 1);
    nlohmann::json unnamed = j;
    unnamed["chips"][0]["families"][0]["family"] = "";
    CHECK(error_of(unnamed.dump()) == "cal.json: /chips/0/families/0/family: expected a kernel family");
    const std::string name = families[0]["family"];
    families.push_back(families[0]);
    CHECK(error_of(j.dump()) ==
          detail::cat("cal.json: /chips/0/families/", families.size() - 1, "/family: a second curve for ", name));
  }
  {
    // A size curve must start at 0, rise, and hold efficiencies of at most 1.
    nlohmann::json j = nlohmann::json::parse(calibration_to_json(two_chips()));
    nlohmann::json late = j, flat = j, above = j;
    late["chips"][0]["memory_size_steps"][0][0] = 5;
    CHECK(error_of(late.dump()) == "cal.json: /chips/0/memory_size_steps/0/0: expected the first step at size 0");
    flat["chips"][0]["memory_size_steps"][2][0] = 1e3;
    CHECK(error_of(flat.dump()) == "cal.json: /chips/0/memory_size_steps/2/0: expected sizes that rise");
    above["chips"][0]["matmul_size_steps"][1][1] = 2;
    CHECK(error_of(above.dump()) == "cal.json: /chips/0/matmul_size_steps/1/1: expected an efficiency of at most 1");
  }
  CHECK(error_of(edited("\"origin\": \"fit\"", "\"origin\": \"fit\", \"extra\": 1")).find("/extra: unknown field") !=
        std::string::npos);
  CHECK(error_of(edited("\"chip\": \"tpu-v6e\"", "\"chip\": \"h100-sxm\"")) ==
        "cal.json: /chips/1/chip: a second entry for h100-sxm");
  auto missing = read_calibration_file("/nonexistent/cal.json");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message() == "/nonexistent/cal.json: cannot open calibration file: No such file or directory");
}

TEST_CASE("calibration file: impossible figures, deep nesting and what is not a file are refused, located") {
  // A floor of 1e300 s or an efficiency of 1e-300 made every expected time
  // 1e300 s; the fit keeps efficiencies within 1e-4..1000 and floors are
  // microseconds.
  std::string text = calibration_to_json(two_chips());
  const std::string floor = "\"floor_s\": ";
  const std::size_t at = text.find(floor) + floor.size();
  text.replace(at, text.find(',', at) - at, "1e300");
  CHECK(error_of(text) == "cal.json: /chips/0/classes/collective/floor_s: expected a launch floor below 1 s");
  nlohmann::json j = nlohmann::json::parse(calibration_to_json(two_chips()));
  nlohmann::json tiny = j;
  tiny["chips"][0]["classes"]["matmul"]["math_efficiency"] = 1e-300;
  CHECK(error_of(tiny.dump()) ==
        "cal.json: /chips/0/classes/matmul/math_efficiency: expected an efficiency from 1e-4 to 1000");
  j["chips"][0]["matmul_math_efficiency"]["bf16"] = 1e-300;
  CHECK(error_of(j.dump()) ==
        "cal.json: /chips/0/matmul_math_efficiency/bf16: expected an efficiency from 1e-4 to 1000");
  // Nested 100k deep: refused where the 65th level opens, before nlohmann
  // builds a document of it.
  const std::string deep = "{\"chips\":\n" + std::string(100000, '[') + std::string(100000, ']') + "}";
  CHECK(error_of(deep) == "cal.json:2:64: JSON nested deeper than 64 levels");
  // --calibration DIR said "1:1 invalid JSON"; /dev/zero never ended.
  auto dir = read_calibration_file("/tmp");
  CHECK(dir.status().message() == "/tmp: is a directory, not a calibration file");
  auto zeros = read_calibration_file("/dev/zero");
  CHECK(zeros.status().message() ==
        "/dev/zero: byte 0: invalid JSON: a calibration file is a JSON object, this starts with byte 0x00");
}

}  // namespace
}  // namespace roofline
