// Op events grouped into ops (roofline/match/group.hpp).
#include "roofline/match/group.hpp"

#include <algorithm>
#include <unordered_map>

#include "roofline/detail/cat.hpp"

namespace roofline {
namespace {

using detail::cat;

// An XLA op is its instruction. A PyTorch kernel launched by a framework
// op (not a copy, a fill or a collective, whose calls carry their own
// bytes or message) is grouped with every kernel that op launched on the
// same shapes: cuBLAS split-K's GEMM and reduction, cuDNN's transpose and
// convolution are one op, costed once.
std::string group_key(const Trace& t, const Event& e) {
  const OpInfo& op = t.ops[e.op];
  if (is_xla_op(op)) return cat("x|", op.module, "|", op.program_id.value_or(0), "|", op.name);
  if (e.call != kNoCall && op.category == "kernel" && t.calls[e.call].collective.empty() &&
      !t.calls[e.call].launcher.empty())
    return cat("c|", e.call);
  return cat("e|", e.op, "|", e.call);
}

}  // namespace

bool is_xla_op(const OpInfo& op) { return !op.module.empty() || op.program_id.has_value(); }

std::int64_t OpGroup::count() const {
  // Several kernels: the runs of the one with the most time (cuDNN
  // transposes input and weight, two launches of one kernel per run).
  if (per_kernel.size() > 1)
    if (auto it = per_kernel.find(op); it != per_kernel.end()) return it->second;
  std::int64_t n = 0;
  for (const auto& [kernel, occurrences] : per_kernel) n = std::max(n, occurrences);
  return n;
}

double OpGroup::median_s() const {
  if (samples_ps.empty()) return 0;
  if (per_kernel.size() > 1) return static_cast<double>(self_ps) / static_cast<double>(count()) * 1e-12;
  std::vector<std::int64_t> v = samples_ps;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  double median = static_cast<double>(*mid);
  if (v.size() % 2 == 0) median = (median + static_cast<double>(*std::max_element(v.begin(), mid))) / 2;
  return median * 1e-12;
}

OpGroups group_ops(const Trace& trace, std::span<const std::size_t> devices) {
  OpGroups out;
  std::unordered_map<std::string, std::size_t> by_key;
  out.event_group.resize(trace.devices.size());
  for (std::size_t di : devices) {
    const Device& d = trace.devices[di];
    out.event_group[di].assign(d.events.size(), -1);
    for (std::size_t ei = 0; ei < d.events.size(); ++ei) {
      const Event& e = d.events[ei];
      // A sync event is a stream waiting, not an op to predict: the report
      // gives its time in a note (aggregate.cc).
      if (d.lines[e.line].role != LineRole::kOps || trace.ops[e.op].op_class == OpClass::kSync) continue;
      auto [it, fresh] = by_key.try_emplace(group_key(trace, e), out.groups.size());
      if (fresh) {
        OpGroup g{.op = e.op, .xla = is_xla_op(trace.ops[e.op])};
        g.call = g.xla ? kNoCall : e.call;
        out.groups.push_back(std::move(g));
      }
      OpGroup& g = out.groups[it->second];
      g.per_kernel[e.op] += 1;
      g.per_kernel_ps[e.op] += e.self_ps;
      g.self_ps += e.self_ps;
      g.samples_ps.push_back(e.self_ps);
      out.event_group[di][ei] = static_cast<std::int32_t>(it->second);
    }
  }
  // A group of several kernels is named after the one that ran longest.
  for (OpGroup& g : out.groups) {
    if (g.per_kernel_ps.size() < 2) continue;
    g.op = std::max_element(g.per_kernel_ps.begin(), g.per_kernel_ps.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  }
  return out;
}

std::string eager_module(const Trace& trace, const OpGroup& group) {
  if (group.call == kNoCall) return "";
  const CallInfo& c = trace.calls[group.call];
  if (!c.collective.empty()) return cat("nccl:", c.collective);
  return c.launcher;
}

}  // namespace roofline
