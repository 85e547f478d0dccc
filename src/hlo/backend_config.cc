// backend_config fields without a JSON document for the common case. The
// subset scanner (Subset) only ever accepts text that is valid JSON; once it
// has, the readers below walk the text directly. Whatever it does not
// accept, valid or not, is read with nlohmann::json as before.
#include "src/hlo/backend_config.hpp"

#include <array>
#include <span>
#include <string>
#include <type_traits>

#include "src/hlo/text_util.hpp"

namespace roofline::detail {
namespace {

// ---- the subset -----------------------------------------------------------

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The members the readers below need: their last value (JSON keeps the
// last of repeated keys), recorded while the subset is checked, so the
// document is read once. A member is named by the keys leading to it from
// the top-level object.
struct Capture {
  std::string_view key1, key2;  // key2 empty: a member of the top-level object
  std::optional<std::string_view> value;
};

// Recognizes one JSON value and nothing else but blanks, recording the
// captures. Outside the subset (rejected, though maybe valid JSON): \u
// escapes and bytes outside 0x20..0x7f in strings; integers above 18 digits
// (they may not fit in int64); floats with more than 100 digits or an
// exponent above 99 (they may overflow, which nlohmann rejects); nesting
// deeper than 64.
class Subset {
 public:
  Subset(std::string_view s, std::span<Capture> captures) : s_(s), captures_(captures) {}

  bool whole() {
    ws();
    if (!value(0, 0)) return false;
    ws();
    return i_ == s_.size();
  }

 private:
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void ws() {
    while (i_ < s_.size() && is_ws(s_[i_])) ++i_;
  }
  bool literal(std::string_view word) {
    if (s_.size() - i_ < word.size()) return false;
    for (char c : word)
      if (s_[i_++] != c) return false;
    return true;
  }
  std::size_t digits() {
    const std::size_t from = i_;
    while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
    return i_ - from;
  }

  // `path`: how many keys lead here through objects from the top (0: the
  // top-level value itself), or -1 inside an array or deeper than two keys.
  bool value(int depth, int path) {
    switch (peek()) {
      case '{': return depth < 64 && object(depth + 1, path);
      case '[': return depth < 64 && array(depth + 1);
      case '"': return string();
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return number();
    }
  }

  bool object(int depth, int path) {
    ++i_;  // '{'
    ws();
    if (peek() == '}') {
      ++i_;
      return true;
    }
    for (;;) {
      ws();
      const std::size_t key_at = i_;
      if (peek() != '"' || !string()) return false;
      // The raw key: equal to one of ours (letters and '_') only if unescaped.
      const std::string_view key = s_.substr(key_at + 1, i_ - key_at - 2);
      ws();
      if (peek() != ':') return false;
      ++i_;
      ws();
      const int member_path = path >= 0 && path < 2 ? path + 1 : -1;
      if (member_path == 1) {
        // The captures under this key; a repeated key replaces what the
        // earlier value held.
        under_key_ = 0;
        for (std::size_t n = 0; n < captures_.size(); ++n)
          if (captures_[n].key1 == key) {
            under_key_ |= 1u << n;
            captures_[n].value.reset();
          }
      }
      const std::size_t value_at = i_;
      const unsigned under_key = under_key_;
      if (!value(depth, member_path)) return false;
      if (member_path > 0 && under_key != 0) record(under_key, member_path, key, s_.substr(value_at, i_ - value_at));
      ws();
      if (peek() == '}') {
        ++i_;
        return true;
      }
      if (peek() != ',') return false;
      ++i_;
    }
  }

  // `value` of member `key` at `path`, for the captures in `under` (those
  // under the current top-level key).
  void record(unsigned under, int path, std::string_view key, std::string_view value) {
    for (std::size_t n = 0; n < captures_.size(); ++n) {
      Capture& c = captures_[n];
      if ((under >> n & 1u) != 0 && (path == 1 ? c.key2.empty() : c.key2 == key)) c.value = value;
    }
  }

  bool array(int depth) {
    ++i_;  // '['
    ws();
    if (peek() == ']') {
      ++i_;
      return true;
    }
    for (;;) {
      ws();
      if (!value(depth, -1)) return false;
      ws();
      if (peek() == ']') {
        ++i_;
        return true;
      }
      if (peek() != ',') return false;
      ++i_;
    }
  }

  bool string() {
    ++i_;  // '"'
    while (i_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return true;
      if (c < 0x20 || c > 0x7f) return false;
      if (c == '\\') {
        if (i_ >= s_.size()) return false;
        switch (s_[i_++]) {
          case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': break;
          default: return false;  // \u, or not an escape
        }
      }
    }
    return false;
  }

  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
  bool number() {
    if (peek() == '-') ++i_;
    if (!is_digit(peek())) return false;
    const bool leading_zero = peek() == '0';
    const std::size_t whole = digits();
    if (leading_zero && whole > 1) return false;
    std::size_t fraction = 0;
    bool is_float = false;
    if (peek() == '.') {
      ++i_;
      is_float = true;
      if ((fraction = digits()) == 0) return false;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++i_;
      is_float = true;
      if (peek() == '+' || peek() == '-') ++i_;
      const std::size_t exponent = digits();
      if (exponent == 0 || exponent > 2) return false;
    }
    return is_float ? whole + fraction <= 100 : whole <= 18;
  }

  std::string_view s_;
  std::span<Capture> captures_;  // at most 32
  unsigned under_key_ = 0;       // bit n: captures_[n] is under the current top-level key
  std::size_t i_ = 0;
};

// ---- walking text the subset accepted --------------------------------------

std::size_t skip_ws(std::string_view s, std::size_t i) {
  while (i < s.size() && is_ws(s[i])) ++i;
  return i;
}

// The end of the string starting at s[i] (its opening quote).
std::size_t string_end(std::string_view s, std::size_t i) {
  for (++i; s[i] != '"'; ++i)
    if (s[i] == '\\') ++i;
  return i + 1;
}

// The end of the value starting at s[i].
std::size_t value_end(std::string_view s, std::size_t i) {
  if (s[i] == '"') return string_end(s, i);
  if (s[i] != '{' && s[i] != '[') {
    while (i < s.size() && !is_ws(s[i]) && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
    return i;
  }
  int depth = 0;
  do {
    if (s[i] == '"') {
      i = string_end(s, i);
      continue;
    }
    if (s[i] == '{' || s[i] == '[') ++depth;
    if (s[i] == '}' || s[i] == ']') --depth;
    ++i;
  } while (depth > 0);
  return i;
}

// Calls f(value) for each element of an array, or f(key, value) for each
// member of an object, in order, until f returns false.
template <class F>
void for_each_member(std::string_view container, F f) {
  std::size_t i = skip_ws(container, 1);
  while (container[i] != '}' && container[i] != ']') {
    std::string_view key;
    if (container.front() == '{') {
      const std::size_t key_end = string_end(container, i);
      key = container.substr(i + 1, key_end - i - 2);  // raw: equal to a plain key only if unescaped
      i = skip_ws(container, skip_ws(container, key_end) + 1);
    }
    const std::size_t end = value_end(container, i);
    const std::string_view value = container.substr(i, end - i);
    if constexpr (std::is_invocable_v<F, std::string_view, std::string_view>) {
      if (!f(key, value)) return;
    } else {
      if (!f(value)) return;
    }
    i = skip_ws(container, end);
    if (container[i] == ',') i = skip_ws(container, i + 1);
  }
}

bool is_object(std::string_view v) { return !v.empty() && v.front() == '{'; }
bool is_array(std::string_view v) { return !v.empty() && v.front() == '['; }

// json_int's rule: an integer, or a string holding one (parse_int).
bool int_value(std::string_view v, std::int64_t* out) {
  if (v.front() == '"') {
    std::string text;
    for (std::size_t i = 1; i + 1 < v.size(); ++i) {
      char c = v[i];
      if (c == '\\') {
        switch (v[++i]) {
          case 'b': c = '\b'; break;
          case 'f': c = '\f'; break;
          case 'n': c = '\n'; break;
          case 'r': c = '\r'; break;
          case 't': c = '\t'; break;
          default: c = v[i];  // \" \\ \/
        }
      }
      text += c;
    }
    return parse_int(text, out);
  }
  if (v.front() != '-' && !is_digit(v.front())) return false;  // true, false, null, {...}, [...]
  if (v.find_first_of(".eE") != std::string_view::npos) return false;  // a float
  std::int64_t n = 0;
  for (char c : v.substr(v.front() == '-' ? 1 : 0)) n = n * 10 + (c - '0');  // at most 18 digits
  *out = v.front() == '-' ? -n : n;
  return true;
}

// dot_dims_from_json's rule, on subset text: the four lists, in this order,
// each (when present) an array of integers.
bool dims_from_subset(std::string_view j, DotDims* out) {
  if (!is_object(j)) return false;
  struct Field {
    std::string_view key;
    IntList* list;
    std::optional<std::string_view> value = std::nullopt;
  };
  Field fields[] = {{"lhs_batch_dimensions", &out->lhs_batch},
                    {"lhs_contracting_dimensions", &out->lhs_contracting},
                    {"rhs_batch_dimensions", &out->rhs_batch},
                    {"rhs_contracting_dimensions", &out->rhs_contracting}};
  for_each_member(j, [&](std::string_view key, std::string_view value) {
    for (Field& f : fields)
      if (f.key == key) f.value = value;  // the last of a repeated key
    return true;
  });
  for (const Field& f : fields) {
    if (!f.value) continue;
    if (!is_array(*f.value)) return false;
    bool ok = true;
    for_each_member(*f.value, [&](std::string_view v) {
      std::int64_t d;
      if (!(ok = int_value(v, &d))) return false;
      f.list->push_back(d);
      return true;
    });
    if (!ok) return false;
  }
  return true;
}

// ---- the two fields, from the subset's captures or an nlohmann document ----

// A document the subset accepted: its top-level value (without the blanks
// around it) and the captured members.
struct SubsetDocument {
  std::string_view text;
  std::span<const Capture> captures;
  const std::optional<std::string_view>& operator[](std::size_t k) const { return captures[k].value; }
};

constexpr std::size_t kKnownTripCount = 0, kTripCountN = 1;
std::optional<std::int64_t> trip_count(const SubsetDocument& j) {
  const std::optional<std::string_view>& known = j[kKnownTripCount];
  const std::optional<std::string_view>& n = j[kTripCountN];
  std::int64_t v;
  if (!is_object(j.text) || !known || !is_object(*known) || !n || !int_value(*n, &v) || v < 0) return std::nullopt;
  return v;
}

std::optional<std::int64_t> trip_count(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find("known_trip_count");
  if (it == j.end() || !it->is_object()) return std::nullopt;
  auto n = it->find("n");
  std::int64_t v;
  if (n == it->end() || !json_int(*n, &v) || v < 0) return std::nullopt;
  return v;
}

constexpr std::size_t kGemmBackendConfig = 0, kGemmDims = 1, kTopLevelDims = 2;

bool gemm_dims(const SubsetDocument& j, DotDims* d) {
  if (!is_object(j.text)) return false;  // then it has no dot_dimension_numbers either
  // Under gemm_backend_config when there is one (which must be an object), else at the top.
  const std::optional<std::string_view>& g = j[kGemmBackendConfig];
  const std::optional<std::string_view>& dims = g ? j[kGemmDims] : j[kTopLevelDims];
  return dims && dims_from_subset(*dims, d);
}

bool gemm_dims(nlohmann::json& j, DotDims* d) {
  nlohmann::json* g = j.contains("gemm_backend_config") ? &j["gemm_backend_config"] : &j;
  return g->is_object() && g->contains("dot_dimension_numbers") && dot_dims_from_json((*g)["dot_dimension_numbers"], d);
}

// The JSON of a backend_config value: raw, or the escaped string unescaped
// into `storage`.
std::string_view json_text(std::string_view value, std::string* storage) {
  if (value.front() != '"' || value.size() < 2) return value;
  *storage = unescape(value.substr(1, value.size() - 2));
  return *storage;
}

// Reads `value` with `read`: on the subset's captures of the members it
// needs or, outside the subset, on nlohmann's document; `none` when the
// value is empty or not JSON.
template <class T, std::size_t N, class Read>
T read_json(std::string_view value, std::array<Capture, N> captures, T none, Read read) {
  if (value.empty()) return none;
  std::string storage;
  const std::string_view text = json_text(value, &storage);
  if (Subset(text, captures).whole()) {
    const std::size_t begin = text.find_first_not_of(" \t\n\r");  // the value starts there
    return read(SubsetDocument{text.substr(begin), captures});
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return none;
  return read(j);
}

}  // namespace

std::optional<std::int64_t> backend_config_trip_count(std::string_view backend_config) {
  std::array<Capture, 2> captures;
  captures[kKnownTripCount] = {"known_trip_count", {}, std::nullopt};
  captures[kTripCountN] = {"known_trip_count", "n", std::nullopt};
  return read_json(backend_config, captures, std::optional<std::int64_t>(), [](auto&& j) { return trip_count(j); });
}

bool backend_config_gemm_dims(std::string_view backend_config, DotDims* d) {
  std::array<Capture, 3> captures;
  captures[kGemmBackendConfig] = {"gemm_backend_config", {}, std::nullopt};
  captures[kGemmDims] = {"gemm_backend_config", "dot_dimension_numbers", std::nullopt};
  captures[kTopLevelDims] = {"dot_dimension_numbers", {}, std::nullopt};
  return read_json(backend_config, captures, false, [d](auto&& j) { return gemm_dims(j, d); });
}

}  // namespace roofline::detail
