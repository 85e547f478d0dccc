// Step 3 of the match: which evidence costs an op (docs/report.md, "How
// each op gets a prediction").
#include "roofline/detail/cat.hpp"
#include "roofline/match/match.hpp"

namespace roofline {
namespace {

bool has_xla_figures(const OpInfo& op) { return op.flops || op.bytes_accessed; }

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

// What a GPU copy moves, from its name: Kineto "Memcpy HtoD (Pageable ->
// Device)", "Memcpy DtoD (Device -> Device)", "Memcpy PtoP"; CUPTI in an
// XPlane "MemcpyH2D", "MemcpyD2D", "MemcpyP2P".
std::string memcpy_note(std::string_view name) {
  const char* why = "its bytes are not in the trace as read, so it is not predicted";
  if (contains(name, "HtoD") || contains(name, "H2D"))
    return detail::cat("host-to-device copy over the host link (PCIe): ", why);
  if (contains(name, "DtoH") || contains(name, "D2H"))
    return detail::cat("device-to-host copy over the host link (PCIe): ", why);
  if (contains(name, "DtoD") || contains(name, "D2D"))
    return detail::cat("device-to-device copy within HBM (reads and writes its bytes): ", why);
  if (contains(name, "PtoP") || contains(name, "P2P"))
    return detail::cat("peer-to-peer copy to another device (NVLink / PCIe): ", why);
  return detail::cat("memory copy of unknown direction: ", why);
}

// An XLA op: its HLO instruction when one of the modules has it, else
// XLA's recorded figures.
CostSource find_xla_source(const OpInfo& op, HloModuleIndex& modules) {
  if (const HloModuleIndex::Found found = modules.find(op); found.instruction) {
    CostSource c = cost_from_hlo(*found.instruction);
    if (found.given && c.source == MatchSource::kHloModule) c.source = MatchSource::kHloGiven;
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
  const bool transfer = op.category == "gpu_memcpy" || op.category == "gpu_memset" || op.category == "memcpy";
  if (group.call != kNoCall && !transfer) {
    const CallInfo& call = trace.calls[group.call];
    CostSource c = call.collective.empty() ? cost_from_input_dims(call, op.name) : cost_from_collective_args(call);
    if (c.model || !has_xla_figures(op)) return c;
    return cost_from_xla_stats(op);
  }
  CostSource c = cost_from_xla_stats(op);
  if (c.model) return c;
  if (op.category == "gpu_memcpy" || op.category == "memcpy") c.note = memcpy_note(op.name);
  else if (op.category == "gpu_memset") c.note = "memset (often inside a library call): not modelled";
  else c.note = "no launching op recorded for this kernel (e.g. queued before the host trace began), "
                "so no shapes to cost it from";
  return c;
}

}  // namespace roofline
