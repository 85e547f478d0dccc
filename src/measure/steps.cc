// Per-step time, gaps and variance (roofline/measure/steps.hpp).
#include "roofline/measure/steps.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "src/measure/op_stats_parts.hpp"

namespace roofline {
namespace {

using detail::TimeWindow;
constexpr double kPs = 1e-12;

struct Span {
  std::int64_t start = 0, end = 0;
};

// The device's busy stretches: the union of its op events that are work.
std::vector<Span> busy_union(const Trace& t, const Device& d) {
  std::vector<Span> ev;
  for (const Event& e : d.events)
    if (d.lines[e.line].role == LineRole::kOps && t.ops[e.op].op_class != OpClass::kSync && e.duration_ps > 0)
      ev.push_back({e.start_ps, e.end_ps()});
  std::sort(ev.begin(), ev.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
  std::vector<Span> out;
  for (const Span& s : ev) {
    if (!out.empty() && s.start <= out.back().end) out.back().end = std::max(out.back().end, s.end);
    else out.push_back(s);
  }
  return out;
}

// Busy time and idle stretches of [from, to) against the busy union.
void fill_step(const std::vector<Span>& busy, std::int64_t from, std::int64_t to, StepTime& st,
               std::vector<TimeWindow>& gaps, std::size_t keep) {
  auto it = std::lower_bound(busy.begin(), busy.end(), from, [](const Span& s, std::int64_t v) { return s.end <= v; });
  std::int64_t covered = from, busy_ps = 0;
  std::vector<Span> idle;
  for (; it != busy.end() && it->start < to; ++it) {
    const std::int64_t a = std::max(it->start, from), b = std::min(it->end, to);
    if (a > covered) idle.push_back({covered, a});
    busy_ps += b - a;
    covered = b;
  }
  if (to > covered) idle.push_back({covered, to});
  st.busy_s = static_cast<double>(busy_ps) * kPs;
  st.duty_cycle = to > from ? static_cast<double>(busy_ps) / static_cast<double>(to - from) : 0;
  std::stable_sort(idle.begin(), idle.end(),
                   [](const Span& a, const Span& b) { return (a.end - a.start) > (b.end - b.start); });
  if (idle.size() > keep) idle.resize(keep);
  for (const Span& g : idle) {
    gaps.push_back({.start_ps = g.start, .end_ps = g.end});
    st.gaps.push_back({.start_s = static_cast<double>(g.start) * kPs,
                       .duration_s = static_cast<double>(g.end - g.start) * kPs, .host = {}});
  }
}

StepVariance variance_of(const std::vector<Step>& steps) {
  StepVariance v;
  v.count = static_cast<std::int64_t>(steps.size());
  if (steps.empty()) return v;
  double sum = 0;
  v.min_s = v.max_s = static_cast<double>(steps.front().duration_ps) * kPs;
  for (const Step& s : steps) {
    const double x = static_cast<double>(s.duration_ps) * kPs;
    sum += x;
    v.min_s = std::min(v.min_s, x);
    v.max_s = std::max(v.max_s, x);
  }
  v.mean_s = sum / static_cast<double>(steps.size());
  double sq = 0;
  for (const Step& s : steps) {
    const double dx = static_cast<double>(s.duration_ps) * kPs - v.mean_s;
    sq += dx * dx;
  }
  // The sample standard deviation: the steps are a sample of the run's.
  v.stdev_s = steps.size() > 1 ? std::sqrt(sq / static_cast<double>(steps.size() - 1)) : 0;
  v.cv = v.mean_s > 0 ? v.stdev_s / v.mean_s : 0;
  return v;
}

}  // namespace

StepBreakdown compute_step_breakdown(const Trace& t, const StepBreakdownOptions& options) {
  StepBreakdown out;
  // The gaps' host activity is found as the statistics find it for the
  // device's idle gaps: one entry of `parts` per (device, step).
  detail::StatsParts parts;
  std::vector<std::pair<std::size_t, std::size_t>> where;  // (device in out, step) of each parts entry
  for (std::size_t di = 0; di < t.devices.size(); ++di) {
    const Device& d = t.devices[di];
    if (options.device_id && d.id != *options.device_id) continue;
    const std::vector<Step> steps = detail::device_step_list(t, d);
    if (steps.empty()) continue;
    const std::vector<Span> busy = busy_union(t, d);
    if (busy.empty()) continue;
    DeviceSteps ds{.device = di, .id = d.id, .name = d.name, .from_host = d.steps.empty()};
    ds.variance = variance_of(steps);
    for (std::size_t s = 0; s < steps.size() && s < options.max_steps; ++s) {
      const Step& st = steps[s];
      StepTime row{.name = st.name, .start_s = static_cast<double>(st.start_ps) * kPs,
                   .duration_s = static_cast<double>(st.duration_ps) * kPs};
      std::vector<TimeWindow>& gaps = parts.gaps.emplace_back();
      fill_step(busy, st.start_ps, st.start_ps + st.duration_ps, row, gaps, options.gaps);
      DeviceStats& holder = parts.devices.emplace_back(detail::device_identity(d, di));
      holder.idle_gaps = row.gaps;
      where.emplace_back(out.devices.size(), ds.steps.size());
      ds.steps.push_back(std::move(row));
    }
    out.devices.push_back(std::move(ds));
  }
  detail::add_host_activity(t, parts,
                            OpStatsOptions{.device_id = options.device_id, .idle_gaps = options.gaps, .host_activities = options.host_activities});
  for (std::size_t i = 0; i < where.size(); ++i)
    out.devices[where[i].first].steps[where[i].second].gaps = std::move(parts.devices[i].idle_gaps);
  return out;
}

}  // namespace roofline
