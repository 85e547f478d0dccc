// The text `roofline stats` prints for a trace's op statistics: its devices
// (window, busy, idle, duty cycle, classes, steps), the top ops by self time,
// the categories, stragglers and collective waits across devices, the
// largest idle gaps with what the host did in them, and the trace's
// warnings. Names from the trace are escaped for a terminal.
//
//   auto r = roofline::read_trace_stats({"profile/"}, {});
//   std::string text = roofline::render_stats_text(r->trace, r->stats, 20);
#pragma once

#include <cstddef>
#include <string>

#include "roofline/measure/op_stats.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

// `stats` of `trace` (compute_op_stats, read_trace_stats, or finish_stats of
// a partial with trace_outline), with the first `top_ops` ops listed.
std::string render_stats_text(const Trace& trace, const TraceStats& stats, std::size_t top_ops);

}  // namespace roofline
