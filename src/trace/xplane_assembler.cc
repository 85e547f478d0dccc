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

// What names one event's op beyond its metadata, and its correlation id.
struct XPlaneAssembler::EventStats {
  const XStatView* op = nullptr;      // hlo_op
  const XStatView* module = nullptr;  // hlo_module
  std::string_view step_name;
  std::optional<std::uint64_t> program_id;
  std::uint64_t correlation = 0;
};

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

  // A string stat's text, inline or by reference to a stat metadata name.
  std::string_view text_of(const XStatView* s) const {
    if (s == nullptr) return {};
    if (s->type == XStatType::kStr) return s->s;
    if (s->type == XStatType::kRef) {
      auto it = stat_name.find(static_cast<std::int64_t>(s->u));
      return it == stat_name.end() ? std::string_view() : it->second;
    }
    return {};
  }

  // The stats of an event that name its op (hlo_op / hlo_module, usually
  // references to stat metadata names, turned into strings only when the op
  // is new), and its correlation id.
  EventStats event_stats(const std::vector<XStatView>& stats) const {
    EventStats es;
    auto is_string = [](const XStatView& s) { return s.type == XStatType::kRef || s.type == XStatType::kStr; };
    for (const XStatView& s : stats) {
      switch (kind_of(s.metadata_id)) {
        case StatKind::kHloOp:
          if (is_string(s)) es.op = &s;
          break;
        case StatKind::kHloModule:
          if (is_string(s)) es.module = &s;
          break;
        case StatKind::kStepName: es.step_name = text_of(&s); break;
        case StatKind::kProgramId:
          if (s.type == XStatType::kUint64) es.program_id = s.u;
          else if (s.type == XStatType::kInt64) es.program_id = static_cast<std::uint64_t>(s.i);
          break;
        case StatKind::kCorrelationId:
          if (s.type == XStatType::kUint64) es.correlation = s.u;
          else if (s.type == XStatType::kInt64) es.correlation = static_cast<std::uint64_t>(s.i);
          break;
        default: break;
      }
    }
    return es;
  }

  // On GPUs hlo_op names the HLO op a kernel ran for. Host events are named
  // by what the thread did; only XLA:CPU thunks (whose name is the HLO op)
  // are ops of a module. TPU events are HLO ops already (async ones point at
  // their -done op through hlo_op; that is not their name).
  void drop_stats_not_naming_op(EventStats& es, std::uint32_t meta_slot) const {
    const bool host = kind.is_host;
    const bool known = meta_slot != kNoSlot;
    if ((host && known && text_of(es.op) != meta[meta_slot].proto.name) ||
        (!host && kind.kind != DeviceKind::kGpu)) {
      es.op = nullptr;
      if (host) {
        es.module = nullptr;
        es.program_id.reset();
      }
    }
  }
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
  cur_->index = index;
  cur_->kind = classify_plane(p.name);
  index_metadata(p);
  if (p.name == "/host:metadata") {
    read_hlo_protos(p);
    return absl::OkStatus();
  }
  if (!cur_->kind.is_device && !cur_->kind.is_host) return absl::OkStatus();
  begin_entity(p);
  build_op_prototypes(p);
  return absl::OkStatus();
}

// Stat kinds and event metadata slots by id, dense ids in vectors.
void XPlaneAssembler::index_metadata(const XPlaneView& p) {
  PlaneState& st = *cur_;
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
}

std::optional<std::string_view> XPlaneAssembler::stat_str(const XStatView& s, std::string_view what) {
  const XPlaneView& p = planes_[cur_->index];
  switch (s.type) {
    case XStatType::kStr: return s.s;
    case XStatType::kRef: {
      auto it = cur_->stat_name.find(static_cast<std::int64_t>(s.u));
      if (it != cur_->stat_name.end()) return it->second;
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
}

std::optional<std::int64_t> XPlaneAssembler::stat_int(const XStatView& s, std::string_view what) {
  if (s.type == XStatType::kInt64) return s.i;
  if (s.type == XStatType::kUint64 && s.u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return static_cast<std::int64_t>(s.u);
  warn_once(cat("int:", what), cat(origin_, ": plane '", planes_[cur_->index].name, "': stat '", what, "' is a ",
                                    type_name(s.type), "; expected an integer; ignored"));
  return std::nullopt;
}

std::optional<double> XPlaneAssembler::stat_num(const XStatView& s, std::string_view what) {
  if (s.type == XStatType::kDouble) return s.d;
  if (s.type == XStatType::kInt64) return static_cast<double>(s.i);
  if (s.type == XStatType::kUint64) return static_cast<double>(s.u);
  warn_once(cat("num:", what), cat(origin_, ": plane '", planes_[cur_->index].name, "': stat '", what, "' is a ",
                                    type_name(s.type), "; expected a number; ignored"));
  return std::nullopt;
}

// jax embeds each module's serialized HloProto in /host:metadata.
void XPlaneAssembler::read_hlo_protos(const XPlaneView& p) {
  for (const XEventMetadataView& m : p.event_metadata)
    for (const XStatView& s : m.stats) {
      if (cur_->kind_of(s.metadata_id) != StatKind::kHloProto) continue;
      if (s.type != XStatType::kBytes) {
        warn_once("hloproto", cat(origin_, ": /host:metadata: 'Hlo Proto' of '", m.name, "' is a ",
                                  type_name(s.type), "; expected bytes; ignored"));
        continue;
      }
      ModuleName mn = split_module_name(m.name);
      builder_.trace().hlo_modules.push_back(
          {.module = mn.name, .program_id = mn.program_id, .bytes = std::string(s.s)});
    }
}

// The plane's device or host timeline, described by its plane stats.
void XPlaneAssembler::begin_entity(const XPlaneView& p) {
  PlaneState& st = *cur_;
  st.has_entity = true;
  Device& d = st.entity;
  d.events.reserve(p.event_count);
  d.name = std::string(p.name);
  d.host = hostnames_.empty() ? std::string() : hostnames_.front();
  if (st.kind.is_host) {
    d.kind = DeviceKind::kCpu;
    return;
  }
  d.kind = st.kind.kind;
  d.id = st.kind.ordinal;
  if (d.kind == DeviceKind::kTpu) d.vendor = "Google";
  read_device_stats(p, d);
}

// What the plane says about its device: the model as reported (XLA's GPU
// planes report none: identify_chip infers it from these capabilities).
void XPlaneAssembler::read_device_stats(const XPlaneView& p, Device& d) {
  std::string gpu_name;
  for (const XStatView& s : p.stats) {
    switch (cur_->kind_of(s.metadata_id)) {
      case StatKind::kDeviceTypeString:
        if (auto v = stat_str(s, "device_type_string")) d.model = std::string(*v);
        break;
      case StatKind::kGpuDeviceName:
        if (auto v = stat_str(s, "gpu_device_name")) gpu_name = std::string(*v);
        break;
      case StatKind::kDeviceVendor:
        if (auto v = stat_str(s, "device_vendor")) d.vendor = std::string(*v);
        break;
      case StatKind::kPeakTflops:
        if (auto v = stat_num(s, "peak_teraflops_per_second"); v && *v > 0) d.caps.peak_flops_per_s = *v * 1e12;
        break;
      case StatKind::kPeakHbmGbps:
        if (auto v = stat_num(s, "peak_hbm_bw_gigabytes_per_second"); v && *v > 0)
          d.caps.hbm_bytes_per_s = *v * 1e9;
        break;
      case StatKind::kMemoryBandwidth:
        if (auto v = stat_num(s, "memory_bandwidth"); v && *v > 0) d.caps.hbm_bytes_per_s = *v;
        break;
      case StatKind::kMemorySize:
        if (auto v = stat_num(s, "memory_size"); v && *v > 0) d.caps.memory_bytes = *v;
        break;
      case StatKind::kClockRate:
        if (auto v = stat_num(s, "clock_rate"); v && *v > 0) d.caps.clock_hz = *v * 1e3;  // kHz
        break;
      case StatKind::kCoreCount:
        if (auto v = stat_int(s, "core_count")) d.caps.core_count = static_cast<int>(*v);
        break;
      case StatKind::kCcMajor:
        if (auto v = stat_int(s, "compute_cap_major")) d.caps.compute_capability_major = static_cast<int>(*v);
        break;
      case StatKind::kCcMinor:
        if (auto v = stat_int(s, "compute_cap_minor")) d.caps.compute_capability_minor = static_cast<int>(*v);
        break;
      default: break;
    }
  }
  if (d.model.empty() && !gpu_name.empty()) d.model = gpu_name;
}

// Op prototypes from the event metadata, resolved once per plane.
void XPlaneAssembler::build_op_prototypes(const XPlaneView& p) {
  for (std::size_t i = 0; i < p.event_metadata.size(); ++i) {
    const XEventMetadataView& m = p.event_metadata[i];
    OpInfo& op = cur_->meta[i].proto;
    std::string_view inst = instruction_name(m.name);
    if (!inst.empty()) {
      op.hlo_text = std::string(m.name);
      op.name = std::string(inst);
    } else {
      op.name = std::string(m.display_name.empty() ? m.name : m.display_name);
    }
    for (const XStatView& s : m.stats) read_op_stat(s, op);
    if (op.program_id && op.module.empty()) {
      auto it = module_by_program_.find(*op.program_id);
      if (it != module_by_program_.end()) op.module = it->second;
    }
  }
}

void XPlaneAssembler::read_op_stat(const XStatView& s, OpInfo& op) {
  switch (cur_->kind_of(s.metadata_id)) {
    case StatKind::kHloCategory:
      if (auto v = stat_str(s, "hlo_category")) op.category = std::string(*v);
      break;
    case StatKind::kProgramId:
      if (s.type == XStatType::kUint64) op.program_id = s.u;
      else if (auto v = stat_int(s, "program_id")) op.program_id = static_cast<std::uint64_t>(*v);
      break;
    case StatKind::kFlops:
      if (auto v = stat_int(s, "flops")) op.flops = *v;
      break;
    case StatKind::kModelFlops:
      if (auto v = stat_int(s, "model_flops")) op.model_flops = *v;
      break;
    case StatKind::kBytesAccessed:
      if (auto v = stat_int(s, "bytes_accessed")) op.bytes_accessed = *v;
      break;
    case StatKind::kShapeWithLayout:
      if (auto v = stat_str(s, "shape_with_layout")) op.shape_with_layout = std::string(*v);
      break;
    case StatKind::kTfOp:
      if (auto v = stat_str(s, "tf_op")) op.framework_op = std::string(*v);
      break;
    case StatKind::kSource:
      if (auto v = stat_str(s, "source")) op.source = std::string(*v);
      break;
    case StatKind::kHloModule:
      if (auto v = stat_str(s, "hlo_module")) op.module = std::string(*v);
      break;
    default: break;
  }
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

// The op of an event: its metadata's, unless event stats name it (GPU
// kernels, XLA:CPU thunks, steps); then looked up by what names it.
inline std::uint32_t XPlaneAssembler::op_of_event(const EventStats& es, std::int64_t metadata_id,
                                           std::uint32_t meta_slot) {
  PlaneState& st = *cur_;
  const bool known = meta_slot != kNoSlot;
  const bool dynamic = es.op != nullptr || es.module != nullptr || es.program_id || !es.step_name.empty();
  const bool by_ref = (es.op == nullptr || es.op->type == XStatType::kRef) &&
                      (es.module == nullptr || es.module->type == XStatType::kRef);
  if (!dynamic && known) {
    MetaOp& m = st.meta[meta_slot];
    if (!m.resolved) {
      m.op = resolve_op(es, metadata_id, meta_slot);
      m.resolved = true;
    }
    return m.op;
  }
  if (dynamic && by_ref && es.step_name.empty() && known) {
    // GPU kernels name module and op by reference: the same (kernel, module,
    // op, program) again costs one lookup of four integers, no strings.
    const std::array<std::uint64_t, 4> key{static_cast<std::uint64_t>(metadata_id),
                                           es.module ? es.module->u + 1 : 0, es.op ? es.op->u + 1 : 0,
                                           es.program_id ? *es.program_id + 1 : 0};
    auto [it, inserted] = st.ref_ops.try_emplace(key, kNoSlot);
    if (inserted) it->second = resolve_op(es, metadata_id, meta_slot);
    return it->second;
  }
  return resolve_op(es, metadata_id, meta_slot);
}

absl::Status XPlaneAssembler::add_event(std::int64_t metadata_id, std::int64_t offset_ps,
                                        std::int64_t duration_ps, const std::vector<XStatView>& stats,
                                        std::uint64_t at) {
  PlaneState& st = *cur_;
  if (!st.has_entity) return absl::OkStatus();
  std::int64_t start_ps = 0, end_ps = 0;
  if (duration_ps < 0 || st.line_base_ps == std::numeric_limits<std::int64_t>::min() ||
      __builtin_add_overflow(st.line_base_ps, offset_ps, &start_ps) ||
      __builtin_add_overflow(start_ps, duration_ps, &end_ps))
    return event_time_error(duration_ps, at);
  EventStats es = st.event_stats(stats);
  const std::uint32_t meta_slot = st.slot_of(metadata_id);
  if (meta_slot == kNoSlot) {
    const std::string_view plane = planes_[st.index].name;
    warn_once(cat("meta:", plane), cat(origin_, ": plane '", plane, "': events refer to event metadata ",
                                       metadata_id, " which the plane does not define; named by id"));
  }
  st.drop_stats_not_naming_op(es, meta_slot);
  const std::uint32_t op = op_of_event(es, metadata_id, meta_slot);
  st.entity.events.push_back(Event{.start_ps = start_ps,
                                   .duration_ps = duration_ps,
                                   .self_ps = duration_ps,
                                   .op = op,
                                   .line = st.line,
                                   .correlation_id = es.correlation});
  return absl::OkStatus();
}

// Why an event's time is refused: a negative duration, or a start or end
// beyond int64 ps. Off the hot path.
absl::Status XPlaneAssembler::event_time_error(std::int64_t duration_ps, std::uint64_t at) const {
  const PlaneState& st = *cur_;
  if (duration_ps < 0)
    return absl::DataLossError(cat(origin_, ": byte ", at, ": event on '", planes_[st.index].name, "' line '",
                                   st.entity.lines[st.line].name, "' has negative duration_ps ", duration_ps));
  return absl::OutOfRangeError(
      cat(origin_, ": byte ", at, ": event time on '", planes_[st.index].name, "' overflows int64 picoseconds"));
}

// The op for an event from the strings that identify it, interned.
std::uint32_t XPlaneAssembler::resolve_op(const EventStats& es, std::int64_t metadata_id, std::uint32_t meta_slot) {
  PlaneState& st = *cur_;
  const std::string_view hlo_op = st.text_of(es.op), hlo_module = st.text_of(es.module);
  st.key.clear();
  st.key.append(hlo_module).push_back('\x1f');
  st.key.append(hlo_op).push_back('\x1f');
  st.key.append(es.step_name).push_back('\x1f');
  if (es.program_id) append_one(st.key, *es.program_id);
  st.key.push_back('\x1f');
  append_one(st.key, metadata_id);
  if (auto it = st.dynamic_ops.find(st.key); it != st.dynamic_ops.end()) return it->second;
  OpInfo info;
  if (meta_slot != kNoSlot) info = st.meta[meta_slot].proto;
  else info.name = cat("metadata #", metadata_id);
  if (!es.step_name.empty()) info.name = std::string(es.step_name);
  if (!hlo_op.empty()) {
    // GPU: the kernel ran for an HLO op; name the op, keep the kernel.
    if (info.name != hlo_op) info.kernel = std::move(info.name);
    info.name = std::string(hlo_op);
    info.hlo_text.clear();
  }
  if (!hlo_module.empty()) info.module = std::string(hlo_module);
  if (es.program_id) info.program_id = es.program_id;
  if (info.program_id && info.module.empty()) {
    auto m = module_by_program_.find(*info.program_id);
    if (m != module_by_program_.end()) info.module = m->second;
  }
  if (info.category.empty() && st.kind.kind == DeviceKind::kGpu && !st.kind.is_host &&
      st.line_role == LineRole::kOps) {
    // CUPTI names copies "MemcpyH2D", "MemcpyD2D"..., fills "Memset".
    const std::string_view what = info.kernel.empty() ? info.name : info.kernel;
    info.category = what.rfind("Memcpy", 0) == 0 ? "memcpy" : what.rfind("Memset", 0) == 0 ? "memset" : "kernel";
  }
  const std::uint32_t id = builder_.intern_op(std::move(info));
  st.dynamic_ops.emplace(st.key, id);
  return id;
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
