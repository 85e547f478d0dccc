// compute_op_stats: each device's pass over its events (busy time, idle
// gaps and what the host did in them, categories, steps), then the figures
// over all devices. One op row's figures: op_rows.cc.
#include "roofline/measure/op_stats.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <stdexcept>

#include "absl/container/flat_hash_map.h"
#include "src/measure/op_stats_parts.hpp"

namespace roofline {
namespace {

constexpr double kPs = 1e-12;

struct Interval {
  std::int64_t start, end;
};

// Sorted, disjoint union of `v`.
std::vector<Interval> merge(std::vector<Interval> v) {
  // The busy segments of a device with one op line come sorted already.
  auto by_start = [](const Interval& a, const Interval& b) { return a.start < b.start; };
  if (!std::is_sorted(v.begin(), v.end(), by_start)) std::sort(v.begin(), v.end(), by_start);
  // In place: the merged list is never longer than what has been read.
  std::size_t n = 0;
  for (std::size_t k = 0; k < v.size(); ++k) {
    const Interval i = v[k];
    if (i.end <= i.start) continue;
    if (n > 0 && i.start <= v[n - 1].end) v[n - 1].end = std::max(v[n - 1].end, i.end);
    else v[n++] = i;
  }
  v.resize(n);
  return v;
}

std::int64_t length(const std::vector<Interval>& v) {
  std::int64_t n = 0;
  for (const Interval& i : v) n += i.end - i.start;
  return n;
}

struct Accum {
  std::vector<std::int64_t> self_ps;  // with op rows only
  std::int64_t count = 0;
  std::int64_t total_ps = 0;  // of self times; kExactPs: too long or negative to be exact
  bool async = false;
};

// Below 2^53 ps (2.5 hours), a double holds every partial sum of integer
// self times exactly: a total from the integers is the one finish_op sums
// in order.
constexpr std::int64_t kExactPs = std::int64_t{1} << 53;

// An op on an async line (copy-start in flight) and the same op on the op
// line (its issue) are different rows.
std::uint64_t row_key(std::uint32_t op, bool async) { return (std::uint64_t{op} << 1) | (async ? 1 : 0); }

struct Segment {
  std::int64_t start, end;
  std::uint32_t op;
};

// A timeline as segments naming the innermost event running: on a host, so
// a gap is explained by what the host was actually doing, not by its outer
// frames; on a device, each op's self time as intervals. Events are given
// with add() in their timeline's order (Device::events), finish() after the
// last; `emit(Segment)` gets the segments in order within each line.
template <class Emit>
class Innermost {
 public:
  explicit Innermost(Emit emit) : emit_(std::move(emit)) {}
  void add(const Event& e) {
    if (e.line != line_) {
      drain(std::numeric_limits<std::int64_t>::max());
      line_ = e.line;
      cursor_ = e.start_ps;
    }
    drain(e.start_ps);
    if (!stack_.empty()) emit(stack_.back(), cursor_, e.start_ps);
    cursor_ = std::max(cursor_, e.start_ps);
    stack_.push_back(&e);
  }
  void finish() { drain(std::numeric_limits<std::int64_t>::max()); }

 private:
  void emit(const Event* e, std::int64_t from, std::int64_t to) {
    if (to > from) emit_(Segment{from, to, e->op});
  }
  void drain(std::int64_t until) {
    while (!stack_.empty() && stack_.back()->end_ps() <= until) {
      emit(stack_.back(), cursor_, stack_.back()->end_ps());
      cursor_ = std::max(cursor_, stack_.back()->end_ps());
      stack_.pop_back();
    }
  }
  Emit emit_;
  std::vector<const Event*> stack_;
  std::int64_t cursor_ = 0;
  std::uint32_t line_ = ~0u;
};

std::optional<StepStats> step_stats(const std::vector<Step>& steps, bool from_host) {
  if (steps.empty()) return std::nullopt;
  std::vector<std::int64_t> d;
  for (const Step& s : steps) d.push_back(s.duration_ps);
  std::sort(d.begin(), d.end());
  StepStats st;
  st.from_host = from_host;
  st.count = static_cast<std::int64_t>(d.size());
  double total = 0;
  for (std::int64_t x : d) total += static_cast<double>(x);
  st.mean_s = total * kPs / static_cast<double>(d.size());
  const std::size_t n = d.size();
  st.median_s = (n % 2 ? static_cast<double>(d[n / 2])
                       : 0.5 * (static_cast<double>(d[n / 2 - 1]) + static_cast<double>(d[n / 2]))) *
                kPs;
  st.min_s = static_cast<double>(d.front()) * kPs;
  st.max_s = static_cast<double>(d.back()) * kPs;
  return st;
}

// One device's op events: self times per op row, the window of its busy
// ops and the sum of their self times.
struct DeviceEvents {
  std::vector<std::pair<std::uint64_t, Accum>> ops;  // by row_key, in order of first event
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  std::int64_t busy_self_ps = 0, events = 0;
};

// Rows by a dense index of row keys (a hash lookup per event was most of
// collect_events on a pod host's 2.6 M device events): one table for all
// devices, cleared behind each, so that many devices cost their events,
// not their number times the ops.
constexpr std::uint32_t kNoSlot = ~std::uint32_t{0};

DeviceEvents collect_events(const Trace& t, const Device& d, bool op_rows, std::vector<std::uint32_t>& slot) {
  DeviceEvents out;
  slot.resize(2 * t.ops.size(), kNoSlot);
  for (const Event& e : d.events) {
    const LineRole role = d.lines[e.line].role;
    if (role != LineRole::kOps && role != LineRole::kAsyncOps) continue;
    const bool async = role == LineRole::kAsyncOps;
    ++out.events;
    const std::uint64_t key = row_key(e.op, async);
    assert(e.op < t.ops.size());  // Trace's invariant (trace.hpp): every reader keeps it
    if (slot[key] == kNoSlot) {
      slot[key] = static_cast<std::uint32_t>(out.ops.size());
      out.ops.emplace_back(key, Accum{});
      out.ops.back().second.async = async;
    }
    Accum& a = out.ops[slot[key]].second;
    if (op_rows) a.self_ps.push_back(e.self_ps);
    a.count += 1;
    // Saturated (rows needed after all) by a negative self time or a long total.
    a.total_ps = e.self_ps < 0 || a.total_ps > kExactPs - e.self_ps ? kExactPs : a.total_ps + e.self_ps;
    if (async || t.ops[e.op].op_class == OpClass::kSync) continue;
    out.busy_self_ps += e.self_ps;
    out.first = std::min(out.first, e.start_ps);
    out.last = std::max(out.last, e.end_ps());
  }
  for (const auto& [key, a] : out.ops) slot[key] = kNoSlot;
  return out;
}

// Idle gaps between busy stretches, largest first (ties: earlier first);
// their host activity is filled later, per host (add_host_activity).
std::vector<Interval> largest_gaps(const std::vector<Interval>& busy_u, std::size_t keep) {
  std::vector<Interval> gaps;
  for (std::size_t i = 1; i < busy_u.size(); ++i) gaps.push_back({busy_u[i - 1].end, busy_u[i].start});
  auto larger = [](const Interval& a, const Interval& b) {
    return (a.end - a.start) > (b.end - b.start) || ((a.end - a.start) == (b.end - b.start) && a.start < b.start);
  };
  // A total order (starts differ): the first `keep` are those a full sort gives.
  const std::size_t k = std::min(keep, gaps.size());
  std::partial_sort(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(k), gaps.end(), larger);
  gaps.resize(k);
  return gaps;
}

IdleGap idle_gap(const Interval& g) {
  return {.start_s = static_cast<double>(g.start) * kPs, .duration_s = static_cast<double>(g.end - g.start) * kPs,
          .host = {}};
}

}  // namespace

namespace detail {

// What the host was doing during each device's largest gaps: per host event
// name, the time it was innermost on the host timelines of the device's
// host (all host timelines when either side names no host), largest first.
// One pass over each host's timelines serves all its devices' gaps, so the
// host's events are never held as segments.
void add_host_activity(const Trace& t, StatsParts& parts, const OpStatsOptions& options) {
  std::vector<DeviceStats>& devices = parts.devices;
  const std::vector<std::vector<TimeWindow>>& gaps = parts.gaps;
  const std::size_t keep = options.idle_gaps;
  if (t.hosts.empty()) return;
  std::map<std::string, std::vector<std::size_t>> by_host;  // device host -> indexes into `devices`
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (!gaps[i].empty()) by_host[devices[i].host].push_back(i);
  for (const auto& [host, members] : by_host) {
    struct Target {
      TimeWindow gap;
      absl::flat_hash_map<std::uint32_t, std::int64_t>* by_op;
    };
    std::vector<absl::flat_hash_map<std::uint32_t, std::int64_t>> by_op(members.size() * keep);
    std::vector<Target> targets;
    for (std::size_t m = 0; m < members.size(); ++m)
      for (std::size_t g = 0; g < gaps[members[m]].size(); ++g)
        targets.push_back({gaps[members[m]][g], &by_op[m * keep + g]});
    std::sort(targets.begin(), targets.end(),
              [](const Target& a, const Target& b) { return a.gap.start_ps < b.gap.start_ps; });
    std::int64_t longest = 0;
    for (const Target& x : targets) longest = std::max(longest, x.gap.end_ps - x.gap.start_ps);
    for (const Device& h : t.hosts) {
      if (!host.empty() && !h.host.empty() && h.host != host) continue;
      // Within a line segments come in order of start, so the first gap that
      // could reach one only moves forward: found by stepping on from the
      // last, and by a binary search when a new line starts earlier.
      auto first = targets.begin();
      std::int64_t last_from = std::numeric_limits<std::int64_t>::max();
      Innermost walk([&](const Segment& seg) {
        // Gaps that start before the segment ends and end after it starts:
        // by start, from the first that could still reach it.
        const std::int64_t from = seg.start - longest;
        if (from < last_from)
          first = std::lower_bound(targets.begin(), targets.end(), from,
                                   [](const Target& x, std::int64_t v) { return x.gap.start_ps < v; });
        else
          while (first != targets.end() && first->gap.start_ps < from) ++first;
        last_from = from;
        for (auto it = first; it != targets.end() && it->gap.start_ps < seg.end; ++it) {
          const std::int64_t a = std::max(seg.start, it->gap.start_ps), b = std::min(seg.end, it->gap.end_ps);
          if (b > a) (*it->by_op)[seg.op] += b - a;
        }
      });
      for (const Event& e : h.events) walk.add(e);
      walk.finish();
    }
    for (std::size_t m = 0; m < members.size(); ++m)
      for (std::size_t g = 0; g < gaps[members[m]].size(); ++g) {
        std::map<std::string, std::int64_t> by_name;
        for (const auto& [op, ps] : by_op[m * keep + g]) by_name[t.ops[op].name] += ps;
        std::vector<HostActivity>& out = devices[members[m]].idle_gaps[g].host;
        for (const auto& [name, ps] : by_name) out.push_back({.name = name, .overlap_s = static_cast<double>(ps) * kPs});
        std::sort(out.begin(), out.end(), [](const HostActivity& a, const HostActivity& b) {
          return a.overlap_s != b.overlap_s ? a.overlap_s > b.overlap_s : a.name < b.name;
        });
        if (out.size() > options.host_activities) out.resize(options.host_activities);
      }
  }
}

}  // namespace detail

namespace {

// Rank of a class in the split of busy time: an instant when ops of several
// classes run is charged to the lowest rank.
int class_rank(OpClass c) {
  switch (c) {
    case OpClass::kCompute: return 0;
    case OpClass::kCollective: return 1;
    case OpClass::kDataMovement: return 2;
    case OpClass::kSync: return 3;
  }
  return 3;
}

// Busy time charged to each key: at every instant, the lowest key among the
// segments running. The charges add up to the length of the segments' union.
// `key_of`: each op's key, by op index.
std::vector<std::int64_t> charge(const std::vector<Segment>& segs, const std::vector<std::uint32_t>& key_of,
                                 std::size_t keys) {
  struct Edge {
    std::int64_t at;
    std::size_t key;
    int delta;
  };
  std::vector<std::int64_t> out(keys, 0);
  // Every segment's op has a key (fill_busy); were one without, this throws
  // as a map's at() would, rather than write out of bounds.
  auto key = [&](const Segment& s) -> std::size_t {
    const std::size_t k = key_of[s.op];
    if (k >= keys) throw std::out_of_range("charge: an op without a category");
    return k;
  };
  // The segments of one op line are disjoint and in order: each is charged
  // its own length, as the sweep below would.
  if (std::adjacent_find(segs.begin(), segs.end(),
                         [](const Segment& a, const Segment& b) { return b.start < a.end; }) == segs.end()) {
    for (const Segment& s : segs) out[key(s)] += s.end - s.start;
    return out;
  }
  std::vector<Edge> edges;
  edges.reserve(2 * segs.size());
  for (const Segment& s : segs) {
    const std::size_t k = key(s);
    edges.push_back({s.start, k, +1});
    edges.push_back({s.end, k, -1});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.at < b.at; });
  std::vector<std::int64_t> running(keys, 0);
  // The keys running and the lowest of them (`keys` when none): keys are
  // the few categories of a device, so a scan beats a node per edge.
  std::vector<char> active(keys, 0);
  std::size_t lowest = keys;
  std::int64_t prev = 0;
  for (const Edge& e : edges) {
    if (lowest < keys) out[lowest] += e.at - prev;
    prev = e.at;
    if ((running[e.key] += e.delta) == 0) {
      active[e.key] = 0;
      if (e.key == lowest)
        while (lowest < keys && !active[lowest]) ++lowest;
    } else {
      active[e.key] = 1;
      lowest = std::min(lowest, e.key);
    }
  }
  return out;
}

// Window, busy, idle, the split of busy time by class and category, and sync
// time of a device with op events; returns the busy stretches (empty when
// the busy ops took no time).
std::vector<Interval> fill_busy(const Trace& t, const Device& d, DeviceStats& ds, const DeviceEvents& ev) {
  // Categories of the busy rows, ranked: class, then more self time first.
  std::map<std::pair<std::string, OpClass>, CategoryStat> by;
  for (const OpStat& o : ds.ops) {
    if (o.async) continue;
    CategoryStat& c = by[{o.category, o.op_class}];
    c.category = o.category;
    c.op_class = o.op_class;
    c.count += o.count;
    c.total_s += o.total_s;
  }
  std::vector<CategoryStat> cats;
  for (auto& [k, c] : by) cats.push_back(std::move(c));
  std::sort(cats.begin(), cats.end(), [](const CategoryStat& a, const CategoryStat& b) {
    if (class_rank(a.op_class) != class_rank(b.op_class)) return class_rank(a.op_class) < class_rank(b.op_class);
    if (a.total_s != b.total_s) return a.total_s > b.total_s;
    return a.category < b.category;
  });
  // By op index, not hashed: charge looks up every op event's segment (2.6 M
  // on a pod host's profile). Every op on an op line has a row that is not
  // async, so every segment's op has its key.
  std::vector<std::uint32_t> key_of(t.ops.size(), kNoSlot);
  for (const OpStat& o : ds.ops) {
    if (o.async) continue;
    for (std::size_t k = 0; k < cats.size(); ++k)
      if (cats[k].category == o.category && cats[k].op_class == o.op_class) key_of[o.op] = static_cast<std::uint32_t>(k);
  }

  // Work and sync waits on the op lines, as two walks in one pass. Room for
  // one work segment per op event (async ones included: an upper bound on
  // the usual count; a parent split by its children makes more): grown by
  // copying, the vector was a fifth of the statistics' page faults on a pod
  // host's profile.
  std::vector<Segment> work, sync;
  work.reserve(static_cast<std::size_t>(ev.events));
  Innermost work_walk([&](const Segment& seg) { work.push_back(seg); });
  Innermost sync_walk([&](const Segment& seg) { sync.push_back(seg); });
  for (const Event& e : d.events) {
    if (d.lines[e.line].role != LineRole::kOps) continue;
    if (t.ops[e.op].op_class == OpClass::kSync) sync_walk.add(e);
    else work_walk.add(e);
  }
  work_walk.finish();
  sync_walk.finish();
  const std::vector<std::int64_t> charged = charge(work, key_of, cats.size());
  std::vector<Interval> busy_u, sync_u;
  busy_u.reserve(work.size());
  sync_u.reserve(sync.size());
  for (const Segment& s : work) busy_u.push_back({s.start, s.end});
  for (const Segment& s : sync) sync_u.push_back({s.start, s.end});
  busy_u = merge(std::move(busy_u));
  ds.sync_s = static_cast<double>(length(merge(std::move(sync_u)))) * kPs;

  const std::int64_t busy_ps = length(busy_u);
  std::int64_t by_class[4] = {0, 0, 0, 0};
  const double denominator = static_cast<double>(ev.busy_self_ps) * kPs;
  for (std::size_t k = 0; k < cats.size(); ++k) {
    by_class[class_rank(cats[k].op_class)] += charged[k];
    cats[k].busy_s = static_cast<double>(charged[k]) * kPs;
    cats[k].busy_share = busy_ps > 0 ? static_cast<double>(charged[k]) / static_cast<double>(busy_ps) : 0;
    cats[k].share = denominator > 0 ? cats[k].total_s / denominator : 0;
  }
  std::stable_sort(cats.begin(), cats.end(), [](const CategoryStat& a, const CategoryStat& b) {
    if (a.busy_s != b.busy_s) return a.busy_s > b.busy_s;
    return a.total_s > b.total_s;
  });
  ds.categories = std::move(cats);
  if (busy_u.empty()) return busy_u;
  ds.window_s = static_cast<double>(ev.last - ev.first) * kPs;
  ds.busy_s = static_cast<double>(busy_ps) * kPs;
  ds.idle_s = ds.window_s - ds.busy_s;
  ds.duty_cycle = ds.window_s > 0 ? ds.busy_s / ds.window_s : 1.0;
  ds.compute_s = static_cast<double>(by_class[0]) * kPs;
  ds.collective_s = static_cast<double>(by_class[1]) * kPs;
  ds.data_movement_s = static_cast<double>(by_class[2]) * kPs;
  return busy_u;
}

// Over all devices: the categories by (category, class), their sums.
std::vector<CategoryStat> merge_categories(const std::vector<DeviceStats>& devices, double denominator_s,
                                           double busy_s) {
  std::map<std::pair<std::string, OpClass>, CategoryStat> by;
  for (const DeviceStats& d : devices)
    for (const CategoryStat& c : d.categories) {
      CategoryStat& m = by[{c.category, c.op_class}];
      m.category = c.category;
      m.op_class = c.op_class;
      m.count += c.count;
      m.total_s += c.total_s;
      m.busy_s += c.busy_s;
    }
  std::vector<CategoryStat> out;
  for (auto& [k, c] : by) {
    c.share = denominator_s > 0 ? c.total_s / denominator_s : 0;
    c.busy_share = busy_s > 0 ? c.busy_s / busy_s : 0;
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const CategoryStat& a, const CategoryStat& b) {
    if (a.busy_s != b.busy_s) return a.busy_s > b.busy_s;
    return a.total_s > b.total_s;
  });
  return out;
}

}  // namespace

namespace detail {

std::vector<Step> device_step_list(const Trace& t, const Device& d) {
  if (!d.steps.empty()) return d.steps;
  std::vector<Step> mine;
  for (const Step& s : t.host_steps)
    if (s.host.empty() || s.host == d.host) mine.push_back(s);
  return mine;
}

DeviceStats device_identity(const Device& d, std::size_t index) {
  DeviceStats ds;
  ds.device = index;
  ds.id = d.id;
  ds.name = d.name;
  ds.host = d.host;
  ds.model = d.model;
  return ds;
}

StatsParts compute_stats_parts(const Trace& t, const OpStatsOptions& options, bool op_rows) {
  StatsParts out = compute_device_parts(t, options, op_rows);
  add_host_activity(t, out, options);
  return out;
}

StatsParts compute_device_parts(const Trace& t, const OpStatsOptions& options, bool op_rows) {
  StatsParts out;
  // The rows over all devices, from each device's runs: the same runs as
  // all their events' self times would give, without holding those.
  absl::flat_hash_map<std::uint64_t, OpDurations> all_ops;
  std::vector<std::uint32_t> slot;  // collect_events'
  for (std::size_t di = 0; di < t.devices.size(); ++di) {
    const Device& d = t.devices[di];
    if (options.device_id && d.id != *options.device_id) continue;
    DeviceEvents ev = collect_events(t, d, op_rows, slot);
    if (ev.events == 0) continue;
    // Without op rows, fill_busy needs each op's count and total only, which
    // need no sorted self times, unless a total is too long to be exact.
    const bool rows_here = op_rows || std::any_of(ev.ops.begin(), ev.ops.end(), [](const auto& kv) {
      return kv.second.total_ps >= kExactPs;
    });
    if (rows_here && !op_rows) ev = collect_events(t, d, true, slot);
    DeviceStats ds = device_identity(d, di);
    ds.op_events = ev.events;
    const double denominator = static_cast<double>(ev.busy_self_ps) * kPs;
    for (auto& [key, a] : ev.ops) {
      const auto op = static_cast<std::uint32_t>(key >> 1);
      if (!rows_here) {
        ds.ops.push_back(detail::op_totals(t.ops[op], op, a.async, a.count, a.total_ps));
        continue;
      }
      const std::vector<DurationRun> runs = detail::to_runs(a.self_ps);
      ds.ops.push_back(detail::finish_op(t.ops[op], op, a.async, runs, denominator));
      if (!op_rows) continue;
      OpDurations& row = all_ops[key];
      row.op = op;
      row.async = a.async;
      detail::add_runs(row.runs, runs);
    }
    ev.ops.clear();
    sort_by_total(ds.ops);
    const std::vector<Interval> busy = fill_busy(t, d, ds, ev);
    if (!op_rows) ds.ops.clear();
    std::vector<TimeWindow>& gaps = out.gaps.emplace_back();
    if (!busy.empty())
      for (const Interval& g : largest_gaps(busy, options.idle_gaps)) {
        gaps.push_back({.start_ps = g.start, .end_ps = g.end});
        ds.idle_gaps.push_back(idle_gap(g));
      }
    ds.steps = step_stats(device_step_list(t, d), d.steps.empty());
    out.busy_self_ps.push_back(ev.busy_self_ps);
    out.skew_inputs.push_back(skew_inputs(t, di));
    out.devices.push_back(std::move(ds));
  }
  for (auto& [key, row] : all_ops) out.rows.push_back(std::move(row));
  std::sort(out.rows.begin(), out.rows.end(), [](const OpDurations& a, const OpDurations& b) {
    return a.op != b.op ? a.op < b.op : a.async < b.async;
  });
  return out;
}

TraceStats finish_stats(std::vector<DeviceStats> devices, const std::vector<std::int64_t>& busy_self_ps,
                        const std::vector<DeviceSkewInputs>& skew_inputs, const std::vector<OpDurations>& rows,
                        const std::vector<OpInfo>& ops) {
  TraceStats out;
  double all_denominator = 0, window_sum = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceStats& ds = devices[i];
    all_denominator += static_cast<double>(busy_self_ps[i]) * kPs;
    out.busy_s += ds.busy_s;
    out.idle_s += ds.idle_s;
    out.sync_s += ds.sync_s;
    window_sum += ds.window_s;
  }
  out.devices = std::move(devices);
  out.duty_cycle = window_sum > 0 ? out.busy_s / window_sum : 0;
  for (const OpDurations& r : rows) out.ops.push_back(detail::finish_op(ops[r.op], r.op, r.async, r.runs, all_denominator));
  sort_by_total(out.ops);
  out.categories = merge_categories(out.devices, all_denominator, out.busy_s);
  if (out.devices.size() >= 2) {
    std::vector<std::size_t> indices;
    for (const DeviceStats& d : out.devices) indices.push_back(d.device);
    out.skew = compute_skew(indices, skew_inputs, ops);
  }
  return out;
}

}  // namespace detail

TraceStats compute_op_stats(const Trace& t, const OpStatsOptions& options) {
  detail::StatsParts parts = detail::compute_stats_parts(t, options);
  return detail::finish_stats(std::move(parts.devices), parts.busy_self_ps, parts.skew_inputs, parts.rows, t.ops);
}

}  // namespace roofline
