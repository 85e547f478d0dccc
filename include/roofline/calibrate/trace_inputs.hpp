// The traces calibrate and fidelity read (the CLI's TRACE... arguments,
// Python's `paths`), and one trace read into the report they work on.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/calibrate/fidelity.hpp"
#include "roofline/trace/read.hpp"

namespace roofline {

// Each path as given when it is not a directory; for a directory, every
// .json, .json.gz, .xplane.pb and .xplane.pb.gz under it (recursively),
// sorted. A directory without one is an error naming it.
absl::StatusOr<std::vector<std::string>> trace_paths(const std::vector<std::string>& given);

// The report of the trace at `path`, predicted on `chip` (nullptr: the chip
// the trace names, which must be embedded). Errors name the file; they say
// "set ReportOptions::chip" where a chip must be given (in_words).
absl::StatusOr<FidelityTrace> read_fidelity_trace(const std::string& path, const Chip* chip,
                                                  const TraceReadOptions& options);

}  // namespace roofline
