// The statistics of many files without holding their traces together: each
// file is read, reduced to its partial on the thread that read it and
// dropped; the partials merge in file order (exactly one pass's figures).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "roofline/trace/read_parts.hpp"
#include "src/measure/stats_file_read.hpp"

namespace roofline {

using detail::cat;

namespace {

// The partial of the inputs `in` lists (listed once by the caller).
absl::StatusOr<StatsPartial> partial_of(detail::InputListing in, const std::vector<std::string>& paths_or_globs,
                                        const TraceReadOptions& read, const OpStatsOptions& options) {
  auto one_pass = [&]() -> absl::StatusOr<StatsPartial> {
    ROOFLINE_ASSIGN_OR_RETURN(Trace t, read_traces(paths_or_globs, read));
    return stats_partial(std::move(t), options);
  };
  // One file's partial, as stats_partial of its read names it.
  auto file_partial = [&](const std::string& path, const TraceReadOptions& file_read) -> absl::StatusOr<StatsPartial> {
    ROOFLINE_ASSIGN_OR_RETURN(detail::FileStats f, detail::read_file_stats(path, file_read, options, true));
    StatsPartial part = detail::partial_of_parts(f.trace, std::move(f.parts), options);
    // Its event arrays go to the thread's next file, where there is one.
    if (!in.single) detail::keep_for_next_file(f.trace, detail::KeptTimelines::kDevicesAndHosts);
    return part;
  };
  if (in.single) return file_partial(in.files.front().path, read);
  if (in.files.empty()) return one_pass();

  std::vector<StatsPartial> parts;
  std::vector<std::string> skipped;
  absl::Status error;
  auto reduce = [&](std::size_t i, const TraceReadOptions& file_read) {
    return file_partial(in.files[i].path, file_read);
  };
  detail::run_in_order(in.files, read, reduce, [&](std::size_t i, absl::StatusOr<StatsPartial> part) {
    if (auto go_on = detail::unread(in.files[i], part.status(), skipped, error)) return *go_on;
    parts.push_back(std::move(*part));
    return true;
  });
  if (!error.ok()) return error;
  if (parts.empty()) {
    std::vector<std::string> said = in.warnings;
    said.insert(said.end(), skipped.begin(), skipped.end());
    return detail::no_trace_among(in.source, in.files.size(), said);
  }
  absl::StatusOr<StatsPartial> merged = merge_partials(parts);
  // What a merge refuses (two files naming one host: a device on one, host
  // timelines on the other) one read joins: read them together.
  if (!merged.ok()) return one_pass();
  parts.clear();
  merged->source = in.source;
  merged->listing_warnings = std::move(in.warnings);
  merged->skipped_warnings = std::move(skipped);
  return merged;
}

// A listing of one file (a profile folder, a pattern that matched one file):
// the file's statistics as read_file_stats reads them (two partial reads of
// an XSpace), given what read_files makes of a one-file read (named after
// the listing, its warnings first, the devices in listing order), so that
// they are the whole read's. Nothing where the file does not read: the
// whole read then gives its own error, or skips it.
std::optional<TraceStatsRead> one_file_listing_stats(const detail::InputListing& in, const TraceReadOptions& read,
                                                     const OpStatsOptions& options) {
  absl::StatusOr<detail::FileStats> f = detail::read_file_stats(in.files.front().path, read, options, false);
  if (!f.ok()) return std::nullopt;
  detail::TraceMerge b(in.source);
  detail::merge_part(b, std::move(f->trace), detail::host_of_part(in.files, 0));
  const std::vector<std::size_t> order = detail::finish_merge(b.trace(), in.warnings, in.warnings.size());
  // The statistics name each device by its place. A file's read lists its
  // devices as a listing does (TraceBuilder::finish sorts them by host, kind
  // and id), so the places stand; were it ever otherwise, the whole read.
  if (!std::is_sorted(order.begin(), order.end())) return std::nullopt;
  // merge_part interns the file's ops afresh in their order: the same
  // indexes, which the rows and skew inputs use.
  detail::StatsParts& p = f->parts;
  TraceStats s = detail::finish_stats(std::move(p.devices), p.busy_self_ps, p.skew_inputs, p.rows, b.trace().ops);
  return TraceStatsRead{.trace = std::move(b.trace()), .stats = std::move(s)};
}

}  // namespace

absl::StatusOr<StatsPartial> stats_partial_of_traces(const std::vector<std::string>& paths_or_globs,
                                                     const TraceReadOptions& read, const OpStatsOptions& options) {
  ROOFLINE_ASSIGN_OR_RETURN(detail::InputListing in, detail::list_inputs(paths_or_globs));
  return partial_of(std::move(in), paths_or_globs, read, options);
}

absl::StatusOr<TraceStatsRead> read_trace_stats(const std::vector<std::string>& paths_or_globs,
                                                const TraceReadOptions& read, const OpStatsOptions& options) {
  ROOFLINE_ASSIGN_OR_RETURN(detail::InputListing in, detail::list_inputs(paths_or_globs));
  if (in.single) {
    ROOFLINE_ASSIGN_OR_RETURN(detail::FileStats f,
                              detail::read_file_stats(in.files.front().path, read, options, false));
    detail::StatsParts& p = f.parts;
    TraceStats s = detail::finish_stats(std::move(p.devices), p.busy_self_ps, p.skew_inputs, p.rows, f.trace.ops);
    return TraceStatsRead{.trace = std::move(f.trace), .stats = std::move(s)};
  }
  if (in.files.size() == 1)
    if (std::optional<TraceStatsRead> one = one_file_listing_stats(in, read, options)) return *std::move(one);
  if (in.files.size() < 2) {
    ROOFLINE_ASSIGN_OR_RETURN(Trace t, read_traces(paths_or_globs, read));
    TraceStats s = compute_op_stats(t, options);
    return TraceStatsRead{.trace = std::move(t), .stats = std::move(s)};
  }
  ROOFLINE_ASSIGN_OR_RETURN(StatsPartial p, partial_of(std::move(in), paths_or_globs, read, options));
  TraceStats s = finish_stats(p);
  return TraceStatsRead{.trace = trace_outline(p), .stats = std::move(s)};
}

}  // namespace roofline
