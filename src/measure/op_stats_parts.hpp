// compute_op_stats in two halves (src/measure/op_stats.cc), shared with the
// partials (roofline/measure/stats_partial.hpp) so that a merge finishes the
// figures over all devices with the very code of one pass. Internal.
#pragma once

#include <cstdint>
#include <vector>

#include "roofline/measure/op_stats.hpp"
#include "roofline/measure/skew.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "roofline/trace/read_parts.hpp"
#include "roofline/trace/read_plan.hpp"

namespace roofline::detail {

// Per device its final statistics, busy self time and what the figures
// across devices need (skew.hpp); per row over all devices its self times.
// Rows by (op, async).
// `gaps`: each device's idle gaps (DeviceStats::idle_gaps) exactly.
struct StatsParts {
  std::vector<DeviceStats> devices;
  std::vector<std::int64_t> busy_self_ps;
  std::vector<DeviceSkewInputs> skew_inputs;
  std::vector<OpDurations> rows;
  std::vector<std::vector<TimeWindow>> gaps;
};
// Without `op_rows`, the rows and each DeviceStats::ops are left empty: the
// match stage counts its ops by (op, call) itself, and sorting every op's
// self times twice was a tenth of a report's statistics.
StatsParts compute_stats_parts(const Trace& trace, const OpStatsOptions& options, bool op_rows = true);
// compute_stats_parts in its two steps: the devices' figures, their idle
// gaps without host activity; then what `hosts`' host timelines did in those
// gaps (Trace::hosts and the ops they name; a trace of the same time axis,
// which may be another read of the same file).
StatsParts compute_device_parts(const Trace& trace, const OpStatsOptions& options, bool op_rows = true);
void add_host_activity(const Trace& hosts, StatsParts& parts, const OpStatsOptions& options);

// The totals, ops, categories and figures across devices over all devices,
// in the order of `devices`; rows' and skew inputs' op indexes `ops`.
TraceStats finish_stats(std::vector<DeviceStats> devices, const std::vector<std::int64_t>& busy_self_ps,
                        const std::vector<DeviceSkewInputs>& skew_inputs, const std::vector<OpDurations>& rows,
                        const std::vector<OpInfo>& ops);

// The steps a device's statistics take: its own, else its host's host steps
// (those of its host when several hosts were read).
std::vector<Step> device_step_list(const Trace& trace, const Device& device);

// A device's statistics with only its identity filled (index into the
// devices, id, name, host, model): in a pass and when a partial is read back.
DeviceStats device_identity(const Device& d, std::size_t index);

// In the order of TraceStats::ops: busy rows first, by total self time,
// then by op and async; a total order.
void sort_by_total(std::vector<OpStat>& ops);

// An op row's identity (name, module, program, kernel, category, class,
// XLA's figures) from the op it counts: in a pass, in a merge and when a
// partial is read back.
void fill_identity(OpStat& s, const OpInfo& info);

// One row's figures from its self times as ascending runs (`runs` not
// empty); the share is of `denominator_s`. op_totals: only the identity,
// count and total, which is all a pass without op rows reads (exactly
// finish_op's while the total is below kExactPs).
OpStat finish_op(const OpInfo& info, std::uint32_t op, bool async, const std::vector<DurationRun>& runs,
                 double denominator_s);
OpStat op_totals(const OpInfo& info, std::uint32_t op, bool async, std::int64_t count, std::int64_t total_ps);

// Self times as ascending runs (`v` is sorted in place), and the runs of
// the union of two multisets given as runs: what to_runs gives for their
// self times together.
std::vector<DurationRun> to_runs(std::vector<std::int64_t>& v);
void add_runs(std::vector<DurationRun>& into, const std::vector<DurationRun>& more);

}  // namespace roofline::detail
