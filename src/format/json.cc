// Json (roofline/format/json.hpp). Printing goes through nlohmann::json, a
// private dependency, so every output formats numbers and escapes strings
// the one way nlohmann does.
#include "roofline/format/json.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/format/terminal.hpp"

namespace roofline {
namespace {

nlohmann::json to_nlohmann(const Json& j) {
  struct Visit {
    nlohmann::json operator()(std::nullptr_t) const { return nullptr; }
    nlohmann::json operator()(bool b) const { return b; }
    nlohmann::json operator()(std::int64_t v) const { return v; }
    nlohmann::json operator()(std::uint64_t v) const { return v; }
    nlohmann::json operator()(double v) const { return v; }
    nlohmann::json operator()(const std::string& s) const { return s; }
    nlohmann::json operator()(const Json::Array& a) const {
      nlohmann::json out = nlohmann::json::array();
      for (const Json& item : a) out.push_back(to_nlohmann(item));
      return out;
    }
    nlohmann::json operator()(const Json::Object& o) const {
      nlohmann::json out = nlohmann::json::object();
      for (const Json::Member& m : o) out[m.first] = to_nlohmann(m.second);
      return out;
    }
  };
  return std::visit(Visit{}, j.value());
}

}  // namespace

Json::Json(const std::vector<std::string>& strings) : value_(Array(strings.begin(), strings.end())) {}

Json Json::array(Array items) {
  Json j;
  j.value_ = std::move(items);
  return j;
}

Json Json::object(std::initializer_list<Member> members) {
  Json j;
  j.value_ = Object{};
  for (const Member& m : members) j[m.first] = m.second;
  return j;
}

Json& Json::operator[](std::string_view key) {
  if (is_null()) value_ = Object{};
  Object& o = std::get<Object>(value_);
  auto it = std::lower_bound(o.begin(), o.end(), key,
                             [](const Member& m, std::string_view k) { return m.first < k; });
  if (it == o.end() || it->first != key) it = o.insert(it, Member{std::string(key), Json()});
  return it->second;
}

void Json::push_back(Json item) {
  if (is_null()) value_ = Array{};
  std::get<Array>(value_).push_back(std::move(item));
}

const Json* Json::find(std::string_view key) const {
  const Object* o = std::get_if<Object>(&value_);
  if (!o) return nullptr;
  auto it = std::lower_bound(o->begin(), o->end(), key,
                             [](const Member& m, std::string_view k) { return m.first < k; });
  return it != o->end() && it->first == key ? &it->second : nullptr;
}

std::string Json::dump() const {
  return json_format_controls_escaped(to_nlohmann(*this).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace roofline
