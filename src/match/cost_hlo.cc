// XLA ops costed by our HLO cost model, with async pairs attributed
// (roofline/match/attribute.hpp).
#include <string>

#include "roofline/detail/cat.hpp"
#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/shape.hpp"
#include "roofline/match/attribute.hpp"
#include "roofline/match/cost_source.hpp"

namespace roofline {
namespace {

using detail::cat;

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

// jax names rematerialised computations "rematted_computation" / "checkpoint"
// in op_name; their FLOPs are hardware FLOPs, not model FLOPs.
bool rematerialised(const HloInstruction& i) {
  return contains(i.metadata.op_name, "remat") || contains(i.metadata.op_name, "checkpoint");
}

// The instruction's own cost, or why it has none.
CostSource plain_cost(const HloInstruction& instruction) {
  const HloCost c = cost(instruction);
  CostSource out;
  out.hlo_category = std::string(category_name(c.category));
  out.shape = to_string_no_layout(instruction.shape);
  if (c.flags.unknown_custom_call) {
    out.note = cat("custom call '", instruction.attribute("custom_call_target"),
                   "' has no cost model (a kernel XLA cannot see into)");
    return out;
  }
  if (c.flags.unknown_opcode) {
    out.note = cat("opcode '", instruction.opcode_name, "' has no cost model");
    return out;
  }
  out.source = MatchSource::kHloModule;
  out.instruction = &instruction;
  out.rematerialised = rematerialised(instruction);
  out.note = cost_caveats(c);
  out.model = HloModel{.instruction = &instruction};
  return out;
}

}  // namespace

CostSource cost_from_hlo(const HloInstruction& instruction) {
  if (const HloInstruction* start = async_start_of(instruction)) {
    CostSource out = plain_cost(*start);
    out.async_done = true;
    out.instruction = &instruction;
    out.shape = to_string_no_layout(instruction.shape);
    out.note = cat("async: the transfer of ", start->name, "; the time here is the exposed wait",
                   out.note.empty() ? "" : "; ", out.note);
    return out;
  }
  if (const HloInstruction* done = async_done_of(instruction)) {
    CostSource out;
    out.source = MatchSource::kHloModule;
    out.instruction = &instruction;
    out.hlo_category = std::string(category_name(cost(instruction).category));
    out.note = cat("async launch: its transfer is charged to ", done->name);
    out.model = AsyncStartModel{};
    return out;
  }
  return plain_cost(instruction);
}

}  // namespace roofline
