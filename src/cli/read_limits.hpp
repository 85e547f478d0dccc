// The read limits of TraceReadOptions as command-line options, shared by the
// commands that read a trace (stats, report): --max-events, --max-ops,
// --max-inflated-bytes, --max-decompressed-bytes. A file past a limit fails
// with an error that names the option that raises it.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "roofline/trace/read.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {

// A command's own options followed by the three limits.
std::vector<OptionSpec> with_read_limits(std::vector<OptionSpec> options);

// TraceReadOptions with the library's defaults, each limit raised or lowered
// by its option when given (a positive integer; 1e9 style is taken).
absl::StatusOr<TraceReadOptions> trace_read_options(const Args& args);

}  // namespace roofline::cli
