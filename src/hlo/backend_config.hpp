// The two things the cost model reads from an instruction's backend_config
// (proto3 JSON, printed raw `{...}` or as an escaped string `"{\"a\":1}"`):
// a while's known trip count and a library GEMM's dot dimension numbers.
//
// Most configs are read by a small scanner that accepts a strict subset of
// JSON (ASCII strings without \u escapes, integers of up to 18 digits,
// bounded floats, nesting up to 64) and builds nothing; anything outside the
// subset, and anything malformed, goes to nlohmann::json, whose verdict is
// the rule. Every text the scanner accepts is valid JSON and gives the values
// nlohmann would (tests/hlo/typed_attributes_test.cc checks the two agree).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "src/hlo/attributes.hpp"

namespace roofline::detail {

// backend_config={"known_trip_count":{"n":"10"}}: n when it is a
// non-negative integer (a JSON number, or a string holding one).
std::optional<std::int64_t> backend_config_trip_count(std::string_view backend_config);

// The dot_dimension_numbers of gemm_backend_config (or at the top level):
// true when present and every list holds integers (or strings holding
// them). False otherwise; the lists read before a malformed entry are then
// left in `d` (the cost model's fallback to attributes adds to them).
bool backend_config_gemm_dims(std::string_view backend_config, DotDims* d);

}  // namespace roofline::detail
