// Whether the figures of a partial read back could come from a trace:
// every time and count in its range, busy within the window, and the sums a
// pass makes consistent (idle = window - busy, the split by class and the
// categories adding up to busy, the ops' counts to the device's events and
// to the rows). Internal to parse_stats_partial (docs/partials.md, "What a
// merge refuses or changes").
#pragma once

#include <string_view>

#include "absl/status/status.h"
#include "roofline/measure/stats_partial.hpp"

namespace roofline::detail {

// OK, or an error naming `origin` and the JSON path of the figure
// (/devices/3/stats/duty_cycle) with what it should have been.
absl::Status check_partial_figures(const StatsPartial& partial, std::string_view origin);

}  // namespace roofline::detail
