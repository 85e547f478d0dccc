// roofline report: a measured trace against the roofline of every op in it.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "roofline/calibrate/io.hpp"
#include "roofline/chip_io.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/match/match.hpp"
#include "roofline/measure/measured.hpp"
#include "roofline/report/perfetto.hpp"
#include "roofline/report/render.hpp"
#include "roofline/report/scopes.hpp"
#include "roofline/report/steps.hpp"
#include "roofline/measure/steps.hpp"
#include "roofline/trace/read.hpp"
#include "src/cli/command.hpp"
#include "src/cli/read_limits.hpp"
#include "src/cli/trace_reports.hpp"

namespace roofline::cli {
namespace {

absl::StatusOr<std::vector<HloModule>> read_modules(const std::string& list) {
  std::vector<HloModule> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string path = list.substr(start, end - start);
    if (!path.empty()) {
      auto m = read_hlo_file(path);
      if (!m.ok()) return m.status();
      out.push_back(*std::move(m));
    }
    start = end + 1;
  }
  return out;
}

// --format perfetto: the timeline needs the events, so the trace is read
// whole (read_traces) instead of measured file by file.
int run_perfetto(const Args& args, ReportOptions options, const TraceReadOptions& read_options,
                 const CalibrationFile* calibration) {
  absl::StatusOr<Trace> trace = [&, o = read_options]() mutable {
    ProgressLine line(o);
    return read_traces(args.positional(), o);
  }();
  if (!trace.ok()) return fail(trace.status());
  if (calibration != nullptr) use_calibration_file(*trace, *calibration, options);
  auto m = match(*trace, options);
  if (!m.ok()) return fail(m.status());
  const Timeline timeline = render_perfetto(*m);
  if (timeline.ops_left_out > 0)
    std::fprintf(stderr, "roofline: timeline: %zu op events written, %zu later ones left out (%zu per device at most)\n",
                 timeline.ops_written, timeline.ops_left_out, TimelineOptions{}.max_ops_per_device);
  return write_output(args, timeline.json);
}

// --by step: per-step time, gaps and variance (the trace read whole: steps
// need its device and host events) beside the report's roofline per step.
int run_by_step(const Args& args, ReportOptions options, const TraceReadOptions& read_options,
                const CalibrationFile* calibration, const std::string& format, int top) {
  if (format != "text" && format != "json") return fail_usage("--by step: formats text and json");
  absl::StatusOr<Trace> trace = [&, o = read_options]() mutable {
    ProgressLine line(o);
    return read_traces(args.positional(), o);
  }();
  if (!trace.ok()) return fail(trace.status());
  if (calibration != nullptr) use_calibration_file(*trace, *calibration, options);
  auto report = make_report(*trace, options, kCliWords);
  if (!report.ok()) return fail(report.status());
  const StepBreakdown steps = compute_step_breakdown(*trace, StepBreakdownOptions{.device_id = options.device_id});
  if (format == "json") return write_output(args, report_steps_json(*report, steps).dump() + "\n");
  return write_output(args, render_report_steps_text(*report, steps, static_cast<std::size_t>(top)));
}

int run(const Args& args) {
  if (args.positional().empty())
    return fail_usage("report: expected a trace (a file, a profile directory or a glob pattern; several are read as one job)");
  auto fmt_name = args.format({"text", "md", "json", "csv", "html", "perfetto"});
  if (!fmt_name.ok()) return fail(fmt_name.status());
  const bool perfetto = *fmt_name == "perfetto";
  const ReportFormat format = perfetto ? ReportFormat::kText : *parse_report_format(*fmt_name);
  auto top = args.get_int("top", 15, kIntRange);
  if (!top.ok()) return fail(top.status());
  if (*top < 1) return fail_usage("--top: expected a positive integer");
  const std::optional<ReportRank> rank = parse_report_rank(args.get("rank").value_or("lost"));
  if (!rank) return fail_usage("--rank: expected lost, roofline, ratio or time");

  // --by scope [--depth N]: the report's ops totalled per name scope
  // (roofline/report/scopes.hpp).
  const std::string by = args.get("by").value_or("op");
  if (by != "op" && by != "scope" && by != "step") return fail_usage("--by: expected op, scope or step");
  const bool by_scope = by == "scope";
  auto depth = args.get_int("depth", kDefaultScopeDepth, kIntRange);
  if (!depth.ok()) return fail(depth.status());
  if (*depth < 1) return fail_usage("--depth: expected a positive integer");
  if (args.has("depth") && !by_scope) return fail_usage("--depth: only with --by scope");

  ReportOptions options;
  Chip chip, target;
  if (auto name = args.get("chip")) {
    auto c = resolve_chip(*name);
    if (!c.ok()) return fail(c.status());
    chip = *std::move(c);
    options.chip = &chip;
  }
  if (auto name = args.get("target-chip")) {
    auto c = resolve_chip(*name);
    if (!c.ok()) return fail(c.status());
    target = *std::move(c);
    options.target_chip = &target;
  }
  if (args.has("device")) {
    auto d = args.get_int("device", std::nullopt, kIntRange);
    if (!d.ok()) return fail(d.status());
    options.device_id = static_cast<int>(*d);
  }
  std::vector<HloModule> modules;
  if (auto list = args.get("hlo")) {
    auto m = read_modules(*list);
    if (!m.ok()) return fail(m.status());
    modules = *std::move(m);
    options.hlo_modules = &modules;
  }
  CalibrationFile calibration;
  if (auto path = args.get("calibration")) {
    auto f = read_calibration_file(*path);
    if (!f.ok()) return fail(f.status());
    calibration = *std::move(f);
  }
  auto read_options = trace_read_options(args);
  if (!read_options.ok()) return fail(read_options.status());
  if (perfetto && by != "op") return fail_usage("--format perfetto: a timeline of every op; leave out --by");
  if (perfetto) return run_perfetto(args, options, *read_options, args.has("calibration") ? &calibration : nullptr);
  if (by == "step")
    return run_by_step(args, options, *read_options, args.has("calibration") ? &calibration : nullptr, *fmt_name,
                       static_cast<int>(*top));
  // Each file measured and its events dropped as it is read: a pod's
  // report holds its ops, not its events (roofline/measure/measured.hpp).
  absl::StatusOr<MeasuredRead> read = [&, o = *read_options]() mutable {
    ProgressLine line(o);
    return read_measured(args.positional(), o, options.device_id);
  }();
  if (!read.ok()) return fail(read.status());
  // The calibration file's entries for the chip (given, or the one the
  // trace names) and the what-if chip; a chip it lacks takes a same-die entry or keeps its built-in one.
  if (args.has("calibration")) use_calibration_file(read->trace, read->measured, calibration, options);
  auto report = make_report(read->trace, std::move(read->measured), options, kCliWords);
  if (!report.ok()) return fail(report.status());
  const std::string text = by_scope ? render_scopes(*report, format, static_cast<int>(*depth))
                                    : render_report(*report, format, RenderOptions{.top = static_cast<int>(*top), .rank = *rank});
  return write_output(args, text);
}

ROOFLINE_CLI_COMMAND({
    .name = "report",
    .usage = "roofline report TRACE... [--jobs N] [--hlo FILE[,FILE]] [--chip NAME|PATH] [--target-chip NAME|PATH] [--calibration FILE] "
             "[--device N] [--top N] [--rank lost|roofline|ratio|time] [--by op|scope|step] [--depth N] [--format text|md|json|csv|html|perfetto] [-o FILE]",
    .summary = "Expected vs observed: every op of a measured trace against its roofline, with MFU.",
    .options = with_read_limits({{"hlo", "FILE[,FILE]", "HLO text or HloProto modules to cost the trace's ops from"},
                {"chip", "NAME|PATH", "predict on this chip (default: detected from the trace)"},
                {"target-chip", "NAME|PATH", "what-if: also predict every op on this chip"},
                {"calibration", "FILE", "expected times from this calibration file (roofline calibrate)"},
                {"device", "N", "only device N (default: all devices, times summed)"},
                {"top", "N", "rows in the ranked lists of text and md output (default 15)"},
                {"rank", "lost|roofline|ratio|time", "text and md: rank the ops by time lost against the expected (default), against the roofline, by measured / roofline, or by measured time"},
                {"by", "op|scope|step", "op (default): the report; scope: totals per name scope, as a tree; step: per step, time, busy, duty cycle, largest gaps with host activity, roofline, MFU, variance (text, json)"},
                {"depth", "N", "--by scope: fold scopes deeper than N into their ancestor (default 3)"},
                {"format", "text|md|json|csv|html|perfetto", "output format (default text); perfetto: a Chrome trace-event timeline"},
                {"output", "FILE", "write to FILE instead of stdout", "o"}}),
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
