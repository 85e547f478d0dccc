// Step 3 of the match: which evidence costs an op (docs/report.md, "How
// each op gets a prediction").
#include "roofline/detail/cat.hpp"
#include "roofline/match/match.hpp"

namespace roofline {
namespace {

bool has_xla_figures(const OpInfo& op) { return op.flops || op.bytes_accessed; }

// An XLA op: its HLO instruction when one of the modules has it, else
// XLA's recorded figures.
CostSource find_xla_source(const OpInfo& op, HloModuleIndex& modules) {
  if (const HloInstruction* inst = modules.find(op)) {
    CostSource c = cost_from_hlo(*inst);
    if (c.model || !has_xla_figures(op)) return c;
    CostSource x = cost_from_xla_stats(op);
    x.note = c.note + "; using " + x.note;
    return x;
  }
  CostSource x = cost_from_xla_stats(op);
  if (!x.model && modules.has_modules())
    x.note = detail::cat("instruction ", op.name, " not found in the HLO modules, and no XLA cost figures");
  return x;
}

}  // namespace

CostSource find_cost_source(const Trace& trace, const OpGroup& group, HloModuleIndex& modules) {
  const OpInfo& op = trace.ops[group.op];
  if (group.xla) return find_xla_source(op, modules);
  const bool transfer = op.category == "gpu_memcpy" || op.category == "gpu_memset";
  if (group.call != kNoCall && !transfer) {
    const CallInfo& call = trace.calls[group.call];
    CostSource c = call.collective.empty() ? cost_from_input_dims(call, op.name) : cost_from_collective_args(call);
    if (c.model || !has_xla_figures(op)) return c;
    return cost_from_xla_stats(op);
  }
  CostSource c = cost_from_xla_stats(op);
  if (c.model) return c;
  if (op.category == "gpu_memcpy") c.note = "memory copy: host/device transfers are not modelled";
  else if (op.category == "gpu_memset") c.note = "memset (often inside a library call): not modelled";
  else c.note = "no launching op recorded for this kernel (e.g. queued before the host trace began), "
                "so no shapes to cost it from";
  return c;
}

}  // namespace roofline
