// The identify step: which devices, and the one chip.
#include <catch2/catch.hpp>

#include "roofline/match/identify.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

TEST_CASE("identify: devices with op events, or the one asked for") {
  auto t = roofline::read_trace(roofline::testing::test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  auto all = roofline::select_devices(*t, std::nullopt);
  REQUIRE(all.ok());
  REQUIRE(all->size() == 1);
  auto missing = roofline::select_devices(*t, 7);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK_THAT(std::string(missing.status().message()), Catch::EndsWith("no device 7 with op events (devices: 0)"));
}

TEST_CASE("identify: the chip the device reports, a given one with a note when they differ") {
  auto t = roofline::read_trace(roofline::testing::test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  auto devices = roofline::select_devices(*t, std::nullopt);
  REQUIRE(devices.ok());
  const std::size_t d = devices->front();
  REQUIRE(roofline::reported_chip(t->devices[d]) == &roofline::chip("h100-sxm"));

  auto detected = roofline::decide_chip(*t, *devices, nullptr);
  REQUIRE(detected.ok());
  CHECK(detected->chip == &roofline::chip("h100-sxm"));
  CHECK_THAT(detected->source, Catch::StartsWith("detected from device '"));
  CHECK(detected->notes.empty());

  auto given = roofline::decide_chip(*t, *devices, &roofline::chip("a100-sxm"));
  REQUIRE(given.ok());
  CHECK(given->chip == &roofline::chip("a100-sxm"));
  CHECK(given->source == roofline::kGivenChipSource);
  REQUIRE(given->notes.size() == 1);
  CHECK_THAT(given->notes[0], Catch::EndsWith("(h100-sxm); predicting on a100-sxm as asked"));
}

TEST_CASE("identify: a device that names no chip asks for one in the library's words") {
  auto t = roofline::read_trace(roofline::testing::test_data("trace/tsl_tpu_nested.json").string());
  REQUIRE(t.ok());
  auto devices = roofline::select_devices(*t, std::nullopt);
  REQUIRE(devices.ok());
  auto c = roofline::decide_chip(*t, *devices, nullptr);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(c.status().message()),
             Catch::EndsWith("cannot tell which chip device '/device:TPU:0' (no model name) is; set ReportOptions::chip"));
}
