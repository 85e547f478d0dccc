// Stragglers and collective waits across devices (roofline/measure/skew.hpp):
// from per-device inputs alone, in integer picoseconds, so that partials
// carrying those inputs finish to the same figures as one pass.
#include "roofline/measure/skew.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include "src/measure/op_stats_parts.hpp"

namespace roofline {
namespace {

constexpr double kPs = 1e-12;

double seconds(std::int64_t ps) { return static_cast<double>(ps) * kPs; }

// Median of `v` (sorted here), the mean of the middle two when even, as the
// step statistics take it.
double median_s(std::vector<std::int64_t> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return (n % 2 ? static_cast<double>(v[n / 2])
                : 0.5 * (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2]))) *
         kPs;
}

// One step name (and repeat) and, per device position that ran it, its duration.
struct StepRuns {
  std::string name;
  std::int64_t repeat = 0;
  std::vector<std::pair<std::size_t, std::int64_t>> runs;  // (position in `devices`, duration_ps)
};

void add_steps(std::span<const std::size_t> devices, std::span<const DeviceSkewInputs> inputs, SkewStats& out) {
  std::vector<StepRuns> steps;  // in first-met order
  std::map<std::pair<std::string, std::int64_t>, std::size_t> index;
  for (std::size_t p = 0; p < inputs.size(); ++p) {
    std::map<std::string, std::int64_t> seen;  // steps of each name so far on this device
    for (const SkewStep& s : inputs[p].steps) {
      const std::int64_t repeat = seen[s.name]++;
      auto [it, inserted] = index.emplace(std::pair(s.name, repeat), steps.size());
      if (inserted) steps.push_back({.name = s.name, .repeat = repeat, .runs = {}});
      steps[it->second].runs.emplace_back(p, s.duration_ps);
    }
  }
  for (const StepRuns& s : steps) {
    if (s.runs.size() < 2) continue;
    // Strict comparisons: on a tie the device listed first stays.
    std::pair<std::size_t, std::int64_t> slowest = s.runs.front(), fastest = s.runs.front();
    std::vector<std::int64_t> durations;
    for (const auto& r : s.runs) {
      if (r.second > slowest.second) slowest = r;
      if (r.second < fastest.second) fastest = r;
      durations.push_back(r.second);
    }
    // A straggler is one device slower than all others: a step several
    // devices took longest alike (or all alike) counts for none of them.
    const auto at_slowest = std::count_if(s.runs.begin(), s.runs.end(),
                                          [&](const auto& r) { return r.second == slowest.second; });
    if (slowest.second > fastest.second && at_slowest == 1) ++out.devices[slowest.first].slowest_steps;
    out.steps.push_back({.step = s.name,
                         .repeat = s.repeat,
                         .devices = static_cast<std::int64_t>(s.runs.size()),
                         .slowest_device = devices[slowest.first],
                         .fastest_device = devices[fastest.first],
                         .slowest_s = seconds(slowest.second),
                         .fastest_s = seconds(fastest.second),
                         .median_s = median_s(std::move(durations)),
                         .skew_s = seconds(slowest.second - fastest.second)});
  }
}

void add_collectives(std::span<const std::size_t> devices, std::span<const DeviceSkewInputs> inputs,
                     const std::vector<OpInfo>& ops, SkewStats& out) {
  // Per op, the devices (positions) that called it and their calls.
  std::map<std::uint32_t, std::vector<std::pair<std::size_t, const std::vector<std::int64_t>*>>> by_op;
  for (std::size_t p = 0; p < inputs.size(); ++p)
    for (const CollectiveCalls& c : inputs[p].collectives) by_op[c.op].emplace_back(p, &c.duration_ps);
  std::vector<std::int64_t> device_wait_ps(inputs.size(), 0);
  std::vector<std::pair<std::int64_t, CollectiveSkew>> rows;  // (total wait ps, row)
  for (const auto& [op, callers] : by_op) {
    if (callers.size() < 2) continue;
    std::size_t longest = 0;
    for (const auto& c : callers) longest = std::max(longest, c.second->size());
    std::int64_t wait_ps = 0, occurrences = 0;
    std::vector<std::int64_t> skews;
    std::vector<std::int64_t> shortest_count(inputs.size(), 0);
    for (std::size_t k = 0; k < longest; ++k) {
      std::int64_t lo = 0, hi = 0, present = 0, at_lo = 0;
      std::size_t lo_at = 0;
      for (const auto& [p, calls] : callers) {
        if (k >= calls->size()) continue;
        const std::int64_t d = (*calls)[k];
        if (present == 0 || d < lo) lo = d, lo_at = p, at_lo = 0;  // strict: on a tie the device listed first
        if (d == lo) ++at_lo;
        if (present == 0 || d > hi) hi = d;
        ++present;
      }
      if (present < 2) continue;
      ++occurrences;
      skews.push_back(hi - lo);
      // A call all devices took alike kept no one waiting; one that several
      // took shortest alike names no one the others waited for.
      if (hi > lo && at_lo == 1) {
        ++shortest_count[lo_at];
        ++out.devices[lo_at].waited_for_count;
      }
      for (const auto& [p, calls] : callers) {
        if (k >= calls->size()) continue;
        const std::int64_t w = (*calls)[k] - lo;
        device_wait_ps[p] += w;
        wait_ps += w;
      }
    }
    if (occurrences == 0) continue;
    // The first of the most: on a tie, the device listed first.
    const std::size_t waited_for = static_cast<std::size_t>(
        std::max_element(shortest_count.begin(), shortest_count.end()) - shortest_count.begin());
    const bool anyone_waited = shortest_count[waited_for] > 0;
    const OpInfo& info = ops[op];
    CollectiveSkew row{.op = op,
                       .name = info.name,
                       .module = info.module,
                       .program_id = info.program_id,
                       .kernel = info.kernel,
                       .occurrences = occurrences,
                       .wait_s = seconds(wait_ps),
                       .max_skew_s = seconds(*std::max_element(skews.begin(), skews.end())),
                       .median_skew_s = median_s(std::move(skews)),
                       .waited_for = anyone_waited ? std::optional(devices[waited_for]) : std::nullopt,
                       .waited_for_count = shortest_count[waited_for]};
    rows.emplace_back(wait_ps, std::move(row));
  }
  // Most wait first; `by_op` is by op, and the stable sort keeps that on ties.
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& [ps, row] : rows) out.collectives.push_back(std::move(row));
  for (std::size_t p = 0; p < inputs.size(); ++p) out.devices[p].collective_wait_s = seconds(device_wait_ps[p]);
}

}  // namespace

DeviceSkewInputs skew_inputs(const Trace& t, std::size_t device) {
  const Device& d = t.devices[device];
  DeviceSkewInputs out;
  for (const Step& s : detail::device_step_list(t, d)) out.steps.push_back({.name = s.name, .duration_ps = s.duration_ps});
  struct Call {
    std::uint32_t op;
    std::int64_t start_ps, duration_ps;
  };
  std::vector<Call> calls;
  for (const Event& e : d.events)
    if (d.lines[e.line].role == LineRole::kOps && t.ops[e.op].op_class == OpClass::kCollective)
      calls.push_back({e.op, e.start_ps, e.duration_ps});
  // Stable: calls of one op starting together keep the trace's order.
  std::stable_sort(calls.begin(), calls.end(), [](const Call& a, const Call& b) {
    return a.op != b.op ? a.op < b.op : a.start_ps < b.start_ps;
  });
  for (const Call& c : calls) {
    if (out.collectives.empty() || out.collectives.back().op != c.op) out.collectives.push_back({.op = c.op, .duration_ps = {}});
    out.collectives.back().duration_ps.push_back(c.duration_ps);
  }
  return out;
}

SkewStats compute_skew(std::span<const std::size_t> devices, std::span<const DeviceSkewInputs> inputs,
                       const std::vector<OpInfo>& ops) {
  SkewStats out;
  if (devices.size() < 2 || inputs.size() != devices.size()) return out;
  for (std::size_t d : devices) out.devices.push_back({.device = d});
  add_steps(devices, inputs, out);
  add_collectives(devices, inputs, ops, out);
  return out;
}

SkewStats compute_skew(const Trace& trace, std::span<const std::size_t> devices) {
  std::vector<DeviceSkewInputs> inputs;
  for (std::size_t d : devices) inputs.push_back(skew_inputs(trace, d));
  return compute_skew(devices, inputs, trace.ops);
}

}  // namespace roofline
