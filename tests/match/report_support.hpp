// A report of a real trace in ../shared/data/real (skips when absent), for
// the match tests.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "roofline/match/match.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

namespace roofline::testing {

inline Report report_of(const std::string& relative, const ReportOptions& o = {}) {
  auto t = read_trace(require_real(relative).string());
  REQUIRE(t.ok());
  auto r = make_report(*t, o);
  INFO(r.status().message());
  REQUIRE(r.ok());
  return *r;
}

}  // namespace roofline::testing
