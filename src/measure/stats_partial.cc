// Partial op statistics (roofline/measure/stats_partial.hpp): made from a
// trace, merged, finished with the code of one pass (op_stats_parts.hpp),
// written and read as JSON (docs/partials.md) with nlohmann, every read
// error naming the file and the JSON path.
#include "roofline/measure/stats_partial.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/trace/read_parts.hpp"
#include "src/measure/op_stats_parts.hpp"
#include "src/measure/stats_file_read.hpp"

namespace roofline {
namespace {

using detail::cat;
using nlohmann::json;

// Sorts `devices` as read_traces does (stably by host, kind, id) and
// renumbers the statistics that point into them, keeping device_stats in
// device order as one pass lists them.
void sort_devices(StatsPartial& p) {
  const std::vector<std::size_t> order = detail::listing_order(p.devices);
  std::vector<std::size_t> new_index(order.size());
  std::vector<Device> devices;
  devices.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    new_index[order[i]] = i;
    devices.push_back(std::move(p.devices[order[i]]));
  }
  p.devices = std::move(devices);
  std::vector<std::size_t> by(p.device_stats.size());
  std::iota(by.begin(), by.end(), 0);
  for (DeviceStats& d : p.device_stats) d.device = new_index[d.device];
  std::sort(by.begin(), by.end(),
            [&](std::size_t a, std::size_t b) { return p.device_stats[a].device < p.device_stats[b].device; });
  std::vector<DeviceStats> stats;
  std::vector<std::int64_t> busy;
  std::vector<DeviceSkewInputs> skew;
  for (std::size_t i : by) {
    stats.push_back(std::move(p.device_stats[i]));
    busy.push_back(p.busy_self_ps[i]);
    skew.push_back(std::move(p.skew_inputs[i]));
  }
  p.device_stats = std::move(stats);
  p.busy_self_ps = std::move(busy);
  p.skew_inputs = std::move(skew);
}

// What TraceBuilder::intern_op tells ops apart by (but model_flops, which a
// partial does not keep).
using OpKey = std::tuple<std::string, std::optional<std::uint64_t>, std::string, std::string, std::string, std::string,
                         std::optional<std::int64_t>, std::optional<std::int64_t>>;
OpKey op_key(const OpInfo& o) {
  return {o.module, o.program_id, o.name, o.kernel, o.category, o.hlo_text, o.flops, o.bytes_accessed};
}

OpInfo stat_fields(const OpInfo& o) {
  OpInfo out;
  out.name = o.name;
  out.module = o.module;
  out.program_id = o.program_id;
  out.kernel = o.kernel;
  out.category = o.category;
  out.op_class = o.op_class;
  out.flops = o.flops;
  out.bytes_accessed = o.bytes_accessed;
  out.hlo_text = o.hlo_text;
  return out;
}

std::vector<DurationRun> merge_runs(const std::vector<DurationRun>& a, const std::vector<DurationRun>& b) {
  std::vector<DurationRun> out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].self_ps < b[j].self_ps)) out.push_back(a[i++]);
    else if (i == a.size() || b[j].self_ps < a[i].self_ps) out.push_back(b[j++]);
    else out.push_back({.self_ps = a[i].self_ps, .count = a[i++].count + b[j++].count});
  }
  return out;
}

// `in` with its ops renumbered, kept in op order as a partial holds them.
DeviceSkewInputs remap_ops(DeviceSkewInputs in, const std::vector<std::uint32_t>& remap) {
  for (CollectiveCalls& c : in.collectives) c.op = remap[c.op];
  std::sort(in.collectives.begin(), in.collectives.end(),
            [](const CollectiveCalls& x, const CollectiveCalls& y) { return x.op < y.op; });
  return in;
}

bool hosts_meet(const std::string& device_host, const std::string& host) {
  return device_host.empty() || host.empty() || device_host == host;
}

// The host a device of `a` shares with host timelines or steps of `b`, if any.
std::optional<std::string> shared_host(const StatsPartial& a, const StatsPartial& b) {
  for (const DeviceStats& d : a.device_stats)
    for (const std::string& h : b.host_names)
      if (hosts_meet(a.devices[d.device].host, h)) return a.devices[d.device].host.empty() ? h : a.devices[d.device].host;
  return std::nullopt;
}

absl::StatusOr<StatsPartial> merge_two(StatsPartial a, const StatsPartial& b) {
  const OpStatsOptions& x = a.options;
  const OpStatsOptions& y = b.options;
  if (x.device_id != y.device_id || x.idle_gaps != y.idle_gaps || x.host_activities != y.host_activities)
    return absl::InvalidArgumentError(cat(b.source, ": computed with other statistics options (--device) than ",
                                          a.source, "; partials merge only under equal options"));
  const std::set<std::string> files(a.files.begin(), a.files.end());
  for (const std::string& f : b.files)
    if (files.count(f)) return absl::InvalidArgumentError(cat(f, ": in two partials (", a.source, " and ", b.source, ")"));
  for (auto [p, q] : {std::pair<const StatsPartial*, const StatsPartial*>{&a, &b},
                      std::pair<const StatsPartial*, const StatsPartial*>{&b, &a}})
    if (auto h = shared_host(*p, *q))
      return absl::InvalidArgumentError(
          cat("host \"", *h, "\": devices of ", p->source, " and host timelines or steps of ", q->source,
              " share it, which one read would join; read them together (roofline stats A B) instead"));
  a.source += " " + b.source;
  a.files.insert(a.files.end(), b.files.begin(), b.files.end());
  a.formats.insert(a.formats.end(), b.formats.begin(), b.formats.end());
  for (auto [to, from] : {std::pair{&a.listing_warnings, &b.listing_warnings},
                          std::pair{&a.skipped_warnings, &b.skipped_warnings},
                          std::pair{&a.file_warnings, &b.file_warnings}})
    to->insert(to->end(), from->begin(), from->end());
  a.host_timelines += b.host_timelines;
  if (static_cast<std::int64_t>(a.host_timelines) > kMaxPartialHostTimelines)
    return absl::InvalidArgumentError(cat(a.source, ": more than ", kMaxPartialHostTimelines, " host timelines in all"));
  std::set<std::string> names(a.host_names.begin(), a.host_names.end());
  names.insert(b.host_names.begin(), b.host_names.end());
  a.host_names.assign(names.begin(), names.end());

  // Ops: b's new ones after a's, in b's order, as a read interns them.
  std::map<OpKey, std::uint32_t> index;
  for (std::size_t i = 0; i < a.ops.size(); ++i) index.emplace(op_key(a.ops[i]), static_cast<std::uint32_t>(i));
  std::vector<std::uint32_t> remap(b.ops.size());
  for (std::size_t i = 0; i < b.ops.size(); ++i) {
    auto [it, inserted] = index.emplace(op_key(b.ops[i]), static_cast<std::uint32_t>(a.ops.size()));
    if (inserted) a.ops.push_back(b.ops[i]);
    remap[i] = it->second;
  }
  std::map<std::pair<std::uint32_t, bool>, std::vector<DurationRun>> rows;
  for (OpDurations& r : a.rows) rows[{r.op, r.async}] = std::move(r.runs);
  for (const OpDurations& r : b.rows) {
    std::vector<DurationRun>& runs = rows[{remap[r.op], r.async}];
    runs = merge_runs(runs, r.runs);
  }
  a.rows.clear();
  for (auto& [key, runs] : rows) a.rows.push_back({.op = key.first, .async = key.second, .runs = std::move(runs)});

  const std::size_t offset = a.devices.size();
  a.devices.insert(a.devices.end(), b.devices.begin(), b.devices.end());
  for (std::size_t i = 0; i < b.device_stats.size(); ++i) {
    DeviceStats d = b.device_stats[i];
    d.device += offset;
    for (OpStat& o : d.ops) o.op = remap[o.op];
    a.device_stats.push_back(std::move(d));
    a.busy_self_ps.push_back(b.busy_self_ps[i]);
    a.skew_inputs.push_back(remap_ops(b.skew_inputs[i], remap));
  }
  // Identities (the first op of a key wins, as in a read) and ties by the
  // merged op order.
  for (DeviceStats& d : a.device_stats) {
    for (OpStat& o : d.ops) detail::fill_identity(o, a.ops[o.op]);
    detail::sort_by_total(d.ops);
  }
  // Each side holds at most kMaxPartialEvents, so this sum cannot overflow.
  std::int64_t events = 0;
  for (const OpDurations& d : a.rows)
    for (const DurationRun& run : d.runs) events += run.count;
  if (events > kMaxPartialEvents)
    return absl::InvalidArgumentError(cat(a.source, ": more than ", kMaxPartialEvents, " op events in all"));
  sort_devices(a);
  return a;
}

}  // namespace

namespace detail {

void name_hosts_by_stem(Trace& t) {
  if (t.files.size() != 1) return;
  const std::string stem = file_stem(t.files.front());
  for (std::vector<Device>* v : {&t.devices, &t.hosts})
    for (Device& d : *v)
      if (d.host.empty()) d.host = stem;
  for (Step& s : t.host_steps)
    if (s.host.empty()) s.host = stem;
}

StatsPartial partial_of_parts(Trace& t, StatsParts parts, const OpStatsOptions& options) {
  StatsPartial p;
  p.options = options;
  p.source = t.source;
  p.files = t.files;
  p.formats = t.formats;
  const std::size_t listing = std::min(t.listing_warnings, t.warnings.size());
  const std::size_t skipped = std::min(t.skipped_warnings, t.warnings.size() - listing);
  p.listing_warnings.assign(t.warnings.begin(), t.warnings.begin() + static_cast<std::ptrdiff_t>(listing));
  p.skipped_warnings.assign(t.warnings.begin() + static_cast<std::ptrdiff_t>(listing),
                            t.warnings.begin() + static_cast<std::ptrdiff_t>(listing + skipped));
  p.file_warnings.assign(t.warnings.begin() + static_cast<std::ptrdiff_t>(listing + skipped), t.warnings.end());
  p.host_timelines = t.hosts.size();
  std::set<std::string> names;
  for (const Device& h : t.hosts) names.insert(h.host);
  for (const Step& s : t.host_steps) names.insert(s.host);
  p.host_names.assign(names.begin(), names.end());

  // The ops with rows, in trace order (rows are sorted by op).
  std::map<std::uint32_t, std::uint32_t> index;
  for (OpDurations& r : parts.rows) {
    auto [it, inserted] = index.emplace(r.op, static_cast<std::uint32_t>(p.ops.size()));
    if (inserted) p.ops.push_back(stat_fields(t.ops[r.op]));
    r.op = it->second;
  }
  p.rows = std::move(parts.rows);
  for (DeviceStats& d : parts.devices)
    for (OpStat& o : d.ops) o.op = index.at(o.op);
  // Collective calls are op events on op lines: their ops have rows. Op
  // order is kept (ops are taken in trace order), so these stay by op.
  for (DeviceSkewInputs& in : parts.skew_inputs)
    for (CollectiveCalls& c : in.collectives) c.op = index.at(c.op);
  p.device_stats = std::move(parts.devices);
  p.busy_self_ps = std::move(parts.busy_self_ps);
  p.skew_inputs = std::move(parts.skew_inputs);
  for (Device& d : t.devices) {
    Device& id = p.devices.emplace_back();
    id.id = d.id;
    id.host = std::move(d.host);
    id.name = std::move(d.name);
    id.model = std::move(d.model);
    id.vendor = std::move(d.vendor);
    id.kind = d.kind;
    id.caps = d.caps;
  }
  for (DeviceStats& d : p.device_stats) d.host = p.devices[d.device].host;
  sort_devices(p);
  return p;
}

}  // namespace detail

StatsPartial stats_partial(Trace t, const OpStatsOptions& options) {
  // As one file among several: devices, hosts and host steps without a
  // host name take the file's stem.
  detail::name_hosts_by_stem(t);
  detail::StatsParts parts = detail::compute_stats_parts(t, options);
  return detail::partial_of_parts(t, std::move(parts), options);
}

absl::StatusOr<StatsPartial> merge_partials(std::span<const StatsPartial> parts) {
  if (parts.empty()) return absl::InvalidArgumentError("merge: no partial given");
  StatsPartial out = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) {
    ROOFLINE_ASSIGN_OR_RETURN(out, merge_two(std::move(out), parts[i]));
  }
  return out;
}

TraceStats finish_stats(const StatsPartial& p) {
  return detail::finish_stats(p.device_stats, p.busy_self_ps, p.skew_inputs, p.rows, p.ops);
}

Trace trace_outline(const StatsPartial& p) {
  Trace t;
  t.source = p.source;
  t.files = p.files;
  t.formats = p.formats;
  t.devices = p.devices;
  Device host;
  host.kind = DeviceKind::kCpu;
  t.hosts.resize(p.host_timelines, host);
  for (const std::vector<std::string>* w : {&p.listing_warnings, &p.skipped_warnings, &p.file_warnings})
    t.warnings.insert(t.warnings.end(), w->begin(), w->end());
  t.listing_warnings = p.listing_warnings.size();
  t.skipped_warnings = p.skipped_warnings.size();
  return t;
}

}  // namespace roofline
