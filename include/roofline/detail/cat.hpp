// String concatenation that takes std::string_view. Debian's abseil is built
// with its own absl::string_view, so absl::StrCat rejects std::string_view
// arguments; this small helper is used instead throughout.
#pragma once

#include <charconv>
#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>

namespace roofline::detail {

inline void append_one(std::string& out, std::string_view s) { out.append(s); }
inline void append_one(std::string& out, const char* s) { out.append(s); }
inline void append_one(std::string& out, const std::string& s) { out.append(s); }
inline void append_one(std::string& out, char c) { out.push_back(c); }
template <std::integral T>
  requires(!std::same_as<T, char> && !std::same_as<T, bool>)
void append_one(std::string& out, T v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}
inline void append_one(std::string& out, bool b) { out.append(b ? "true" : "false"); }
// Shortest representation that reads back to the same double.
inline void append_one(std::string& out, double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

template <class... T>
std::string cat(const T&... parts) {
  std::string out;
  (append_one(out, parts), ...);
  return out;
}

}  // namespace roofline::detail
