// What the trace, statistics and partials bindings share: rendered text and
// JSON as Python values, the read limits as keywords, which input a failed
// read names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>

#include "absl/status/status.h"
#include "roofline/measure/op_stats.hpp"
#include "roofline/report/json.hpp"
#include "roofline/trace/read.hpp"

namespace roofline::python {

// Rendered text as str. Every renderer replaces invalid UTF-8 from trace
// names already; decoding with "replace" keeps a miss from raising.
nanobind::object text(const std::string& s);

// A Json value as Python objects: objects as dicts (keys in the JSON's
// order), strings decoded as the JSON writer prints them (invalid UTF-8 as
// U+FFFD), integers as int, numbers as float (a double that prints as an
// integer stays a float, which reading the printed JSON back would lose).
nanobind::object to_python(const Json& j);

// The read limits as the Python functions take them: unset keeps the
// library's default; zero or less raises ValueError naming the keyword.
TraceReadOptions read_options(std::optional<std::uint64_t> max_events, std::optional<std::uint64_t> max_ops,
                              std::optional<std::uint64_t> max_inflated_bytes,
                              std::optional<std::uint64_t> max_decompressed_bytes, std::optional<int> jobs);

// The input a failed read names (errors begin with the file), so that a
// missing one of several raises FileNotFoundError as a single one does;
// nullptr when none.
const std::string* failed_input(const std::vector<std::string>& inputs, const absl::Status& status);

// Rows to render: `top`, or all.
inline std::size_t ops_limit(const TraceStats& s, std::optional<std::size_t> top) { return top ? *top : s.ops.size(); }

}  // namespace roofline::python
