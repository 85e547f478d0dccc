// roofline diff: two profiles of one program, before and after a change.
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "roofline/calibrate/io.hpp"
#include "roofline/chip_io.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/match/match.hpp"
#include "roofline/measure/measured.hpp"
#include "roofline/report/diff.hpp"
#include "roofline/trace/read.hpp"
#include "src/cli/command.hpp"
#include "src/cli/read_limits.hpp"
#include "src/cli/trace_reports.hpp"

namespace roofline::cli {
namespace {

// One side's report, made as `roofline report PATH` makes it.
absl::StatusOr<Report> report_of(const std::string& path, const TraceReadOptions& read_options,
                                 const ReportOptions& given, const CalibrationFile* calibration) {
  ReportOptions options = given;
  TraceReadOptions o = read_options;
  absl::StatusOr<MeasuredRead> read = [&]() {
    ProgressLine line(o);
    return read_measured({path}, o, options.device_id);
  }();
  if (!read.ok()) return read.status();
  if (calibration) use_calibration_file(read->trace, read->measured, *calibration, options);
  return make_report(read->trace, std::move(read->measured), options, kCliWords);
}

int run(const Args& args) {
  if (args.positional().size() != 2)
    return fail_usage("diff: expected two profiles, BEFORE and AFTER (each a file or a profile directory)");
  auto fmt_name = args.format({"text", "md", "json", "csv", "html"});
  if (!fmt_name.ok()) return fail(fmt_name.status());
  const ReportFormat format = *parse_report_format(*fmt_name);
  auto top = args.get_int("top", 15, kIntRange);
  if (!top.ok()) return fail(top.status());
  if (*top < 1) return fail_usage("--top: expected a positive integer");
  std::optional<Gate> gate;
  if (auto expression = args.get("fail-if")) {
    auto g = parse_gate(*expression);
    if (!g.ok()) return fail(g.status());
    gate = *std::move(g);
  }

  ReportOptions options;
  Chip chip;
  if (auto name = args.get("chip")) {
    auto c = resolve_chip(*name);
    if (!c.ok()) return fail(c.status());
    chip = *std::move(c);
    options.chip = &chip;
  }
  if (args.has("device")) {
    auto d = args.get_int("device", std::nullopt, kIntRange);
    if (!d.ok()) return fail(d.status());
    options.device_id = static_cast<int>(*d);
  }
  CalibrationFile calibration;
  const bool calibrated = args.has("calibration");
  if (auto path = args.get("calibration")) {
    auto f = read_calibration_file(*path);
    if (!f.ok()) return fail(f.status());
    calibration = *std::move(f);
  }
  auto read_options = trace_read_options(args);
  if (!read_options.ok()) return fail(read_options.status());

  std::vector<Report> reports;
  for (const std::string& path : args.positional()) {
    auto r = report_of(path, *read_options, options, calibrated ? &calibration : nullptr);
    if (!r.ok()) return fail(r.status());
    reports.push_back(*std::move(r));
  }
  const ReportDiff d = diff(reports[0], reports[1]);
  std::optional<GateResult> result;
  if (gate) result = evaluate(*gate, d);
  const int written = write_output(args, render_diff(d, format, DiffRenderOptions{.top = static_cast<int>(*top)},
                                                     result ? &*result : nullptr));
  if (written != 0) return written;
  if (result && result->failed) {
    // The reasons on stderr too: a CI log shows them whatever the format.
    for (const std::string& why : result->reasons) std::fprintf(stderr, "roofline diff: fail-if held: %s\n", for_terminal(why).c_str());
    return 1;
  }
  return 0;
}

ROOFLINE_CLI_COMMAND({
    .name = "diff",
    .usage = "roofline diff BEFORE AFTER [--fail-if EXPR] [--chip NAME|PATH] [--calibration FILE] [--device N] "
             "[--top N] [--format text|md|json|csv|html] [-o FILE]",
    .summary = "Two profiles of one program: what changed, matched by what each op is, not its name.",
    .options = with_read_limits({{"fail-if", "EXPR", "exit 1 when the change passes a limit: \"mfu<-2% or step_time>+5%\""},
                {"chip", "NAME|PATH", "predict both on this chip (default: detected from each trace)"},
                {"calibration", "FILE", "expected times from this calibration file (roofline calibrate)"},
                {"device", "N", "only device N (default: all devices)"},
                {"top", "N", "rows in each table of text, md and html output (default 15)"},
                {"format", "text|md|json|csv|html", "output format (default text)"},
                {"output", "FILE", "write to FILE instead of stdout", "o"}}),
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
