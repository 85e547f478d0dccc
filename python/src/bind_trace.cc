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

#include "python/src/bindings.hpp"
#include "python/src/status.hpp"
#include "roofline/calibrate/io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/match/match.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/json.hpp"
#include "roofline/report/render.hpp"
#include "roofline/trace/op_stats.hpp"
#include "absl/strings/match.h"
#include "roofline/trace/read.hpp"
#include "roofline/trace/stats_partial.hpp"

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

// A trace and its statistics: `roofline stats` writes both.
struct TraceStatsResult {
  Trace trace;
  TraceStats stats;
};

// Rendered text as str. Every renderer replaces invalid UTF-8 from trace
// names already; decoding with "replace" keeps a miss from raising.
nb::object text(const std::string& s) {
  PyObject* out = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (out == nullptr) throw nb::python_error();
  return nb::steal(out);
}

// A Json value as Python objects: objects as dicts (keys in the JSON's
// order), strings decoded as the JSON writer prints them (invalid UTF-8 as
// U+FFFD), integers as int, numbers as float.
nb::object to_python(const Json& j) {
  return std::visit(
      [](const auto& v) -> nb::object {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) {
          return nb::none();
        } else if constexpr (std::is_same_v<T, bool>) {
          return nb::bool_(v);
        } else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>) {
          return nb::int_(v);
        } else if constexpr (std::is_same_v<T, double>) {
          return nb::float_(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return text(v);
        } else if constexpr (std::is_same_v<T, Json::Array>) {
          nb::list out;
          for (const Json& item : v) out.append(to_python(item));
          return out;
        } else {
          nb::dict out;
          for (const auto& [key, value] : v) out[nb::str(key.data(), key.size())] = to_python(value);
          return out;
        }
      },
      j.value());
}

TraceReadOptions read_options(std::optional<std::uint64_t> max_events, std::optional<std::uint64_t> max_ops,
                              std::optional<std::uint64_t> max_inflated_bytes,
                              std::optional<std::uint64_t> max_decompressed_bytes, std::optional<int> jobs) {
  TraceReadOptions o;
  if (jobs) {
    if (*jobs < 1) throw nb::value_error("jobs: expected a positive number of threads");
    o.jobs = *jobs;
  }
  const auto take = [](const char* name, std::optional<std::uint64_t> given, std::uint64_t& into) {
    if (!given) return;
    if (*given == 0) throw nb::value_error((std::string(name) + ": expected a positive integer").c_str());
    into = *given;
  };
  take("max_events", max_events, o.max_events);
  take("max_ops", max_ops, o.max_ops);
  take("max_inflated_bytes", max_inflated_bytes, o.max_inflated_bytes);
  take("max_decompressed_bytes", max_decompressed_bytes, o.max_decompressed_bytes);
  return o;
}

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

// The input a failed read names (errors begin with the file), so that a
// missing one of several raises FileNotFoundError as a single one does.
const std::string* failed_input(const std::vector<std::string>& inputs, const absl::Status& status) {
  const std::string* named = inputs.size() == 1 ? &inputs[0] : nullptr;
  if (!status.ok())
    for (const std::string& p : inputs)
      if (absl::StartsWith(status.message(), p + ":")) named = &p;
  return named;
}

Trace read(const std::vector<std::string>& inputs, const TraceReadOptions& options) {
  absl::StatusOr<Trace> trace;
  {
    nb::gil_scoped_release release;
    trace = read_traces(inputs, options);
  }
  const std::string* named = failed_input(inputs, trace.status());
  return value(std::move(trace), named);
}

TraceReport make_trace_report(const nb::handle& path_arg, const Chip* chip, const Chip* target_chip,
                              const std::vector<std::string>& hlo, const nb::object& calibration,
                              std::optional<int> device, const TraceReadOptions& limits) {
  const std::vector<std::string> inputs = trace_inputs(path_arg);
  const std::string path = inputs_text(inputs);
  ReportOptions options{.chip = chip, .target_chip = target_chip, .device_id = device};
  std::vector<HloModule> modules;
  for (const std::string& file : hlo) modules.push_back(value(read_hlo_file(file), &file));
  if (!modules.empty()) options.hlo_modules = &modules;
  CalibrationFile calibration_file;
  const bool calibrated = !calibration.is_none();
  if (calibrated && nb::isinstance<CalibrationFile>(calibration)) {
    calibration_file = nb::cast<CalibrationFile>(calibration);  // roofline.calibrate()'s result
  } else if (calibrated) {
    const std::string calibration_path = path_from(calibration);
    calibration_file = value(read_calibration_file(calibration_path), &calibration_path);
  }

  TraceReadOptions read_options = limits;
  read_options.host_timelines = false;  // the report reads none (as the CLI's)
  const Trace trace = read(inputs, read_options);
  TraceReport out;
  absl::StatusOr<Report> report;
  {
    nb::gil_scoped_release release;
    if (calibrated) use_calibration_file(trace, calibration_file, options);
    report = make_report(trace, options, kPythonWords);
    for (TraceFormat f : trace.formats) out.formats.emplace_back(trace_format_name(f));
    for (const CallInfo& call : trace.calls) {
      if (call.launcher.empty()) continue;
      ++out.launching_calls;
      if (!call.input_dims.empty()) ++out.launching_calls_with_input_dims;
    }
  }
  out.report = value(std::move(report), &path);
  return out;
}

TraceStatsResult make_trace_stats(const nb::handle& path_arg, std::optional<int> device,
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
  TraceStatsRead r = value(std::move(read), named);
  TraceStatsResult out{.trace = std::move(r.trace), .stats = std::move(r.stats)};
  // As `roofline stats --device N` refuses a device with no op events.
  if (device && out.stats.devices.empty())
    throw nb::value_error(detail::cat(path, ": no device ", *device, " with op events").c_str());
  return out;
}

std::size_t ops_limit(const TraceStats& s, std::optional<std::size_t> top) {
  return top ? *top : s.ops.size();
}

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
          "json_value", [](const TraceReport& r) { return to_python(to_json(r.report)); },
          "The JSON report as Python values (dicts, lists, str, int, float, None).")
      .def_ro("formats", &TraceReport::formats)
      .def_ro("launching_calls", &TraceReport::launching_calls)
      .def_ro("launching_calls_with_input_dims", &TraceReport::launching_calls_with_input_dims);

  nb::class_<TraceStatsResult>(m, "TraceStats", "Op statistics of a measured trace (roofline.stats wraps it).")
      .def(
          "to_json",
          [](const TraceStatsResult& s, std::optional<std::size_t> top) {
            return text(to_json(s.trace, s.stats, ops_limit(s.stats, top)).dump() + "\n");
          },
          "top"_a = nb::none(), "As `roofline stats --format json` prints it (every op, or the first `top`).")
      .def(
          "to_csv",
          [](const TraceStatsResult& s, std::optional<std::size_t> top) {
            return text(to_csv(s.stats, ops_limit(s.stats, top)));
          },
          "top"_a = nb::none(), "As `roofline stats --format csv` prints it.")
      .def(
          "json_value",
          [](const TraceStatsResult& s) { return to_python(to_json(s.trace, s.stats, s.stats.ops.size())); },
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
      [](const nb::handle& path, std::optional<int> device, std::optional<std::uint64_t> max_events,
         std::optional<std::uint64_t> max_ops, std::optional<std::uint64_t> max_inflated_bytes,
         std::optional<std::uint64_t> max_decompressed_bytes, std::optional<int> jobs) {
        return make_trace_stats(path, device,
                                read_options(max_events, max_ops, max_inflated_bytes, max_decompressed_bytes, jobs));
      },
      "path"_a, "device"_a = nb::none(), "max_events"_a = nb::none(), "max_ops"_a = nb::none(),
      "max_inflated_bytes"_a = nb::none(), "max_decompressed_bytes"_a = nb::none(), "jobs"_a = nb::none(),
      "roofline.stats without the Python conveniences.");
}

}  // namespace roofline::python
