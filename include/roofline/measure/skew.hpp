// Across devices: the slowest host or rank per step (stragglers) and how
// long each device waited in collectives for the others (docs/traces.md,
// "Across devices: stragglers and collective waits").
//
//   roofline::TraceStats s = roofline::compute_op_stats(trace);
//   if (s.skew)                               // two or more devices with op events
//     for (const roofline::StepSkew& st : s.skew->steps)
//       printf("%s: %s slowest by %.3f ms\n", st.step.c_str(),
//              trace.devices[st.slowest_device].name.c_str(), st.skew_s * 1e3);
//
// Definitions:
//  - devices: those of TraceStats::devices (with op events, after the
//    device_id option); figures exist only when there are at least 2;
//  - steps: each device's steps as its step statistics take them (its own,
//    else its host's host steps), matched across devices by name
//    (Step::name: "ProfilerStep#6", "12"); when one device has several steps
//    of one name, the k-th of them meets the k-th on the others (`repeat`).
//    A step is listed when at least 2 devices ran it: slowest and fastest
//    device and duration (ties: the device listed first), the median over
//    those devices, skew = slowest - fastest. Listed in the order they
//    appear on the first device that has them, then the next device's new
//    ones, and so on (so steps shared by every device keep their own order);
//  - collectives: op events of class collective on op lines (not async).
//    The k-th occurrence, in start order, of one op (OpStat::op: the same
//    interned op on every device, whichever file it came from) on each device
//    is one collective call: SPMD programs and DDP ranks issue the same
//    sequence. For an occurrence on at least 2 devices, each device's wait
//    is its duration minus the shortest: the others sat in the call until
//    the last one arrived, and the last to arrive has the shortest call. So
//    the device with the shortest call is the one the others waited for.
//    Durations are the events' own (Event::duration_ps), not self times: a
//    collective's nested events (a TPU all-reduce's sub-ops) are part of
//    the call, not other work;
//  - per collective op: occurrences matched, their total wait (over devices
//    and occurrences), the largest and median skew (slowest - fastest call)
//    over occurrences, and `waited_for`, the device most often shortest
//    (ties: the device listed first);
//  - per device: its collective wait (sum of its waits), the steps where it
//    was the slowest, and how often it was the one waited for;
//  - a straggler is one device: a step (call) counts in `slowest_steps`
//    (`waited_for_count`) only for a device slower (shorter) than every
//    other; one that several devices took longest (shortest) alike, or all
//    alike, counts for none (identical ranks are nobody's stragglers),
//    though StepSkew still names a slowest and fastest device by the tie
//    rule.
// All arithmetic is in integer picoseconds up to the final conversion to
// seconds, so statistics merged from partials (stats_partial.hpp) equal
// those of one pass exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "roofline/trace/trace.hpp"

namespace roofline {

struct StepSkew {
  std::string step;          // Step::name
  std::int64_t repeat = 0;   // 0 for the first step of this name on a device, 1 for the second, ...
  std::int64_t devices = 0;  // devices that ran it (>= 2)
  std::size_t slowest_device = 0, fastest_device = 0;  // indices into Trace::devices
  double slowest_s = 0, fastest_s = 0, median_s = 0;
  double skew_s = 0;  // slowest_s - fastest_s
};

struct CollectiveSkew {
  std::uint32_t op = 0;  // index into Trace::ops (StatsPartial::ops when finished from partials)
  std::string name, module;
  std::optional<std::uint64_t> program_id;
  std::string kernel;
  std::int64_t occurrences = 0;  // calls matched on at least 2 devices
  double wait_s = 0;             // summed over devices and occurrences
  double max_skew_s = 0, median_skew_s = 0;  // of (longest - shortest call) over occurrences
  // Index into Trace::devices: most often the shortest call of those with
  // a skew; none when every call matched had skew 0.
  std::optional<std::size_t> waited_for;
  std::int64_t waited_for_count = 0;  // how often it was
};

struct DeviceSkew {
  std::size_t device = 0;  // index into Trace::devices
  double collective_wait_s = 0;
  std::int64_t slowest_steps = 0;     // steps where it was the slowest (skew > 0)
  std::int64_t waited_for_count = 0;  // collective calls where it had the shortest call (skew > 0)
};

struct SkewStats {
  std::vector<StepSkew> steps;               // in step order (above)
  std::vector<CollectiveSkew> collectives;   // most total wait first, then by op
  std::vector<DeviceSkew> devices;           // one per device considered, in their order
};

// What the figures need from one device: the statistics of all devices are
// computed from these alone (how partials carry them to a merge).
struct SkewStep {
  std::string name;
  std::int64_t duration_ps = 0;
};
struct CollectiveCalls {
  std::uint32_t op = 0;                   // index into Trace::ops (or StatsPartial::ops)
  std::vector<std::int64_t> duration_ps;  // in start order
};
struct DeviceSkewInputs {
  std::vector<SkewStep> steps;               // in start order
  std::vector<CollectiveCalls> collectives;  // by op, ascending
};

// The inputs of `trace.devices[device]`: its steps (its own, else its
// host's) and its collective calls.
DeviceSkewInputs skew_inputs(const Trace& trace, std::size_t device);

// The figures over `devices` (indices into Trace::devices, in the order to
// list them) with their inputs, one per device; `ops` names the ops the
// inputs index. Empty figures for fewer than 2 devices.
SkewStats compute_skew(std::span<const std::size_t> devices, std::span<const DeviceSkewInputs> inputs,
                       const std::vector<OpInfo>& ops);

// The same from a trace: the figures over `devices` (indices into
// Trace::devices), as compute_op_stats computes them for its devices.
SkewStats compute_skew(const Trace& trace, std::span<const std::size_t> devices);

}  // namespace roofline
