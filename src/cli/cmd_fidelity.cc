// roofline fidelity: how well the roofline, the built-in calibration and a
// fitted one predict measured traces (roofline/calibrate/fidelity.hpp).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "roofline/calibrate/fidelity.hpp"
#include "roofline/report/fidelity.hpp"
#include "roofline/calibrate/trace_inputs.hpp"
#include "roofline/chip_io.hpp"
#include "src/cli/command.hpp"
#include "src/cli/read_limits.hpp"
#include "src/cli/trace_reports.hpp"

namespace roofline::cli {
namespace {

int run(const Args& args) {
  if (args.positional().empty()) return fail_usage("fidelity: expected at least one trace or directory");
  auto fmt_name = args.format({"text", "md", "json"});
  if (!fmt_name.ok()) return fail(fmt_name.status());
  const FidelityFormat format =
      *fmt_name == "json" ? FidelityFormat::kJson : *fmt_name == "md" ? FidelityFormat::kMarkdown : FidelityFormat::kText;
  std::optional<Chip> chip;
  if (auto name = args.get("chip")) {
    auto c = resolve_chip(*name);
    if (!c.ok()) return fail(c.status());
    chip = *std::move(c);
  }
  FidelityOptions options;
  CalibrationFile calibration;
  if (auto path = args.get("calibration")) {
    auto f = read_calibration_file(*path);
    if (!f.ok()) return fail(f.status());
    calibration = *std::move(f);
    options.calibration = &calibration;
  }
  auto min_us = args.get_double("min-measured-us", 0.0);
  if (!min_us.ok()) return fail(min_us.status());
  if (!(*min_us >= 0)) return fail_usage("fidelity: --min-measured-us: expected a number of microseconds >= 0");
  options.min_measured_s = *min_us * 1e-6;
  auto read_options = trace_read_options(args);
  if (!read_options.ok()) return fail(read_options.status());
  auto paths = trace_paths(args.positional());
  if (!paths.ok()) return fail(paths.status());
  std::vector<FidelityTrace> traces;
  for (const std::string& path : *paths) {
    auto r = read_fidelity_trace(path, chip ? &*chip : nullptr, *read_options);
    if (!r.ok()) return fail(in_cli_words(r.status()));
    traces.push_back(*std::move(r));
  }
  const std::string text = render_fidelity(run_fidelity(traces, options), format);
  return write_output(args, text);
}

ROOFLINE_CLI_COMMAND({
    .name = "fidelity",
    .usage = "roofline fidelity PATH... [--calibration FILE] [--chip NAME|PATH] [--min-measured-us N] [--format text|md|json] "
             "[-o FILE]",
    .summary = "The fidelity benchmark: lower bounds above measured, and the error of the roofline, the built-in "
               "and a cross-validated calibration.",
    .options = with_read_limits({{"calibration", "FILE", "judge this calibration instead of a cross-validated fit"},
                                 {"chip", "NAME|PATH", "predict on this chip (default: detected from each trace)"},
                                 {"min-measured-us", "N", "compare only ops whose measured median is N us or more"},
                                 {"format", "text|md|json", "output format (default text)"},
                                 {"output", "FILE", "write to FILE instead of stdout", "o"}}),
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
