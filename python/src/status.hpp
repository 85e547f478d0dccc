// absl::Status to Python exceptions, one rule for every binding: a file that
// is not there raises FileNotFoundError, anything else the library refuses
// raises ValueError. Both carry the library's located message (file,
// line:column or byte offset), unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include <nanobind/nanobind.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace roofline::python {

// Raises the Python exception for `status`. `path`: the file the call read,
// if any; a NotFound status about a path that does not exist is
// FileNotFoundError (a file that exists but is not a trace is ValueError).
[[noreturn]] void raise(const absl::Status& status, const std::string* path = nullptr);

inline void check(const absl::Status& status, const std::string* path = nullptr) {
  if (!status.ok()) raise(status, path);
}

// An op's dimension or element count as Python gave it: ValueError naming
// it unless 1 <= v <= 2^53 (predict() of a non-positive one is NaN, and the
// cost formulas are in doubles, exact to 2^53).
void check_dimension(const char* name, std::int64_t v);

// A count per element or a size in bytes: ValueError naming it unless it is
// finite and at least 0.
void check_non_negative(const char* name, double v);

template <class T>
T value(absl::StatusOr<T> result, const std::string* path = nullptr) {
  if (!result.ok()) raise(result.status(), path);
  return *std::move(result);
}

}  // namespace roofline::python
