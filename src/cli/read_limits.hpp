// The read limits of TraceReadOptions as command-line options, shared by the
// commands that read a trace (stats, report): --max-events, --max-ops,
// --max-inflated-bytes, --max-decompressed-bytes, and --jobs (files read at
// once). A file past a limit fails with an error that names the option that
// raises it.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "roofline/trace/read.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {

// A command's own options followed by the limits and --jobs.
std::vector<OptionSpec> with_read_limits(std::vector<OptionSpec> options);

// TraceReadOptions with the library's defaults, each limit raised or lowered
// by its option when given (a positive integer; 1e9 style is taken).
absl::StatusOr<TraceReadOptions> trace_read_options(const Args& args);

// The command's TRACE arguments (files, directories, glob patterns) read as
// one job (read_traces). When stderr is a terminal and there is more than
// one file, a progress line is drawn on it in place and cleared at the end;
// otherwise nothing is written to stderr.
absl::StatusOr<Trace> read_trace_args(const std::vector<std::string>& traces, TraceReadOptions options);

}  // namespace roofline::cli
