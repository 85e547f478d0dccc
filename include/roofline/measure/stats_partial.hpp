// Partial op statistics that merge: what `roofline stats` needs from each
// input so that the statistics of many inputs (the hosts of a pod, read on
// many machines) are computed without ever holding them together, and equal
// exactly, to the last bit, those of one pass over all of them.
//
//   // map, anywhere: one partial per input
//   auto t = roofline::read_traces({"host3.xplane.pb"});
//   roofline::StatsPartial p = roofline::stats_partial(std::move(*t));
//   write(roofline::stats_partial_json(p));               // docs/partials.md
//   // reduce: merge in input order, then finish
//   auto m = roofline::merge_partials({p0, p1, p2});      // (p0+p1)+p2 == p0+(p1+p2)
//   roofline::TraceStats s = roofline::finish_stats(*m);  // == compute_op_stats of host0..2 read together
//
// Why it is exact: every figure of a device comes from that device's events
// alone, and a device lives in one file, so per-device statistics are final
// in the partial; the figures over all devices are sums in device order and,
// per op, the multiset of its self times (integer picoseconds, as ascending
// runs), from which count, sum (added in the same order), mean, median, min
// and max are recomputed; the figures across devices (skew.hpp) from each
// device's steps and collective durations, carried whole. Ops are told apart as the reader interns them
// (module, program id, name, kernel, category, HLO text), and in the order
// they were first met, which breaks ties between equal totals.
//
// Inputs combine as read_traces combines files: devices without a host
// name take their file's stem. A partial always names them so (it exists to
// be merged), so the partial of one Kineto/Chrome JSON file alone names the
// host where `roofline stats FILE` leaves it empty. Merging refuses what it
// cannot reproduce: the same file twice, different statistics options, or a
// host name that a device of one input shares with host timelines or host
// steps of another (one pass would lend that device the other's host
// activity and steps).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/measure/op_stats.hpp"
#include "roofline/measure/skew.hpp"
#include "roofline/trace/read.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

inline constexpr std::string_view kStatsPartialFormat = "roofline-stats-partial";
inline constexpr int kStatsPartialVersion = 2;

// What a partial, read or merged, may hold. Finishing adds one double per op
// event (as one pass does, so the sums are the same), about 1 ns each: 2^32
// events take seconds, not years, and counts never overflow when two
// partials within it merge. A host timeline becomes a Device in
// trace_outline(): 2^16 of them (a pod has thousands of hosts) stay small.
inline constexpr std::int64_t kMaxPartialEvents = std::int64_t{1} << 32;
inline constexpr std::int64_t kMaxPartialHostTimelines = std::int64_t{1} << 16;

// `count` occurrences of one self time.
struct DurationRun {
  std::int64_t self_ps = 0;
  std::int64_t count = 0;
};

// The self times of one row of TraceStats::ops over all devices.
struct OpDurations {
  std::uint32_t op = 0;  // index into StatsPartial::ops (Trace::ops in a single pass)
  bool async = false;
  std::vector<DurationRun> runs;  // ascending self_ps, counts > 0
};

struct StatsPartial {
  std::string source;  // the inputs as given, joined by spaces
  std::vector<std::string> files;
  std::vector<TraceFormat> formats;  // one per file
  // Trace::warnings in three parts, so that merged partials list them as one
  // read does: all inputs' listing warnings, then files skipped, then the
  // files' own warnings.
  std::vector<std::string> listing_warnings, skipped_warnings, file_warnings;
  OpStatsOptions options;  // what the statistics were computed with; partials merge only under equal options
  // Every device of the inputs, identity only (id, host, name, model, vendor,
  // kind, caps; no lines or events), in the order one read sorts them.
  std::vector<Device> devices;
  std::size_t host_timelines = 0;  // Trace::hosts of the inputs
  // Host names of the inputs' host timelines and host steps, sorted, unique.
  std::vector<std::string> host_names;
  // Statistics of the devices with op events, final. DeviceStats::device
  // indexes `devices`; each DeviceStats::ops[i].op indexes `ops`.
  std::vector<DeviceStats> device_stats;
  std::vector<std::int64_t> busy_self_ps;  // per device_stats: sum of busy ops' self times
  // Per device_stats: its steps and collective calls (skew.hpp), from which
  // the figures across devices are computed when finishing; their ops index
  // `ops`.
  std::vector<DeviceSkewInputs> skew_inputs;
  // The ops with rows, in the order a read of the inputs interns them; only
  // name, module, program_id, kernel, category, hlo_text, op_class, flops and
  // bytes_accessed are kept.
  std::vector<OpInfo> ops;
  std::vector<OpDurations> rows;  // by (op, async)
};

// The partial of a trace read by read_trace(s): devices without a host name
// take the file's stem when it is one file (as a read of several would).
StatsPartial stats_partial(Trace trace, const OpStatsOptions& options = {});

// The partial of the inputs of all `parts`, in that order: associative,
// not commutative (order breaks ties, as the order of files does). Errors
// name the partials' sources: the same file twice, different options, a
// shared host name (see above), or no partial at all.
absl::StatusOr<StatsPartial> merge_partials(std::span<const StatsPartial> parts);

// The statistics, equal to compute_op_stats over read_traces of the same
// files (OpStat::op then indexes StatsPartial::ops, not a Trace's ops).
TraceStats finish_stats(const StatsPartial& partial);

// What the renderers of the statistics (to_json, to_csv, the CLI's text)
// read from a Trace: source, files, formats, warnings, the devices'
// identities and as many (empty) host timelines; no events.
Trace trace_outline(const StatsPartial& partial);

// Map and reduce in one process: the partial of what read_traces reads
// (files, directories, patterns), made without holding two files' traces
// at once. Each file is read (read.jobs at a time), reduced to its partial on
// the thread that read it and dropped; the partials merge in file order, so
// memory is about `jobs` files' traces plus the partials. Equal to
// stats_partial(*read_traces(paths_or_globs, read), options) (but for the
// damaged host events read_trace_stats says it does not see); inputs that a
// merge refuses (one host name on a device of one file and the host
// timelines of another) are read together instead. Files are read as
// read_trace_stats reads one (but a directory or pattern naming only one,
// which is read whole).
absl::StatusOr<StatsPartial> stats_partial_of_traces(const std::vector<std::string>& paths_or_globs,
                                                     const TraceReadOptions& read = {},
                                                     const OpStatsOptions& options = {});

// The TraceReadOptions::host_timelines_up_to_bytes that `roofline stats`
// and Python roofline.stats and stats_partial read with unless told
// otherwise (--host-timelines-up-to): an XSpace whose host planes hold more
// (a TPU pod host's 280 MB profile: 175 MB) is read without its host
// timelines, 1.6x faster (docs/traces.md, "A pod-scale profile"); every
// single-host XSpace we have holds far less (the largest real one, 3 MB).
inline constexpr std::uint64_t kStatsHostTimelinesUpToBytes = std::uint64_t{64} << 20;

// The statistics of the inputs and what their renderers read as the trace.
// One file: the trace, its devices whole, its host timelines with the
// events the statistics read (of an XPlane with device planes, those that
// overlap a device's idle gaps or that had to be decoded to know: see
// read_trace_stats). Several: trace_outline() of their partial (no events).
struct TraceStatsRead {
  Trace trace;
  TraceStats stats;
};

// What `roofline stats` prints (which reads with read.host_timelines_up_to_bytes
// = kStatsHostTimelinesUpToBytes; unset here, every host timeline is read):
// compute_op_stats of the read of one file;
// for several, finish_stats of stats_partial_of_traces, so the memory is
// bounded by `jobs` files. The figures are the same either way (to the bit).
// Both read an XPlane with device planes in two partial reads: its devices,
// then its host events, each of the usual shape dropped once its times are
// read unless it overlaps a device's idle gap: the whole read's figures, to
// the bit, from a third of the decoding. A host event outside every gap
// whose stats are damaged past their wire format then goes unseen (a whole
// read refuses it). Where the two reads could differ from a whole one
// (either fails; their warnings or time bases differ; host and device
// events name one op), the file is read whole (docs/traces.md).
//
//   auto r = roofline::read_trace_stats({"logs/host*.xplane.pb"}, {.jobs = 2});
//   std::cout << roofline::to_json(r->trace, r->stats, 20).dump();
absl::StatusOr<TraceStatsRead> read_trace_stats(const std::vector<std::string>& paths_or_globs,
                                                const TraceReadOptions& read = {},
                                                const OpStatsOptions& options = {});

// The partial file (docs/partials.md): JSON, with "format" and "version".
std::string stats_partial_json(const StatsPartial& partial);
// Reads one, checked throughout: errors name `origin` and the JSON path (or
// the byte offset of text that is not JSON), and another format or version
// is refused by name.
absl::StatusOr<StatsPartial> parse_stats_partial(std::string_view text, std::string_view origin);
absl::StatusOr<StatsPartial> read_stats_partial_file(const std::string& path);

}  // namespace roofline
