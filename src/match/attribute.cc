// Async pairs and loop caveats (roofline/match/attribute.hpp).
#include "roofline/match/attribute.hpp"

#include <string_view>

namespace roofline {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

const HloInstruction* async_start_of(const HloInstruction& instruction) {
  if (ends_with(instruction.opcode_name, "-done") && instruction.operand_count() > 0 &&
      ends_with(instruction.operand(0).opcode_name, "-start"))
    return &instruction.operand(0);
  return nullptr;
}

const HloInstruction* async_done_of(const HloInstruction& instruction) {
  if (!ends_with(instruction.opcode_name, "-start") || !instruction.parent) return nullptr;
  for (const HloInstruction& i : instruction.parent->instructions)
    if (ends_with(i.opcode_name, "-done"))
      for (const HloInstruction* o : i.operands)
        if (o == &instruction) return &i;
  return nullptr;
}

std::string cost_caveats(const HloCost& c) {
  std::string note;
  if (c.flags.trip_count_unknown) note += "while loop without known_trip_count: body counted once; ";
  if (c.flags.collective_not_timed) note += "collective without a network model: T_ici not predicted; ";
  if (c.flags.conditional_max) note += "conditional: the costliest branch; ";
  if (c.flags.unbounded_dynamic_shape) note += "unbounded dynamic dimension counted as 0; ";
  if (c.flags.size_saturated) note += "a shape of 2^63 bytes or more, its size counted as 2^63 (a broken module); ";
  if (!note.empty()) note.resize(note.size() - 2);
  return note;
}

}  // namespace roofline
