// What every trace reader shares: interning ops and calls, naming line roles
// and planes, and the finishing pass (sorting, nesting and self time, module
// attribution, steps). Internal to src/trace.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "roofline/trace/trace.hpp"

namespace roofline::detail {

// XPlane and TSL plane names: "/device:TPU:3" -> {kTpu, 3}; hosts and
// metadata planes are not devices.
struct PlaneKind {
  bool is_device = false;
  bool is_host = false;
  DeviceKind kind = DeviceKind::kOther;
  int ordinal = 0;
};
PlaneKind classify_plane(std::string_view plane_name);

// The role of a line named `name` on a device of `kind`. On GPUs the op
// timeline is the raw "Stream #N" lines; "XLA Ops" there is viewer-derived.
LineRole device_line_role(DeviceKind kind, std::string_view name);

// Compute / collective / data movement / sync from the category and names
// (src/trace/op_class.cc).
OpClass classify_op(std::string_view category, std::string_view name, std::string_view kernel);

// "jit_f(12190760917235803885)" -> {"jit_f", 12190760917235803885}.
struct ModuleName {
  std::string name;
  std::optional<std::uint64_t> program_id;
};
ModuleName split_module_name(std::string_view s);

// Appends `s` to `out` with JSON whitespace outside strings removed.
void append_compact_json(std::string& out, std::string_view s);

// The order of a device's events (Device::events): by line, then start,
// then longest first.
inline bool event_order(const Event& a, const Event& b) {
  if (a.line != b.line) return a.line < b.line;
  if (a.start_ps != b.start_ps) return a.start_ps < b.start_ps;
  return a.duration_ps > b.duration_ps;
}

// One step of an insertion sort by event_order on the event just appended:
// moved back past the events that sort after it, where that is at most a few
// dozen places (a reader appending nearly sorted events calls it on each, and
// TraceBuilder::finish then finds them in order, with nothing to sort). It
// passes no event it ties with, so finish's stable sort of what is left out
// of place gives what it gives the events as they came.
void move_last_event_back(std::vector<Event>& events);  // the move, where the last sorts before the one before it
inline void settle_last_event(std::vector<Event>& events) {
  const std::size_t n = events.size();
  if (n >= 2 && event_order(events[n - 1], events[n - 2])) move_last_event_back(events);
}

class TraceBuilder {
 public:
  explicit TraceBuilder(std::string source) { trace_.source = std::move(source); }
  // Goes on with a finished trace: its ops and calls are interned as they are.
  explicit TraceBuilder(Trace t);

  Trace& trace() { return trace_; }

  // Equal ops (same module, program, name, kernel, category and HLO text)
  // share one index.
  std::uint32_t intern_op(OpInfo op);
  std::uint32_t intern_call(CallInfo call);
  // Equal scope paths share one index into Trace::scopes.
  std::uint32_t intern_scope(std::string path);
  // `c` of `from` with its scope interned here.
  CallInfo rebased_call(CallInfo c, const Trace& from) {
    if (c.scope != kNoScopePath) c.scope = intern_scope(from.scopes[c.scope]);
    return c;
  }

  // The XLA:CPU virtual device (device_ordinal) of events of host `host`
  // (index into Trace::hosts), as (event index, ordinal) in event order: its
  // XLA thunks become one device per ordinal instead of one "XLA:CPU".
  void set_device_ordinals(std::size_t host, std::vector<std::pair<std::uint32_t, std::int32_t>> ordinals) {
    device_ordinals_[host] = std::move(ordinals);
  }

  // Sorting, self time, modules for ops that lack them, steps. Call once.
  absl::Status finish();

 private:
  Trace trace_;
  absl::flat_hash_map<std::size_t, std::vector<std::pair<std::uint32_t, std::int32_t>>> device_ordinals_;
  absl::flat_hash_map<std::string, std::uint32_t> op_index_;
  absl::flat_hash_map<std::string, std::uint32_t> call_index_;
  absl::flat_hash_map<std::string, std::uint32_t> scope_index_;
  // The key of an op or a call, into key_.
  void op_key(const OpInfo& op);
  void call_key(const CallInfo& c);
  std::string key_;  // scratch
};

}  // namespace roofline::detail
