// The XSpace wire decoder's entry point (xplane_wire.cc). Internal.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "roofline/trace/read.hpp"
#include "roofline/trace/read_plan.hpp"
#include "src/trace/byte_stream.hpp"

namespace roofline::detail {

// Decodes an XSpace held in `bytes`. When `release` maps those bytes, pages
// already decoded are handed back to the kernel as the decode moves on.
// `plan`, when given, narrows the read and says what it found.
absl::StatusOr<Trace> decode_xplane(std::string_view bytes, std::string_view origin,
                                    const TraceReadOptions& options, MappedFile* release,
                                    XPlaneReadPlan* plan = nullptr);

}  // namespace roofline::detail
