// XPlaneAssembler's private parts shared by its .cc files (xplane_assembler.cc,
// xplane_stat_values.cc, xplane_events.cc): what a stat name means, the per-plane
// state, and the stats of one event. Not for other includers.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "src/trace/trace_builder.hpp"
#include "src/trace/xplane/xplane_assembler.hpp"

namespace roofline::detail {

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
  kStepNum,           // a host TraceMe that marks a step (jax StepTraceAnnotation, PyTorch/XLA StepTrace)
  kDeviceOffsetPs,    // TPU op events: start on the device's own clock
  kDeviceDurationPs,  // TPU op events: duration on the device's own clock
  kDeviceOrdinal,     // XLA:CPU thunks: the virtual device that ran them
};

// What a stat name means (kIgnored for names not read); defined with the
// stat readers in xplane_stat_values.cc.
StatKind stat_kind_of(std::string_view n);
// The name of a stat type, for warnings.
std::string_view type_name(XStatType t);

struct MetaOp {
  bool resolved = false;
  std::uint32_t op = 0;          // when no event stat changes the op
  OpInfo proto;                  // the op as the metadata alone describes it
};

// Metadata ids are arbitrary int64s but in practice small and dense; ids
// below this bound are looked up in a vector, others in a hash map.
constexpr std::int64_t kDenseIds = std::int64_t{1} << 20;
constexpr std::uint32_t kNoSlot = 0xffffffffu;

// What names one event's op beyond its metadata, and its correlation id.
struct XPlaneAssembler::EventStats {
  const XStatView* op = nullptr;      // hlo_op
  const XStatView* module = nullptr;  // hlo_module
  std::string_view step_name;
  const XStatView* step_num = nullptr;  // host TraceMes that mark a step
  std::optional<std::uint64_t> program_id;
  std::uint64_t correlation = 0;
  const XStatView* device_offset = nullptr;    // device_offset_ps
  const XStatView* device_duration = nullptr;  // device_duration_ps
  const XStatView* device_ordinal = nullptr;
};

// In a header so that add_event's helpers (kind_of, slot_of, event_stats,
// drop_stats_not_naming_op) stay inline in xplane_events.cc.
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
  // Host planes: (event index, device_ordinal) of the events that carry one,
  // for TraceBuilder to split XLA:CPU thunks into one device per ordinal.
  std::vector<std::pair<std::uint32_t, std::int32_t>> cpu_ordinals;
  bool drop_events = false;  // XPlaneAssembler::drops_host_events, for this plane
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
  // is new), and its correlation id. The kinds read here are those
  // index_metadata marks for event_stat_used.
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
        case StatKind::kStepNum: es.step_num = &s; break;
        case StatKind::kProgramId:
          if (s.type == XStatType::kUint64) es.program_id = s.u;
          else if (s.type == XStatType::kInt64) es.program_id = static_cast<std::uint64_t>(s.i);
          break;
        case StatKind::kCorrelationId:
          if (s.type == XStatType::kUint64) es.correlation = s.u;
          else if (s.type == XStatType::kInt64) es.correlation = static_cast<std::uint64_t>(s.i);
          break;
        case StatKind::kDeviceOffsetPs: es.device_offset = &s; break;
        case StatKind::kDeviceDurationPs: es.device_duration = &s; break;
        case StatKind::kDeviceOrdinal: es.device_ordinal = &s; break;
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

}  // namespace roofline::detail
