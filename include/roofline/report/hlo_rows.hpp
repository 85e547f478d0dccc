// The words every rendering of `roofline hlo`'s rows shares (text table,
// JSON, CSV): what a row's numbers leave out or add up, and its bound.
#pragma once

#include <string>
#include <vector>

#include "roofline/chip.hpp"
#include "roofline/hlo/predict.hpp"

namespace roofline {

// Short notes on a row: a loop or call total, an unknown custom call or
// trip count, a collective not timed, a host transfer, the peak that timed
// it when the chip has no unit for its type ("timed at the fp32 peak ...").
std::vector<std::string> hlo_row_notes(const HloPredictionRow& row, const Chip& chip);

// The row's bound, or "none" for an instruction that takes no time
// (parameter, tuple, bitcast).
std::string hlo_row_bound(const Prediction& p);

}  // namespace roofline
