// Op events grouped into ops (roofline/match/group.hpp).
#include "roofline/match/group.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "roofline/detail/cat.hpp"

namespace roofline {
namespace {

using detail::cat;

// An XLA op is its instruction. A PyTorch kernel launched by a framework
// op (not a copy, a fill or a collective, whose calls carry their own
// bytes or message) is grouped with every kernel that op launched on the
// same shapes: cuBLAS split-K's GEMM and reduction, cuDNN's transpose and
// convolution are one op, costed once.
// `call` is the call without its scope (unscoped_calls).
std::string group_key(const Trace& t, const OpOccurrences& o, std::uint32_t call) {
  const OpInfo& op = t.ops[o.op];
  if (is_xla_op(op)) return cat("x|", op.module, "|", op.program_id.value_or(0), "|", op.name);
  if (call != kNoCall && op.category == "kernel" && t.calls[call].collective.empty() &&
      !t.calls[call].launcher.empty())
    return cat("c|", call);
  return cat("e|", o.op, "|", call);
}

}  // namespace

std::vector<std::uint32_t> unscoped_calls(const Trace& t) {
  std::vector<std::uint32_t> out(t.calls.size());
  if (t.scopes.empty()) {
    for (std::uint32_t i = 0; i < out.size(); ++i) out[i] = i;
    return out;
  }
  std::unordered_map<std::string, std::uint32_t> index;
  for (std::uint32_t i = 0; i < out.size(); ++i) {
    CallInfo c = t.calls[i];
    c.scope = kNoScopePath;
    c.scope_kinds = 0;
    if (c == CallInfo{}) {
      out[i] = kNoCall;
      continue;
    }
    auto opt = [](const std::optional<std::int64_t>& v) { return v ? cat(*v) : std::string("-"); };
    const std::string key = cat(c.launcher, "\x1f", c.input_dims, "\x1f", c.input_types, "\x1f", c.concrete_inputs,
                                "\x1f", c.collective, "\x1f", c.dtype, "\x1f", c.process_group, "\x1f",
                                opt(c.in_msg_nelems), "\x1f", opt(c.out_msg_nelems), "\x1f", opt(c.group_size),
                                "\x1f", opt(c.copy_bytes));
    out[i] = index.try_emplace(key, i).first->second;
  }
  return out;
}

namespace {

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
  if (self_runs.empty()) return 0;
  if (per_kernel.size() > 1) return static_cast<double>(self_ps) / static_cast<double>(count()) * 1e-12;
  std::int64_t n = 0;
  for (const DurationRun& r : self_runs) n += r.count;
  // The k-th smallest (0-based) self time.
  auto nth = [&](std::int64_t k) {
    for (const DurationRun& r : self_runs) {
      if (k < r.count) return static_cast<double>(r.self_ps);
      k -= r.count;
    }
    return static_cast<double>(self_runs.back().self_ps);
  };
  double median = nth(n / 2);
  if (n % 2 == 0) median = (median + nth(n / 2 - 1)) / 2;
  return median * 1e-12;
}

OpGroups group_ops(const Trace& trace, const MeasuredTrace& measured, std::span<const std::size_t> devices) {
  OpGroups out;
  std::unordered_map<std::string, std::size_t> by_key;
  std::vector<std::vector<DurationRun>> runs;  // per group, all its devices' runs, merged at the end
  out.occurrence_group.resize(trace.devices.size());
  const std::vector<std::uint32_t> unscoped = unscoped_calls(trace);
  for (std::size_t di : devices) {
    for (const OpOccurrences& o : measured.devices[di].ops) {
      const std::uint32_t call = o.call == kNoCall ? kNoCall : unscoped[o.call];
      auto [it, fresh] = by_key.try_emplace(group_key(trace, o, call), out.groups.size());
      if (fresh) {
        OpGroup g{.op = o.op, .xla = is_xla_op(trace.ops[o.op])};
        g.call = g.xla ? kNoCall : call;
        out.groups.push_back(std::move(g));
        runs.emplace_back();
      }
      OpGroup& g = out.groups[it->second];
      g.per_kernel[o.op] += o.count;
      g.per_kernel_ps[o.op] += o.self_ps;
      g.self_ps += o.self_ps;
      if (!g.xla && !trace.scopes.empty()) {
        const CallInfo* c = o.call == kNoCall ? nullptr : &trace.calls[o.call];
        ScopeTally& s = g.per_scope[c ? c->scope : kNoScopePath];
        s.count += o.count;
        s.self_ps += o.self_ps;
        if (c) s.kinds |= c->scope_kinds;
      }
      runs[it->second].insert(runs[it->second].end(), o.runs.begin(), o.runs.end());
      out.occurrence_group[di].push_back(static_cast<std::uint32_t>(it->second));
    }
  }
  // One union of each group's runs (merging device by device would copy
  // the runs so far once per device: quadratic in a pod's devices).
  for (std::size_t i = 0; i < out.groups.size(); ++i) {
    std::vector<DurationRun>& r = runs[i];
    std::sort(r.begin(), r.end(), [](const DurationRun& a, const DurationRun& b) { return a.self_ps < b.self_ps; });
    std::vector<DurationRun>& into = out.groups[i].self_runs;
    for (const DurationRun& x : r) {
      if (!into.empty() && into.back().self_ps == x.self_ps) into.back().count += x.count;
      else into.push_back(x);
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
