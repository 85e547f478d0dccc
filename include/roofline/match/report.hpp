// Expected vs observed: one measured profile joined with the roofline of
// every op in it. The match stage's output (`make_report()`,
// roofline/match/match.hpp), so it lives in match/; rendered by
// roofline/report/render.hpp and
// written by roofline/report/json.hpp, csv.hpp. All times are totals over
// the op's occurrences on the selected device(s), in seconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/calibration.hpp"
#include "roofline/expected/scale.hpp"
#include "roofline/predict.hpp"

namespace roofline {

// How an op's cost was found; `kUnmatched` ops keep their measured time and
// say why in `OpReport::reason`.
enum class MatchSource : unsigned char {
  kHloModule,    // instruction found in the HLO the profiler embedded (HloProto in the .xplane.pb)
  kHloGiven,     // instruction found in an HLO module the caller gave (ReportOptions::hlo_modules, --hlo)
  kOpHloText,    // the op's own HLO text recorded by the profiler
  kInputDims,    // a PyTorch kernel's launching op and its Input Dims
  kCollectiveArgs, // NCCL/RCCL kernel args: message size and group size
  kCopyBytes,    // a GPU memcpy's own bytes (Kineto args.bytes) and its direction
  kXlaStats,     // only XLA's recorded flops/bytes were available
  kUnmatched,
};
std::string_view match_source_name(MatchSource m);

// The part of an eager op's occurrences that ran under one scope
// (roofline/match/scope.hpp): the per-scope view splits the op by these.
struct ScopeShare {
  std::string path;              // "BertModel_0/BertEncoder_0"; empty: no scope
  std::vector<std::string> sources;  // the kinds of range that made it ("nn.Module", "record_function")
  double count_fraction = 0;     // of the op's occurrences: its share of roofline, expected and FLOPs
  double time_fraction = 0;      // of the op's self time: its share of measured
};

struct OpReport {
  std::string name;
  std::string module;
  std::string scope;         // "block/mlp": name scopes around the op (roofline/match/scope.hpp); may be empty
  std::string scope_source;  // where `scope` came from: "framework op", "hlo metadata", or empty
  // Eager PyTorch ops in a trace with scope ranges: how the op's
  // occurrences split over scopes (then `scope` is their common part). Empty
  // otherwise: the op is wholly in `scope`.
  std::vector<ScopeShare> scope_shares;
  std::string category;   // compute / collective / data movement / ... (report categories)
  std::string hlo_category;  // finer category when known (e.g. "loop fusion", "matmul")
  std::string shapes;        // eager kernels: the launching op's Input Dims
  std::int64_t count = 0;
  double measured_s = 0;    // total self time
  double median_s = 0;      // median self time of one occurrence
  bool predicted = false;   // false: unmatched or unknown cost (see reason)
  // The -done of an async transfer: measured is the exposed wait, predicted
  // the whole transfer; kept out of the summary's measured-vs-roofline totals.
  bool async = false;
  MatchSource match = MatchSource::kUnmatched;
  std::string reason;       // why not predicted, or caveats of the match
  // Our own cost model's roofline of the op, totalled over its occurrences
  // (repeated(), predict.hpp): counts, the four times and both bounds are
  // totals; bound, dtype, peak (peak.used: the chip's unit that timed
  // T_math), intensity, ridge and memory rate are one occurrence's. As in
  // every Prediction, ici_bytes / t_ici_s are the interconnect only and
  // host_bytes / t_host_s the host link (PCIe: a host-offload transfer, a
  // GPU memcpy between host and device; t_host_s is 0 when the chip has no
  // PCIe figure). prediction.t_lower_s is the report's "predicted_s". All
  // zero when not predicted.
  Prediction prediction;
  // A launch (an async -start) or a loop's own row: it does no work of its
  // own, so it has no dtype (see dtype()).
  bool container = false;
  // Calibrated expectation (roofline/calibration.hpp), a total over
  // occurrences like measured_s and prediction.t_lower_s; 0 when not predicted.
  double expected_s = 0;
  CostClass cost_class = CostClass::kMemory;  // the curve that timed expected_s
  // The GEMM of one occurrence on the chip, where its dimensions are known
  // (MatchedOp::gemm): what expected_s quantized. Not written to any output.
  std::optional<GemmShape> gemm;
  // What XLA itself recorded for one occurrence, when the trace has it.
  std::optional<double> xla_flops;
  std::optional<double> xla_bytes;
  // Derived: ratio = measured / predicted (>= 1 means slower than the
  // roofline); achieved rates and their utilisation of the chip's peaks.
  double ratio = 0;
  double achieved_flops_per_s = 0;
  double achieved_bytes_per_s = 0;
  double flop_util = 0;   // achieved FLOP/s / peak of the op's dtype
  double bw_util = 0;     // achieved bytes/s / the bandwidth that timed the op (HBM, or L2 where it fits)
  double lost_s = 0;      // measured - predicted (time lost against the roofline)
  // Measured below the roofline lower bound (ratio < 1), which no kernel
  // can do: the trace and the cost disagree (wrong shapes, a clock, a kernel
  // that does not do the work the op names). Said in `reason`; flop_util
  // and bw_util are then NaN (unknown, not above 100%), lost_s (negative)
  // is shown as unknown, and the op is left out of the summary's roofline,
  // expected and FLOP totals and of MFU.
  bool below_roofline = false;
  double lost_expected_s = 0;  // measured - expected (time lost against the calibrated expectation)
  // What-if on --target-chip.
  std::optional<double> target_predicted_s;
  // The time on the target by target_method: the measured time (same
  // chip), the measured time scaled (Habitat), or the target's expected
  // time (roofline/match/target.hpp).
  std::optional<double> target_expected_s;
  std::optional<Bound> target_bound;
  std::optional<TargetMethod> target_method;

  // The dtype the op computes in: empty when it is not predicted or does
  // no work of its own.
  std::optional<DType> dtype() const {
    if (!predicted || container) return std::nullopt;
    return prediction.dtype;
  }
};

struct CategoryTime {
  std::string category;
  double measured_s = 0;
  double predicted_s = 0;
  std::int64_t ops = 0;
};

struct DeviceSummary {
  int id = 0;
  std::string name;
  std::string chip;   // our chip name, or empty when unknown
  double busy_s = 0;
  double idle_s = 0;
  double duty_cycle = 0;
};

// One step as the trace marks it (device "Steps" line, or Kineto's
// ProfilerStep#N), with the ops that ran inside it.
struct StepSummary {
  std::string name;
  int device = 0;
  double measured_s = 0;   // the step's duration
  double busy_s = 0;       // op self time inside it
  double predicted_s = 0;  // roofline of the predicted ops inside it
  double model_flops = 0;
  double mfu = 0;          // model_flops / (measured_s x peak); NaN above 1, as ReportSummary::mfu
};

// The ops of one HLO module (or one launching framework op for eager
// kernels), totalled.
struct ModuleSummary {
  std::string name;
  std::int64_t ops = 0;
  double measured_s = 0;
  double predicted_s = 0;   // predicted ops only
  double matched_measured_s = 0;
  double model_flops = 0;
};

struct ReportSummary {
  // Times over several devices are device-seconds: summed over devices.
  double measured_s = 0;      // device busy time (at least one op running)
  double wall_s = 0;          // first op start to last op end, per device
  double predicted_s = 0;     // sum of predicted lower bounds (matched ops)
  double expected_s = 0;      // sum of their calibrated expected times (the same ops)
  double matched_measured_s = 0;  // measured time of the ops that have a prediction
  double unmatched_s = 0;
  // Predicted ops measured below their roofline (OpReport::below_roofline),
  // left out of predicted_s, expected_s, matched_measured_s and the FLOPs.
  std::int64_t below_roofline_ops = 0;
  double below_roofline_measured_s = 0;
  double async_measured_s = 0;    // exposed waits of async transfers (-done ops)
  double async_predicted_s = 0;   // roofline of those transfers
  double model_flops = 0;     // our FLOPs over predicted ops, rematerialised ones excluded
  double hardware_flops = 0;  // our FLOPs over predicted ops, all of them
  // NaN (unknown; a note says why) where the quotient passes 1, which no
  // run can: FLOPs of ops in another dtype or on overlapping streams.
  double mfu = 0;             // model_flops / (wall_s * peak of the dominant dtype)
  double hfu = 0;             // hardware_flops / (wall_s * the same peak)
  std::string mfu_convention; // says which peak and which time
  double duty_cycle = 0;
  double idle_s = 0;
  std::vector<CategoryTime> by_category;
  std::vector<StepSummary> steps;
  std::vector<ModuleSummary> modules;  // by measured time, largest first
};

// Across the selected devices, when there are 2 or more: the slowest device
// per step (stragglers) and the waits in collective calls, as
// TraceStats::skew defines them (roofline/measure/skew.hpp; docs/traces.md,
// "Across devices"). Devices are named as DeviceSummary::name.
struct StepStraggler {
  std::string step;          // the step's name ("ProfilerStep#6", "12")
  std::int64_t repeat = 0;   // 0 for a device's first step of this name, 1 for its second, ...
  std::int64_t devices = 0;  // devices that ran it (>= 2)
  std::string slowest_device, fastest_device;  // ties: the device listed first
  double slowest_s = 0, fastest_s = 0, median_s = 0;
  double skew_s = 0;  // slowest_s - fastest_s
};

// One collective op, its calls matched across devices in start order.
struct CollectiveWait {
  std::string name;
  std::string module;  // as OpReport::module names it
  std::int64_t calls = 0;  // calls matched on at least 2 devices
  double wait_s = 0;       // summed over devices and calls: each call's time - the shortest's
  double max_skew_s = 0, median_skew_s = 0;  // of (longest - shortest call) over calls
  std::string waited_for_device;  // most often the shortest call; empty when every call's skew was 0
  std::int64_t waited_for_count = 0;  // calls where it was
};

struct DeviceWait {
  std::string device;
  double collective_wait_s = 0;
  std::int64_t slowest_steps = 0;     // steps where it was the slowest (skew > 0)
  std::int64_t waited_for_count = 0;  // collective calls where the others waited for it (skew > 0)
};

struct AcrossDevices {
  std::vector<StepStraggler> steps;          // in step order (skew.hpp)
  std::vector<CollectiveWait> collectives;   // most total wait first
  std::vector<DeviceWait> devices;           // in the order of Report::devices
};

struct Report {
  std::string trace_path;
  std::string chip;           // chip the prediction used
  std::string chip_source;    // "detected from device name 'TPU v6 Lite'" or "--chip"
  std::string target_chip;    // what-if chip, empty when none
  // Where the expected times came from: ChipCalibration::origin of the
  // chip's calibration, and of the what-if chip's (empty when none).
  std::string calibration;
  std::string target_calibration;
  std::string dominant_dtype; // dtype whose peak MFU uses
  // The chip's unit that peak belongs to, named by its dtype: "bf16" for
  // fp32 ops on a TPU, which run on the bf16 MXU (select_peak); equal to
  // dominant_dtype where the chip has that dtype's own unit.
  std::string peak_dtype;
  // "bf16 peak 918 TFLOP/s (the unit fp32 ops run on)": the peak named by
  // its dtype, for renderers.
  std::string peak_label() const;
  double peak_flops_per_s = 0;
  double hbm_bytes_per_s = 0;
  std::vector<DeviceSummary> devices;
  ReportSummary summary;
  std::vector<OpReport> ops;  // sorted by measured time, largest first
  std::vector<std::string> notes;  // caveats worth a reader's attention
  std::optional<AcrossDevices> across_devices;  // absent with fewer than 2 devices
};

}  // namespace roofline
