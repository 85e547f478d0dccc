// One file's statistics, read for them: an XSpace with devices in two
// partial reads instead of one whole (stats_file_read.cc). Internal.
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "roofline/measure/op_stats.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "roofline/trace/read.hpp"
#include "roofline/trace/read_plan.hpp"
#include "src/measure/op_stats_parts.hpp"

namespace roofline::detail {

// A file's statistics and the trace they were taken from. `trace`: its
// devices whole; its host timelines with the events the statistics read
// (of an XSpace with device planes: those overlapping a device's idle gaps
// and any not of the usual shape, their ops after the devices' in
// Trace::ops; of any other file, all). `parts` are compute_stats_parts of
// the whole read, to the bit.
struct FileStats {
  Trace trace;
  StatsParts parts;
};

// `by_stem`: devices and hosts that name no host take the file's stem
// first, as stats_partial names a file's.
absl::StatusOr<FileStats> read_file_stats(const std::string& path, const TraceReadOptions& read,
                                          const OpStatsOptions& options, bool by_stem);
// The same of any source read with a plan (nullptr: whole): read_file of
// the path, or decode_xplane of bytes in memory (the fuzzer).
using PlannedRead = std::function<absl::StatusOr<Trace>(XPlaneReadPlan* plan)>;
absl::StatusOr<FileStats> stats_of_reads(const PlannedRead& read, const OpStatsOptions& options, bool by_stem);

// stats_partial's two halves: the file-stem naming (a trace of one file
// only), and the partial of `t` whose statistics `parts` are (t's strings
// are moved into it).
void name_hosts_by_stem(Trace& t);
StatsPartial partial_of_parts(Trace& t, StatsParts parts, const OpStatsOptions& options);

}  // namespace roofline::detail
