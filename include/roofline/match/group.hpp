// The second step of the match: the op events of the selected devices (as
// their measurement holds them, roofline/measure/measured.hpp) grouped into ops. An XLA op is one (HLO module, program id, instruction);
// a PyTorch op is one launching op and its Input Dims, with all the kernels
// it launched (cuBLAS split-K: GEMM and reduction; cuDNN: transpose and
// convolution), so one framework op is costed once and the same op on two
// shapes is two ops. Copies, fills and collectives stay one kernel each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "roofline/measure/measured.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

// The occurrences of an eager op that ran under one scope (CallInfo::scope).
struct ScopeTally {
  std::int64_t count = 0;    // occurrences, over all the op's kernels
  std::int64_t self_ps = 0;
  std::uint8_t kinds = 0;    // CallInfo::scope_kinds
};

// All occurrences of one op on the selected devices.
struct OpGroup {
  std::uint32_t op = 0;          // the OpInfo (with several kernels, the one with the most time)
  std::uint32_t call = kNoCall;  // PyTorch kernels: the launching op and its shapes
  std::map<std::uint32_t, std::int64_t> per_kernel = {};     // OpInfo -> occurrences
  std::map<std::uint32_t, std::int64_t> per_kernel_ps = {};  // OpInfo -> self time
  std::int64_t self_ps = 0;
  // The self time of each event, as ascending runs (per kernel, not per op run).
  std::vector<DurationRun> self_runs = {};
  bool xla = false;                      // an XLA op (it names a module or a program)
  // Eager PyTorch ops of a trace with scopes: Trace::scopes index (or
  // kNoScopePath) -> its occurrences. A call's scope does not split ops:
  // one shape of aten::linear in twelve layers is one op here, split by
  // scope only in the per-scope view (roofline/match/scope.hpp).
  std::map<std::uint32_t, ScopeTally> per_scope = {};

  // Occurrences: those of `op` with several kernels (the kernel with the
  // most time runs once a run), else of its most frequent kernel.
  std::int64_t count() const;
  // Median self time of one occurrence, in seconds; the mean run for an op
  // that runs as several kernels (it has no per-run samples).
  double median_s() const;
};

struct OpGroups {
  std::vector<OpGroup> groups;  // in order of first occurrence
  // occurrence_group[device][i]: index into `groups` of the selected
  // device's MeasuredDevice::ops[i]; empty for other devices.
  std::vector<std::vector<std::uint32_t>> occurrence_group;
};

bool is_xla_op(const OpInfo& op);

// Each of the trace's calls as the first call equal to it but for the scope
// (kNoCall for a call that holds only a scope): ops group, and steps sum, as
// if calls had no scope.
std::vector<std::uint32_t> unscoped_calls(const Trace& t);

// `devices`: indices into Trace::devices (select_devices), in the order
// their ops are met.
OpGroups group_ops(const Trace& trace, const MeasuredTrace& measured, std::span<const std::size_t> devices);

// The module a PyTorch kernel's group is listed under: its launching op, or
// "nccl:<collective>"; empty without a launching op.
std::string eager_module(const Trace& trace, const OpGroup& group);

}  // namespace roofline
