// A trace's device events reduced to what the match stage reads
// (roofline/measure/measured.hpp).
#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "roofline/measure/measured.hpp"
#include "src/measure/op_stats_parts.hpp"

namespace roofline {
namespace {

// An event the report groups into an op: on an op line, not a stream
// waiting (the report gives sync time in a note).
bool grouped(const Trace& t, const Device& d, const Event& e) {
  return d.lines[e.line].role == LineRole::kOps && t.ops[e.op].op_class != OpClass::kSync;
}

// Each op's last call and the index of its OpOccurrences: most ops run from
// one call, so add_occurrences asks its map only when an op's call changes,
// not at each event (2.6 M on a pod host's profile). One table for all
// devices, reset behind each (`ops` is indexed by op).
struct LastCall {
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct Entry {
    std::uint32_t call = 0, index = kNone;
  };
  std::vector<Entry> ops;
};

// The device's grouped events as OpOccurrences in order of first
// occurrence; `kind[i]` is the index of the i-th grouped event's.
void add_occurrences(const Trace& t, const Device& d, MeasuredDevice& out, std::vector<std::uint32_t>& kind,
                     LastCall& last) {
  absl::flat_hash_map<std::uint64_t, std::uint32_t> index;
  last.ops.resize(t.ops.size());
  std::vector<std::vector<std::int64_t>> self_ps;
  for (const Event& e : d.events) {
    if (!grouped(t, d, e)) continue;
    LastCall::Entry& l = last.ops[e.op];
    if (l.index == LastCall::kNone || l.call != e.call) {
      const std::uint64_t key = (std::uint64_t{e.op} << 32) | e.call;
      auto [it, fresh] = index.try_emplace(key, static_cast<std::uint32_t>(out.ops.size()));
      if (fresh) {
        out.ops.push_back({.op = e.op, .call = e.call});
        self_ps.emplace_back();
      }
      l = {.call = e.call, .index = it->second};
    }
    OpOccurrences& o = out.ops[l.index];
    o.count += 1;
    o.self_ps += e.self_ps;
    self_ps[l.index].push_back(e.self_ps);
    kind.push_back(l.index);
  }
  for (const OpOccurrences& o : out.ops) last.ops[o.op] = {};
  for (std::size_t i = 0; i < out.ops.size(); ++i) out.ops[i].runs = detail::to_runs(self_ps[i]);
}

// The mix of ops and the busy time of each of the device's own steps (the
// first kMaxReportSteps): the grouped events that start inside it.
void add_steps(const Trace& t, const Device& d, const std::vector<std::uint32_t>& kind, MeasuredDevice& out) {
  const std::size_t n = std::min(d.steps.size(), kMaxReportSteps);
  if (n == 0) return;
  // Steps are sorted by start but may overlap: an event belongs to every
  // step that holds its start, found walking back while an earlier step
  // could still reach it.
  std::vector<std::int64_t> starts(n), reach(n);
  for (std::size_t s = 0; s < n; ++s) {
    starts[s] = d.steps[s].start_ps;
    reach[s] = std::max(s > 0 ? reach[s - 1] : d.steps[s].start_ps, d.steps[s].start_ps + d.steps[s].duration_ps);
  }
  std::vector<std::vector<std::uint32_t>> in_step(n);
  std::vector<std::int64_t> busy(n, 0);
  std::size_t g = 0;
  for (const Event& e : d.events) {
    if (!grouped(t, d, e)) continue;
    const std::uint32_t k = kind[g++];
    auto s = static_cast<std::ptrdiff_t>(std::upper_bound(starts.begin(), starts.end(), e.start_ps) - starts.begin());
    for (--s; s >= 0 && reach[static_cast<std::size_t>(s)] > e.start_ps; --s) {
      const Step& st = d.steps[static_cast<std::size_t>(s)];
      if (e.start_ps >= st.start_ps + st.duration_ps) continue;
      in_step[static_cast<std::size_t>(s)].push_back(k);
      busy[static_cast<std::size_t>(s)] += e.self_ps;
    }
  }
  std::map<StepMix, std::uint32_t> known;
  for (std::size_t s = 0; s < n; ++s) {
    auto [it, fresh] = known.try_emplace(step_mix(std::exchange(in_step[s], {})),
                                         static_cast<std::uint32_t>(out.step_mixes.size()));
    if (fresh) out.step_mixes.push_back(it->first);
    out.steps.push_back({.busy_ps = busy[s], .mix = it->second});
  }
}

std::vector<TimedOccurrence> timeline(const Trace& t, const Device& d, const std::vector<std::uint32_t>& kind) {
  std::vector<TimedOccurrence> out;
  out.reserve(kind.size());
  std::size_t g = 0;
  for (const Event& e : d.events)
    if (grouped(t, d, e)) out.push_back({.start_ps = e.start_ps, .self_ps = e.self_ps, .occurrences = kind[g++]});
  std::stable_sort(out.begin(), out.end(),
                   [](const TimedOccurrence& a, const TimedOccurrence& b) { return a.start_ps < b.start_ps; });
  return out;
}

}  // namespace

StepMix step_mix(std::vector<std::uint32_t> occurrences) {
  std::sort(occurrences.begin(), occurrences.end());
  StepMix mix;
  for (std::uint32_t k : occurrences) {
    if (!mix.empty() && mix.back().first == k) ++mix.back().second;
    else mix.emplace_back(k, 1);
  }
  return mix;
}

MeasuredTrace measure(const Trace& trace, std::optional<int> device_id) {
  MeasuredTrace out{.device_id = device_id};
  out.devices.resize(trace.devices.size());
  detail::StatsParts stats =
      detail::compute_stats_parts(trace, OpStatsOptions{.device_id = device_id}, /*op_rows=*/false);
  std::vector<std::optional<std::size_t>> in_stats(trace.devices.size());
  for (std::size_t i = 0; i < stats.devices.size(); ++i) {
    DeviceStats& ds = stats.devices[i];
    in_stats[ds.device] = i;
    out.devices[ds.device].stats = std::move(ds);
  }
  bool timed_on_host_steps = false;  // a device before this one will be
  LastCall last;
  for (std::size_t di = 0; di < trace.devices.size(); ++di) {
    const Device& d = trace.devices[di];
    if (device_id && d.id != *device_id) continue;
    MeasuredDevice& m = out.devices[di];
    m.op_events = std::any_of(d.events.begin(), d.events.end(),
                              [&](const Event& e) { return d.lines[e.line].role == LineRole::kOps; });
    if (!m.op_events) continue;
    std::vector<std::uint32_t> kind;
    kind.reserve(d.events.size());  // an upper bound; pages never written cost nothing
    add_occurrences(trace, d, m, kind, last);
    add_steps(trace, d, kind, m);
    if (d.steps.empty() && !trace.host_steps.empty() && !timed_on_host_steps) {
      m.timeline = timeline(trace, d, kind);
      timed_on_host_steps = true;
    }
    m.skew = in_stats[di] ? std::move(stats.skew_inputs[*in_stats[di]]) : skew_inputs(trace, di);
  }
  return out;
}

}  // namespace roofline
