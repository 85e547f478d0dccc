// Per-step time of a measured trace (roofline stats --by step; docs/traces.md,
// "By step"): for each step of each device, its time, the time an op ran
// (busy), the duty cycle, its largest idle stretches with what the host was
// doing in them, and how much the step time varies across steps.
//
//   auto t = roofline::read_trace("run.xplane.pb");
//   roofline::StepBreakdown b = roofline::compute_step_breakdown(*t);
//   for (const roofline::DeviceSteps& d : b.devices)
//     printf("%s: %lld steps, cv %.3f\n", d.name.c_str(), (long long)d.variance.count, d.variance.cv);
//
// Steps are the device's own (XPlane "Steps" lines) or else the host's
// (Kineto ProfilerStep#N, PyTorch/XLA StepTrace), as StepStats takes them
// (op_stats.hpp). Busy counts what op_stats.hpp counts: time covered by at
// least one op on an op line that is not a stream waiting, here clipped to
// the step. Gaps are the idle stretches inside the step, its edges included
// (the time before its first op is often the input pipeline).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/measure/op_stats.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

struct StepBreakdownOptions {
  std::optional<int> device_id;     // only devices with this id
  std::size_t gaps = 3;             // largest gaps kept per step
  std::size_t host_activities = 3;  // host event names kept per gap
  std::size_t max_steps = 500;      // steps listed per device (all count in the variance)
};

struct StepTime {
  std::string name;  // "ProfilerStep#6", "12", "train_step 3"
  double start_s = 0, duration_s = 0;
  double busy_s = 0, duty_cycle = 0;
  std::vector<IdleGap> gaps = {};  // largest first
};

// Of the step times of one device.
struct StepVariance {
  std::int64_t count = 0;
  double mean_s = 0, stdev_s = 0, min_s = 0, max_s = 0;
  double cv = 0;  // stdev / mean; 0 for one step
};

struct DeviceSteps {
  std::size_t device = 0;  // index into Trace::devices
  int id = 0;
  std::string name;
  bool from_host = false;  // the host's steps (the device marks none)
  std::vector<StepTime> steps = {};  // in start order, the first max_steps
  StepVariance variance = {};
};

struct StepBreakdown {
  std::vector<DeviceSteps> devices;  // devices with op events and steps, in Trace::devices order
};

StepBreakdown compute_step_breakdown(const Trace& trace, const StepBreakdownOptions& options = {});

}  // namespace roofline
