// XPlaneAssembler's per-event path: add_event, the op an event belongs to
// (op_of_event, always inlined into add_event, so both live here) and
// resolve_op, which interns a new op.
#include <array>
#include <limits>
#include <optional>
#include <utility>

#include "roofline/detail/cat.hpp"
#include "src/trace/xplane/xplane_assembler_state.hpp"

namespace roofline::detail {

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
  if (es.device_offset != nullptr && es.device_duration != nullptr && !st.kind.is_host)
    device_clock_time(es, start_ps, duration_ps);
  if (es.device_ordinal != nullptr && st.kind.is_host) {
    if (auto ordinal = device_ordinal(*es.device_ordinal))
      st.cpu_ordinals.emplace_back(static_cast<std::uint32_t>(st.entity.events.size()), *ordinal);
  }
  const std::uint32_t meta_slot = st.slot_of(metadata_id);
  if (meta_slot == kNoSlot) warn_undefined_metadata(metadata_id);
  st.drop_stats_not_naming_op(es, meta_slot);
  const std::uint32_t op = op_of_event(es, metadata_id, meta_slot);
  st.entity.events.push_back(Event{.start_ps = start_ps,
                                   .duration_ps = duration_ps,
                                   .self_ps = duration_ps,
                                   .op = op,
                                   .line = st.line,
                                   .correlation_id = es.correlation});
  if (es.step_num != nullptr && st.kind.is_host) add_host_step(*es.step_num, op, start_ps, duration_ps);
  // TPU ops timed by the device clock come a few out of place (0.7% of a pod
  // host's): put back in place as they come, where the finishing pass would
  // sort the device's whole array for them. Not on hosts: cpu_ordinals names
  // their events by place.
  if (!st.kind.is_host) settle_last_event(st.entity.events);
  return absl::OkStatus();
}

// jax's StepTraceAnnotation("train", step_num=3) and PyTorch/XLA's
// xp.StepTrace("train_step", step_num=3): a host TraceMe with a step_num
// stat marks a step, named "train 3".
void XPlaneAssembler::add_host_step(const XStatView& num, std::uint32_t op, std::int64_t start_ps,
                                    std::int64_t duration_ps) {
  std::string n;
  if (num.type == XStatType::kInt64) n = cat(num.i);
  else if (num.type == XStatType::kUint64) n = cat(num.u);
  else if (num.type == XStatType::kRef || num.type == XStatType::kStr) n = std::string(cur_->text_of(&num));
  else return;
  builder_.trace().host_steps.push_back(
      {.name = cat(builder_.trace().ops[op].name, " ", n), .start_ps = start_ps, .duration_ps = duration_ps});
}

void XPlaneAssembler::intern_dropped(std::int64_t metadata_id) {
  PlaneState& st = *cur_;
  const std::uint32_t slot = st.slot_of(metadata_id);
  if (slot == kNoSlot) {
    warn_undefined_metadata(metadata_id);
    (void)resolve_op(EventStats{}, metadata_id, slot);
    return;
  }
  MetaOp& m = st.meta[slot];
  if (!m.resolved) {
    m.op = resolve_op(EventStats{}, metadata_id, slot);
    m.resolved = true;
  }
  if (metadata_id < kDenseIds) {
    const auto id = static_cast<std::size_t>(metadata_id);
    if (id >= interned_dense_.size()) interned_dense_.resize(id + 1, 0);
    interned_dense_[id] = 1;
  }
}

void XPlaneAssembler::warn_undefined_metadata(std::int64_t metadata_id) {
  const std::string_view plane = planes_[cur_->index].name;
  warn_once(cat("meta:", plane), cat(origin_, ": plane '", plane, "': events refer to event metadata ", metadata_id,
                                     " which the plane does not define; named by id"));
}

// TPU op events carry their time on the device's own clock as well
// (device_offset_ps, device_duration_ps); the event's offset_ps/duration_ps
// are that time converted to the host clock piecewise, and an op that spans
// a resync point is stretched or shrunk by the jump (up to ~200 ms on
// tpu_v6e_x4_inference_2). XProf's op stats use the device clock
// (tsl GetDeviceEventTimespan), which places device_offset_ps on the same
// axis as line timestamp_ns x 1000 + offset_ps; so does this. Off the hot path
// for every plane but TPU ones.
void XPlaneAssembler::device_clock_time(const EventStats& es, std::int64_t& start_ps,
                                        std::int64_t& duration_ps) {
  auto as_ps = [](const XStatView& s) -> std::optional<std::int64_t> {
    if (s.type == XStatType::kInt64 && s.i >= 0) return s.i;
    if (s.type == XStatType::kUint64 && s.u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return static_cast<std::int64_t>(s.u);
    return std::nullopt;
  };
  const std::optional<std::int64_t> offset = as_ps(*es.device_offset), duration = as_ps(*es.device_duration);
  std::int64_t base_ps = 0, start = 0, end = 0;
  if (offset && duration && !__builtin_mul_overflow(base_ns_, 1000, &base_ps) &&
      !__builtin_sub_overflow(*offset, base_ps, &start) && !__builtin_add_overflow(start, *duration, &end)) {
    start_ps = start;
    duration_ps = *duration;
    return;
  }
  const std::string_view plane = planes_[cur_->index].name;
  warn_once(cat("devclock:", plane),
            cat(origin_, ": plane '", plane, "': device_offset_ps / device_duration_ps not a usable time (",
                type_name(es.device_offset->type), ", ", type_name(es.device_duration->type),
                "); such events keep their host-clock time"));
}

// An XLA:CPU thunk's device_ordinal, or nullopt (with a warning once) when it
// is not an ordinal.
std::optional<std::int32_t> XPlaneAssembler::device_ordinal(const XStatView& s) {
  if (s.type == XStatType::kInt64 && s.i >= 0 && s.i <= std::numeric_limits<std::int32_t>::max())
    return static_cast<std::int32_t>(s.i);
  if (s.type == XStatType::kUint64 && s.u <= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max()))
    return static_cast<std::int32_t>(s.u);
  const std::string_view plane = planes_[cur_->index].name;
  warn_once(cat("ordinal:", plane), cat(origin_, ": plane '", plane, "': device_ordinal is not an ordinal (",
                                        type_name(s.type), "); such events stay on the XLA:CPU device"));
  return std::nullopt;
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

}  // namespace roofline::detail
