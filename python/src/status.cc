#include "python/src/status.hpp"

#include <cmath>
#include <filesystem>
#include <string>
#include <system_error>

namespace roofline::python {

void raise(const absl::Status& status, const std::string* path) {
  const std::string message(status.message());
  std::error_code ec;
  const bool missing = path != nullptr && !std::filesystem::exists(*path, ec);
  PyObject* type = status.code() == absl::StatusCode::kNotFound && missing ? PyExc_FileNotFoundError
                                                                          : PyExc_ValueError;
  PyErr_SetString(type, message.c_str());
  throw nanobind::python_error();
}

void check_dimension(const char* name, std::int64_t v) {
  constexpr std::int64_t kMost = std::int64_t{1} << 53;
  if (v >= 1 && v <= kMost) return;
  throw nanobind::value_error(
      (std::string(name) + ": expected a positive integer up to 2^53, got " + std::to_string(v)).c_str());
}

void check_non_negative(const char* name, double v) {
  if (std::isfinite(v) && v >= 0) return;
  throw nanobind::value_error(
      (std::string(name) + ": expected a finite number >= 0, got " + std::to_string(v)).c_str());
}

}  // namespace roofline::python
