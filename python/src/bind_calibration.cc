// Calibrations as arguments: None (the chip's built-in one), the path of a
// file `roofline calibrate` wrote, a Calibration (that file, read or fitted)
// or one chip's ChipCalibration.
#include <string>

#include <nanobind/stl/string.h>

#include "python/src/bindings.hpp"
#include "python/src/status.hpp"
#include "roofline/calibrate/io.hpp"

namespace nb = nanobind;

namespace roofline::python {

ChipCalibration calibration_for(const Chip& chip, const nb::object& calibration) {
  if (calibration.is_none()) return default_calibration(chip);
  if (nb::isinstance<CalibrationFile>(calibration)) {
    const CalibrationFile& file = nb::cast<const CalibrationFile&>(calibration);
    if (const ChipCalibration* cal = file.find(chip.name)) return *cal;
    return default_calibration(chip);
  }
  if (nb::isinstance<ChipCalibration>(calibration)) {
    const ChipCalibration& cal = nb::cast<const ChipCalibration&>(calibration);
    if (cal.chip != chip.name)
      throw nb::value_error(("calibration: a calibration of " + cal.chip + " cannot time ops on " + chip.name).c_str());
    return cal;
  }
  if (nb::isinstance<nb::str>(calibration) || nb::hasattr(calibration, "__fspath__")) {
    const std::string path = path_from(calibration);
    const CalibrationFile file = value(read_calibration_file(path), &path);
    if (const ChipCalibration* cal = file.find(chip.name)) return *cal;
    return default_calibration(chip);
  }
  throw nb::type_error(
      "calibration: expected None, a Calibration, a ChipCalibration or the path of a calibration file (roofline "
      "calibrate)");
}

std::string path_from(const nb::handle& path) {
  std::string out;
  if (nb::isinstance<nb::str>(path)) out = nb::cast<std::string>(path);
  else if (nb::hasattr(path, "__fspath__")) out = nb::cast<std::string>(path.attr("__fspath__")());
  else throw nb::type_error("expected a str or os.PathLike path");
  // The C library would stop at the NUL and read another file, as open() refuses to.
  if (out.find('\0') != std::string::npos) throw nb::value_error("embedded null byte in a path");
  return out;
}

}  // namespace roofline::python
