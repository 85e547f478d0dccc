// Measured traces: stats(path) and report(path), as `roofline stats` and
// `roofline report` compute them. The trace is read and the report made
// once, here; the Python side (python/roofline/report.py) renders on demand
// and turns the JSON values into dicts and DataFrames.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "absl/strings/match.h"
#include "python/src/bindings.hpp"
#include "python/src/status.hpp"
#include "python/src/trace_values.hpp"
#include "roofline/calibrate/io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/match/match.hpp"
#include "roofline/measure/measured.hpp"
#include "roofline/measure/op_stats.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/diff.hpp"
#include "roofline/report/json.hpp"
#include "roofline/report/render.hpp"
#include "roofline/report/perfetto.hpp"
#include "roofline/report/scopes.hpp"
#include "roofline/report/steps.hpp"
#include "roofline/report/stats_text.hpp"
#include "roofline/trace/read.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace roofline::python {
namespace {

// A report and the few facts of its trace the Python side checks (the
// PyTorch helper: were shapes recorded?). The trace itself is not kept.
struct TraceReport {
  Report report;
  std::vector<std::string> formats;  // trace_format_name() of each file read
  // Distinct framework-op calls (Kineto cpu_ops) that launched kernels, and
  // how many of them carry "Input Dims" (torch.profiler's record_shapes).
  std::int64_t launching_calls = 0;
  std::int64_t launching_calls_with_input_dims = 0;
};

// What `path` names: one path (a file, a profile directory or a glob), or a
// list of them, read as the hosts of one job (read_traces).
std::vector<std::string> trace_inputs(const nb::handle& path) {
  if (nb::isinstance<nb::str>(path) || nb::hasattr(path, "__fspath__")) return {path_from(path)};
  if (nb::isinstance<nb::dict>(path) || nb::isinstance<nb::bytes>(path) || !nb::hasattr(path, "__iter__"))
    throw nb::type_error("expected a path (str or os.PathLike), a glob, or a list of them");
  std::vector<std::string> out;
  for (nb::handle p : path) out.push_back(path_from(p));
  if (out.empty()) throw nb::value_error("expected at least one trace (a file, a directory or a pattern)");
  return out;
}

// The inputs as one text for messages: the path, or the paths joined.
std::string inputs_text(const std::vector<std::string>& inputs) {
  std::string text;
  for (const std::string& p : inputs) text += (text.empty() ? "" : " ") + p;
  return text;
}

// roofline.calibrate()'s result, or the file `roofline calibrate` wrote.
CalibrationFile calibration_of(const nb::object& calibration) {
  if (nb::isinstance<CalibrationFile>(calibration)) return nb::cast<CalibrationFile>(calibration);
  const std::string calibration_path = path_from(calibration);
  return value(read_calibration_file(calibration_path), &calibration_path);
}

// What a report call reads before any trace: its files, the HLO modules
// and calibration it names, and the options they make. Filled in place:
// options.hlo_modules points into modules.
struct ReportInputs {
  std::vector<std::string> inputs;
  std::string path;  // the inputs, as errors name them
  std::vector<HloModule> modules;
  ReportOptions options;
  std::optional<CalibrationFile> calibration;
};

void read_report_inputs(ReportInputs& in, const nb::handle& path_arg, const Chip* chip, const Chip* target_chip,
                        const std::vector<std::string>& hlo, const nb::object& calibration, std::optional<int> device) {
  in.inputs = trace_inputs(path_arg);
  in.path = inputs_text(in.inputs);
  in.options = ReportOptions{.chip = chip, .target_chip = target_chip, .device_id = device};
  for (const std::string& file : hlo) in.modules.push_back(value(read_hlo_file(file), &file));
  if (!in.modules.empty()) in.options.hlo_modules = &in.modules;
  if (!calibration.is_none()) in.calibration = calibration_of(calibration);
}

TraceReport make_trace_report(const nb::handle& path_arg, const Chip* chip, const Chip* target_chip,
                              const std::vector<std::string>& hlo, const nb::object& calibration,
                              std::optional<int> device, const TraceReadOptions& limits) {
  ReportInputs in;
  read_report_inputs(in, path_arg, chip, target_chip, hlo, calibration, device);
  const std::vector<std::string>& inputs = in.inputs;
  ReportOptions& options = in.options;

  // Each file measured and its events dropped as it is read, as the CLI's
  // report (roofline/measure/measured.hpp; read_measured reads no host
  // timelines: the report reads none).
  absl::StatusOr<MeasuredRead> read;
  {
    nb::gil_scoped_release release;
    read = read_measured(inputs, limits, device);
  }
  const std::string* named = failed_input(inputs, read.status());
  MeasuredRead measured = value(std::move(read), named);
  const Trace& trace = measured.trace;
  TraceReport out;
  absl::StatusOr<Report> report;
  {
    nb::gil_scoped_release release;
    if (in.calibration) use_calibration_file(trace, measured.measured, *in.calibration, options);
    report = make_report(trace, std::move(measured.measured), options, kPythonWords);
    for (TraceFormat f : trace.formats) out.formats.emplace_back(trace_format_name(f));
    for (const CallInfo& call : trace.calls) {
      if (call.launcher.empty()) continue;
      ++out.launching_calls;
      if (!call.input_dims.empty()) ++out.launching_calls_with_input_dims;
    }
  }
  out.report = value(std::move(report), &in.path);
  return out;
}

// The report's views that need the trace's events, read whole as the CLI
// reads it for them: `report --by step` (view "steps": JSON, "steps_text")
// and `report --format perfetto` (view "perfetto").
std::string whole_trace_view(const nb::handle& path_arg, const Chip* chip, const Chip* target_chip,
                             const std::vector<std::string>& hlo, const nb::object& calibration,
                             std::optional<int> device, const TraceReadOptions& limits, const std::string& view,
                             int top) {
  if (view != "steps" && view != "steps_text" && view != "perfetto")
    throw nb::value_error(("view: expected steps, steps_text or perfetto, got '" + view + "'").c_str());
  if (top < 1) throw nb::value_error("top: expected a positive integer");
  ReportInputs in;
  read_report_inputs(in, path_arg, chip, target_chip, hlo, calibration, device);
  const std::vector<std::string>& inputs = in.inputs;
  ReportOptions& options = in.options;
  absl::StatusOr<Trace> read;
  {
    nb::gil_scoped_release release;
    read = read_traces(inputs, limits);
  }
  check(read.status(), failed_input(inputs, read.status()));
  const Trace& trace = *read;
  std::string out;
  absl::Status status;
  {
    nb::gil_scoped_release release;
    if (in.calibration) use_calibration_file(trace, *in.calibration, options);
    if (view == "perfetto") {
      absl::StatusOr<Match> m = match(trace, options);
      if (m.ok()) out = render_perfetto(*m).json;
      status = m.status();
    } else {
      absl::StatusOr<Report> report = make_report(trace, options, kPythonWords);
      if (report.ok()) {
        const StepBreakdown steps = compute_step_breakdown(trace, StepBreakdownOptions{.device_id = device});
        out = view == "steps" ? report_steps_json(*report, steps).dump() + "\n"
                              : render_report_steps_text(*report, steps, static_cast<std::size_t>(top));
      }
      status = report.status();
    }
  }
  check(status, &in.path);
  return out;
}

// `roofline stats --by step` (view "json" or "text").
std::string trace_steps_view(const nb::handle& path_arg, std::optional<int> device, const TraceReadOptions& limits,
                             const std::string& format, int top) {
  if (format != "json" && format != "text")
    throw nb::value_error(("format: expected text or json, got '" + format + "'").c_str());
  if (top < 1) throw nb::value_error("top: expected a positive integer");
  const std::vector<std::string> inputs = trace_inputs(path_arg);
  absl::StatusOr<Trace> read;
  {
    nb::gil_scoped_release release;
    read = read_traces(inputs, limits);
  }
  check(read.status(), failed_input(inputs, read.status()));
  nb::gil_scoped_release release;
  const StepBreakdown b = compute_step_breakdown(*read, StepBreakdownOptions{.device_id = device});
  if (format == "json") return steps_json(b).dump() + "\n";
  return render_steps_text(b, static_cast<std::size_t>(top));
}

TraceStatsRead make_trace_stats(const nb::handle& path_arg, std::optional<int> device,
                                  const TraceReadOptions& limits) {
  const std::vector<std::string> inputs = trace_inputs(path_arg);
  const std::string path = inputs_text(inputs);
  // Several files through their partials, one file's trace held per job
  // (as `roofline stats`).
  absl::StatusOr<TraceStatsRead> read;
  {
    nb::gil_scoped_release release;
    read = read_trace_stats(inputs, limits, OpStatsOptions{.device_id = device});
  }
  const std::string* named = failed_input(inputs, read.status());
  TraceStatsRead out = value(std::move(read), named);
  // As `roofline stats --device N` refuses a device with no op events.
  if (device && out.stats.devices.empty())
    throw nb::value_error(detail::cat(path, ": no device ", *device, " with op events").c_str());
  return out;
}

// Two reports compared (roofline diff), with the gate's verdict when one
// was given.
struct TraceDiff {
  ReportDiff diff;
  std::optional<GateResult> gate = {};
};

}  // namespace

void bind_trace(nb::module_& m) {
  nb::class_<TraceReport>(m, "TraceReport",
                          "A measured trace against the roofline of every op in it (roofline.report wraps it).")
      .def(
          "render",
          [](const TraceReport& r, const std::string& format, int top) {
            const std::optional<ReportFormat> f = parse_report_format(format);
            if (!f)
              throw nb::value_error(("format: expected text, md, json, csv or html, got '" + format + "'").c_str());
            if (top < 1) throw nb::value_error("top: expected a positive integer");
            std::string out;
            {
              nb::gil_scoped_release release;
              out = render_report(r.report, *f, RenderOptions{.top = top});
            }
            return text(out);
          },
          "format"_a, "top"_a = 15, "The report as `roofline report --format FORMAT --top TOP` prints it.")
      .def(
          "render_scopes",
          [](const TraceReport& r, const std::string& format, int depth) {
            const std::optional<ReportFormat> f = parse_report_format(format);
            if (!f)
              throw nb::value_error(("format: expected text, md, json, csv or html, got '" + format + "'").c_str());
            if (depth < 1) throw nb::value_error("depth: expected a positive integer");
            return text(render_scopes(r.report, *f, depth));
          },
          "format"_a, "depth"_a = kDefaultScopeDepth,
          "The report by scope as `roofline report --by scope --depth DEPTH --format FORMAT` prints it.")
      .def(
          "json_value", [](const TraceReport& r) { return to_python(to_json(r.report)); },
          "The JSON report as Python values (dicts, lists, str, int, float, None).")
      .def_ro("formats", &TraceReport::formats)
      .def_ro("launching_calls", &TraceReport::launching_calls)
      .def_ro("launching_calls_with_input_dims", &TraceReport::launching_calls_with_input_dims);

  nb::class_<TraceStatsRead>(m, "TraceStats", "Op statistics of a measured trace (roofline.stats wraps it).")
      .def(
          "to_json",
          [](const TraceStatsRead& s, std::optional<std::size_t> top) {
            return text(to_json(s.trace, s.stats, ops_limit(s.stats, top)).dump() + "\n");
          },
          "top"_a = nb::none(), "As `roofline stats --format json` prints it (every op, or the first `top`).")
      .def(
          "to_csv",
          [](const TraceStatsRead& s, std::optional<std::size_t> top) {
            return text(to_csv(s.stats, ops_limit(s.stats, top)));
          },
          "top"_a = nb::none(), "As `roofline stats --format csv` prints it.")
      .def(
          "to_text",
          [](const TraceStatsRead& s, std::optional<std::size_t> top) {
            return text(render_stats_text(s.trace, s.stats, ops_limit(s.stats, top)));
          },
          "top"_a = nb::none(), "As `roofline stats` prints it (every op listed, or the first `top`).")
      .def(
          "json_value",
          [](const TraceStatsRead& s) { return to_python(to_json(s.trace, s.stats, s.stats.ops.size())); },
          "The JSON document as Python values.");

  m.def(
      "trace_report",
      [](const nb::handle& path, const Chip* chip, const Chip* target_chip, const std::vector<std::string>& hlo,
         const nb::object& calibration, std::optional<int> device, std::optional<std::uint64_t> max_events,
         std::optional<std::uint64_t> max_ops, std::optional<std::uint64_t> max_inflated_bytes,
         std::optional<std::uint64_t> max_decompressed_bytes, std::optional<int> jobs) {
        return make_trace_report(path, chip, target_chip, hlo, calibration, device,
                                 read_options(max_events, max_ops, max_inflated_bytes, max_decompressed_bytes, jobs));
      },
      "path"_a, "chip"_a.none() = nb::none(), "target_chip"_a.none() = nb::none(),
      "hlo"_a = std::vector<std::string>{}, "calibration"_a = nb::none(), "device"_a = nb::none(),
      "max_events"_a = nb::none(), "max_ops"_a = nb::none(), "max_inflated_bytes"_a = nb::none(),
      "max_decompressed_bytes"_a = nb::none(), "jobs"_a = nb::none(), "roofline.report without the Python conveniences.");

  m.def(
      "trace_stats",
      [](const nb::handle& path, std::optional<int> device, std::optional<std::uint64_t> host_timelines_up_to_bytes,
         std::optional<std::uint64_t> max_events, std::optional<std::uint64_t> max_ops,
         std::optional<std::uint64_t> max_inflated_bytes, std::optional<std::uint64_t> max_decompressed_bytes,
         std::optional<int> jobs) {
        TraceReadOptions read = read_options(max_events, max_ops, max_inflated_bytes, max_decompressed_bytes, jobs);
        read.host_timelines_up_to_bytes = host_timelines_up_to_bytes;
        return make_trace_stats(path, device, read);
      },
      "path"_a, "device"_a = nb::none(), "host_timelines_up_to_bytes"_a.none() = kStatsHostTimelinesUpToBytes,
      "max_events"_a = nb::none(), "max_ops"_a = nb::none(), "max_inflated_bytes"_a = nb::none(),
      "max_decompressed_bytes"_a = nb::none(), "jobs"_a = nb::none(),
      "roofline.stats without the Python conveniences.");
  m.attr("STATS_HOST_TIMELINES_UP_TO_BYTES") = kStatsHostTimelinesUpToBytes;

  m.def(
      "trace_whole_view",
      [](const nb::handle& path, const Chip* chip, const Chip* target_chip, const std::vector<std::string>& hlo,
         const nb::object& calibration, std::optional<int> device, const std::string& view, int top,
         std::optional<std::uint64_t> max_events, std::optional<std::uint64_t> max_ops,
         std::optional<std::uint64_t> max_inflated_bytes, std::optional<std::uint64_t> max_decompressed_bytes,
         std::optional<int> jobs) {
        return text(whole_trace_view(path, chip, target_chip, hlo, calibration, device,
                                     read_options(max_events, max_ops, max_inflated_bytes, max_decompressed_bytes, jobs),
                                     view, top));
      },
      "path"_a, "chip"_a.none() = nb::none(), "target_chip"_a.none() = nb::none(),
      "hlo"_a = std::vector<std::string>{}, "calibration"_a = nb::none(), "device"_a = nb::none(), "view"_a = "steps",
      "top"_a = 15, "max_events"_a = nb::none(), "max_ops"_a = nb::none(), "max_inflated_bytes"_a = nb::none(),
      "max_decompressed_bytes"_a = nb::none(), "jobs"_a = nb::none(),
      "Report.steps / Report.to_perfetto without the Python conveniences: the trace read whole.");

  m.def(
      "trace_steps",
      [](const nb::handle& path, std::optional<int> device, const std::string& format, int top,
         std::optional<std::uint64_t> host_timelines_up_to_bytes, std::optional<std::uint64_t> max_events,
         std::optional<std::uint64_t> max_ops, std::optional<std::uint64_t> max_inflated_bytes,
         std::optional<std::uint64_t> max_decompressed_bytes, std::optional<int> jobs) {
        // As `roofline stats --by step` reads (its --host-timelines-up-to).
        TraceReadOptions read = read_options(max_events, max_ops, max_inflated_bytes, max_decompressed_bytes, jobs);
        read.host_timelines_up_to_bytes = host_timelines_up_to_bytes;
        return text(trace_steps_view(path, device, read, format, top));
      },
      "path"_a, "device"_a = nb::none(), "format"_a = "json", "top"_a = 500,
      "host_timelines_up_to_bytes"_a.none() = kStatsHostTimelinesUpToBytes, "max_events"_a = nb::none(),
      "max_ops"_a = nb::none(), "max_inflated_bytes"_a = nb::none(), "max_decompressed_bytes"_a = nb::none(),
      "jobs"_a = nb::none(), "Stats.steps without the Python conveniences: the trace read whole.");

  nb::class_<TraceDiff>(m, "TraceDiff", "Two reports compared (roofline.diff wraps it).")
      .def(
          "render",
          [](const TraceDiff& d, const std::string& format, int top) {
            const std::optional<ReportFormat> f = parse_report_format(format);
            if (!f)
              throw nb::value_error(("format: expected text, md, json, csv or html, got '" + format + "'").c_str());
            if (top < 1) throw nb::value_error("top: expected a positive integer");
            return text(render_diff(d.diff, *f, DiffRenderOptions{.top = top}, d.gate ? &*d.gate : nullptr));
          },
          "format"_a, "top"_a = 15, "As `roofline diff --format FORMAT --top TOP` prints it.")
      .def_prop_ro("failed", [](const TraceDiff& d) { return d.gate && d.gate->failed; },
                   "Whether the fail_if expression held (False without one).")
      .def_prop_ro("reasons", [](const TraceDiff& d) { return d.gate ? d.gate->reasons : std::vector<std::string>{}; },
                   "Each condition of fail_if that held, with its figures.");

  m.def(
      "diff_reports",
      [](const TraceReport& before, const TraceReport& after, const std::optional<std::string>& fail_if) {
        TraceDiff out{.diff = diff(before.report, after.report), .gate = std::nullopt};
        if (fail_if) out.gate = evaluate(value(parse_gate(*fail_if)), out.diff);
        return out;
      },
      "before"_a, "after"_a, "fail_if"_a = nb::none(), "roofline.diff without the Python conveniences.");
}

}  // namespace roofline::python
