#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "roofline/format/units.hpp"

TEST_CASE("units: three significant digits with an SI prefix") {
  CHECK(roofline::format_seconds(0.0893) == "89.3 ms");
  CHECK(roofline::format_si(1.97e14, "FLOP/s") == "197 TFLOP/s");
  CHECK(roofline::format_bytes(3.2212e9) == "3.22 GB");
  CHECK(roofline::format_si(1.76e13, "FLOP", 4) == "17.60 TFLOP");
  CHECK(roofline::format_seconds(0) == "0 s");
  // 999.96 rounds up into the next prefix rather than printing "1000 ms".
  CHECK(roofline::format_seconds(0.99996) == "1.00 s");
  CHECK(roofline::format_seconds(std::numeric_limits<double>::quiet_NaN()) == "-");
}

TEST_CASE("units: past the largest prefix, scientific notation instead of dozens of digits") {
  CHECK(roofline::format_si(999e18, "FLOP") == "999 EFLOP");
  CHECK(roofline::format_si(2e27, "FLOP") == "2.00e+27 FLOP");
  // Once 1e100 printed as 63 raw digits, cut short: it read as about 1e62.
  CHECK(roofline::format_si(1e100, "B") == "1.00e+100 B");
  CHECK(roofline::format_si(-3.5e30, "s") == "-3.50e+30 s");
  CHECK(roofline::format_si(std::numeric_limits<double>::max(), "B") == "1.80e+308 B");
}

TEST_CASE("units: percentages keep two significant digits when small") {
  CHECK(roofline::format_percent(0.866) == "86.6%");
  CHECK(roofline::format_percent(0.0004) == "0.04%");
  CHECK(roofline::format_percent(0) == "0.0%");
}
