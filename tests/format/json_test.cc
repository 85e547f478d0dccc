// The one JSON writer: what each value prints as.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "roofline/format/json.hpp"

using roofline::Json;

TEST_CASE("json: objects print their keys in byte order, two-space indented") {
  Json j = Json::object({{"t_math_s", 0.0893}, {"chip", "tpu-v5e"}, {"bound", "compute"}});
  CHECK(j.dump() == "{\n  \"bound\": \"compute\",\n  \"chip\": \"tpu-v5e\",\n  \"t_math_s\": 0.0893\n}");
  j["chip"] = "h100-sxm";  // a key is set once, wherever it is written
  CHECK(j.find("chip") != nullptr);
  CHECK(j.dump().find("h100-sxm") != std::string::npos);
  CHECK(j.dump().find("tpu-v5e") == std::string::npos);
  CHECK(j.find("nope") == nullptr);
}

TEST_CASE("json: integers stay integers, doubles read back exactly, unknowns are null") {
  const std::optional<double> none;
  const std::optional<std::int64_t> flops = 1342177280;
  Json j = Json::object({{"count", std::int64_t{12}},
                         {"id", 3u},
                         {"t", 1.0},
                         {"small", 1e-05},
                         {"big", 1e20},
                         {"xla_bytes", none},
                         {"xla_flops", flops},
                         {"async", false}});
  CHECK(j.dump() ==
        "{\n  \"async\": false,\n  \"big\": 1e+20,\n  \"count\": 12,\n  \"id\": 3,\n  \"small\": 1e-05,\n"
        "  \"t\": 1.0,\n  \"xla_bytes\": null,\n  \"xla_flops\": 1342177280\n}");
}

TEST_CASE("json: arrays, nesting, and empty containers") {
  Json a = Json::array();
  CHECK(a.dump() == "[]");
  a.push_back(Json::object());
  a.push_back(std::vector<std::string>{"X", "Y"});
  CHECK(a.dump() == "[\n  {},\n  [\n    \"X\",\n    \"Y\"\n  ]\n]");
  Json grown;  // null grows into what it is used as
  grown.push_back(1);
  CHECK(grown.dump() == "[\n  1\n]");
  CHECK(Json().dump() == "null");
}

TEST_CASE("json: strings are escaped, and invalid UTF-8 from a trace is replaced, not refused") {
  CHECK(Json("a\"b\\c\nd\x01").dump() == "\"a\\\"b\\\\c\\nd\\u0001\"");
  CHECK(Json("op \xff name").dump() == "\"op \xef\xbf\xbd name\"");
  CHECK(Json("µs").dump() == "\"µs\"");
}

TEST_CASE("json: bidirectional controls and line separators are written as \\u escapes", "[format][terminal]") {
  // U+202E (RLO) would show the rest of a line reversed wherever the JSON
  // is printed; nlohmann writes it raw. The escape reads back as the same
  // string, and other non-ASCII text stays as it is.
  CHECK(Json("op\u202Eevil").dump() == "\"op\\u202eevil\"");
  CHECK(Json("\u2066x\u2069 \u200F \u061C \u2028").dump() == "\"\\u2066x\\u2069 \\u200f \\u061c \\u2028\"");
  CHECK(Json::object({{"\u202Ekey", "µs → \u202D"}}).dump() == "{\n  \"\\u202ekey\": \"µs → \\u202d\"\n}");
}
