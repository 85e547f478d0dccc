// The calibration file: what `roofline calibrate` writes and --calibration
// reads. Versioned JSON, one entry per chip with its curves, where they came
// from, the quality of the fit and the samples it was fitted to, so that a
// calibration can be checked and refitted without the traces:
//
//   {"format": "roofline-calibration", "version": 1,
//    "chips": [{"chip": "h100-sxm", "origin": "fit to 47 ops of 2 traces ...",
//               "classes": {"matmul": {"floor_s": 4.1e-06, "math_efficiency": 0.62,
//                                      "memory_efficiency": 1, "link_efficiency": 1,
//                                      "origin": "fit", "samples": 20, ...}, ...},
//               "matmul_math_efficiency": {"bf16": 0.71},
//               "quality": {"samples": 47, "median_abs_error": 0.12, "p90_abs_error": 0.4},
//               "notes": [...], "samples": [{"trace": ..., "op": ..., ...}]}]}
//
// docs/calibration.md lists every field. Reading is strict: an unknown
// field, a wrong type, a non-positive efficiency or a negative floor is
// refused with the file and the JSON path; invalid JSON with the file and
// line:column.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/calibrate/fit.hpp"
#include "roofline/calibration.hpp"

namespace roofline {

inline constexpr std::string_view kCalibrationFormat = "roofline-calibration";
// 2 (2026-11-25): a memory efficiency is against HBM's bandwidth, and each
// sample carries t_mem_cold_s. Version 1 measured it against the roofline's
// memory term (L2's bandwidth where a working set fits): not read, since its
// efficiencies would mean something else here.
inline constexpr int kCalibrationVersion = 2;

struct CalibrationFile {
  std::vector<CalibrationFit> chips;  // one per chip, names unique
  // Not in the file's text: for each built-in chip the file has no entry
  // for, the classes fitted by the first entry whose chip is built on the
  // same die (Chip::die: an A100 40GB takes an A100 80GB's fit), and the
  // chip's own built-in curves for the rest (fill_from_same_die), under its
  // own name, its origin saying whose. An efficiency is a fraction of each
  // part's own peaks, so the fit of one part times the other with its own
  // peaks. Filled by parse_calibration (add_same_die_entries); calling that
  // again, or editing `chips`, invalidates what find() returned.
  std::vector<ChipCalibration> same_die;

  // The calibration of `chip`: its entry, else a same-die one, else nullptr.
  const ChipCalibration* find(std::string_view chip) const;
};

// Fills file.same_die from file.chips (a file built in code, not read).
void add_same_die_entries(CalibrationFile& file);

// The file's text: two-space indented JSON, keys sorted, numbers that read
// back to the same doubles (a written file reads back equal).
std::string calibration_to_json(const CalibrationFile& file);

// Parses a calibration file's text; `origin` names it in errors.
absl::StatusOr<CalibrationFile> parse_calibration(std::string_view text, std::string_view origin);

// Reads and parses the file at `path`.
absl::StatusOr<CalibrationFile> read_calibration_file(const std::string& path);

}  // namespace roofline
