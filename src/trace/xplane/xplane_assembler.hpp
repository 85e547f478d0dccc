// Turns decoded XSpace contents into a roofline::Trace. A decoder (the
// streaming wire decoder in xplane_wire.cc; bench/ also drives it from
// libprotobuf messages to compare the two) hands it
//   1. every plane's metadata (views that must outlive the assembler), then
//   2. for each plane in the same order: begin_plane, its lines and events,
//   3. finish().
// Stats are resolved by their names, never by id (ids are per plane).
#pragma once

#include <cstdint>
#include <algorithm>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "roofline/trace/read.hpp"
#include "roofline/trace/read_plan.hpp"
#include "src/trace/trace_builder.hpp"

namespace roofline::detail {

enum class XStatType : std::uint8_t { kNone, kDouble, kUint64, kInt64, kStr, kBytes, kRef, kCompressedStr };

struct XStatView {
  std::int64_t metadata_id = 0;
  XStatType type = XStatType::kNone;
  double d = 0;
  std::uint64_t u = 0;  // uint64 and ref values
  std::int64_t i = 0;
  std::string_view s;   // str, bytes and compressed values
};

struct XEventMetadataView {
  std::int64_t id = 0;
  std::string_view name;
  std::string_view display_name;
  std::vector<XStatView> stats;
};

struct XPlaneView {
  std::int64_t id = 0;
  std::string_view name;
  std::vector<std::pair<std::int64_t, std::string_view>> stat_metadata;  // id, name
  std::vector<XEventMetadataView> event_metadata;
  std::vector<XStatView> stats;
  std::vector<std::int64_t> line_timestamps_ns;
  std::size_t event_count = 0;  // events in all lines, when the decoder knows (to reserve)
};

class XPlaneAssembler {
 public:
  // `plan`, when given, outlives the assembler; finish() fills its findings.
  XPlaneAssembler(std::string origin, const TraceReadOptions& options, XPlaneReadPlan* plan = nullptr);
  ~XPlaneAssembler();

  // Before pass 1, optionally: the name of every plane in file order, so
  // that whether a device plane exists (drops_host_events) is known while
  // pass 1 reads the planes before it.
  void note_plane_name(std::string_view name);
  // Pass 1, every plane in file order.
  void add_plane(XPlaneView plane);
  void add_hostname(std::string_view host) { hostnames_.emplace_back(host); }

  // Whether the events of the plane added `index`-th become a device's or a
  // host's: a device or host plane whose events are read (reads_events).
  bool keeps_events(std::size_t index) const;
  // Whether host planes' events are dropped: the caller wants no host
  // timelines (TraceReadOptions::host_timelines, XPlaneReadPlan::
  // skip_host_lines) and a device plane exists, so that no XLA:CPU device is
  // made of them. Known once every plane's name is noted (note_plane_name)
  // or, without that, after pass 1.
  bool drops_host_events() const;
  // Whether the events of a plane of this name are read at all: all but a
  // host plane's whose events are dropped, and a device plane's under
  // XPlaneReadPlan::skip_device_lines, since nothing reads them. Pass 1 then
  // does not look into its lines (nor take their timestamps into the time
  // base), and pass 2 has none to decode.
  bool reads_events(std::string_view plane_name) const;

  // Pass 2, planes in the order they were added.
  absl::Status begin_plane(std::size_t index);
  void begin_line(std::int64_t id, std::int64_t display_id, std::string_view name,
                  std::string_view display_name, std::int64_t timestamp_ns);
  // `at` is the byte offset of the event, for error messages.
  absl::Status add_event(std::int64_t metadata_id, std::int64_t offset_ps, std::int64_t duration_ps,
                         const std::vector<XStatView>& stats, std::uint64_t at);
  void end_plane();
  // Whether events of the current line may be dropped by their times alone
  // (XPlaneReadPlan::host_windows, a host plane).
  bool filters_events() const { return filters_; }
  // Under filters_events(): true when the event lies outside every window
  // and is dropped (its metadata id checked as add_event would); false when
  // add_event must have it: it overlaps a window, or its time is one
  // add_event refuses. Inline: it sees most of a pod host's events.
  bool drops_event(std::int64_t metadata_id, std::int64_t offset_ps, std::int64_t duration_ps) {
    std::int64_t start_ps = 0, end_ps = 0;
    if (duration_ps < 0 || filter_base_ps_ == std::numeric_limits<std::int64_t>::min() ||
        __builtin_add_overflow(filter_base_ps_, offset_ps, &start_ps) ||
        __builtin_add_overflow(start_ps, duration_ps, &end_ps))
      return false;
    // The first window ending after the event starts (the windows are
    // disjoint and in order, so their ends are too) overlaps it if it starts
    // before the event ends. A line's events mostly come in order of start:
    // the search goes on from the last event's window, back only by a
    // binary search.
    const std::vector<TimeWindow>& w = *windows_;
    std::size_t i = window_at_;
    if (i > 0 && w[i - 1].end_ps > start_ps)
      i = static_cast<std::size_t>(std::upper_bound(w.begin(), w.end(), start_ps,
                                                    [](std::int64_t v, const TimeWindow& x) { return v < x.end_ps; }) -
                                   w.begin());
    else
      while (i < w.size() && w[i].end_ps <= start_ps) ++i;
    window_at_ = i;
    if (i < w.size() && w[i].start_ps < end_ps) return false;
    // Its op, interned as add_event would (once per metadata).
    if (metadata_id < 0 || static_cast<std::uint64_t>(metadata_id) >= interned_dense_.size() ||
        interned_dense_[static_cast<std::size_t>(metadata_id)] == 0)
      intern_dropped(metadata_id);
    return true;
  }
  // Whether an event stat with this stat metadata id (of the current plane)
  // can change what add_event makes of the event; a decoder need not pass
  // the others.
  bool event_stat_used(std::int64_t metadata_id) const {
    if (metadata_id >= 0 && static_cast<std::uint64_t>(metadata_id) < event_stat_used_dense_.size())
      return event_stat_used_dense_[static_cast<std::size_t>(metadata_id)] != 0;
    return event_stat_used_sparse_.contains(metadata_id);
  }

  // Whether a stat with this id is a device_ordinal (dense ids only: a
  // sparse one answers false, which only costs a decode).
  bool device_ordinal_stat(std::int64_t metadata_id) const {
    return metadata_id >= 0 && static_cast<std::uint64_t>(metadata_id) < event_stat_used_dense_.size() &&
           event_stat_used_dense_[static_cast<std::size_t>(metadata_id)] == 2;
  }

  absl::StatusOr<Trace> finish();

  const std::string& origin() const { return origin_; }

 private:
  struct PlaneState;
  std::string origin_;
  TraceReadOptions options_;
  TraceBuilder builder_;
  std::vector<XPlaneView> planes_;
  std::vector<std::string> hostnames_;
  absl::flat_hash_map<std::uint64_t, std::string> module_by_program_;
  bool has_device_plane_ = false;  // among the planes noted or added so far
  bool base_computed_ = false;
  std::int64_t base_ns_ = 0;
  std::unique_ptr<PlaneState> cur_;
  XPlaneReadPlan* plan_ = nullptr;
  // drops_event's: the current line's time base, the windows, the one the
  // line's last event met.
  bool filters_ = false;  // filters_events()
  std::int64_t filter_base_ps_ = 0;
  const std::vector<TimeWindow>* windows_ = nullptr;
  std::size_t window_at_ = 0;
  // By dense metadata id: 1 once its op is interned (intern_dropped).
  std::vector<std::uint8_t> interned_dense_;
  // By stat metadata id, as PlaneState::kind_of: 1 used, 2 a device_ordinal.
  std::vector<std::uint8_t> event_stat_used_dense_;
  absl::flat_hash_set<std::int64_t> event_stat_used_sparse_;
  std::deque<std::string> owned_;  // inflated compressed strings
  std::uint64_t inflated_bytes_ = 0;  // their total, bounded by options_.max_inflated_bytes
  absl::flat_hash_map<std::string, bool> warned_;

  struct EventStats;

  void compute_time_base();
  void warn_undefined_metadata(std::int64_t metadata_id);
  void add_host_step(const XStatView& num, std::uint32_t op, std::int64_t start_ps, std::int64_t duration_ps);
  // What add_event does for an event of the usual shape but keep it: its
  // op interned (so the ops a read interns do not depend on the windows),
  // a warning (once) for an id the plane's metadata lacks.
  void intern_dropped(std::int64_t metadata_id);
  void warn_once(const std::string& key, std::string message);

  // begin_plane's steps.
  void index_metadata(const XPlaneView& p);
  void read_hlo_protos(const XPlaneView& p);
  void begin_entity(const XPlaneView& p);
  void read_device_stats(const XPlaneView& p, Device& d);
  void build_op_prototypes(const XPlaneView& p);
  void read_op_stat(const XStatView& s, OpInfo& op);
  // A stat of the current plane as a string, integer or number; a warning
  // (once per stat name) and nullopt when it has another type.
  std::optional<std::string_view> stat_str(const XStatView& s, std::string_view what);
  std::optional<std::int64_t> stat_int(const XStatView& s, std::string_view what);
  std::optional<std::int64_t> stat_count(const XStatView& s, std::string_view what);
  // stat_str without the length check.
  std::optional<std::string_view> stat_text(const XStatView& s, std::string_view what);
  std::optional<double> stat_num(const XStatView& s, std::string_view what);

  // add_event's steps (op_of_event is on the hot path: always inlined).
  absl::Status event_time_error(std::int64_t duration_ps, std::uint64_t at) const;
  void device_clock_time(const EventStats& es, std::int64_t& start_ps, std::int64_t& duration_ps);
  std::optional<std::int32_t> device_ordinal(const XStatView& s);
  [[gnu::always_inline]] inline std::uint32_t op_of_event(const EventStats& es, std::int64_t metadata_id,
                                                          std::uint32_t meta_slot);
  std::uint32_t resolve_op(const EventStats& es, std::int64_t metadata_id, std::uint32_t meta_slot);
};

}  // namespace roofline::detail
