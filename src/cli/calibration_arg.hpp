// --calibration FILE for the commands that print expected times.
#pragma once

#include "absl/status/statusor.h"
#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {

// The option as each command lists it.
inline const OptionSpec kCalibrationOption{"calibration", "FILE",
                                           "expected times from this calibration file (roofline calibrate)"};

// The calibration the expected times come from: the file's entry for
// `chip` when --calibration names a file `roofline calibrate` wrote (a chip
// the file lacks takes a same-die entry, else keeps its built-in one, as
// `roofline report` does), else
// the chip's built-in calibration. Errors: the file cannot be read or is
// not a calibration file (located, naming the file).
absl::StatusOr<ChipCalibration> calibration_arg(const Args& args, const Chip& chip);

}  // namespace roofline::cli
