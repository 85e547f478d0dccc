// The chip and shown model of a trace Device, as roofline stats and the
// report work them out: the trace records what the profiler reported, and
// identify_chip (roofline/chip_identity.hpp) names the part.
#pragma once

#include "roofline/chip.hpp"
#include "roofline/chip_identity.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline::testing {

inline IdentifiedChip identify(const Device& d) {
  return identify_chip({.vendor = d.vendor,
                        .model = d.model,
                        .compute_capability_major = d.caps.compute_capability_major,
                        .compute_capability_minor = d.caps.compute_capability_minor,
                        .core_count = d.caps.core_count,
                        .memory_bytes = d.caps.memory_bytes});
}

// The embedded chip's name, "" when the device is none we know.
inline std::string chip_name(const Device& d) {
  const IdentifiedChip id = identify(d);
  return id.chip ? id.chip->name : std::string();
}

}  // namespace roofline::testing
