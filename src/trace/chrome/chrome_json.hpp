// The streaming Chrome trace-event JSON reader (TSL/XProf, Kineto, generic).
// Internal to src/trace; the public entry points are in roofline/trace/read.hpp.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "roofline/trace/read.hpp"
#include "src/trace/byte_stream.hpp"

namespace roofline::detail {

// Reads decompressed JSON from `in`. `origin` names the file in errors;
// `decompressed` says byte offsets count decompressed bytes.
absl::StatusOr<Trace> read_chrome_json(ByteStream& in, const std::string& origin,
                                       bool decompressed, const TraceReadOptions& options);

}  // namespace roofline::detail
