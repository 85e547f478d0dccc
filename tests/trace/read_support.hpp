// A real trace of ../shared/data/real, read (skips when absent), for the
// trace tests.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

namespace roofline::testing {

inline Trace read_real(const std::string& relative) {
  auto t = read_trace(require_real(relative).string());
  if (!t.ok()) FAIL(t.status().message());
  return std::move(*t);
}

}  // namespace roofline::testing
