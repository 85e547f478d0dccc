// roofline stats TRACE...: what a measured trace spent its time on, per device
// and per op, like a profiler's overview and HLO Op Stats pages.
#include <cstdio>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/measure/op_stats.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/json.hpp"
#include "roofline/report/steps.hpp"
#include "roofline/report/stats_text.hpp"
#include "roofline/trace/read.hpp"
#include "src/cli/command.hpp"
#include "src/cli/read_limits.hpp"

namespace roofline::cli {
namespace {

using detail::cat;

// The statistics in `fmt`, to -o FILE or stdout, as every command writes.
int print_stats(const Args& args, const Trace& trace, const TraceStats& s, const std::string& fmt, long long top) {
  const std::size_t limit = top < 0 ? s.ops.size() : static_cast<std::size_t>(top);
  if (fmt == "json") return write_output(args, to_json(trace, s, limit).dump() + "\n");
  if (fmt == "csv") return write_output(args, to_csv(s, limit));
  return write_output(args, render_stats_text(trace, s, limit));
}

// The partial file to -o FILE, else stdout.
int write_partial(const Args& args, const StatsPartial& p) {
  if (args.has("format") || args.has("top")) return fail_usage("--partial writes the partial file: no --format or --top");
  return write_output(args, stats_partial_json(p));
}

// --by step: the trace read whole (the steps need its device and host
// events), then one row per step (roofline/measure/steps.hpp).
int print_steps(const Args& args, const TraceReadOptions& read, const OpStatsOptions& options, const std::string& fmt,
                long long top) {
  if (fmt == "csv") return fail_usage("--by step: formats text and json");
  if (args.has("partial")) return fail_usage("--by step: no --partial");
  auto trace = read_traces(args.positional(), read);
  if (!trace.ok()) return fail(trace.status());
  const StepBreakdown b = compute_step_breakdown(*trace, StepBreakdownOptions{.device_id = options.device_id});
  if (fmt == "json") return write_output(args, steps_json(b).dump() + "\n");
  const std::string text = render_steps_text(b, top < 0 ? StepBreakdownOptions{}.max_steps : static_cast<std::size_t>(top));
  return write_output(args, text);
}

int run_stats(const Args& args) {
  auto fmt = args.format({"text", "json", "csv"});
  if (!fmt.ok()) return fail(fmt.status());
  if (args.positional().empty())
    return fail_usage("stats: expected a TRACE (file, directory or glob pattern; several are read as one job)");
  OpStatsOptions options;
  if (args.has("device")) {
    auto d = args.get_int("device", std::nullopt, kIntRange);
    if (!d.ok()) return fail(d.status());
    options.device_id = static_cast<int>(*d);
  }
  auto top = args.get_int("top", *fmt == "text" ? 20 : -1, kIntRange);
  if (!top.ok()) return fail(top.status());
  if (*top < -1 || (args.has("top") && *top < 0)) return fail_usage("--top: expected a count >= 0");

  auto read_options = trace_read_options(args);
  if (!read_options.ok()) return fail(read_options.status());
  auto host_bytes = args.get_int("host-timelines-up-to", static_cast<long long>(kStatsHostTimelinesUpToBytes),
                                 IntRange{0, std::numeric_limits<long long>::max()});
  if (!host_bytes.ok()) return fail(host_bytes.status());
  read_options->host_timelines_up_to_bytes = static_cast<std::uint64_t>(*host_bytes);
  // Several files go through their partials: one file's trace held per job.
  ProgressLine line(*read_options);
  if (auto by = args.get("by")) {
    if (*by != "step") return fail_usage("--by: expected step");
    return print_steps(args, *read_options, options, *fmt, *top);
  }
  if (args.has("partial")) {
    auto p = stats_partial_of_traces(args.positional(), *read_options, options);
    if (!p.ok()) return fail(p.status());
    if (options.device_id && p->device_stats.empty())
      return fail(absl::NotFoundError(cat(p->source, ": no device ", *options.device_id, " with op events")));
    return write_partial(args, *p);
  }
  auto r = read_trace_stats(args.positional(), *read_options, options);
  if (!r.ok()) return fail(r.status());
  if (options.device_id && r->stats.devices.empty())
    return fail(absl::NotFoundError(cat(args.positional().size() == 1 ? args.positional()[0] : r->trace.source,
                                        ": no device ", *options.device_id, " with op events")));
  return print_stats(args, r->trace, r->stats, *fmt, *top);
}

// A refused merge, located: the partial file that brought the refusal
// (merge_partials' message names the traces the partials were made of).
// Found by merging again one by one, which only a failed merge pays for.
absl::Status merge_error(const std::vector<std::string>& paths, const std::vector<StatsPartial>& parts,
                         const absl::Status& error) {
  for (std::size_t n = 2; n <= parts.size(); ++n) {
    const absl::StatusOr<StatsPartial> m = merge_partials(std::span(parts).first(n));
    if (!m.ok())
      return absl::Status(m.status().code(), cat(paths[n - 1], ": cannot merge it with the partial",
                                                 n == 2 ? " " : "s ", n == 2 ? paths[0] : "before it", ": ",
                                                 std::string(m.status().message())));
  }
  return error;
}

// roofline merge PART...: the statistics of the partials' inputs, exactly
// as `roofline stats` prints them read together; or, with --partial, the
// merged partial.
int run_merge(const Args& args) {
  auto fmt = args.format({"text", "json", "csv"});
  if (!fmt.ok()) return fail(fmt.status());
  if (args.positional().empty()) return fail_usage("merge: expected PART files (roofline stats TRACE --partial -o PART)");
  auto top = args.get_int("top", *fmt == "text" ? 20 : -1, kIntRange);
  if (!top.ok()) return fail(top.status());
  if (*top < -1 || (args.has("top") && *top < 0)) return fail_usage("--top: expected a count >= 0");
  std::vector<StatsPartial> parts;
  for (const std::string& path : args.positional()) {
    auto p = read_stats_partial_file(path);
    if (!p.ok()) return fail(p.status());
    parts.push_back(std::move(*p));
  }
  auto merged = merge_partials(parts);
  if (!merged.ok()) return fail(merge_error(args.positional(), parts, merged.status()));
  parts.clear();
  if (args.has("partial")) return write_partial(args, *merged);
  const TraceStats s = finish_stats(*merged);
  return print_stats(args, trace_outline(*merged), s, *fmt, *top);
}

ROOFLINE_CLI_COMMAND({
    .name = "stats",
    .usage = "roofline stats TRACE... [--jobs N] [--device N] [--top N] [--format text|json|csv] [--partial] [-o FILE] "
             "[--host-timelines-up-to BYTES] [--by step]",
    .summary = "Op statistics of a measured trace (.xplane.pb, trace JSON, PyTorch trace, or a profile directory; several, or glob patterns, as the hosts of one job).",
    .options = with_read_limits({{"device", "N", "only devices with this id (TPU:N, GPU N)"},
                                 {"top", "N", "ops listed (default 20 in text, all in json/csv)"},
                                 {"format", "text|json|csv", "output format (default text)"},
                                 {"partial", "", "write partial statistics that roofline merge combines (docs/partials.md)"},
                                 {"output", "FILE", "write to FILE instead of stdout (with --partial: the partial)", "o"},
                                 {"host-timelines-up-to", "BYTES",
                                  detail::cat("read an XSpace's host timelines (host activity in idle gaps) only "
                                              "while its host planes hold at most BYTES, if it has device planes "
                                              "(default ",
                                              kStatsHostTimelinesUpToBytes, ")")},
                                 {"by", "step", "per step: time, busy, duty cycle, largest gaps with the host activity in them, variance (text, json)"}}),
    .run = run_stats,
});

ROOFLINE_CLI_COMMAND({
    .name = "merge",
    .usage = "roofline merge PART... [--top N] [--format text|json|csv] [--partial] [-o FILE]",
    .summary = "Statistics of the inputs of partials (roofline stats --partial), exactly as roofline stats prints them read together; in input order.",
    .options = {{"top", "N", "ops listed (default 20 in text, all in json/csv)"},
                {"format", "text|json|csv", "output format (default text)"},
                {"partial", "", "write the merged partial instead (docs/partials.md)"},
                {"output", "FILE", "write to FILE instead of stdout (with --partial: the partial)", "o"}},
    .run = run_merge,
});

}  // namespace
}  // namespace roofline::cli
