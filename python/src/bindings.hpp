// The parts of roofline._core, one function per area, each in its own
// bind_*.cc; module.cc calls them in order (later parts use the classes
// earlier ones registered: Chip, DType names, Prediction).
#pragma once

#include <string>

#include <nanobind/nanobind.h>

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/dtype.hpp"

namespace roofline::python {

void bind_chips(nanobind::module_& m);       // Chip, chips(), chip()
void bind_predict(nanobind::module_& m);     // Prediction, Matmul, predict()
void bind_hlo(nanobind::module_& m);         // hlo()
void bind_trace(nanobind::module_& m);       // TraceReport, TraceStats, trace_report(), trace_stats()

// "bf16", "f32", ...: the names dtype_name() prints and parse_dtype() reads;
// an unknown name raises ValueError listing the known ones.
DType dtype_from(const std::string& name);

// The calibration the expected times come from: `calibration` None gives the
// chip's built-in one; a path (str or os.PathLike) to a file `roofline
// calibrate` wrote gives its entry for `chip` (the built-in one where the
// file has none), as the CLI's --calibration does.
ChipCalibration calibration_for(const Chip& chip, const nanobind::object& calibration);

// A path from a str or os.PathLike.
std::string path_from(const nanobind::handle& path);

}  // namespace roofline::python
