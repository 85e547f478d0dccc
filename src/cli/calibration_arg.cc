#include "src/cli/calibration_arg.hpp"

#include "roofline/calibrate/io.hpp"

namespace roofline::cli {

absl::StatusOr<ChipCalibration> calibration_arg(const Args& args, const Chip& chip) {
  const std::optional<std::string> path = args.get("calibration");
  if (!path) return default_calibration(chip);
  absl::StatusOr<CalibrationFile> file = read_calibration_file(*path);
  if (!file.ok()) return file.status();
  if (const ChipCalibration* cal = file->find(chip.name)) return *cal;
  return default_calibration(chip);
}

}  // namespace roofline::cli
