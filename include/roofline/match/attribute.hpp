// Attribution: which work a measured HLO op is charged, where what a
// profiler shows and what the instruction does are not the same thing.
//
//  - Async pairs (copy-start / copy-done, all-gather-start / -done, ...):
//    the transfer is charged to the -done, where a profiler shows the wait,
//    and the -start (a quick launch) costs nothing.
//  - Loops, as the HLO cost model counts them (docs/hlo_cost.md): a while
//    is its body and condition times the known_trip_count XLA recorded;
//    without one the body is counted once and the op says so, as it does
//    for the other approximations of the cost model.
#pragma once

#include <string>

#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/module.hpp"

namespace roofline {

// The -start a -done completes (its first operand), or nullptr when
// `instruction` is not the -done of an async pair.
const HloInstruction* async_start_of(const HloInstruction& instruction);

// The -done in the same computation that completes `instruction`, or nullptr
// when `instruction` is not a -start or nothing completes it there.
const HloInstruction* async_done_of(const HloInstruction& instruction);

// What the cost of one instruction leaves out or approximates, as a
// "; "-separated caveat ("while loop without known_trip_count: body counted
// once; ..."); empty when the cost is exact.
std::string cost_caveats(const HloCost& cost);

}  // namespace roofline
