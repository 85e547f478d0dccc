// A file's statistics without decoding what they do not read. Of a TPU
// pod host's profile, two thirds of the bytes are host events, yet the
// statistics look at the host only during each device's few largest idle
// gaps (what the host did then). So an XSpace with device planes is read
// twice, neither time whole: its devices, with no look into host lines;
// then its host timelines, with no look into device lines, keeping the host
// events that overlap a gap and dropping each of the others (of the usual
// shape: Decoder::event_times) once its times are read. The figures are
// those of the whole read, to the bit. Where they might not be, the file is
// read whole instead: either read failing; times rebased on the lines each
// read saw; warnings the two reads do not both give (a host event naming
// undefined metadata, or aggregated; so also a device plane's warnings,
// which the host read cannot give: then three reads); an op both a host
// and a device event name (join_host_timelines). An XSpace whose host planes are past
// TraceReadOptions::host_timelines_up_to_bytes is read once, its host lines
// unread, as a whole read of it is.
#include "src/measure/stats_file_read.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "roofline/detail/status_macros.hpp"
#include "roofline/trace/read_parts.hpp"
#include "roofline/trace/read_plan.hpp"

namespace roofline::detail {
namespace {

// The union of every device's gaps: disjoint windows in order.
std::vector<TimeWindow> gap_union(const std::vector<std::vector<TimeWindow>>& gaps) {
  std::vector<TimeWindow> all;
  for (const std::vector<TimeWindow>& g : gaps)
    for (const TimeWindow& w : g)
      if (w.end_ps > w.start_ps) all.push_back(w);
  std::sort(all.begin(), all.end(), [](const TimeWindow& a, const TimeWindow& b) { return a.start_ps < b.start_ps; });
  std::vector<TimeWindow> out;
  for (const TimeWindow& w : all) {
    if (!out.empty() && w.start_ps <= out.back().end_ps) out.back().end_ps = std::max(out.back().end_ps, w.end_ps);
    else out.push_back(w);
  }
  return out;
}


}  // namespace

absl::StatusOr<FileStats> stats_of_reads(const PlannedRead& read, const OpStatsOptions& options, bool by_stem) {
  auto of_trace = [&](Trace t) {
    if (by_stem) name_hosts_by_stem(t);
    StatsParts parts = compute_stats_parts(t, options);
    return FileStats{.trace = std::move(t), .parts = std::move(parts)};
  };
  auto whole = [&]() -> absl::StatusOr<FileStats> {
    ROOFLINE_ASSIGN_OR_RETURN(Trace t, read(nullptr));
    return of_trace(std::move(t));
  };

  XPlaneReadPlan devices_plan;
  devices_plan.skip_host_lines = true;
  absl::StatusOr<Trace> devices = read(&devices_plan);
  // A failed read of an XSpace is read again whole, for the error the whole
  // read meets first (another read failed whole already: a stream can be
  // read once); a read that skipped nothing was whole.
  if (!devices.ok()) return devices_plan.entered ? whole() : devices.status();
  // Host planes past TraceReadOptions::host_timelines_up_to_bytes: the
  // whole read leaves their lines unread too, so the device read is it.
  if (!devices_plan.decoded || !devices_plan.host_lines_skipped || devices_plan.hosts_past_limit)
    return of_trace(std::move(*devices));
  if (by_stem) name_hosts_by_stem(*devices);
  StatsParts parts = compute_device_parts(*devices, options);

  XPlaneReadPlan hosts_plan;
  hosts_plan.skip_device_lines = true;
  hosts_plan.host_windows = gap_union(parts.gaps);
  absl::StatusOr<Trace> hosts = read(&hosts_plan);
  // Both reads saw all the warnings the whole read gives (the XSpace's own,
  // device and host planes' alike) only when they gave the same ones; and
  // their times count from one origin only when neither rebased them on its
  // lines.
  if (!hosts.ok() || devices_plan.rebased || hosts_plan.rebased || hosts->warnings != devices->warnings)
    return whole();
  if (by_stem) name_hosts_by_stem(*hosts);
  add_host_activity(*hosts, parts, options);
  if (!detail::join_host_timelines(*devices, *hosts)) return whole();
  return FileStats{.trace = std::move(*devices), .parts = std::move(parts)};
}

absl::StatusOr<FileStats> read_file_stats(const std::string& path, const TraceReadOptions& read,
                                          const OpStatsOptions& options, bool by_stem) {
  // Without host timelines there is no host to read for the gaps.
  if (!read.host_timelines)
    return stats_of_reads([&](XPlaneReadPlan*) { return read_file(path, read); }, options, by_stem);
  return stats_of_reads([&](XPlaneReadPlan* plan) { return read_file(path, read, plan); }, options, by_stem);
}

}  // namespace roofline::detail
