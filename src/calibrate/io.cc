// The calibration file, written with the library's one JSON writer and read
// strictly with nlohmann (every error names the file and the JSON path, or
// line:column for text that is not JSON).
#include "roofline/calibrate/io.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/format/json.hpp"
#include "src/wire/bounded_input.hpp"

namespace roofline {
namespace {

using nlohmann::json;

// The ranges a calibration's figures are read within (docs/calibration.md,
// The file): efficiencies as the fit bounds them, a floor below a second.
constexpr double kMinEfficiency = 1e-4;
constexpr double kMaxEfficiency = 1000;
constexpr double kMaxFloorS = 1;
// A file `roofline calibrate` writes holds a sample per op kind (about 300
// bytes each): 64 MiB is 200k of them.
constexpr std::uint64_t kMaxCalibrationFileBytes = std::uint64_t{64} << 20;

Json quality_json(const FitQuality& q) {
  return Json::object({{"samples", q.samples}, {"median_abs_error", q.median_abs_error}, {"p90_abs_error", q.p90_abs_error}});
}

// A curve's four parameters after the fields in `head`.
Json curve_json(Json head, const ClassCurve& k) {
  head["floor_s"] = k.floor_s;
  head["math_efficiency"] = k.math_efficiency;
  head["memory_efficiency"] = k.memory_efficiency;
  head["link_efficiency"] = k.link_efficiency;
  return head;
}

Json entry_json(const CalibrationFit& f) {
  const ChipCalibration& c = f.calibration;
  Json classes = Json::object();
  for (int i = 0; i < kCostClassCount; ++i) {
    const auto cls = static_cast<CostClass>(i);
    const ClassCurve& k = c.curve(cls);
    const ClassFit& fit = f.classes[static_cast<std::size_t>(i)];
    Json& entry = classes[cost_class_name(cls)] = curve_json(Json::object(), k);
    entry["origin"] = curve_origin_name(fit.origin);
    entry["quality"] = quality_json(fit.quality);
  }
  Json per_peak = Json::object();
  for (int i = 0; i < kPeakClassCount; ++i)
    if (c.matmul_math_efficiency[static_cast<std::size_t>(i)] > 0)
      per_peak[peak_class_name(static_cast<PeakClass>(i))] = c.matmul_math_efficiency[static_cast<std::size_t>(i)];
  Json families = Json::array();
  for (const FamilyCurve& fc : c.families) {
    Json entry = curve_json(Json::object({{"class", cost_class_name(fc.cost_class)}, {"family", fc.family}}), fc.curve);
    entry["quality"] = quality_json(fc.quality);
    families.push_back(std::move(entry));
  }
  Json samples = Json::array();
  for (const CalibrationSample& s : f.samples)
    samples.push_back(Json::object({{"trace", s.trace},
                                    {"op", s.op},
                                    {"class", cost_class_name(s.cost_class)},
                                    {"peak", peak_class_name(s.peak_used)},
                                    {"t_math_s", s.t_math_s},
                                    {"t_mem_s", s.t_mem_s},
                                    {"t_link_s", s.t_link_s},
                                    {"t_mem_cold_s", s.t_mem_cold_s},
                                    {"flops", s.flops},
                                    {"hbm_bytes", s.hbm_bytes},
                                    {"measured_s", s.measured_s},
                                    {"count", s.count}}));
  const auto steps_json = [](const std::vector<SizeStep>& steps) {
    Json out = Json::array();
    for (const SizeStep& s : steps) out.push_back(Json::array({Json(s.size), Json(s.efficiency)}));
    return out;
  };
  return Json::object({{"chip", c.chip},
                       {"origin", c.origin},
                       {"classes", classes},
                       {"matmul_math_efficiency", per_peak},
                       {"matmul_size_steps", steps_json(c.matmul_size_steps)},
                       {"memory_size_steps", steps_json(c.memory_size_steps)},
                       {"matmul_shape_model", matmul_shape_model_name(c.matmul_shape_model)},
                       {"families", families},
                       {"quality", quality_json(c.quality)},
                       {"notes", Json(f.notes)},
                       {"samples", samples}});
}

// Walks the parsed JSON; every error names the file and the JSON path.
class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}

  absl::Status error(const std::string& path, std::string_view what) const {
    return absl::InvalidArgumentError(detail::cat(origin_, ": ", path.empty() ? "/" : path, ": ", what));
  }
  // `keys` are required, `optional` may be there.
  absl::Status object(const json& j, const std::string& path, std::initializer_list<std::string_view> keys,
                      std::initializer_list<std::string_view> optional = {}) const {
    if (!j.is_object()) return error(path, "expected an object");
    for (auto it = j.begin(); it != j.end(); ++it)
      if (std::find(keys.begin(), keys.end(), it.key()) == keys.end() &&
          std::find(optional.begin(), optional.end(), it.key()) == optional.end())
        return error(path + "/" + it.key(), "unknown field");
    for (std::string_view k : keys)
      if (!j.contains(std::string(k))) return error(detail::cat(path, "/", k), "missing required field");
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> string(const json& j, const std::string& path) const {
    if (!j.is_string()) return error(path, "expected a string");
    return j.get<std::string>();
  }
  absl::StatusOr<double> number(const json& j, const std::string& path, double min, bool open_below) const {
    if (!j.is_number()) return error(path, "expected a number");
    const double v = j.get<double>();
    if (!std::isfinite(v) || v < min || (open_below && v == min))
      return error(path, open_below ? detail::cat("expected a number above ", min)
                                    : detail::cat("expected a number of at least ", min));
    return v;
  }
  absl::StatusOr<double> non_negative(const json& j, const std::string& path) const { return number(j, path, 0, false); }
  absl::StatusOr<double> positive(const json& j, const std::string& path) const { return number(j, path, 0, true); }
  absl::StatusOr<std::int64_t> count(const json& j, const std::string& path) const {
    if (!j.is_number_integer() || j.get<long long>() < 0) return error(path, "expected a non-negative integer");
    return static_cast<std::int64_t>(j.get<long long>());
  }
  absl::StatusOr<FitQuality> quality(const json& j, const std::string& path) const {
    ROOFLINE_RETURN_IF_ERROR(object(j, path, {"samples", "median_abs_error", "p90_abs_error"}));
    FitQuality q;
    ROOFLINE_ASSIGN_OR_RETURN(q.samples, count(j["samples"], path + "/samples"));
    ROOFLINE_ASSIGN_OR_RETURN(q.median_abs_error, non_negative(j["median_abs_error"], path + "/median_abs_error"));
    ROOFLINE_ASSIGN_OR_RETURN(q.p90_abs_error, non_negative(j["p90_abs_error"], path + "/p90_abs_error"));
    return q;
  }
  // A launch floor: at least 0 and below 1 s. Real ones are microseconds;
  // 1e300 s is a tampered or slipped figure that every expected time would
  // carry.
  absl::StatusOr<double> floor(const json& j, const std::string& path) const {
    ROOFLINE_ASSIGN_OR_RETURN(double v, non_negative(j, path));
    if (v >= kMaxFloorS) return error(path, detail::cat("expected a launch floor below ", kMaxFloorS, " s"));
    return v;
  }
  // An efficiency within the range the fit keeps to (fit.cc: 1e-4 to 1000):
  // 1e-300 would turn every expected time into 1e300 s.
  absl::StatusOr<double> efficiency(const json& j, const std::string& path) const {
    if (!j.is_number()) return error(path, "expected a number");
    const double v = j.get<double>();
    if (!(v >= kMinEfficiency && v <= kMaxEfficiency))
      return error(path, "expected an efficiency from 1e-4 to 1000");  // kMinEfficiency, kMaxEfficiency
    return v;
  }
  // The four parameters of a curve object at `path`.
  absl::Status curve(const json& k, const std::string& path, ClassCurve& out) const {
    ROOFLINE_ASSIGN_OR_RETURN(out.floor_s, floor(k["floor_s"], path + "/floor_s"));
    ROOFLINE_ASSIGN_OR_RETURN(out.math_efficiency, efficiency(k["math_efficiency"], path + "/math_efficiency"));
    ROOFLINE_ASSIGN_OR_RETURN(out.memory_efficiency, efficiency(k["memory_efficiency"], path + "/memory_efficiency"));
    ROOFLINE_ASSIGN_OR_RETURN(out.link_efficiency, efficiency(k["link_efficiency"], path + "/link_efficiency"));
    return absl::OkStatus();
  }
  // A size curve: [[size, efficiency], ...], sizes rising from 0
  // (size_curve.hpp), efficiencies in (0, 1].
  absl::StatusOr<std::vector<SizeStep>> steps(const json& j, const std::string& path) const {
    if (!j.is_array()) return error(path, "expected an array of [size, efficiency] pairs");
    std::vector<SizeStep> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
      const std::string q = detail::cat(path, "/", i);
      if (!j[i].is_array() || j[i].size() != 2) return error(q, "expected [size, efficiency]");
      SizeStep s;
      ROOFLINE_ASSIGN_OR_RETURN(s.size, non_negative(j[i][0], q + "/0"));
      ROOFLINE_ASSIGN_OR_RETURN(s.efficiency, positive(j[i][1], q + "/1"));
      if (s.efficiency > 1) return error(q + "/1", "expected an efficiency of at most 1");
      if (i == 0 ? s.size != 0 : s.size <= out.back().size)
        return error(q + "/0", i == 0 ? "expected the first step at size 0" : "expected sizes that rise");
      out.push_back(s);
    }
    return out;
  }
  absl::StatusOr<CostClass> cost_class(const json& j, const std::string& path) const {
    ROOFLINE_ASSIGN_OR_RETURN(std::string s, string(j, path));
    for (int i = 0; i < kCostClassCount; ++i)
      if (cost_class_name(static_cast<CostClass>(i)) == s) return static_cast<CostClass>(i);
    return error(path, "expected one of matmul, memory, collective, host link");
  }
  absl::StatusOr<PeakClass> peak(std::string_view s, const std::string& path) const {
    for (int i = 0; i < kPeakClassCount; ++i)
      if (peak_class_name(static_cast<PeakClass>(i)) == s) return static_cast<PeakClass>(i);
    return error(path, "expected a peak class (fp64, fp32, tf32, bf16, fp16, fp8, int8, int4, fp4)");
  }

 private:
  std::string origin_;
};

absl::StatusOr<CalibrationSample> read_sample(const Reader& r, const json& j, const std::string& p, const std::string& chip) {
  ROOFLINE_RETURN_IF_ERROR(r.object(j, p,
                                    {"trace", "op", "class", "peak", "t_math_s", "t_mem_s", "t_link_s",
                                     "t_mem_cold_s", "measured_s", "count"},
                                    {"flops", "hbm_bytes"}));
  CalibrationSample s{.chip = chip};
  ROOFLINE_ASSIGN_OR_RETURN(s.trace, r.string(j["trace"], p + "/trace"));
  ROOFLINE_ASSIGN_OR_RETURN(s.op, r.string(j["op"], p + "/op"));
  s.family = kernel_family(s.op);
  ROOFLINE_ASSIGN_OR_RETURN(s.cost_class, r.cost_class(j["class"], p + "/class"));
  ROOFLINE_ASSIGN_OR_RETURN(std::string peak, r.string(j["peak"], p + "/peak"));
  ROOFLINE_ASSIGN_OR_RETURN(s.peak_used, r.peak(peak, p + "/peak"));
  ROOFLINE_ASSIGN_OR_RETURN(s.t_math_s, r.non_negative(j["t_math_s"], p + "/t_math_s"));
  ROOFLINE_ASSIGN_OR_RETURN(s.t_mem_s, r.non_negative(j["t_mem_s"], p + "/t_mem_s"));
  ROOFLINE_ASSIGN_OR_RETURN(s.t_link_s, r.non_negative(j["t_link_s"], p + "/t_link_s"));
  ROOFLINE_ASSIGN_OR_RETURN(s.t_mem_cold_s, r.non_negative(j["t_mem_cold_s"], p + "/t_mem_cold_s"));
  // Optional: written since the size curves (2026-11-29); absent, 0 (no size known).
  if (j.contains("flops")) {
    ROOFLINE_ASSIGN_OR_RETURN(s.flops, r.non_negative(j["flops"], p + "/flops"));
  }
  if (j.contains("hbm_bytes")) {
    ROOFLINE_ASSIGN_OR_RETURN(s.hbm_bytes, r.non_negative(j["hbm_bytes"], p + "/hbm_bytes"));
  }
  ROOFLINE_ASSIGN_OR_RETURN(s.measured_s, r.positive(j["measured_s"], p + "/measured_s"));
  ROOFLINE_ASSIGN_OR_RETURN(s.count, r.count(j["count"], p + "/count"));
  return s;
}

absl::StatusOr<CalibrationFit> read_entry(const Reader& r, const json& j, const std::string& p) {
  ROOFLINE_RETURN_IF_ERROR(
      r.object(j, p, {"chip", "origin", "classes", "matmul_math_efficiency", "quality", "notes", "samples"},
               {"families", "matmul_size_steps", "memory_size_steps", "matmul_shape_model"}));
  CalibrationFit f;
  ChipCalibration& c = f.calibration;
  ROOFLINE_ASSIGN_OR_RETURN(c.chip, r.string(j["chip"], p + "/chip"));
  if (c.chip.empty()) return r.error(p + "/chip", "expected a chip name");
  ROOFLINE_ASSIGN_OR_RETURN(c.origin, r.string(j["origin"], p + "/origin"));
  const json& classes = j["classes"];
  ROOFLINE_RETURN_IF_ERROR(r.object(classes, p + "/classes", {"matmul", "memory", "collective", "host link"}));
  for (int i = 0; i < kCostClassCount; ++i) {
    const std::string name(cost_class_name(static_cast<CostClass>(i)));
    const std::string q = p + "/classes/" + name;
    const json& k = classes[name];
    ROOFLINE_RETURN_IF_ERROR(r.object(k, q, {"floor_s", "math_efficiency", "memory_efficiency", "link_efficiency", "origin", "quality"}));
    ROOFLINE_RETURN_IF_ERROR(r.curve(k, q, c.curve(static_cast<CostClass>(i))));
    ROOFLINE_ASSIGN_OR_RETURN(std::string origin, r.string(k["origin"], q + "/origin"));
    ClassFit& fit = f.classes[static_cast<std::size_t>(i)];
    if (origin == curve_origin_name(CurveOrigin::kFitted)) fit.origin = CurveOrigin::kFitted;
    else if (origin == curve_origin_name(CurveOrigin::kBuiltIn)) fit.origin = CurveOrigin::kBuiltIn;
    else return r.error(q + "/origin", "expected \"fit\" or \"built-in\"");
    ROOFLINE_ASSIGN_OR_RETURN(fit.quality, r.quality(k["quality"], q + "/quality"));
  }
  // A collective class the fit kept built-in keeps the built-in way of
  // timing collectives, by their shape's published model (fit.cc).
  c.collective_shape_model = f.classes[static_cast<int>(CostClass::kCollective)].origin == CurveOrigin::kBuiltIn;
  const json& per_peak = j["matmul_math_efficiency"];
  if (!per_peak.is_object()) return r.error(p + "/matmul_math_efficiency", "expected an object");
  for (auto it = per_peak.begin(); it != per_peak.end(); ++it) {
    const std::string q = p + "/matmul_math_efficiency/" + it.key();
    ROOFLINE_ASSIGN_OR_RETURN(PeakClass peak, r.peak(it.key(), q));
    ROOFLINE_ASSIGN_OR_RETURN(c.matmul_math_efficiency[static_cast<std::size_t>(peak)], r.efficiency(it.value(), q));
  }
  // Optional: written since the size curves (2026-11-29); absent, none (the
  // efficiencies of an older file were fitted without them).
  if (j.contains("matmul_size_steps")) {
    ROOFLINE_ASSIGN_OR_RETURN(c.matmul_size_steps, r.steps(j["matmul_size_steps"], p + "/matmul_size_steps"));
  }
  if (j.contains("memory_size_steps")) {
    ROOFLINE_ASSIGN_OR_RETURN(c.memory_size_steps, r.steps(j["memory_size_steps"], p + "/memory_size_steps"));
  }
  // Optional: written since GEMMs were quantized (2026-11-29); absent, the
  // size curve (what an older file was fitted with).
  if (j.contains("matmul_shape_model")) {
    ROOFLINE_ASSIGN_OR_RETURN(const std::string model, r.string(j["matmul_shape_model"], p + "/matmul_shape_model"));
    if (model == matmul_shape_model_name(MatmulShapeModel::kTileAndWave)) c.matmul_shape_model = MatmulShapeModel::kTileAndWave;
    else if (model == matmul_shape_model_name(MatmulShapeModel::kSizeCurve)) c.matmul_shape_model = MatmulShapeModel::kSizeCurve;
    else return r.error(p + "/matmul_shape_model", "expected \"tile_and_wave\" or \"size_curve\"");
  }
  // Optional: written since families were fitted (2026-11-25); absent, none.
  const json& families = j.contains("families") ? j["families"] : json::array();
  if (!families.is_array()) return r.error(p + "/families", "expected an array");
  for (std::size_t i = 0; i < families.size(); ++i) {
    const std::string q = detail::cat(p, "/families/", i);
    const json& k = families[i];
    ROOFLINE_RETURN_IF_ERROR(r.object(k, q, {"class", "family", "floor_s", "math_efficiency", "memory_efficiency",
                                             "link_efficiency", "quality"}));
    FamilyCurve f;
    ROOFLINE_ASSIGN_OR_RETURN(f.cost_class, r.cost_class(k["class"], q + "/class"));
    ROOFLINE_ASSIGN_OR_RETURN(f.family, r.string(k["family"], q + "/family"));
    if (f.family.empty()) return r.error(q + "/family", "expected a kernel family");
    if (c.family_curve(f.cost_class, f.family) != nullptr)
      return r.error(q + "/family", detail::cat("a second curve for ", f.family));
    ROOFLINE_RETURN_IF_ERROR(r.curve(k, q, f.curve));
    ROOFLINE_ASSIGN_OR_RETURN(f.quality, r.quality(k["quality"], q + "/quality"));
    c.families.push_back(std::move(f));
  }
  ROOFLINE_ASSIGN_OR_RETURN(c.quality, r.quality(j["quality"], p + "/quality"));
  const json& notes = j["notes"];
  if (!notes.is_array()) return r.error(p + "/notes", "expected an array of strings");
  for (std::size_t i = 0; i < notes.size(); ++i) {
    ROOFLINE_ASSIGN_OR_RETURN(std::string n, r.string(notes[i], detail::cat(p, "/notes/", i)));
    f.notes.push_back(std::move(n));
  }
  const json& samples = j["samples"];
  if (!samples.is_array()) return r.error(p + "/samples", "expected an array");
  for (std::size_t i = 0; i < samples.size(); ++i) {
    ROOFLINE_ASSIGN_OR_RETURN(CalibrationSample s, read_sample(r, samples[i], detail::cat(p, "/samples/", i), c.chip));
    f.samples.push_back(std::move(s));
  }
  return f;
}

absl::StatusOr<CalibrationFile> read_file(const Reader& r, const json& j) {
  ROOFLINE_RETURN_IF_ERROR(r.object(j, "", {"format", "version", "chips"}));
  ROOFLINE_ASSIGN_OR_RETURN(std::string format, r.string(j["format"], "/format"));
  if (format != kCalibrationFormat) return r.error("/format", detail::cat("expected \"", kCalibrationFormat, "\""));
  if (j["version"].is_number_integer() && j["version"].get<long long>() == 1)
    return r.error("/version", detail::cat("version 1 times memory efficiency against the roofline's memory term, "
                                           "this build against HBM's bandwidth (version ", kCalibrationVersion,
                                           "): run roofline calibrate again on the traces"));
  if (!j["version"].is_number_integer() || j["version"].get<long long>() != kCalibrationVersion)
    return r.error("/version", detail::cat("expected ", kCalibrationVersion, " (the only version this build reads)"));
  const json& chips = j["chips"];
  if (!chips.is_array()) return r.error("/chips", "expected an array");
  CalibrationFile out;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < chips.size(); ++i) {
    const std::string p = detail::cat("/chips/", i);
    ROOFLINE_ASSIGN_OR_RETURN(CalibrationFit f, read_entry(r, chips[i], p));
    if (!seen.insert(f.calibration.chip).second)
      return r.error(p + "/chip", detail::cat("a second entry for ", f.calibration.chip));
    out.chips.push_back(std::move(f));
  }
  return out;
}

// "line:column" (both from 1) of byte offset `at` in `text`.
std::string line_column(std::string_view text, std::size_t at) {
  at = std::min(at, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') ++line, column = 1;
    else ++column;
  }
  return detail::cat(line, ":", column);
}

}  // namespace

const ChipCalibration* CalibrationFile::find(std::string_view chip) const {
  for (const CalibrationFit& f : chips)
    if (f.calibration.chip == chip) return &f.calibration;
  for (const ChipCalibration& c : same_die)
    if (c.chip == chip) return &c;
  return nullptr;
}

void add_same_die_entries(CalibrationFile& file) {
  file.same_die.clear();
  const auto die_of = [](std::string_view name) -> std::string_view {
    absl::StatusOr<const Chip*> c = find_chip(name);
    return c.ok() ? std::string_view((*c)->die) : std::string_view();
  };
  for (const Chip& chip : embedded_chips()) {
    if (chip.die.empty()) continue;
    const auto own = std::find_if(file.chips.begin(), file.chips.end(),
                                  [&](const CalibrationFit& f) { return f.calibration.chip == chip.name; });
    if (own != file.chips.end()) continue;
    for (const CalibrationFit& f : file.chips) {
      if (die_of(f.calibration.chip) != chip.die) continue;
      // Its classes that were fitted; the chip's own built-in curves for
      // the rest (they come from its own spec).
      CalibrationFit borrowed;
      borrowed.calibration = default_calibration(chip);
      fill_from_same_die(borrowed, f);
      std::string taken;
      for (int i = 0; i < kCostClassCount; ++i)
        if (borrowed.classes[i].origin == CurveOrigin::kFitted)
          taken += detail::cat(taken.empty() ? "" : ", ", cost_class_name(static_cast<CostClass>(i)));
      if (taken.empty()) continue;  // nothing fitted: another part of the die may have
      borrowed.calibration.origin = detail::cat("the same ", chip.die, " die as ", f.calibration.chip, ": its ",
                                                f.calibration.origin, " for ", taken, "; built-in for the rest");
      file.same_die.push_back(std::move(borrowed.calibration));
      break;
    }
  }
}

std::string calibration_to_json(const CalibrationFile& file) {
  Json chips = Json::array();
  for (const CalibrationFit& f : file.chips) chips.push_back(entry_json(f));
  return Json::object({{"format", kCalibrationFormat}, {"version", kCalibrationVersion}, {"chips", chips}}).dump() + "\n";
}

absl::StatusOr<CalibrationFile> parse_calibration(std::string_view text, std::string_view origin) {
  const Reader r(origin);
  // nlohmann throws even on some inputs it could refuse quietly (a number
  // that overflows a double): catch all it throws here.
  // Nesting is bounded before nlohmann builds a document (the file is 5
  // levels deep).
  if (const std::size_t at = detail::json_too_deep_at(text); at != std::string_view::npos)
    return absl::InvalidArgumentError(detail::cat(origin, ":", line_column(text, at), ": JSON nested deeper than ",
                                                  detail::kMaxInputJsonDepth, " levels"));
  try {
    const json j = json::parse(text.begin(), text.end());
    absl::StatusOr<CalibrationFile> file = read_file(r, j);
    if (file.ok()) add_same_die_entries(*file);
    return file;
  } catch (const json::parse_error& e) {
    // e.byte counts from 1 and points at the character that failed.
    return absl::InvalidArgumentError(detail::cat(origin, ":", line_column(text, e.byte > 0 ? e.byte - 1 : 0),
                                                  ": invalid JSON: ", e.what()));
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(detail::cat(origin, ": invalid JSON: ", e.what()));
  } catch (const std::exception& e) {
    return absl::ResourceExhaustedError(detail::cat(origin, ": cannot read the calibration: ", e.what()));
  }
}

absl::StatusOr<CalibrationFile> read_calibration_file(const std::string& path) {
  ROOFLINE_ASSIGN_OR_RETURN(std::string text,
                            detail::read_bounded_file(path, kMaxCalibrationFileBytes, "calibration file",
                                                      detail::json_object_head));
  return parse_calibration(text, path);
}

}  // namespace roofline
