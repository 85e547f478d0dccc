// Many files measured for the report without holding their events together
// (roofline/measure/measured.hpp): each file is read, named, measured and
// stripped of its device events on the thread that read it; the parts merge
// in file order as read_traces merges traces.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/measure/measured.hpp"
#include "roofline/trace/read_parts.hpp"

namespace roofline {
namespace {

using detail::cat;

struct FilePart {
  Trace trace;  // without device events
  MeasuredTrace measured;
};

// Device events go once measured; the rest of the trace (ops, calls,
// steps, HLO) stays for the match.
void drop_device_events(Trace& t) {
  for (Device& d : t.devices) {
    d.events.clear();
    d.events.shrink_to_fit();
  }
}

// The names a merge would give: done before measuring, so that a device's
// host steps (those of its host) are the ones a read of all files gives it.
void name_hosts(Trace& t, const std::string& host) {
  if (host.empty()) return;
  for (Device& d : t.devices)
    if (d.host.empty()) d.host = host;
  for (Device& d : t.hosts)
    if (d.host.empty()) d.host = host;
  for (Step& s : t.host_steps)
    if (s.host.empty()) s.host = host;
}

// The part's ops and calls as the merged trace numbers them.
void renumber(MeasuredDevice& d, const detail::PartRemap& remap) {
  for (OpOccurrences& o : d.ops) {
    o.op = remap.ops[o.op];
    if (o.call != kNoCall) o.call = remap.calls[o.call];
  }
  if (d.skew) {
    for (CollectiveCalls& c : d.skew->collectives) c.op = remap.ops[c.op];
    // By op, as skew_inputs lists them (merged op numbers keep no file's order).
    std::stable_sort(d.skew->collectives.begin(), d.skew->collectives.end(),
                     [](const CollectiveCalls& a, const CollectiveCalls& b) { return a.op < b.op; });
  }
}

// Host names per file: a device's host lends it that host's steps, so the
// measurement of one file is exact only when no other file has steps under
// that name. add() says whether the file just added meets such a clash.
class HostNames {
 public:
  bool add(const Trace& t, std::size_t file) {
    bool clash = false;
    for (const Device& d : t.devices) clash = clash || other_file(steps_, d.host, file);
    for (const Step& s : t.host_steps) clash = clash || other_file(devices_, s.host, file);
    for (const Device& d : t.devices) devices_.emplace(d.host, file);
    for (const Step& s : t.host_steps) steps_.emplace(s.host, file);
    return clash;
  }

 private:
  static bool other_file(const std::multimap<std::string, std::size_t>& names, const std::string& name,
                         std::size_t file) {
    auto [from, to] = names.equal_range(name);
    for (auto it = from; it != to; ++it)
      if (it->second != file) return true;
    return false;
  }
  std::multimap<std::string, std::size_t> devices_, steps_;
};

// The file's devices in the order one read lists them, so that measure()
// keeps the host-step timeline of the device that will come first.
void sort_devices(Trace& t) {
  const std::vector<std::size_t> order = detail::listing_order(t.devices);
  std::vector<Device> sorted;
  sorted.reserve(order.size());
  for (std::size_t i : order) sorted.push_back(std::move(t.devices[i]));
  t.devices = std::move(sorted);
}

using DeviceKey = std::tuple<std::string, DeviceKind, int>;

DeviceKey key_of(const Device& d) { return {d.host, d.kind, d.id}; }

// The parts of several files merged, or nothing when they cannot be merged
// exactly (HostNames; host steps timing a device whose file had none).
absl::StatusOr<std::optional<MeasuredRead>> merge_measured(const detail::InputListing& in,
                                                           const TraceReadOptions& read,
                                                           std::optional<int> device_id) {
  auto map = [&](std::size_t i, absl::StatusOr<Trace> t) -> absl::StatusOr<FilePart> {
    if (!t.ok()) return t.status();
    name_hosts(*t, detail::host_of_part(in.files, i));
    sort_devices(*t);
    MeasuredTrace m = measure(*t, device_id);
    // Dropped as drop_device_events drops them, their arrays kept for the
    // thread's next file.
    detail::keep_for_next_file(*t, detail::KeptTimelines::kDevices);
    return FilePart{.trace = *std::move(t), .measured = std::move(m)};
  };
  detail::TraceMerge b(in.source);
  std::vector<MeasuredDevice> devices;
  std::vector<std::string> warnings = in.warnings;
  const std::size_t listing_warnings = warnings.size();
  HostNames hosts;
  bool clash = false;
  // Only the first selected device without steps of its own, in the order
  // one read sorts devices, may be timed on the host's steps: keep that
  // one's timeline as files arrive (a later file's takes its place only if
  // it sorts strictly first).
  std::optional<std::pair<DeviceKey, std::size_t>> host_timed;
  std::size_t parts = 0;
  absl::Status error;
  detail::read_in_order(in.files, read, map, [&](std::size_t i, absl::StatusOr<FilePart> part) {
    if (auto go_on = detail::unread(in.files[i], part.status(), warnings, error)) return *go_on;
    if (hosts.add(part->trace, i)) {
      clash = true;
      return false;
    }
    const std::size_t first = devices.size();
    std::vector<DeviceKey> keys;
    std::vector<bool> own_steps;
    for (const Device& d : part->trace.devices) {
      keys.push_back(key_of(d));
      own_steps.push_back(!d.steps.empty());
    }
    const detail::PartRemap remap = detail::merge_part(b, std::move(part->trace), "");
    for (std::size_t k = 0; k < part->measured.devices.size(); ++k) {
      MeasuredDevice& d = part->measured.devices[k];
      renumber(d, remap);
      if (d.op_events && !own_steps[k]) {
        if (!host_timed || keys[k] < host_timed->first) {
          if (host_timed) devices[host_timed->second].timeline.reset();
          host_timed.emplace(keys[k], first + k);
        } else {
          d.timeline.reset();
        }
      }
      devices.push_back(std::move(d));
    }
    ++parts;
    return true;
  });
  if (clash) return std::nullopt;
  if (!error.ok()) return error;
  if (parts == 0) return detail::no_trace_among(in.source, in.files.size(), warnings);
  Trace& t = b.trace();
  if (host_timed && !t.host_steps.empty() && !devices[host_timed->second].timeline) return std::nullopt;
  const std::vector<std::size_t> order = detail::finish_merge(t, std::move(warnings), listing_warnings);
  MeasuredRead out{.measured = {.device_id = device_id}};
  out.measured.devices.reserve(order.size());
  for (std::size_t i : order) {
    out.measured.devices.push_back(std::move(devices[i]));
    if (out.measured.devices.back().stats) out.measured.devices.back().stats->device = out.measured.devices.size() - 1;
  }
  out.trace = std::move(t);
  return out;
}

}  // namespace

absl::StatusOr<MeasuredRead> read_measured(const std::vector<std::string>& paths_or_globs,
                                           const TraceReadOptions& read, std::optional<int> device_id) {
  TraceReadOptions options = read;
  options.host_timelines = false;  // the report reads none: never held for many files
  ROOFLINE_ASSIGN_OR_RETURN(detail::InputListing in, detail::list_inputs(paths_or_globs));
  if (!in.single && in.files.size() >= 2) {
    ROOFLINE_ASSIGN_OR_RETURN(std::optional<MeasuredRead> merged, merge_measured(in, options, device_id));
    if (merged) return *std::move(merged);
  }
  // One file, or files whose measurements would not merge exactly: one read.
  ROOFLINE_ASSIGN_OR_RETURN(Trace t, read_traces(paths_or_globs, options));
  MeasuredTrace m = measure(t, device_id);
  drop_device_events(t);
  return MeasuredRead{.trace = std::move(t), .measured = std::move(m)};
}

}  // namespace roofline
