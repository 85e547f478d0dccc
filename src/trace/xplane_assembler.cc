#include "src/trace/xplane_assembler.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <utility>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "src/trace/byte_stream.hpp"

namespace roofline::detail {
namespace {

enum class StatKind : std::uint8_t {
  kIgnored,
  // plane stats
  kDeviceTypeString,
  kPeakTflops,
  kPeakHbmGbps,
  kClockRate,
  kCoreCount,
  kMemoryBandwidth,
  kMemorySize,
  kCcMajor,
  kCcMinor,
  kDeviceVendor,
  kGpuDeviceName,
  kProfileStartTime,
  // op metadata and events
  kHloCategory,
  kProgramId,
  kFlops,
  kModelFlops,
  kBytesAccessed,
  kShapeWithLayout,
  kTfOp,
  kSource,
  kHloOp,
  kHloModule,
  kCorrelationId,
  kHloProto,
  kStepName,
};

StatKind stat_kind_of(std::string_view n) {
  struct Entry {
    std::string_view name;
    StatKind kind;
  };
  static constexpr Entry kTable[] = {
      {"device_type_string", StatKind::kDeviceTypeString},
      {"peak_teraflops_per_second", StatKind::kPeakTflops},
      {"peak_hbm_bw_gigabytes_per_second", StatKind::kPeakHbmGbps},
      {"clock_rate", StatKind::kClockRate},
      {"core_count", StatKind::kCoreCount},
      {"memory_bandwidth", StatKind::kMemoryBandwidth},
      {"memory_size", StatKind::kMemorySize},
      {"compute_cap_major", StatKind::kCcMajor},
      {"compute_cap_minor", StatKind::kCcMinor},
      {"device_vendor", StatKind::kDeviceVendor},
      {"gpu_device_name", StatKind::kGpuDeviceName},
      {"profile_start_time", StatKind::kProfileStartTime},
      {"hlo_category", StatKind::kHloCategory},
      {"program_id", StatKind::kProgramId},
      {"flops", StatKind::kFlops},
      {"model_flops", StatKind::kModelFlops},
      {"bytes_accessed", StatKind::kBytesAccessed},
      {"shape_with_layout", StatKind::kShapeWithLayout},
      {"tf_op", StatKind::kTfOp},
      {"source", StatKind::kSource},
      {"hlo_op", StatKind::kHloOp},
      {"hlo_module", StatKind::kHloModule},
      {"correlation_id", StatKind::kCorrelationId},
      {"Hlo Proto", StatKind::kHloProto},
      {"step_name", StatKind::kStepName},
  };
  for (const Entry& e : kTable)
    if (e.name == n) return e.kind;
  return StatKind::kIgnored;
}

std::string_view type_name(XStatType t) {
  switch (t) {
    case XStatType::kNone: return "empty";
    case XStatType::kDouble: return "double";
    case XStatType::kUint64: return "uint64";
    case XStatType::kInt64: return "int64";
    case XStatType::kStr: return "string";
    case XStatType::kBytes: return "bytes";
    case XStatType::kRef: return "ref";
    case XStatType::kCompressedStr: return "compressed string";
  }
  return "empty";
}

// TPU op metadata names are the HLO text: "%fusion.1 = f32[...] fusion(...)".
std::string_view instruction_name(std::string_view hlo_text) {
  if (hlo_text.empty() || hlo_text[0] != '%') return {};
  const auto eq = hlo_text.find(" = ");
  if (eq == std::string_view::npos) return {};
  return hlo_text.substr(1, eq - 1);
}

struct MetaOp {
  bool resolved = false;
  std::uint32_t op = 0;          // when no event stat changes the op
  OpInfo proto;                  // the op as the metadata alone describes it
};

}  // namespace

// Metadata ids are arbitrary int64s but in practice small and dense; ids
// below this bound are looked up in a vector, others in a hash map.
constexpr std::int64_t kDenseIds = std::int64_t{1} << 20;
constexpr std::uint32_t kNoSlot = 0xffffffffu;

struct XPlaneAssembler::PlaneState {
  std::size_t index = 0;
  PlaneKind kind;
  bool has_entity = false;
  Device entity;
  absl::flat_hash_map<std::int64_t, StatKind> stat_kind;
  std::vector<StatKind> stat_kind_dense;
  absl::flat_hash_map<std::int64_t, std::string_view> stat_name;
  absl::flat_hash_map<std::int64_t, std::uint32_t> meta_index;
  std::vector<std::uint32_t> meta_dense;
  std::vector<MetaOp> meta;
  // Ops of events whose stats name their HLO op by reference (GPU kernels):
  // keyed by (metadata id, module ref, op ref, program id) without strings.
  absl::flat_hash_map<std::array<std::uint64_t, 4>, std::uint32_t> ref_ops;
  absl::flat_hash_map<std::string, std::uint32_t> dynamic_ops;
  std::string key;

  StatKind kind_of(std::int64_t id) const {
    if (id >= 0 && id < static_cast<std::int64_t>(stat_kind_dense.size()))
      return stat_kind_dense[static_cast<std::size_t>(id)];
    auto it = stat_kind.find(id);
    return it == stat_kind.end() ? StatKind::kIgnored : it->second;
  }
  std::uint32_t slot_of(std::int64_t id) const {
    if (id >= 0 && id < static_cast<std::int64_t>(meta_dense.size())) return meta_dense[static_cast<std::size_t>(id)];
    auto it = meta_index.find(id);
    return it == meta_index.end() ? kNoSlot : it->second;
  }
  std::uint32_t line = 0;
  std::int64_t line_base_ps = 0;
  LineRole line_role = LineRole::kOther;
};

XPlaneAssembler::XPlaneAssembler(std::string origin, const TraceReadOptions& options)
    : origin_(std::move(origin)), options_(options), builder_(origin_) {}

XPlaneAssembler::~XPlaneAssembler() = default;

void XPlaneAssembler::warn_once(const std::string& key, std::string message) {
  if (warned_.emplace(key, true).second) builder_.trace().warnings.push_back(std::move(message));
}

void XPlaneAssembler::add_plane(XPlaneView plane) {
  // Module names by program id, from every "<module>(<program id>)" name
  // (XLA Modules events, /host:metadata entries).
  for (const XEventMetadataView& m : plane.event_metadata) {
    ModuleName mn = split_module_name(m.name);
    if (mn.program_id && !mn.name.empty() && mn.name.find(' ') == std::string::npos)
      module_by_program_.try_emplace(*mn.program_id, mn.name);
  }
  planes_.push_back(std::move(plane));
}

void XPlaneAssembler::compute_time_base() {
  base_computed_ = true;
  // Lines jax/XLA wrote are normalised to the profile start; ns x 1000 then
  // fits easily. Un-normalised epoch ns (~1.7e18) would overflow int64 ps, so
  // such files are rebased on their earliest line.
  constexpr std::int64_t kSafeNs = std::int64_t{4'000'000'000'000'000};  // 46 days
  bool safe = true;
  std::int64_t min_ns = std::numeric_limits<std::int64_t>::max();
  for (const XPlaneView& p : planes_)
    for (std::int64_t ts : p.line_timestamps_ns) {
      if (ts > kSafeNs || ts < -kSafeNs) safe = false;
      min_ns = std::min(min_ns, ts);
    }
  base_ns_ = safe ? 0 : min_ns;
  std::optional<std::uint64_t> profile_start;
  for (const XPlaneView& p : planes_) {
    if (p.name != "Task Environment") continue;
    absl::flat_hash_map<std::int64_t, std::string_view> names(p.stat_metadata.begin(),
                                                                p.stat_metadata.end());
    for (const XStatView& s : p.stats) {
      auto it = names.find(s.metadata_id);
      if (it != names.end() && it->second == "profile_start_time") {
        if (s.type == XStatType::kUint64) profile_start = s.u;
        else if (s.type == XStatType::kInt64 && s.i >= 0) profile_start = static_cast<std::uint64_t>(s.i);
      }
    }
  }
  Trace& t = builder_.trace();
  if (base_ns_ != 0) t.time_origin_ns = base_ns_;
  else if (profile_start && *profile_start <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    t.time_origin_ns = static_cast<std::int64_t>(*profile_start);
}

absl::Status XPlaneAssembler::begin_plane(std::size_t index) {
  if (!base_computed_) compute_time_base();
  const XPlaneView& p = planes_[index];
  cur_ = std::make_unique<PlaneState>();
  PlaneState& st = *cur_;
  st.index = index;
  st.kind = classify_plane(p.name);
  for (const auto& [id, name] : p.stat_metadata) {
    const StatKind k = stat_kind_of(name);
    st.stat_kind[id] = k;
    st.stat_name[id] = name;
    if (id >= 0 && id < kDenseIds) {
      if (static_cast<std::size_t>(id) >= st.stat_kind_dense.size())
        st.stat_kind_dense.resize(static_cast<std::size_t>(id) + 1, StatKind::kIgnored);
      st.stat_kind_dense[static_cast<std::size_t>(id)] = k;
    }
  }
  st.meta.resize(p.event_metadata.size());
  for (std::size_t i = 0; i < p.event_metadata.size(); ++i) {
    const std::int64_t id = p.event_metadata[i].id;
    if (!st.meta_index.try_emplace(id, static_cast<std::uint32_t>(i)).second) continue;
    if (id >= 0 && id < kDenseIds) {
      if (static_cast<std::size_t>(id) >= st.meta_dense.size())
        st.meta_dense.resize(static_cast<std::size_t>(id) + 1, kNoSlot);
      st.meta_dense[static_cast<std::size_t>(id)] = static_cast<std::uint32_t>(i);
    }
  }

  auto kind_of = [&](const XStatView& s) { return st.kind_of(s.metadata_id); };
  auto str_of = [&](const XStatView& s, std::string_view what) -> std::optional<std::string_view> {
    switch (s.type) {
      case XStatType::kStr: return s.s;
      case XStatType::kRef: {
        auto it = st.stat_name.find(static_cast<std::int64_t>(s.u));
        if (it != st.stat_name.end()) return it->second;
        warn_once(cat("ref:", what), cat(origin_, ": plane '", p.name, "': stat '", what,
                                          "' refers to unknown stat metadata ", s.u, "; ignored"));
        return std::nullopt;
      }
      case XStatType::kCompressedStr: {
        auto text = gunzip(s.s, cat(origin_, ": plane '", p.name, "': stat '", what, "'"),
                           options_.max_decompressed_bytes);
        if (!text.ok()) {
          warn_once(cat("gz:", what), std::string(text.status().message()));
          return std::nullopt;
        }
        owned_.push_back(std::move(*text));
        return std::string_view(owned_.back());
      }
      default:
        warn_once(cat("type:", what), cat(origin_, ": plane '", p.name, "': stat '", what, "' is a ",
                                           type_name(s.type), "; expected a string; ignored"));
        return std::nullopt;
    }
  };
  auto int_of = [&](const XStatView& s, std::string_view what) -> std::optional<std::int64_t> {
    if (s.type == XStatType::kInt64) return s.i;
    if (s.type == XStatType::kUint64 &&
        s.u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return static_cast<std::int64_t>(s.u);
    warn_once(cat("int:", what), cat(origin_, ": plane '", p.name, "': stat '", what, "' is a ",
                                      type_name(s.type), "; expected an integer; ignored"));
    return std::nullopt;
  };
  auto num_of = [&](const XStatView& s, std::string_view what) -> std::optional<double> {
    if (s.type == XStatType::kDouble) return s.d;
    if (s.type == XStatType::kInt64) return static_cast<double>(s.i);
    if (s.type == XStatType::kUint64) return static_cast<double>(s.u);
    warn_once(cat("num:", what), cat(origin_, ": plane '", p.name, "': stat '", what, "' is a ",
                                      type_name(s.type), "; expected a number; ignored"));
    return std::nullopt;
  };

  if (p.name == "/host:metadata") {
    for (const XEventMetadataView& m : p.event_metadata)
      for (const XStatView& s : m.stats) {
        if (kind_of(s) != StatKind::kHloProto) continue;
        if (s.type != XStatType::kBytes) {
          warn_once("hloproto", cat(origin_, ": /host:metadata: 'Hlo Proto' of '", m.name,
                                    "' is a ", type_name(s.type), "; expected bytes; ignored"));
          continue;
        }
        ModuleName mn = split_module_name(m.name);
        builder_.trace().hlo_modules.push_back(
            {.module = mn.name, .program_id = mn.program_id, .bytes = std::string(s.s)});
      }
    return absl::OkStatus();
  }
  if (!st.kind.is_device && !st.kind.is_host) return absl::OkStatus();

  st.has_entity = true;
  Device& d = st.entity;
  d.events.reserve(p.event_count);
  d.name = std::string(p.name);
  d.host = hostnames_.empty() ? std::string() : hostnames_.front();
  if (st.kind.is_host) {
    d.kind = DeviceKind::kCpu;
  } else {
    d.kind = st.kind.kind;
    d.id = st.kind.ordinal;
    if (d.kind == DeviceKind::kTpu) d.vendor = "Google";
    std::string gpu_name;
    for (const XStatView& s : p.stats) {
      switch (kind_of(s)) {
        case StatKind::kDeviceTypeString:
          if (auto v = str_of(s, "device_type_string")) d.model = std::string(*v);
          break;
        case StatKind::kGpuDeviceName:
          if (auto v = str_of(s, "gpu_device_name")) gpu_name = std::string(*v);
          break;
        case StatKind::kDeviceVendor:
          if (auto v = str_of(s, "device_vendor")) d.vendor = std::string(*v);
          break;
        case StatKind::kPeakTflops:
          if (auto v = num_of(s, "peak_teraflops_per_second"); v && *v > 0) d.caps.peak_flops_per_s = *v * 1e12;
          break;
        case StatKind::kPeakHbmGbps:
          if (auto v = num_of(s, "peak_hbm_bw_gigabytes_per_second"); v && *v > 0)
            d.caps.hbm_bytes_per_s = *v * 1e9;
          break;
        case StatKind::kMemoryBandwidth:
          if (auto v = num_of(s, "memory_bandwidth"); v && *v > 0) d.caps.hbm_bytes_per_s = *v;
          break;
        case StatKind::kMemorySize:
          if (auto v = num_of(s, "memory_size"); v && *v > 0) d.caps.memory_bytes = *v;
          break;
        case StatKind::kClockRate:
          if (auto v = num_of(s, "clock_rate"); v && *v > 0) d.caps.clock_hz = *v * 1e3;  // kHz
          break;
        case StatKind::kCoreCount:
          if (auto v = int_of(s, "core_count")) d.caps.core_count = static_cast<int>(*v);
          break;
        case StatKind::kCcMajor:
          if (auto v = int_of(s, "compute_cap_major")) d.caps.compute_capability_major = static_cast<int>(*v);
          break;
        case StatKind::kCcMinor:
          if (auto v = int_of(s, "compute_cap_minor")) d.caps.compute_capability_minor = static_cast<int>(*v);
          break;
        default: break;
      }
    }
    if (d.model.empty() && !gpu_name.empty()) d.model = gpu_name;
    if (d.model.empty() && d.kind == DeviceKind::kGpu && d.caps.compute_capability_major &&
        d.caps.core_count) {
      d.model = infer_gpu_model(d.vendor, *d.caps.compute_capability_major,
                                d.caps.compute_capability_minor.value_or(0), *d.caps.core_count,
                                d.caps.memory_bytes.value_or(0));
      d.model_inferred = !d.model.empty();
    }
  }

  // Op prototypes from the metadata, resolved once per plane.
  for (std::size_t i = 0; i < p.event_metadata.size(); ++i) {
    const XEventMetadataView& m = p.event_metadata[i];
    OpInfo& op = st.meta[i].proto;
    std::string_view inst = instruction_name(m.name);
    if (!inst.empty()) {
      op.hlo_text = std::string(m.name);
      op.name = std::string(inst);
    } else {
      op.name = std::string(m.display_name.empty() ? m.name : m.display_name);
    }
    for (const XStatView& s : m.stats) {
      switch (kind_of(s)) {
        case StatKind::kHloCategory:
          if (auto v = str_of(s, "hlo_category")) op.category = std::string(*v);
          break;
        case StatKind::kProgramId:
          if (s.type == XStatType::kUint64) op.program_id = s.u;
          else if (auto v = int_of(s, "program_id")) op.program_id = static_cast<std::uint64_t>(*v);
          break;
        case StatKind::kFlops:
          if (auto v = int_of(s, "flops")) op.flops = *v;
          break;
        case StatKind::kModelFlops:
          if (auto v = int_of(s, "model_flops")) op.model_flops = *v;
          break;
        case StatKind::kBytesAccessed:
          if (auto v = int_of(s, "bytes_accessed")) op.bytes_accessed = *v;
          break;
        case StatKind::kShapeWithLayout:
          if (auto v = str_of(s, "shape_with_layout")) op.shape_with_layout = std::string(*v);
          break;
        case StatKind::kTfOp:
          if (auto v = str_of(s, "tf_op")) op.framework_op = std::string(*v);
          break;
        case StatKind::kSource:
          if (auto v = str_of(s, "source")) op.source = std::string(*v);
          break;
        case StatKind::kHloModule:
          if (auto v = str_of(s, "hlo_module")) op.module = std::string(*v);
          break;
        default: break;
      }
    }
    if (op.program_id && op.module.empty()) {
      auto it = module_by_program_.find(*op.program_id);
      if (it != module_by_program_.end()) op.module = it->second;
    }
  }
  return absl::OkStatus();
}

void XPlaneAssembler::begin_line(std::int64_t id, std::int64_t display_id, std::string_view name,
                                 std::string_view display_name, std::int64_t timestamp_ns) {
  PlaneState& st = *cur_;
  if (!st.has_entity) return;
  Line l;
  l.id = display_id != 0 ? display_id : id;
  l.name = std::string(display_name.empty() ? name : display_name);
  l.role = st.kind.is_host ? LineRole::kHostThread : device_line_role(st.entity.kind, l.name);
  st.line_role = l.role;
  st.line = static_cast<std::uint32_t>(st.entity.lines.size());
  st.entity.lines.push_back(std::move(l));
  // Overflow was ruled out for every line by compute_time_base, except for a
  // hostile spread of line timestamps; saturate those and let add_event refuse.
  std::int64_t rel = 0, ps = 0;
  if (__builtin_sub_overflow(timestamp_ns, base_ns_, &rel) || __builtin_mul_overflow(rel, 1000, &ps))
    ps = std::numeric_limits<std::int64_t>::min();
  st.line_base_ps = ps;
}

absl::Status XPlaneAssembler::add_event(std::int64_t metadata_id, std::int64_t offset_ps,
                                        std::int64_t duration_ps, const std::vector<XStatView>& stats,
                                        std::uint64_t at) {
  PlaneState& st = *cur_;
  if (!st.has_entity) return absl::OkStatus();
  const XPlaneView& p = planes_[st.index];
  if (duration_ps < 0)
    return absl::DataLossError(cat(origin_, ": byte ", at, ": event on '", p.name, "' line '",
                                   st.entity.lines[st.line].name, "' has negative duration_ps ",
                                   duration_ps));
  std::int64_t start_ps = 0, end_ps = 0;
  if (st.line_base_ps == std::numeric_limits<std::int64_t>::min() ||
      __builtin_add_overflow(st.line_base_ps, offset_ps, &start_ps) ||
      __builtin_add_overflow(start_ps, duration_ps, &end_ps))
    return absl::OutOfRangeError(cat(origin_, ": byte ", at, ": event time on '", p.name,
                                     "' overflows int64 picoseconds"));

  // What names this occurrence's op beyond its metadata (GPU kernels,
  // XLA:CPU thunks): hlo_op / hlo_module, usually references to stat
  // metadata names, turned into strings only when the op is new.
  const XStatView* op_stat = nullptr;
  const XStatView* module_stat = nullptr;
  std::string_view step_name;
  std::optional<std::uint64_t> program_id;
  std::uint64_t correlation = 0;
  auto str_of = [&](const XStatView* s) -> std::string_view {
    if (s == nullptr) return {};
    if (s->type == XStatType::kStr) return s->s;
    if (s->type == XStatType::kRef) {
      auto it = st.stat_name.find(static_cast<std::int64_t>(s->u));
      return it == st.stat_name.end() ? std::string_view() : it->second;
    }
    return {};
  };
  auto is_string = [](const XStatView& s) { return s.type == XStatType::kRef || s.type == XStatType::kStr; };
  for (const XStatView& s : stats) {
    switch (st.kind_of(s.metadata_id)) {
      case StatKind::kHloOp:
        if (is_string(s)) op_stat = &s;
        break;
      case StatKind::kHloModule:
        if (is_string(s)) module_stat = &s;
        break;
      case StatKind::kStepName: step_name = str_of(&s); break;
      case StatKind::kProgramId:
        if (s.type == XStatType::kUint64) program_id = s.u;
        else if (s.type == XStatType::kInt64) program_id = static_cast<std::uint64_t>(s.i);
        break;
      case StatKind::kCorrelationId:
        if (s.type == XStatType::kUint64) correlation = s.u;
        else if (s.type == XStatType::kInt64) correlation = static_cast<std::uint64_t>(s.i);
        break;
      default: break;
    }
  }

  const std::uint32_t meta_slot = st.slot_of(metadata_id);
  const bool known = meta_slot != kNoSlot;
  if (!known)
    warn_once(cat("meta:", p.name), cat(origin_, ": plane '", p.name, "': events refer to event metadata ",
                                        metadata_id, " which the plane does not define; named by id"));

  // On GPUs hlo_op names the HLO op a kernel ran for. Host events are named
  // by what the thread did; only XLA:CPU thunks (whose name is the HLO op)
  // are ops of a module. TPU events are HLO ops already (async ones point at
  // their -done op through hlo_op; that is not their name).
  const bool host = st.kind.is_host;
  if ((host && known && str_of(op_stat) != st.meta[meta_slot].proto.name) ||
      (!host && st.kind.kind != DeviceKind::kGpu)) {
    op_stat = nullptr;
    if (host) {
      module_stat = nullptr;
      program_id.reset();
    }
  }
  const bool dynamic = op_stat != nullptr || module_stat != nullptr || program_id || !step_name.empty();

  // The op for this event from the strings that identify it.
  auto resolve = [&]() -> std::uint32_t {
    const std::string_view hlo_op = str_of(op_stat), hlo_module = str_of(module_stat);
    st.key.clear();
    st.key.append(hlo_module).push_back('\x1f');
    st.key.append(hlo_op).push_back('\x1f');
    st.key.append(step_name).push_back('\x1f');
    if (program_id) append_one(st.key, *program_id);
    st.key.push_back('\x1f');
    append_one(st.key, metadata_id);
    if (auto it = st.dynamic_ops.find(st.key); it != st.dynamic_ops.end()) return it->second;
    OpInfo info;
    if (known) info = st.meta[meta_slot].proto;
    else info.name = cat("metadata #", metadata_id);
    if (!step_name.empty()) info.name = std::string(step_name);
    if (!hlo_op.empty()) {
      // GPU: the kernel ran for an HLO op; name the op, keep the kernel.
      if (info.name != hlo_op) info.kernel = std::move(info.name);
      info.name = std::string(hlo_op);
      info.hlo_text.clear();
    }
    if (!hlo_module.empty()) info.module = std::string(hlo_module);
    if (program_id) info.program_id = program_id;
    if (info.program_id && info.module.empty()) {
      auto m = module_by_program_.find(*info.program_id);
      if (m != module_by_program_.end()) info.module = m->second;
    }
    if (info.category.empty() && st.kind.kind == DeviceKind::kGpu && !host && st.line_role == LineRole::kOps) {
      // CUPTI names copies "MemcpyH2D", "MemcpyD2D"..., fills "Memset".
      const std::string_view what = info.kernel.empty() ? info.name : info.kernel;
      info.category = what.rfind("Memcpy", 0) == 0   ? "memcpy"
                      : what.rfind("Memset", 0) == 0 ? "memset"
                                                     : "kernel";
    }
    const std::uint32_t id = builder_.intern_op(std::move(info));
    st.dynamic_ops.emplace(st.key, id);
    return id;
  };

  std::uint32_t op = 0;
  const bool by_ref = (op_stat == nullptr || op_stat->type == XStatType::kRef) &&
                      (module_stat == nullptr || module_stat->type == XStatType::kRef);
  if (!dynamic && known) {
    MetaOp& m = st.meta[meta_slot];
    if (!m.resolved) {
      m.op = resolve();
      m.resolved = true;
    }
    op = m.op;
  } else if (dynamic && by_ref && step_name.empty() && known) {
    // GPU kernels name module and op by reference: the same (kernel, module,
    // op, program) again costs one lookup of four integers, no strings.
    const std::array<std::uint64_t, 4> key{static_cast<std::uint64_t>(metadata_id),
                                           module_stat ? module_stat->u + 1 : 0, op_stat ? op_stat->u + 1 : 0,
                                           program_id ? *program_id + 1 : 0};
    auto [it, inserted] = st.ref_ops.try_emplace(key, kNoSlot);
    if (inserted) it->second = resolve();
    op = it->second;
  } else {
    op = resolve();
  }
  st.entity.events.push_back(Event{.start_ps = start_ps,
                                   .duration_ps = duration_ps,
                                   .self_ps = duration_ps,
                                   .op = op,
                                   .line = st.line,
                                   .correlation_id = correlation});
  return absl::OkStatus();
}

void XPlaneAssembler::end_plane() {
  PlaneState& st = *cur_;
  if (st.has_entity) {
    Trace& t = builder_.trace();
    if (st.kind.is_host) t.hosts.push_back(std::move(st.entity));
    else t.devices.push_back(std::move(st.entity));
  }
  cur_.reset();
}

absl::StatusOr<Trace> XPlaneAssembler::finish() {
  if (!base_computed_) compute_time_base();
  Trace& t = builder_.trace();
  t.files = {origin_};
  t.formats = {TraceFormat::kXPlane};
  ROOFLINE_RETURN_IF_ERROR(builder_.finish());
  return std::move(t);
}

}  // namespace roofline::detail
