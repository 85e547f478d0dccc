// A timeline of a matched trace as Chrome trace-event JSON, the format
// Perfetto (ui.perfetto.dev) and chrome://tracing open: per device a process
// with the measured ops on their own lines, beside them each op's expected
// and roofline durations, the device's idle gaps, and counters of the
// achieved FLOP/s and bytes/s (docs/report.md, "Timeline").
//
//   auto trace = roofline::read_trace("profile/");          // events kept
//   auto m = roofline::match(*trace, roofline::ReportOptions{});
//   std::string json = roofline::render_perfetto(*m);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "roofline/match/match.hpp"

namespace roofline {

struct TimelineOptions {
  // Measured ops written per device, the earliest first; the rest are left
  // out and the file's metadata says how many. An op writes 1.6 to 2.8 KB
  // with its tracks, gaps and counters (the real TPU v6e and V100 profiles
  // of docs/report.md, "Timeline"), so at most about 280 MB a device.
  std::size_t max_ops_per_device = 100000;
  // Idle gaps of the device (no op running on any op line) at least this
  // long are marked.
  std::int64_t min_gap_ps = 1000000;  // 1 us
};

struct Timeline {
  std::string json;             // the trace-event JSON
  std::size_t ops_written = 0;  // measured op events written, over devices
  std::size_t ops_left_out = 0; // beyond max_ops_per_device
};

// `match` must have been made from a trace that holds its events (read_trace,
// not read_measured); its devices are the ones written.
Timeline render_perfetto(const Match& match, const TimelineOptions& options = {});

}  // namespace roofline
