// The chip and shown model of a trace Device, as roofline stats and the
// report work them out: the trace records what the profiler reported, and
// the match stage's identify_device (roofline/match/identify.hpp) names the
// part through the one identity table.
#pragma once

#include "roofline/chip.hpp"
#include "roofline/chip_identity.hpp"
#include "roofline/match/identify.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline::testing {

inline IdentifiedChip identify(const Device& d) { return identify_device(d); }

// The embedded chip's name, "" when the device is none we know.
inline std::string chip_name(const Device& d) {
  const IdentifiedChip id = identify(d);
  return id.chip ? id.chip->name : std::string();
}

}  // namespace roofline::testing
