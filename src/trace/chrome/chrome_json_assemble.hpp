// The end of a Chrome trace-event JSON read: staged lines (chrome_staged.hpp)
// become the Trace's devices and hosts. Which processes or lines are devices
// depends on the flavour: in TSL JSON a process named "/device:..."; in
// Kineto a line that ran GPU work (Kineto puts the odd host thread on a GPU's
// pid), described by its deviceProperties entry; otherwise none. Timestamps
// counted from the epoch are rebased on the first event, events that were
// dropped are counted in warnings, and the TraceBuilder finishes the rest
// (nesting, self time, steps). Internal.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "src/trace/chrome/chrome_staged.hpp"
#include "src/trace/trace_builder.hpp"

namespace roofline::detail {

// Builds `builder`'s devices and hosts from `staging`, whose lines it
// empties, and finishes the trace. Kineto launches must be linked first
// (kineto_link.hpp). `origin` names the file in warnings.
absl::Status assemble_chrome_trace(ChromeStaging& staging, const std::string& origin, TraceBuilder& builder);

}  // namespace roofline::detail
