// Step 3 of the match: which evidence costs an op (docs/report.md, "How
// each op gets a prediction").
#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"
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

// A GPU memcpy with its bytes (Kineto args.bytes): a copy within HBM reads
// and writes them; a copy to or from the host crosses the host link. A peer
// copy (NVLink / PCIe to another device) has no model yet.
CostSource cost_from_copy(std::string_view name, std::int64_t bytes) {
  CostSource c;
  const double b = static_cast<double>(bytes);
  c.source = MatchSource::kCopyBytes;
  c.hlo_category = "copy";
  if (contains(name, "DtoD") || contains(name, "D2D")) {
    c.model = ElementwiseModel{.flops = 0, .read_bytes = b, .written_bytes = b, .dtype = DType::kU8};
    c.note = detail::cat("device-to-device copy of ", format_bytes(b), " within HBM (read and written)");
  } else if (contains(name, "HtoD") || contains(name, "H2D") || contains(name, "DtoH") || contains(name, "D2H")) {
    c.model = HostTransferModel{.bytes = b};
    c.note = contains(name, "HtoD") || contains(name, "H2D") ? "host-to-device copy" : "device-to-host copy";
  } else {
    c.source = MatchSource::kUnmatched;
    c.hlo_category.clear();
    c.note = contains(name, "PtoP") || contains(name, "P2P")
                 ? detail::cat("peer-to-peer copy of ", format_bytes(b),
                               " to another device (NVLink / PCIe): not modelled")
                 : detail::cat("memory copy of ", format_bytes(b), " in an unknown direction: not modelled");
  }
  return c;
}

// The names of the kernels a PyTorch op launched, one a line, the
// longest-running first: what cost_from_input_dims reads the algorithm from
// (TF32 tensor cores, Winograd, FFT).
std::string kernel_names(const Trace& trace, const OpGroup& group) {
  std::string names = trace.ops[group.op].name;
  for (const auto& [kernel, occurrences] : group.per_kernel)
    if (kernel != group.op) names += "\n" + trace.ops[kernel].name;
  return names;
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
    CostSource c = call.collective.empty() ? cost_from_input_dims(call, kernel_names(trace, group), trace.calls)
                                           : cost_from_collective_args(call);
    if (c.model || !has_xla_figures(op)) return c;
    return cost_from_xla_stats(op);
  }
  if ((op.category == "gpu_memcpy" || op.category == "memcpy") && group.call != kNoCall)
    if (const std::optional<std::int64_t> bytes = trace.calls[group.call].copy_bytes) return cost_from_copy(op.name, *bytes);
  CostSource c = cost_from_xla_stats(op);
  if (c.model) return c;
  if (op.category == "gpu_memcpy" || op.category == "memcpy") c.note = memcpy_note(op.name);
  else if (op.category == "gpu_memset") c.note = "memset (often inside a library call): not modelled";
  else c.note = "no launching op recorded for this kernel (e.g. queued before the host trace began), "
                "so no shapes to cost it from";
  return c;
}

}  // namespace roofline
