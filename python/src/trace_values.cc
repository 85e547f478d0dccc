// Shared by the trace, statistics and partials bindings (trace_values.hpp).
#include "python/src/trace_values.hpp"

#include <string>
#include <type_traits>
#include <variant>

#include "absl/strings/match.h"

namespace nb = nanobind;

namespace roofline::python {

nb::object text(const std::string& s) {
  PyObject* out = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (out == nullptr) throw nb::python_error();
  return nb::steal(out);
}

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
    o.jobs = static_cast<unsigned>(*jobs);
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

const std::string* failed_input(const std::vector<std::string>& inputs, const absl::Status& status) {
  const std::string* named = inputs.size() == 1 ? &inputs[0] : nullptr;
  if (!status.ok())
    for (const std::string& p : inputs)
      if (absl::StartsWith(status.message(), p + ":")) named = &p;
  return named;
}


}  // namespace roofline::python
