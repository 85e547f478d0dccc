// A measured trace as the library sees it, whatever profiler wrote it: the
// devices that ran, their timelines (lines) of events, what each event was
// (an HLO op, a GPU kernel, a memcpy), and what the host was doing meanwhile.
//
//   absl::StatusOr<roofline::Trace> t = roofline::read_trace("profile_dir");
//   for (const roofline::Device& d : t->devices)
//     for (const roofline::Event& e : d.events)
//       if (d.lines[e.line].role == roofline::LineRole::kOps)
//         use(t->ops[e.op].name, e.duration_ps, e.self_ps);
//
// Times are integer picoseconds from the trace's own time zero (the profile
// start for jax/XLA files, the first event for PyTorch ones); `time_origin_ns`
// says where that zero is on the wall clock when the file tells. Everything
// that is the same for every occurrence of an op (its name, HLO module and
// program, XLA's cost-analysis figures, the HLO text) lives once in
// `Trace::ops`; what changes per call (the launching framework op, its input
// shapes, collective message sizes) lives once per distinct value in
// `Trace::calls`. So memory grows with events and distinct ops, not with the
// size of the file. Readers are in roofline/trace/read.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

enum class DeviceKind : std::uint8_t {
  kTpu,
  kGpu,
  kCpu,    // a host; or XLA:CPU when a jax run had no accelerator
  kOther,  // /device:CUSTOM:... and anything else a profiler called a device
};

// What a timeline holds. Only kOps lines count as device work in statistics.
enum class LineRole : std::uint8_t {
  kOps,          // TPU "XLA Ops", GPU "Stream #N", Kineto kernel streams
  kAsyncOps,     // TPU "Async XLA Ops": copies/collectives in flight, overlap kOps
  kModules,      // "XLA Modules": one event per module execution, "<name>(<program id>)"
  kSteps,        // "Steps" lines, Kineto "ProfilerStep#N" GPU annotations
  kAnnotations,  // Kineto gpu_user_annotation ranges other than steps
  kDerived,      // lines a viewer derived from kOps ("TensorFlow Ops", GPU "XLA Ops")
  kHostThread,   // a host thread (TraceMe, python, cpu_op, cuda_runtime ...)
  kOther,        // "XLA TraceMe", "CUPTI overhead", counters ...
};

// What kind of work an op is, for the split of busy time in statistics and
// the report (docs/traces.md, "Statistics"). kSync is a stream waiting
// (CUDA "Stream Sync", "Stream Wait Event", "Context Sync", "Event Sync"):
// not work, so not busy time.
enum class OpClass : std::uint8_t { kCompute, kCollective, kDataMovement, kSync };

enum class TraceFormat : std::uint8_t {
  kXPlane,       // *.xplane.pb (XSpace protobuf)
  kTslJson,      // jax / TensorBoard trace-viewer JSON (<host>.trace.json.gz, perfetto_trace.json.gz)
  kKinetoJson,   // PyTorch profiler (Kineto) JSON
  kChromeJson,   // any other Chrome trace-event JSON
};

std::string_view device_kind_name(DeviceKind k);
std::string_view line_role_name(LineRole r);
std::string_view op_class_name(OpClass c);
std::string_view trace_format_name(TraceFormat f);

// Everything that is the same for every occurrence of one op.
struct OpInfo {
  // The HLO instruction ("broadcast_add_fusion.1") when the profiler names
  // one, else the kernel or event name.
  std::string name;
  // HLO module without the program id ("jit_f"); empty for eager kernels.
  std::string module;
  std::optional<std::uint64_t> program_id;
  // GPU: the kernel that ran for the HLO op `name` (one HLO op can launch
  // several kernels; each is its own OpInfo). Empty when `name` is the kernel.
  std::string kernel;
  // XLA's hlo_category ("loop fusion", "all-reduce"), else the profiler's
  // event category ("kernel", "gpu_memcpy", "gpu_memset").
  std::string category;
  OpClass op_class = OpClass::kCompute;
  // XLA's static cost analysis as recorded by the profiler (TPU XPlanes;
  // the JSON export drops `flops`). Not measurements.
  std::optional<std::int64_t> flops;
  std::optional<std::int64_t> model_flops;
  std::optional<std::int64_t> bytes_accessed;
  std::string hlo_text;           // TPU: the whole instruction, shapes and layouts included
  std::string shape_with_layout;  // result shape, e.g. "f32[5,1024,1024,256]{3,2,1,0:T(8,128)}"
  std::string framework_op;       // jax name stack / TF op ("jit(f)/jit(main)/add")
  std::string source;             // "file.py:12"
};

// What one occurrence of an op carried that varies between calls: for a
// PyTorch kernel the framework op that launched it, for a collective its
// message. Interned: equal values share one entry of Trace::calls.
struct CallInfo {
  std::string launcher;      // cpu_op name ("aten::mm")
  std::string input_dims;    // its "Input Dims" as compact JSON ("[[8944,1024],[1024,2816]]")
  std::string input_types;   // its "Input type" as compact JSON
  // Its "Concrete Inputs" as compact JSON (newer PyTorch): the values of
  // scalar arguments as strings, "" for tensors (is_causal, stride, dim).
  std::string concrete_inputs;
  std::string collective;    // NCCL/RCCL "Collective name" ("allreduce")
  std::optional<std::int64_t> in_msg_nelems;
  std::optional<std::int64_t> out_msg_nelems;
  std::optional<std::int64_t> group_size;
  std::string dtype;         // of the collective message ("Float", "BFloat16")
  std::string process_group; // "Process Group Name"
  // A GPU memcpy / memset's own bytes (Kineto args.bytes): kept per call so
  // that copies of different sizes are costed apart.
  std::optional<std::int64_t> copy_bytes;
  // Eager PyTorch: the host ranges around the launch (record_function,
  // nn.Module) and the GPU annotations around the kernel, as an index into
  // Trace::scopes, or kNoScopePath; `scope_kinds` says which of the
  // kScopeKind* ranges made it (docs/traces.md, "Scopes").
  std::uint32_t scope = 0xffffffffu;
  std::uint8_t scope_kinds = 0;
  friend bool operator==(const CallInfo&, const CallInfo&) = default;
};

inline constexpr std::uint32_t kNoScopePath = 0xffffffffu;
inline constexpr std::uint8_t kScopeKindRecordFunction = 1;  // user_annotation (torch.profiler.record_function)
inline constexpr std::uint8_t kScopeKindModule = 2;          // python_function "nn.Module: Linear_0"
inline constexpr std::uint8_t kScopeKindGpuAnnotation = 4;   // gpu_user_annotation, by time on the device

inline constexpr std::uint32_t kNoCall = 0xffffffffu;
inline constexpr std::int32_t kNoParent = -1;

struct Event {
  std::int64_t start_ps = 0;
  std::int64_t duration_ps = 0;
  // Duration minus the events nested directly inside it on the same line.
  std::int64_t self_ps = 0;
  std::uint32_t op = 0;          // index into Trace::ops
  std::uint32_t line = 0;        // index into Device::lines
  std::uint32_t call = kNoCall;  // index into Trace::calls, or kNoCall
  std::int32_t parent = kNoParent;  // index into Device::events of the enclosing event
  // Runtime correlation id (CUPTI/roctracer) linking a kernel to its launch;
  // 0 when absent.
  std::uint64_t correlation_id = 0;
  std::int64_t end_ps() const { return start_ps + duration_ps; }
};

struct Line {
  std::int64_t id = 0;     // stream id, thread id, or the XLine id
  std::string name;        // display name
  LineRole role = LineRole::kOther;
};

struct Step {
  std::string name;  // step number or "ProfilerStep#6"
  std::int64_t start_ps = 0;
  std::int64_t duration_ps = 0;
  std::string host{};  // host steps: the host they ran on, when several were read
};

// Figures the profiler reported for the device itself (XPlane plane stats,
// Kineto deviceProperties). Absent ones stay empty; nothing is guessed.
struct DeviceCaps {
  std::optional<double> peak_flops_per_s;   // TPU peak_teraflops_per_second
  std::optional<double> hbm_bytes_per_s;    // TPU peak_hbm_bw_gigabytes_per_second, GPU memory_bandwidth
  std::optional<double> memory_bytes;       // GPU memory_size / totalGlobalMem
  std::optional<double> clock_hz;           // GPU clock_rate
  std::optional<int> core_count;            // SMs / CUs
  std::optional<int> compute_capability_major;
  std::optional<int> compute_capability_minor;
};

struct Device {
  int id = 0;                // ordinal: TPU:3 -> 3, GPU index
  std::string host;          // host the device belongs to ("tw003"), may be empty
  std::string name;          // as the profiler named the timeline ("/device:TPU:0", "GPU 0")
  // Model as reported ("TPU v6 Lite", "NVIDIA H100 80GB HBM3", "AMD Radeon
  // Graphics"); empty when the profiler gave only capabilities (XLA's GPU
  // planes). The trace knows no chips: which chip a device is, and the model
  // to show for it, is roofline::identify_chip (roofline/chip_identity.hpp)
  // from `vendor`, `model` and `caps`.
  std::string model;
  std::string vendor;        // "Google", "Nvidia", "AMD" when known
  DeviceKind kind = DeviceKind::kOther;
  DeviceCaps caps;
  std::vector<Line> lines;
  // Sorted by (line, start_ps, longest first); parents precede children.
  std::vector<Event> events;
  std::vector<Step> steps;   // device-side steps, sorted by start
};

// Serialized xla.HloProto of one module, as jax embeds it in the XPlane's
// /host:metadata plane. Handed on unparsed.
struct HloModuleBytes {
  std::string module;                      // "jit_f"
  std::optional<std::uint64_t> program_id;
  std::string bytes;
};

struct Trace {
  std::string source;                 // the path given to the reader
  std::vector<std::string> files;     // the files read (several for a directory)
  std::vector<TraceFormat> formats;   // one per file
  std::vector<Device> devices;        // accelerators (and XLA:CPU), by host then id
  std::vector<Device> hosts;          // kind kCpu: host threads
  std::vector<OpInfo> ops;
  std::vector<CallInfo> calls;
  // Scope paths of calls, interned ("BertModel_0/BertEncoder_0/BertLayer_3"):
  // outermost range first, '/' between ranges.
  std::vector<std::string> scopes;
  std::vector<Step> host_steps;       // Kineto "ProfilerStep#N" on the host
  std::vector<HloModuleBytes> hlo_modules;
  std::optional<std::int64_t> time_origin_ns;  // wall-clock ns (UNIX epoch) of time zero
  std::vector<std::string> warnings;  // things read but not understood; never silent
  // The first `listing_warnings` of `warnings` came from listing the inputs
  // (a capture folder chosen among several), the next `skipped_warnings`
  // name files skipped (JSON that holds no trace); the rest are the files'
  // own. Kept apart so that partial statistics merge them in this order.
  std::size_t listing_warnings = 0, skipped_warnings = 0;
};

}  // namespace roofline
