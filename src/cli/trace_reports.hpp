// What calibrate and fidelity share: trace paths from files and directories,
// and a trace read into a report with the chip it was predicted on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/calibrate/fidelity.hpp"
#include "roofline/trace/read.hpp"

namespace roofline::cli {

// Each path as given when it is a file; for a directory, every .json,
// .json.gz, .xplane.pb and .xplane.pb.gz under it (recursively), sorted.
absl::StatusOr<std::vector<std::string>> trace_paths(const std::vector<std::string>& given);

// The report of the trace at `path`, predicted on `chip` (nullptr: the chip
// the trace names). Errors name the file; a missing chip says "--chip".
absl::StatusOr<FidelityTrace> read_report(const std::string& path, const Chip* chip, const TraceReadOptions& options);

}  // namespace roofline::cli
