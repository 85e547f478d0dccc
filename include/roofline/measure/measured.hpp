// What the match stage needs of a trace's device events, reduced per
// device, so that the events themselves can be dropped: a pod's report then
// holds each host's ops and step mixes, not its hundreds of millions of
// events (docs/report.md, "Many files").
//
//   // one trace in memory: what match(trace, options) does
//   roofline::MeasuredTrace m = roofline::measure(trace, options.device_id);
//   auto r = roofline::make_report(trace, std::move(m), options);
//
//   // many files: each read, measured and dropped on the thread that read it
//   auto read = roofline::read_measured({"pod/host*.xplane.pb"}, {.jobs = 2}, std::nullopt);
//   auto r = roofline::make_report(read->trace, std::move(read->measured), options);
//
// Why the two are the same report, to the bit: everything the report takes
// from events is per device (its op occurrences, the mix of ops in each of
// its steps, its busy and idle time, its collective calls), and a device
// lives in one file; what is summed over devices is summed after the merge,
// in device order. Self times are kept as ascending runs, so a median over
// files is the median of one pass. What is kept grows with a device's
// distinct ops, distinct self times and collective calls, not with its
// events: about 4 MB for a 280 MB TPU host file of 9.2 M events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/measure/op_stats.hpp"
#include "roofline/measure/skew.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "roofline/trace/read.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

// The events of one op on one device that the report groups: those on op
// lines (not async, not a stream waiting) of one (op, call) pair.
struct OpOccurrences {
  std::uint32_t op = 0;          // index into Trace::ops
  std::uint32_t call = kNoCall;  // index into Trace::calls, or kNoCall
  std::int64_t count = 0;
  std::int64_t self_ps = 0;
  std::vector<DurationRun> runs = {};  // the self times, ascending
};

// How many occurrences of each of a device's OpOccurrences started inside
// one step: (index into MeasuredDevice::ops, occurrences), by index.
using StepMix = std::vector<std::pair<std::uint32_t, std::int64_t>>;

// The mix of the occurrences listed (indices into MeasuredDevice::ops, in
// any order, one per event).
StepMix step_mix(std::vector<std::uint32_t> occurrences);

// One of the device's own steps (Device::steps, in their order).
struct MeasuredStep {
  std::int64_t busy_ps = 0;  // self time of the grouped events that start inside it
  std::uint32_t mix = 0;     // index into MeasuredDevice::step_mixes
};

// A grouped event with its start, for steps that are not the device's own
// (the host's ProfilerStep ranges), whose windows are known only once every
// file is read.
struct TimedOccurrence {
  std::int64_t start_ps = 0;
  std::int64_t self_ps = 0;
  std::uint32_t occurrences = 0;  // index into MeasuredDevice::ops
};

struct MeasuredDevice {
  bool op_events = false;  // any event on an op line: select_devices asks this
  std::vector<OpOccurrences> ops = {};  // in order of first occurrence
  // Distinct step mixes (the steps of a training loop mostly run the same
  // ops), and the first kMaxReportSteps of the device's own steps.
  std::vector<StepMix> step_mixes = {};
  std::vector<MeasuredStep> steps = {};
  // The grouped events by start (24 bytes each), kept only for the device
  // the report times the host's steps on: in a trace with host steps, the
  // first selected device without steps of its own. Empty otherwise.
  std::optional<std::vector<TimedOccurrence>> timeline = {};
  // compute_op_stats' figures for the device when it lists it (its per-op
  // rows left empty: the report reads none).
  std::optional<DeviceStats> stats = {};
  // What the figures across devices need of it (skew.hpp); for devices the
  // report selects.
  std::optional<DeviceSkewInputs> skew = {};
};

// The report lists at most this many steps.
inline constexpr std::size_t kMaxReportSteps = 500;

struct MeasuredTrace {
  std::optional<int> device_id;         // the selection it was measured for (ReportOptions::device_id)
  std::vector<MeasuredDevice> devices = {};  // one per Trace::devices
};

// The measurement of `trace`'s devices (those whose id is `device_id`, or
// all): what match() reads instead of the events.
MeasuredTrace measure(const Trace& trace, std::optional<int> device_id);

// The inputs read as read_traces reads them (files, directories, glob
// patterns), each file measured on the thread that read it and its events
// dropped there, merged in file order: equal to measure(*read_traces(...))
// beside that trace without events, in memory about `read.jobs` files'
// traces plus the measurements. Host timelines are not read
// (read.host_timelines is taken as false: the report reads none). Inputs
// whose measurements cannot be merged exactly (one host name on a device of
// one file and the host steps of another; host steps in one file timing a
// device of another) are read together instead.
struct MeasuredRead {
  Trace trace = {};  // as read_traces gives it, with no device events
  MeasuredTrace measured = {};
};
absl::StatusOr<MeasuredRead> read_measured(const std::vector<std::string>& paths_or_globs,
                                           const TraceReadOptions& read, std::optional<int> device_id);

}  // namespace roofline
