// The parts of roofline._core, one function per area, each in its own
// bind_*.cc; module.cc calls them in order (later parts use the classes
// earlier ones registered: Chip, DType names, Prediction).
#pragma once

#include <string>

#include <nanobind/nanobind.h>

#include "absl/status/status.h"
#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/dtype.hpp"
#include "roofline/match/identify.hpp"

namespace roofline::python {

void bind_chips(nanobind::module_& m);       // Chip, chips(), chip()
void bind_predict(nanobind::module_& m);     // Prediction, Matmul, predict()
void bind_hlo(nanobind::module_& m);         // hlo()
void bind_ops(nanobind::module_& m);         // Elementwise, Mesh, Collective, ShardedMatmul, expected()
void bind_calibrate(nanobind::module_& m);   // Calibration, calibrate(), fidelity()
void bind_plan(nanobind::module_& m);        // plan(), Plan, LayoutEvaluation
void bind_trace(nanobind::module_& m);       // TraceReport, TraceStats, trace_report(), trace_stats()
void bind_partials(nanobind::module_& m);    // StatsPartial, stats_partial(), merge_partials(), ...

// "bf16", "f32", ...: the names dtype_name() prints and parse_dtype() reads;
// an unknown name raises ValueError listing the known ones.
DType dtype_from(const std::string& name);

// The calibration the expected times come from: `calibration` None gives the
// chip's built-in one; a path (str or os.PathLike) to a file `roofline
// calibrate` wrote, or a Calibration (that file as an object), gives its
// entry for `chip` (the built-in one where the file has none), as the CLI's
// --calibration does; a ChipCalibration is used as is (ValueError when it
// is another chip's).
ChipCalibration calibration_for(const Chip& chip, const nanobind::object& calibration);

// The library's words for its options (ReportOptions::chip, ...) in the
// keywords of the Python functions.
inline constexpr OptionWords kPythonWords{.set_chip_advice = "pass chip=NAME",
                                          .given_chip_source = "chip argument",
                                          .one_device_advice = "pass device=N for one"};
inline absl::Status in_python_words(const absl::Status& status) {
  return absl::Status(status.code(), in_words(std::string(status.message()), kPythonWords));
}

// A path from a str or os.PathLike.
std::string path_from(const nanobind::handle& path);

}  // namespace roofline::python
