// calibrate(paths) and fidelity(paths): `roofline calibrate` and `roofline
// fidelity` on measured traces. A Calibration is the file `roofline
// calibrate` writes (one fit per chip); it is what calibration= takes
// beside a path, wherever expected times are computed.
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.hpp"
#include "python/src/status.hpp"
#include "roofline/calibrate/fidelity.hpp"
#include "roofline/report/fidelity.hpp"
#include "roofline/calibrate/fit.hpp"
#include "roofline/calibrate/io.hpp"
#include "roofline/calibrate/trace_inputs.hpp"
#include "roofline/chip_io.hpp"
#include "roofline/match/identify.hpp"
#include "roofline/match/match.hpp"
#include "roofline/trace/read.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace roofline::python {
namespace {

// Paths as the CLI reads its TRACE... arguments (trace_paths): one path or
// a list of them, files as given, directories searched.
std::vector<std::string> paths_arg(const nb::handle& given) {
  std::vector<std::string> listed;
  if (nb::isinstance<nb::str>(given) || nb::hasattr(given, "__fspath__")) {
    listed.push_back(path_from(given));
  } else {
    for (nb::handle p : given) listed.push_back(path_from(p));
  }
  if (listed.empty()) throw nb::value_error("expected at least one trace (a file or a directory)");
  return value(trace_paths(listed));
}

FidelityTrace read_report(const std::string& path, const std::optional<Chip>& chip) {
  auto r = read_fidelity_trace(path, chip ? &*chip : nullptr, TraceReadOptions{});
  if (!r.ok()) raise(in_python_words(r.status()), &path);
  return *std::move(r);
}

std::optional<Chip> chip_arg(const nb::object& chip) {
  if (chip.is_none()) return std::nullopt;
  return nb::cast<Chip>(chip);
}

CalibrationFile calibrate(const nb::handle& paths, const nb::object& chip_obj, int min_samples) {
  const std::optional<Chip> chip = chip_arg(chip_obj);
  std::map<std::string, std::pair<Chip, std::vector<CalibrationSample>>> by_chip;
  for (const std::string& path : paths_arg(paths)) {
    FidelityTrace r = read_report(path, chip);
    auto& [c, samples] = by_chip[r.report.chip];
    c = r.chip;
    for (CalibrationSample& s : calibration_samples(r.report, path)) samples.push_back(std::move(s));
  }
  CalibrationFile file;
  for (auto& [name, entry] : by_chip)
    file.chips.push_back(fit_calibration(entry.first, std::move(entry.second), {.min_samples = min_samples}));
  add_same_die_entries(file);  // as reading its file back makes them
  return file;
}

// A Calibration (or the path of its file) for fidelity's calibration=.
std::optional<CalibrationFile> calibration_file_arg(const nb::object& calibration) {
  if (calibration.is_none()) return std::nullopt;
  if (nb::isinstance<CalibrationFile>(calibration)) return nb::cast<CalibrationFile>(calibration);
  const std::string path = path_from(calibration);
  return value(read_calibration_file(path), &path);
}

FidelityResult fidelity(const nb::handle& paths, const nb::object& calibration, const nb::object& chip_obj) {
  const std::optional<Chip> chip = chip_arg(chip_obj);
  const std::optional<CalibrationFile> file = calibration_file_arg(calibration);
  std::vector<FidelityTrace> traces;
  for (const std::string& path : paths_arg(paths)) traces.push_back(read_report(path, chip));
  FidelityOptions options;
  if (file) options.calibration = &*file;
  return run_fidelity(traces, options);
}

std::string class_key(int i) { return std::string(cost_class_name(static_cast<CostClass>(i))); }

}  // namespace

void bind_calibrate(nb::module_& m) {
  nb::class_<ClassCurve>(m, "ClassCurve",
                         "One cost class's curve: T = floor_s + max(T_math / math_efficiency, T_mem / "
                         "memory_efficiency, T_link / link_efficiency).")
      .def_ro("floor_s", &ClassCurve::floor_s)
      .def_ro("math_efficiency", &ClassCurve::math_efficiency)
      .def_ro("memory_efficiency", &ClassCurve::memory_efficiency)
      .def_ro("link_efficiency", &ClassCurve::link_efficiency)
      .def("__repr__", [](const ClassCurve& k) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "ClassCurve(floor_s=%.3g, math_efficiency=%.3g, memory_efficiency=%.3g, link_efficiency=%.3g)",
                      k.floor_s, k.math_efficiency, k.memory_efficiency, k.link_efficiency);
        return std::string(buf);
      });

  nb::class_<FitQuality>(m, "FitQuality", "|measured / expected - 1| over the ops a calibration was fitted to.")
      .def_ro("samples", &FitQuality::samples)
      .def_ro("median_abs_error", &FitQuality::median_abs_error)
      .def_ro("p90_abs_error", &FitQuality::p90_abs_error);

  nb::class_<ChipCalibration>(m, "ChipCalibration", "One chip's expected-time curves, per cost class.")
      .def_ro("chip", &ChipCalibration::chip)
      .def_ro("origin", &ChipCalibration::origin)
      .def_prop_ro("classes",
                   [](const ChipCalibration& c) {
                     nb::dict out;
                     for (int i = 0; i < kCostClassCount; ++i) out[class_key(i).c_str()] = c.classes[static_cast<std::size_t>(i)];
                     return out;
                   },
                   "{'matmul': ClassCurve, 'memory': ..., 'collective': ..., 'host link': ...}")
      .def_prop_ro("matmul_math_efficiency",
                   [](const ChipCalibration& c) {
                     nb::dict out;  // peak classes with a figure of their own
                     for (int p = 0; p < kPeakClassCount; ++p)
                       if (c.matmul_math_efficiency[static_cast<std::size_t>(p)] > 0)
                         out[std::string(peak_class_name(static_cast<PeakClass>(p))).c_str()] =
                             c.matmul_math_efficiency[static_cast<std::size_t>(p)];
                     return out;
                   })
      .def_ro("quality", &ChipCalibration::quality)
      .def("__repr__", [](const ChipCalibration& c) { return "ChipCalibration('" + c.chip + "', '" + c.origin + "')"; });

  nb::class_<CalibrationFile>(m, "Calibration",
                              "What `roofline calibrate` writes: one fitted calibration per chip. Pass it as "
                              "calibration= to expected(), hlo(), plan() and fidelity().")
      .def_prop_ro("chips",
                   [](const CalibrationFile& f) {
                     std::vector<ChipCalibration> out;
                     for (const CalibrationFit& c : f.chips) out.push_back(c.calibration);
                     return out;
                   })
      .def_prop_ro("notes",
                   [](const CalibrationFile& f) {
                     std::vector<std::string> out;
                     for (const CalibrationFit& c : f.chips)
                       for (const std::string& n : c.notes) out.push_back(c.calibration.chip + ": " + n);
                     return out;
                   },
                   "Classes that kept the built-in curve, efficiencies above 1, samples of other chips.")
      .def("__getitem__",
           [](const CalibrationFile& f, const std::string& chip) {
             if (const ChipCalibration* c = f.find(chip)) return *c;
             throw nb::key_error(("no calibration for chip '" + chip + "'").c_str());
           })
      .def("__contains__", [](const CalibrationFile& f, const std::string& chip) { return f.find(chip) != nullptr; })
      .def("to_json", &calibration_to_json, "The file's text, exactly as `roofline calibrate` writes it.")
      .def(
          "write",
          [](const CalibrationFile& f, const nb::handle& path) {
            const std::string p = path_from(path);
            const std::string text = calibration_to_json(f);
            std::ofstream out(p, std::ios::binary);
            if (!out || !(out << text) || !out.flush()) raise(absl::PermissionDeniedError("cannot write " + p));
          },
          "path"_a)
      .def("__repr__", [](const CalibrationFile& f) {
        std::string chips;
        for (const CalibrationFit& c : f.chips) chips += (chips.empty() ? "" : ", ") + c.calibration.chip;
        return "Calibration(" + chips + ")";
      });

  m.def(
      "read_calibration",
      [](const nb::handle& path) {
        const std::string p = path_from(path);
        return value(read_calibration_file(p), &p);
      },
      "path"_a, "A calibration file `roofline calibrate` wrote.");
  m.def("default_calibration", &default_calibration, "chip"_a,
        "The chip's built-in calibration: its published achievable rates (the spec's \"achieved\").");
  m.def("calibrate", &calibrate, "paths"_a, "chip"_a = nb::none(), nb::kw_only(), "min_samples"_a = 3,
        "`roofline calibrate TRACE...`: fit each chip's curves to the measured ops of the traces (files, or "
        "directories searched for .json[.gz] and .xplane.pb[.gz]). chip: predict on this chip instead of the "
        "one each trace names. A class with fewer than min_samples samples keeps the built-in curve.");

  nb::class_<ErrorFigures>(m, "ErrorFigures", "Median and 90th percentile of |measured / expected - 1|.")
      .def_ro("median_abs_error", &ErrorFigures::median_abs_error)
      .def_ro("p90_abs_error", &ErrorFigures::p90_abs_error);
  nb::class_<FidelityRow>(m, "FidelityRow", "The figures over one trace, one chip, or everything.")
      .def_ro("name", &FidelityRow::name)
      .def_ro("chip", &FidelityRow::chip)
      .def_ro("ops", &FidelityRow::ops)
      .def_ro("bounds_above", &FidelityRow::bounds_above)
      .def_ro("roofline", &FidelityRow::roofline)
      .def_ro("builtin", &FidelityRow::builtin)
      .def_ro("calibrated", &FidelityRow::calibrated);
  nb::class_<BoundAbove>(m, "BoundAbove", "A lower bound above the measured median of one occurrence, and why.")
      .def_ro("trace", &BoundAbove::trace)
      .def_ro("op", &BoundAbove::op)
      .def_ro("chip", &BoundAbove::chip)
      .def_ro("bound_s", &BoundAbove::bound_s)
      .def_ro("measured_s", &BoundAbove::measured_s)
      .def_ro("ratio", &BoundAbove::ratio)
      .def_ro("reason", &BoundAbove::reason);
  nb::class_<FidelityOp>(m, "FidelityOp", "One op compared: its measured median and three expectations, of one occurrence.")
      .def_ro("trace", &FidelityOp::trace)
      .def_ro("op", &FidelityOp::op)
      .def_ro("chip", &FidelityOp::chip)
      .def_ro("shapes", &FidelityOp::shapes)
      .def_prop_ro("cost_class", [](const FidelityOp& o) { return std::string(cost_class_name(o.cost_class)); })
      .def_ro("count", &FidelityOp::count)
      .def_ro("measured_s", &FidelityOp::measured_s)
      .def_ro("bound_s", &FidelityOp::bound_s)
      .def_ro("builtin_s", &FidelityOp::builtin_s)
      .def_ro("calibrated_s", &FidelityOp::calibrated_s)
      .def_ro("wait_s", &FidelityOp::wait_s,
              "A collective's wait for its slowest peer, of one occurrence, from the skew across the ranks read; "
              "None for other ops and where one rank was read.")
      .def_ro("transfer_s", &FidelityOp::transfer_s,
              "measured_s less wait_s: what the expectations are compared with (measured_s where no wait is known).")
      .def_ro("wait_separable", &FidelityOp::wait_separable,
              "False for a collective read on one rank, whose wait cannot be told apart: it counts only in the row "
              "'collective, wait not separable'.")
      .def_ro("fold", &FidelityOp::fold, "A one-trace chip's half (0 or 1) the op fell in; -1: left out with its trace.");
  nb::class_<FidelityResult>(m, "FidelityResult", "The fidelity benchmark over a set of traces (docs/fidelity.md).")
      .def_ro("calibrated", &FidelityResult::calibrated, "How the calibrated column was made.")
      .def_ro("traces", &FidelityResult::traces)
      .def_ro("chips", &FidelityResult::chips)
      .def_ro("overall", &FidelityResult::overall)
      .def_ro("bounds_above", &FidelityResult::bounds_above)
      .def_ro("ops", &FidelityResult::ops, "Every op compared, furthest from its calibrated expectation first.")
      .def_ro("notes", &FidelityResult::notes)
      .def("to_text", [](const FidelityResult& r) { return render_fidelity(r, FidelityFormat::kText); })
      .def("to_markdown", [](const FidelityResult& r) { return render_fidelity(r, FidelityFormat::kMarkdown); })
      .def("to_json", [](const FidelityResult& r) { return render_fidelity(r, FidelityFormat::kJson); },
           "The text `roofline fidelity --format json` prints.");
  m.def("fidelity", &fidelity, "paths"_a, "calibration"_a = nb::none(), "chip"_a = nb::none(),
        "`roofline fidelity PATH...`: how well the roofline, the built-in calibration and a cross-validated fit "
        "(or `calibration`, a Calibration or its file, as given) predict the measured ops.");
}

}  // namespace roofline::python
