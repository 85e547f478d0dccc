// Reading HLO in tests: a fixture or a text that must parse (the test fails
// with the reader's message otherwise), and the error of one that must not.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "roofline/hlo/reader.hpp"
#include "tests/test_support.hpp"

namespace roofline::testing {

inline HloModule must_read(const std::string& name) {
  const std::string path = test_data("hlo/" + name).string();
  auto m = read_hlo_file(path);
  INFO(path << ": " << m.status().message());
  REQUIRE(m.ok());
  return std::move(*m);
}

inline HloModule must_parse(const std::string& text) {
  auto m = parse_hlo_text(text, "test.hlo");
  INFO(m.status().message());
  REQUIRE(m.ok());
  return std::move(*m);
}

inline std::string parse_error(const std::string& text) {
  auto m = parse_hlo_text(text, "bad.hlo");
  REQUIRE_FALSE(m.ok());
  return std::string(m.status().message());
}

}  // namespace roofline::testing
