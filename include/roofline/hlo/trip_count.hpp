// How many times a while loop runs its body: the count XLA recorded in the
// loop's backend_config ({"known_trip_count":{"n":"12"}}), else the count
// inferred from the loop itself, the patterns XLA's own trip-count analysis
// (xla/service/while_loop_analysis.cc, MatchTrivialLoopTripCount) matches:
//
//   - the loop state is a tuple and one element of it is the counter;
//   - the condition's root compares that element with a constant (or with a
//     tuple element the body passes through unchanged whose initial value
//     is a constant), direction LT, LE, GT, GE, NE or EQ, on either side;
//   - the body's root tuple sets the counter to counter + constant step;
//   - the counter's initial value, in the while's operand tuple, is a constant.
//
// A compare or add wrapped in a fusion of its own (XLA:CPU's `wrapped_compare`)
// is looked through, as are copies and bitcasts of the counter. Anything
// else (a bound computed at run time, a counter the body multiplies, a state
// that is not a tuple) has no count, and `why_unknown` says which step failed.
//
//   WhileTripCount t = roofline::while_trip_count(*module.instruction("while.5"));
//   if (t.trips) ... else std::puts(t.why_unknown.c_str());
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "roofline/hlo/module.hpp"

namespace roofline {

enum class TripCountSource : std::uint8_t {
  kBackendConfig,  // XLA's known_trip_count
  kInferred,       // from the condition, the counter's init and its step
  kUnknown,
};

struct WhileTripCount {
  std::optional<std::int64_t> trips;
  TripCountSource source = TripCountSource::kUnknown;
  // Without a count: which part of the pattern the loop does not match
  // ("the condition's root is a fusion, not a compare"). Empty otherwise.
  std::string why_unknown;
};

// The trip count of a while instruction (an instruction that is not a while
// gets why_unknown "not a while loop").
WhileTripCount while_trip_count(const HloInstruction& while_instruction);

}  // namespace roofline
