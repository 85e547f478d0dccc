// Partial statistics (roofline/measure/stats_partial.hpp, docs/partials.md):
// one partial per input, made where the input lies, merged in input order
// and finished into the statistics `roofline stats` prints over all inputs.
// A partial pickles as its JSON text, the file `roofline stats --partial`
// writes, so a map-reduce engine (Dask, Ray, Spark) ships it between
// processes and machines; python/roofline/_report.py wraps these.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
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
#include "roofline/detail/cat.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/json.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace roofline::python {
namespace {

// `roofline stats INPUT... --partial [--device N]`. A missing input raises
// FileNotFoundError: errors begin with the file they are about.
StatsPartial make_partial(const std::vector<std::string>& inputs, std::optional<int> device,
                          const TraceReadOptions& read) {
  if (inputs.empty()) throw nb::value_error("expected at least one trace (a file, a directory or a pattern)");
  absl::StatusOr<StatsPartial> p;
  {
    nb::gil_scoped_release release;
    p = stats_partial_of_traces(inputs, read, OpStatsOptions{.device_id = device});
  }
  StatsPartial out = value(std::move(p), failed_input(inputs, p.status()));
  // As `roofline stats --partial --device N` refuses a device with no op events.
  if (device && out.device_stats.empty())
    throw nb::value_error(detail::cat(out.source, ": no device ", *device, " with op events").c_str());
  return out;
}

StatsPartial parse_partial(const nb::bytes& json, const std::string& origin) {
  const std::string_view s(json.c_str(), json.size());
  absl::StatusOr<StatsPartial> p;
  {
    nb::gil_scoped_release release;
    p = parse_stats_partial(s, origin);
  }
  return value(std::move(p));
}

std::string partial_json(const StatsPartial& p) {
  nb::gil_scoped_release release;
  return stats_partial_json(p);
}

}  // namespace

void bind_partials(nb::module_& m) {
  nb::class_<StatsPartial>(m, "StatsPartial",
                           "Partial op statistics of some inputs (roofline.StatsPartial wraps it).")
      .def_ro("source", &StatsPartial::source)
      .def_ro("files", &StatsPartial::files)
      .def("to_json", [](const StatsPartial& p) { return text(partial_json(p)); },
           "The partial file, as `roofline stats INPUT --partial` writes it.")
      .def(
          "finish",
          [](const StatsPartial& p) {
            nb::gil_scoped_release release;
            return TraceStatsRead{.trace = trace_outline(p), .stats = finish_stats(p)};
          },
          "The statistics of the partial's inputs (finish_stats).")
      // Pickled as the partial file's text: the same bytes read back to the
      // same partial (docs/partials.md), and any process or machine with
      // roofline reads them.
      .def("__getstate__",
           [](const StatsPartial& p) {
             const std::string json = partial_json(p);
             return nb::bytes(json.data(), json.size());
           })
      .def("__setstate__", [](StatsPartial& p, const nb::bytes& state) {
        new (&p) StatsPartial(parse_partial(state, "pickled roofline.StatsPartial"));
      });

  m.def(
      "stats_partial",
      [](const std::vector<std::string>& inputs, std::optional<int> device,
         std::optional<std::uint64_t> host_timelines_up_to_bytes, std::optional<std::uint64_t> max_events,
         std::optional<std::uint64_t> max_ops, std::optional<std::uint64_t> max_inflated_bytes,
         std::optional<std::uint64_t> max_decompressed_bytes, std::optional<int> jobs) {
        TraceReadOptions read = read_options(max_events, max_ops, max_inflated_bytes, max_decompressed_bytes, jobs);
        read.host_timelines_up_to_bytes = host_timelines_up_to_bytes;
        return make_partial(inputs, device, read);
      },
      "inputs"_a, "device"_a = nb::none(), "host_timelines_up_to_bytes"_a.none() = kStatsHostTimelinesUpToBytes,
      "max_events"_a = nb::none(), "max_ops"_a = nb::none(),
      "max_inflated_bytes"_a = nb::none(), "max_decompressed_bytes"_a = nb::none(), "jobs"_a = nb::none(),
      "roofline.stats_partial without the Python conveniences: inputs are paths or patterns (str).");

  m.def(
      "merge_partials",
      [](const std::vector<const StatsPartial*>& parts) {
        std::vector<StatsPartial> copies;  // merge_partials takes a span; Python owns the originals
        absl::StatusOr<StatsPartial> merged;
        {
          nb::gil_scoped_release release;
          copies.reserve(parts.size());
          for (const StatsPartial* p : parts) copies.push_back(*p);
          merged = merge_partials(copies);
        }
        return value(std::move(merged));
      },
      "parts"_a, "roofline.merge_partials without the Python conveniences.");

  m.def("parse_stats_partial", &parse_partial, "text"_a, "origin"_a,
        "A partial from its JSON text (UTF-8 bytes); errors name `origin` and the JSON path.");
  m.def(
      "read_stats_partial_file",
      [](const std::string& path) {
        absl::StatusOr<StatsPartial> p;
        {
          nb::gil_scoped_release release;
          p = read_stats_partial_file(path);
        }
        return value(std::move(p), &path);
      },
      "path"_a, "A partial file `roofline stats --partial -o` or `roofline merge --partial -o` wrote.");
}

}  // namespace roofline::python
