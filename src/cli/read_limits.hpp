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

// While it lives, a read with `options` of more than one file draws a
// progress line on stderr in place, when stderr is a terminal (nothing
// otherwise); the line is cleared when it dies. Neither copied nor moved:
// options.progress points at it.
class ProgressLine {
 public:
  explicit ProgressLine(TraceReadOptions& options);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  bool drawn_ = false;
};

}  // namespace roofline::cli
