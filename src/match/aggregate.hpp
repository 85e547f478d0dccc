// Step 6 of the match, split by what is totalled (src/match/aggregate*.cc).
#pragma once

#include <string>

#include "roofline/match/match.hpp"

namespace roofline::detail {

// The report's name of a class of ops, its category: "compute", "collective",
// "data movement", "sync".
std::string class_label(OpClass c);

// One op: measured figures, its roofline over all occurrences, utilisations.
OpReport op_report(const Trace& trace, const MatchedOp& op, const Chip& chip);

}  // namespace roofline::detail
