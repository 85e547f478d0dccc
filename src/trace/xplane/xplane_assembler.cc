// XPlaneAssembler's plane, line and entity setup: pass 1 (add_plane), the
// time base, begin_plane and its steps, begin_line, end_plane and finish.
// Stat readers are in xplane_stat_values.cc, the per-event path in xplane_events.cc.
#include "src/trace/xplane/xplane_assembler.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "src/trace/event_buffers.hpp"
#include "src/trace/xplane/xplane_assembler_state.hpp"

namespace roofline::detail {
namespace {

// TPU op metadata names are the HLO text: "%fusion.1 = f32[...] fusion(...)".
std::string_view instruction_name(std::string_view hlo_text) {
  if (hlo_text.empty() || hlo_text[0] != '%') return {};
  const auto eq = hlo_text.find(" = ");
  if (eq == std::string_view::npos) return {};
  return hlo_text.substr(1, eq - 1);
}

// classify_plane's test, which the wire decoder shares (xplane_wire.cc):
// /host:metadata, like every plane without "/device:", is not a device.
bool is_device_plane(std::string_view name) { return classify_plane(name).is_device; }

}  // namespace

XPlaneAssembler::XPlaneAssembler(std::string origin, const TraceReadOptions& options, XPlaneReadPlan* plan)
    : origin_(std::move(origin)), options_(options), builder_(origin_), plan_(plan) {}

XPlaneAssembler::~XPlaneAssembler() = default;

void XPlaneAssembler::warn_once(const std::string& key, std::string message) {
  if (warned_.emplace(key, true).second) builder_.trace().warnings.push_back(std::move(message));
}

void XPlaneAssembler::note_plane_name(std::string_view name) {
  if (is_device_plane(name)) has_device_plane_ = true;
}

void XPlaneAssembler::add_plane(XPlaneView plane) {
  // Module names by program id, from every "<module>(<program id>)" name
  // (XLA Modules events, /host:metadata entries).
  for (const XEventMetadataView& m : plane.event_metadata) {
    ModuleName mn = split_module_name(m.name);
    if (mn.program_id && !mn.name.empty() && mn.name.find(' ') == std::string::npos)
      module_by_program_.try_emplace(*mn.program_id, mn.name);
  }
  if (is_device_plane(plane.name)) has_device_plane_ = true;
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
  if (plan_ != nullptr) plan_->rebased = !safe;
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

bool XPlaneAssembler::keeps_events(std::size_t index) const {
  const XPlaneView& p = planes_[index];
  const PlaneKind k = classify_plane(p.name);
  return p.name != "/host:metadata" && (k.is_device || k.is_host) && reads_events(p.name);
}

bool XPlaneAssembler::drops_host_events() const {
  return (!options_.host_timelines || (plan_ != nullptr && plan_->skip_host_lines)) && has_device_plane_;
}

bool XPlaneAssembler::reads_events(std::string_view plane_name) const {
  const PlaneKind k = classify_plane(plane_name);
  if (k.is_host) return !drops_host_events();
  return !(plan_ != nullptr && plan_->skip_device_lines && is_device_plane(plane_name));
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
  // The kinds event_stats reads.
  auto used = [](StatKind k) {
    switch (k) {
      case StatKind::kHloOp:
      case StatKind::kHloModule:
      case StatKind::kStepName:
      case StatKind::kStepNum:
      case StatKind::kProgramId:
      case StatKind::kCorrelationId:
      case StatKind::kDeviceOffsetPs:
      case StatKind::kDeviceDurationPs:
      case StatKind::kDeviceOrdinal: return true;
      default: return false;
    }
  };
  event_stat_used_dense_.assign(st.stat_kind_dense.size(), 0);
  event_stat_used_sparse_.clear();
  for (const auto& [id, kind] : st.stat_kind) {
    if (!used(kind)) continue;
    if (id >= 0 && static_cast<std::size_t>(id) < event_stat_used_dense_.size())
      event_stat_used_dense_[static_cast<std::size_t>(id)] = kind == StatKind::kDeviceOrdinal ? 2 : 1;
    else event_stat_used_sparse_.insert(id);
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
  // Host events not wanted are not even read (reads_events): they would be
  // three quarters of a TPU host's events (a pod host's profile: 6.6 M of
  // 9.2 M), dropped with the host timelines after the read anyway.
  st.drop_events = !reads_events(p.name);
  if (plan_ != nullptr && st.kind.is_host) {
    if (st.drop_events) plan_->host_lines_skipped = true;
    filters_ = !st.drop_events && plan_->host_windows.has_value();
    if (filters_) {
      windows_ = &*plan_->host_windows;
      interned_dense_.clear();
    }
  }
  // Under host windows most events go: room is made as the kept ones come.
  if (!st.drop_events && !filters_) d.events = take_events(p.event_count);
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
  filter_base_ps_ = ps;
  window_at_ = 0;
}

void XPlaneAssembler::end_plane() {
  PlaneState& st = *cur_;
  if (st.has_entity) {
    Trace& t = builder_.trace();
    if (st.kind.is_host) {
      if (!st.cpu_ordinals.empty()) builder_.set_device_ordinals(t.hosts.size(), std::move(st.cpu_ordinals));
      // A host whose events were dropped is not a timeline: not there at all,
      // as read_file leaves every host when host timelines are not wanted.
      if (!st.drop_events) t.hosts.push_back(std::move(st.entity));
    }
    else t.devices.push_back(std::move(st.entity));
  }
  cur_.reset();
  filters_ = false;
}

absl::StatusOr<Trace> XPlaneAssembler::finish() {
  if (!base_computed_) compute_time_base();
  Trace& t = builder_.trace();
  t.files = {origin_};
  t.formats = {TraceFormat::kXPlane};
  if (plan_ != nullptr) plan_->decoded = true;
  ROOFLINE_RETURN_IF_ERROR(builder_.finish());
  return std::move(t);
}

}  // namespace roofline::detail
