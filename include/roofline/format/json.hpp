// The one JSON writer of the library and the CLI: predictions, HLO costs,
// collectives, sharded matmuls, plans, op statistics and reports are all
// built as a `Json` and printed by `dump()`. Which keys each of them writes
// is in roofline/report/json.hpp, documented once in docs/json.md.
//
// A Json is a value built in code: null, a bool, an integer, a number, a
// string, an array or an object. dump() writes it with two-space indentation
// and object keys in byte order, so one value always prints the same bytes;
// numbers print as the shortest text that reads back to the same double
// (integers as integers); invalid UTF-8 in strings (names read from traces)
// is replaced by U+FFFD rather than refused.
//
//   roofline::Json j = roofline::Json::object({{"chip", "tpu-v5e"}, {"t_math_s", 0.0893}});
//   j["bound"] = "compute";
//   std::printf("%s\n", j.dump().c_str());
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace roofline {

class Json {
 public:
  // A key and its value. A pair of the enclosing type, not a nested struct
  // defined after the class: a type still incomplete inside the class would
  // reach std::variant's traits incomplete, which clang refuses (gcc lets
  // it pass), as nlohmann's map<string, basic_json> avoids too.
  using Member = std::pair<std::string, Json>;
  using Array = std::vector<Json>;
  using Object = std::vector<Member>;  // sorted by key, keys unique

  Json() = default;  // null
  Json(std::nullptr_t) {}
  template <class T>
    requires std::same_as<T, bool>
  Json(T b) : value_(b) {}
  template <std::integral T>
    requires(!std::same_as<T, bool> && !std::same_as<T, char> && std::is_signed_v<T>)
  Json(T v) : value_(static_cast<std::int64_t>(v)) {}
  template <std::integral T>
    requires(!std::same_as<T, bool> && !std::same_as<T, char> && std::is_unsigned_v<T>)
  Json(T v) : value_(static_cast<std::uint64_t>(v)) {}
  Json(double v) : value_(v) {}
  Json(const char* s) : value_(std::string(s)) {}
  Json(std::string s) : value_(std::move(s)) {}
  Json(std::string_view s) : value_(std::string(s)) {}
  // An array of strings.
  Json(const std::vector<std::string>& strings);
  // null when empty.
  template <class T>
  Json(const std::optional<T>& v) : Json(v ? Json(*v) : Json()) {}

  static Json array(Array items = {});
  // A repeated key keeps the last value.
  static Json object(std::initializer_list<Member> members = {});

  // Object member `key`, created (null) when absent; a null value becomes
  // an empty object first.
  Json& operator[](std::string_view key);
  // Appends to an array; a null value becomes an empty array first.
  void push_back(Json item);

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(value_); }
  // The member `key` of an object, or nullptr.
  const Json* find(std::string_view key) const;

  // Two-space indented, keys in byte order, no trailing newline.
  std::string dump() const;

  using Value = std::variant<std::nullptr_t, bool, std::int64_t, std::uint64_t, double, std::string,
                             Array, Object>;
  const Value& value() const { return value_; }

 private:
  Value value_ = nullptr;
};


}  // namespace roofline
