// A span of time on a trace's axis. Internal.
#pragma once

#include <cstdint>

namespace roofline::detail {

// [start_ps, end_ps), ps from the trace's time zero.
struct TimeWindow {
  std::int64_t start_ps = 0, end_ps = 0;
};

}  // namespace roofline::detail
