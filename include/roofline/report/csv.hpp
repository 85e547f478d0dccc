// The CSV of every table the library writes, on the one CSV writer
// (roofline/format/csv.hpp: RFC 4180 quoting). Column names are the JSON
// keys of the same figures (roofline/report/json.hpp, docs/json.md); an
// empty cell is an unknown figure.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/measure/op_stats.hpp"
#include "roofline/match/report.hpp"

namespace roofline {

// One row per op of the report, figures with nine significant digits.
std::string to_csv(const Report& report);

// One row per instruction (`roofline hlo --format csv`), in the order given,
// with the expected time of one execution through `cal` (the chip's
// built-in default_calibration() in the first form).
std::string to_csv(std::span<const HloPredictionRow* const> rows, const Chip& chip);
std::string to_csv(std::span<const HloPredictionRow* const> rows, const Chip& chip, const ChipCalibration& cal);

// One row per op of the statistics (`roofline stats --format csv`), `max_ops` at most.
std::string to_csv(const TraceStats& stats, std::size_t max_ops);

}  // namespace roofline
