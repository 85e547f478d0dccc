// Per-op statistics of a measured trace, like a profiler's HLO Op Stats and
// overview page: per device and over all (selected) devices.
//
//   auto t = roofline::read_trace("run.xplane.pb");
//   roofline::TraceStats s = roofline::compute_op_stats(*t);
//   for (const roofline::OpStat& op : s.ops)   // by total self time, largest first
//     printf("%s %s %lld x %.3f ms\n", op.module.c_str(), op.name.c_str(),
//            (long long)op.count, op.median_s * 1e3);
//
// What counts: events on op lines (LineRole::kOps: TPU "XLA Ops", GPU
// streams). Async op lines (TPU "Async XLA Ops": copies in flight) get their
// own rows, flagged `async`, but do not count as busy time; nor do sync
// events (OpClass::kSync: a stream waiting), which get rows of their own and
// the device's `sync_s`. Times are self times (an op's duration minus ops
// nested in it) in seconds.
//
// Definitions:
//  - window: first to last busy op (not async, not sync) on the device;
//  - busy: time covered by at least one busy op (overlapping streams count
//    once); idle = window - busy; duty_cycle = busy / window;
//  - compute_s / collective_s / data_movement_s: busy time split by class,
//    each busy instant counted once, charged to the first class running in
//    the order compute > collective > data movement. They add up to busy;
//    collective_s is the collective time no compute hides, data_movement_s
//    the copy time neither hides;
//  - sync_s: time covered by at least one sync event (waiting; not busy);
//  - categories, by (category, class): `total_s` the sum of self times,
//    `busy_s` the busy time charged to the category by the same rule (within
//    one class, the category with more self time first), so the busy_s of the
//    categories add up to busy; sync categories have busy_s 0;
//  - share: an op's (or category's) total self time over the sum of self
//    times of all busy ops of the device(s) (so their shares add up to 1);
//  - ops are keyed by (module, program id, name, kernel): custom-call.1 in two
//    modules (or in two programs of one jit name) is two rows;
//  - across devices (two or more): stragglers per step and waits in
//    collective calls, TraceStats::skew, defined in skew.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "roofline/measure/skew.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

struct OpStatsOptions {
  std::optional<int> device_id;  // only devices with this id (all hosts)
  std::size_t idle_gaps = 5;     // largest gaps kept per device
  std::size_t host_activities = 3;  // host event names kept per gap
};

struct OpStat {
  std::uint32_t op = 0;  // index into Trace::ops
  std::string name;
  std::string module;
  std::optional<std::uint64_t> program_id;
  std::string kernel;
  std::string category;
  OpClass op_class = OpClass::kCompute;
  bool async = false;
  std::int64_t count = 0;
  double total_s = 0, mean_s = 0, median_s = 0, min_s = 0, max_s = 0;
  double share = 0;
  std::optional<std::int64_t> flops;           // XLA's estimate, per occurrence
  std::optional<std::int64_t> bytes_accessed;  // XLA's estimate, per occurrence
};

struct CategoryStat {
  std::string category;
  OpClass op_class = OpClass::kCompute;
  std::int64_t count = 0;
  double total_s = 0;     // sum of self times (overlapping streams each count)
  double share = 0;       // total_s over the sum of self times of busy ops
  double busy_s = 0;      // busy time charged to it, each instant once (0 for sync)
  double busy_share = 0;  // busy_s / busy time
};

struct HostActivity {
  std::string name;   // host event innermost at the time ("PjitFunction(f)", "cudaMemcpyAsync")
  double overlap_s = 0;  // summed over host threads
};

struct IdleGap {
  double start_s = 0;  // from the trace's time zero
  double duration_s = 0;
  std::vector<HostActivity> host;  // largest overlap first; empty without a host timeline
};

struct StepStats {
  bool from_host = false;  // device had no step markers; host ProfilerStep ranges used
  std::int64_t count = 0;
  double mean_s = 0, median_s = 0, min_s = 0, max_s = 0;
};

struct DeviceStats {
  std::size_t device = 0;  // index into Trace::devices
  int id = 0;
  std::string name, host;
  std::string model;  // Device::model: as reported (roofline::identify_chip names the chip)
  std::int64_t op_events = 0;
  double window_s = 0, busy_s = 0, idle_s = 0, duty_cycle = 0;
  double compute_s = 0, collective_s = 0, data_movement_s = 0;  // add up to busy_s
  double sync_s = 0;                     // waiting, not busy
  std::vector<OpStat> ops;               // by total self time, largest first; async and sync last
  std::vector<CategoryStat> categories;  // by (category, class), busy time largest first
  std::vector<IdleGap> idle_gaps;        // largest first
  std::optional<StepStats> steps;
};

struct TraceStats {
  std::vector<DeviceStats> devices;      // those with op events, in Trace::devices order
  // Over all devices in `devices`: busy, idle and sync are sums, duty cycle
  // busy over the sum of windows.
  double busy_s = 0, idle_s = 0, duty_cycle = 0, sync_s = 0;
  std::vector<OpStat> ops;
  std::vector<CategoryStat> categories;
  // Stragglers and collective waits across `devices` (skew.hpp); only with
  // 2 or more devices.
  std::optional<SkewStats> skew;
};

TraceStats compute_op_stats(const Trace& trace, const OpStatsOptions& options = {});

}  // namespace roofline
