// roofline calibrate: fit each chip's calibration to measured traces and
// write the calibration file (roofline/calibrate/io.hpp).
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "roofline/calibrate/io.hpp"
#include "roofline/calibrate/trace_inputs.hpp"
#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "src/cli/command.hpp"
#include "src/cli/read_limits.hpp"
#include "src/cli/trace_reports.hpp"

namespace roofline::cli {
namespace {

std::string efficiency(double e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", e);
  return buf;
}

// One screen: per chip and class, where the curve came from and how well it
// fits. The notes name kernel families from the traces, and a chip may come
// from a spec file: both are shown through for_terminal().
std::string summary(const CalibrationFile& file) {
  std::string out;
  for (const CalibrationFit& f : file.chips) {
    const ChipCalibration& c = f.calibration;
    out += detail::cat(for_terminal(c.chip), ": ", for_terminal(c.origin), "; |measured / expected - 1| median ",
                       format_percent(c.quality.median_abs_error), ", p90 ", format_percent(c.quality.p90_abs_error), "\n");
    TextTable t({{"class"}, {"curve"}, {"samples", TextTable::Align::kRight}, {"floor", TextTable::Align::kRight},
                 {"e_math", TextTable::Align::kRight}, {"e_mem", TextTable::Align::kRight},
                 {"e_link", TextTable::Align::kRight}, {"median", TextTable::Align::kRight}, {"p90", TextTable::Align::kRight}},
                2);
    for (int i = 0; i < kCostClassCount; ++i) {
      const auto cls = static_cast<CostClass>(i);
      const ClassCurve& k = c.curve(cls);
      const ClassFit& fit = f.classes[static_cast<std::size_t>(i)];
      std::string math = efficiency(k.math_efficiency);
      if (cls == CostClass::kMatmul)
        for (int p = 0; p < kPeakClassCount; ++p)
          if (c.matmul_math_efficiency[static_cast<std::size_t>(p)] > 0)
            math += detail::cat(" ", peak_class_name(static_cast<PeakClass>(p)), " ",
                                efficiency(c.matmul_math_efficiency[static_cast<std::size_t>(p)]));
      t.add_row({std::string(cost_class_name(cls)), std::string(curve_origin_name(fit.origin)), detail::cat(fit.quality.samples),
                 format_seconds(k.floor_s), math, efficiency(k.memory_efficiency), efficiency(k.link_efficiency),
                 fit.quality.samples ? format_percent(fit.quality.median_abs_error) : "-",
                 fit.quality.samples ? format_percent(fit.quality.p90_abs_error) : "-"});
    }
    out += t.render();
    for (const std::string& n : f.notes) out += "  note: " + for_terminal(n) + "\n";
  }
  return out;
}

int run(const Args& args) {
  if (args.positional().empty()) return fail_usage("calibrate: expected at least one trace (a file or a directory)");
  std::optional<Chip> chip;
  if (auto name = args.get("chip")) {
    auto c = resolve_chip(*name);
    if (!c.ok()) return fail(c.status());
    chip = *std::move(c);
  }
  auto read_options = trace_read_options(args);
  if (!read_options.ok()) return fail(read_options.status());
  auto paths = trace_paths(args.positional());
  if (!paths.ok()) return fail(paths.status());

  std::map<std::string, std::pair<Chip, std::vector<CalibrationSample>>> by_chip;
  for (const std::string& path : *paths) {
    auto r = read_fidelity_trace(path, chip ? &*chip : nullptr, *read_options);
    if (!r.ok()) return fail(in_cli_words(r.status()));
    auto& [c, samples] = by_chip[r->report.chip];
    c = r->chip;
    for (CalibrationSample& s : calibration_samples(r->report, path)) samples.push_back(std::move(s));
  }
  CalibrationFile file;
  for (auto& [name, entry] : by_chip) file.chips.push_back(fit_calibration(entry.first, std::move(entry.second)));
  const std::string text = calibration_to_json(file);
  if (int rc = write_output(args, text); rc != 0) return rc;
  const std::string s = summary(file);
  std::fwrite(s.data(), 1, s.size(), stderr);
  return 0;
}

ROOFLINE_CLI_COMMAND({
    .name = "calibrate",
    .usage = "roofline calibrate TRACE... [--chip NAME|PATH] [-o FILE]",
    .summary = "Fit each chip's calibrated expectation (floor and efficiencies per class) to measured traces.",
    .options = with_read_limits({{"chip", "NAME|PATH", "predict on this chip (default: detected from each trace)"},
                                 {"output", "FILE", "write the calibration file to FILE instead of stdout", "o"}}),
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
