// How much of an XSpace a read looks into, beyond what TraceReadOptions
// says: what lets the statistics (roofline/measure) read a pod host's
// profile in two partial reads. Reader-side plumbing, in detail; the
// readers fill the second half of XPlaneReadPlan.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace roofline::detail {

// [start_ps, end_ps), ps from the trace's time zero.
struct TimeWindow {
  std::int64_t start_ps = 0, end_ps = 0;
};

// What a read of an XSpace looks into beyond TraceReadOptions says, and what
// it found: how statistics read a pod host's profile in two reads that
// together decode a fraction of it (src/measure/stats_file_read.cc). The caller fills
// the first three; the decoder, the rest.
struct XPlaneReadPlan {
  // With a device plane, host planes' lines are not looked into, as without
  // host timelines, but for an XSpace only (a JSON trace is read whole).
  bool skip_host_lines = false;
  // Device planes' lines are not looked into: their devices are there, with
  // no events (so that no XLA:CPU device is made of the host's).
  bool skip_device_lines = false;
  // Host events are kept only where they overlap one of these (disjoint, in
  // order), when set. One of the usual shape (XSpaceDecoder::event_times) is
  // dropped after its times are read, its stats unread but for their ids,
  // its op (its metadata's) interned as a decode would; any other is
  // decoded and kept.
  std::optional<std::vector<TimeWindow>> host_windows;

  bool entered = false;             // an XSpace decode began under it
  bool decoded = false;             // the plan was followed (an XSpace not gzip'd, decoded)
  bool host_lines_skipped = false;  // skip_host_lines skipped a plane's lines
  // Host lines were not looked into because the host planes are past
  // TraceReadOptions::host_timelines_up_to_bytes: a whole read skips them too.
  bool hosts_past_limit = false;
  // Times count from the earliest line read, not from 0 (compute_time_base):
  // another read's lines may then give another origin.
  bool rebased = false;
};

}  // namespace roofline::detail
