#include "src/trace/chrome/kineto_link.hpp"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "src/trace/chrome/kineto_scopes.hpp"

namespace roofline::detail {
namespace {

// The order of a thread's cpu_ops: by start, longest first. Spans that are
// identical (a parent and the child it calls, within the clock's resolution)
// are ordered by what they are, never by where they sit in the file, so the
// same events in any order give the same launcher: the smaller External id
// is the outer op (PyTorch numbers ops as it creates them, parent first; 0,
// none recorded, goes inside), then the op's name, Input Dims and types.
bool outer_first(const CpuOpSpan& a, const CpuOpSpan& b, const Trace& t) {
  if (a.start_ps != b.start_ps) return a.start_ps < b.start_ps;
  if (a.end_ps != b.end_ps) return a.end_ps > b.end_ps;
  const std::uint64_t ea = a.external_id == 0 ? ~std::uint64_t{0} : a.external_id;
  const std::uint64_t eb = b.external_id == 0 ? ~std::uint64_t{0} : b.external_id;
  if (ea != eb) return ea < eb;
  if (a.call == b.call || a.call == kNoCall || b.call == kNoCall) return a.call < b.call;
  const CallInfo& ca = t.calls[a.call];
  const CallInfo& cb = t.calls[b.call];
  return std::tie(ca.launcher, ca.input_dims, ca.input_types) < std::tie(cb.launcher, cb.input_dims, cb.input_types);
}

// Orders each thread's cpu_ops (outer_first) and links each to the innermost
// one enclosing it, so that a launch finds its op by one binary search and a
// walk up the enclosing ops.
void index_cpu_ops(std::vector<StagedLine>& lines, const Trace& t) {
  for (StagedLine& l : lines) {
    ChunkedArray<CpuOpSpan>& v = l.cpu_ops;
    std::vector<std::uint32_t>& order = l.cpu_ops_by_start;
    order.resize(v.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return outer_first(v[a], v[b], t); });
    std::vector<std::uint32_t> stack;
    for (std::uint32_t i : order) {
      while (!stack.empty() && v[stack.back()].end_ps < v[i].end_ps) stack.pop_back();
      v[i].parent = stack.empty() ? -1 : static_cast<std::int32_t>(stack.back());
      stack.push_back(i);
    }
  }
}

// The refs of the ids GPU work asks for, each the last one listed (the
// hash map of them all this replaces kept the last write).
class IdIndex {
 public:
  void want(std::uint64_t id) {
    if (id == 0) return;
    refs_.try_emplace(id, kMissing);
    wanted_bits_[bit_of(id) / 64] |= std::uint64_t{1} << (bit_of(id) % 64);
  }
  // Most listed ids are not wanted: a bit per hashed id (128 KiB, cache
  // resident) turns most of them away before the map is probed.
  void fill(const ChunkedArray<IdRef>& listed) {
    for (const IdRef& r : listed) {
      if ((wanted_bits_[bit_of(r.id) / 64] >> (bit_of(r.id) % 64) & 1) == 0) continue;
      if (auto it = refs_.find(r.id); it != refs_.end()) it->second = r.ref;
    }
  }
  const StagedRef* find(std::uint64_t id) const {
    auto it = refs_.find(id);
    return it == refs_.end() || it->second.line == kMissing.line ? nullptr : &it->second;
  }

 private:
  static constexpr StagedRef kMissing{.line = ~0u, .index = ~0u};
  static constexpr std::size_t kBits = std::size_t{1} << 20;
  static std::size_t bit_of(std::uint64_t id) {
    return static_cast<std::size_t>((id * 0x9E3779B97F4A7C15ull) >> 44);  // Fibonacci hashing: the top 20 bits
  }
  absl::flat_hash_map<std::uint64_t, StagedRef> refs_;
  std::vector<std::uint64_t> wanted_bits_ = std::vector<std::uint64_t>(kBits / 64);
};

// Lines whose events are GPU work to link (kernels, copies, annotations).
bool has_work(const StagedLine& l) { return l.device_ops || l.key.lane == 1; }

class Linker {
 public:
  // Indexes the launches and cpu_ops that the work on `lines` names.
  Linker(const std::vector<StagedLine>& lines, const KinetoLaunches& launches) : lines_(lines) {
    for (const StagedLine& l : lines_)
      if (has_work(l))
        for (const StagedEvent& s : l.events) by_correlation_.want(s.correlation);
    by_correlation_.fill(launches.launches_by_correlation);
    for (const StagedLine& l : lines_)
      if (has_work(l))
        for (const StagedEvent& s : l.events) {
          by_external_.want(s.external_id);
          if (s.correlation == 0) continue;
          if (const StagedRef* at = by_correlation_.find(s.correlation))
            by_external_.want(lines_[at->line].events[at->index].external_id);
        }
    by_external_.fill(launches.cpu_ops_by_external);
  }

  // The runtime call that launched `work`, or null.
  const StagedRef* launch_of(const StagedEvent& work) const {
    return work.correlation != 0 ? by_correlation_.find(work.correlation) : nullptr;
  }

  // The call of the cpu_op that launched `work`, or kNoCall.
  std::uint32_t launcher_of(const StagedEvent& work) const {
    const StagedRef* launch_at = launch_of(work);
    const StagedEvent* launch = launch_at ? &lines_[launch_at->line].events[launch_at->index] : nullptr;
    std::uint32_t call = by_external(work.external_id, work, launch_at, launch);
    if (call == kNoCall && launch != nullptr && launch->external_id != work.external_id)
      call = by_external(launch->external_id, work, launch_at, launch);
    if (call == kNoCall && launch != nullptr) call = innermost_cpu_op(launch_at->line, *launch);
    return call;
  }

 private:
  // The call of the cpu_op with External id `ext`, when it holds the launch
  // (or, with no launch seen, when `ext` is not just the correlation).
  std::uint32_t by_external(std::uint64_t ext, const StagedEvent& work, const StagedRef* launch_at,
                            const StagedEvent* launch) const {
    if (ext == 0) return kNoCall;
    const StagedRef* at = by_external_.find(ext);
    if (at == nullptr) return kNoCall;
    const CpuOpSpan& op = lines_[at->line].cpu_ops[at->index];
    if (launch == nullptr) return ext == work.correlation ? kNoCall : op.call;
    const bool holds = at->line == launch_at->line && op.start_ps <= launch->start_ps &&
                       launch->start_ps + launch->duration_ps <= op.end_ps;
    return holds ? op.call : kNoCall;
  }

  // The innermost cpu_op on the launch's thread whose span holds the launch.
  std::uint32_t innermost_cpu_op(std::uint32_t line, const StagedEvent& launch) const {
    const ChunkedArray<CpuOpSpan>& v = lines_[line].cpu_ops;
    const std::vector<std::uint32_t>& order = lines_[line].cpu_ops_by_start;
    auto after = std::upper_bound(order.begin(), order.end(), launch.start_ps,
                                  [&](std::int64_t t, std::uint32_t i) { return t < v[i].start_ps; });
    std::int32_t i = after == order.begin() ? -1 : static_cast<std::int32_t>(*(after - 1));
    const std::int64_t end_ps = launch.start_ps + launch.duration_ps;
    while (i >= 0 && v[static_cast<std::size_t>(i)].end_ps < end_ps) i = v[static_cast<std::size_t>(i)].parent;
    return i >= 0 ? v[static_cast<std::size_t>(i)].call : kNoCall;
  }

  const std::vector<StagedLine>& lines_;
  IdIndex by_correlation_;
  IdIndex by_external_;
};

// The launcher's call with the collective arguments of the work's own call.
CallInfo merged_call(const Trace& t, std::uint32_t launched, std::uint32_t own_call) {
  CallInfo merged = t.calls[launched];
  const CallInfo& own = t.calls[own_call];
  merged.collective = own.collective;
  merged.in_msg_nelems = own.in_msg_nelems;
  merged.out_msg_nelems = own.out_msg_nelems;
  merged.group_size = own.group_size;
  merged.dtype = own.dtype;
  merged.process_group = own.process_group;
  merged.copy_bytes = own.copy_bytes;
  return merged;
}

}  // namespace

void link_kineto_launches(ChromeStaging& staging, TraceBuilder& builder) {
  index_cpu_ops(staging.lines, builder.trace());
  const Linker linker(staging.lines, staging.launches);
  ScopeFinder scopes(staging.lines, builder);
  absl::flat_hash_map<std::uint64_t, std::uint32_t> merged_calls, scoped_calls;
  for (std::uint32_t li = 0; li < staging.lines.size(); ++li) {
    StagedLine& l = staging.lines[li];
    if (!has_work(l)) continue;
    for (StagedEvent& s : l.events) {
      const std::uint32_t launched = linker.launcher_of(s);
      if (launched != kNoCall) {
        if (s.own_call == kNoCall) {
          s.own_call = launched;
        } else {
          const std::uint64_t k = (std::uint64_t{launched} << 32) | s.own_call;
          auto it = merged_calls.find(k);
          if (it == merged_calls.end())
            it = merged_calls.emplace(k, builder.intern_call(merged_call(builder.trace(), launched, s.own_call)))
                     .first;
          s.own_call = it->second;
        }
      }
      // The work itself, not the GPU annotations that hold it.
      if (l.key.lane != 0) continue;
      const StagedRef* at = linker.launch_of(s);
      const FoundScope scope =
          scopes.scope_of(li, s, at ? at->line : 0, at ? &staging.lines[at->line].events[at->index] : nullptr);
      if (scope.scope == kNoScopePath) continue;
      const std::uint64_t k = (std::uint64_t{s.own_call} << 32) | scope.scope;
      auto it = scoped_calls.find(k);
      if (it == scoped_calls.end()) {
        CallInfo c = s.own_call == kNoCall ? CallInfo{} : builder.trace().calls[s.own_call];
        c.scope = scope.scope;
        c.scope_kinds = scope.kinds;
        it = scoped_calls.emplace(k, builder.intern_call(std::move(c))).first;
      }
      s.own_call = it->second;
    }
  }
  scopes.warn();
  for (StagedLine& l : staging.lines) {
    l.cpu_ops.release();
    std::vector<std::uint32_t>().swap(l.cpu_ops_by_start);
  }
  KinetoLaunches freed;
  std::swap(staging.launches, freed);
}

}  // namespace roofline::detail
