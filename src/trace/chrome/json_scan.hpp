// JSON token scanners over a JsonWindow: each returns kOk (and advances the
// cursor), kMore (the token runs into the end of the window: refill and
// parse the unit again) or kErr (the message and place are kept). Strings
// without escapes come back as views into the window; escaped ones are
// decoded into scratch storage that lives until the unit is committed.
// Internal to src/trace.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>

#include "src/trace/chrome/json_window.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace roofline::detail {

// The first '"' or '\\' in [s, end), or `end`. One pass for both (two
// memchr calls were 9% of a Kineto read, most strings being short keys);
// the loads may run up to 15 bytes past `end`, into the window's padding.
[[gnu::always_inline]] inline const char* find_quote_or_backslash(const char* s, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  for (; s < end; s += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
    const int hits = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    if (hits != 0) {
      const char* at = s + __builtin_ctz(static_cast<unsigned>(hits));
      return at < end ? at : end;
    }
  }
  return end;
#else
  while (s < end && *s != '"' && *s != '\\') ++s;
  return s;
#endif
}

enum class R : std::uint8_t { kOk, kMore, kErr };

#define ROOFLINE_JSON_TRY(expr)        \
  do {                                 \
    const ::roofline::detail::R r_ = (expr); \
    if (r_ != ::roofline::detail::R::kOk) return r_; \
  } while (0)

inline constexpr int kMaxJsonDepth = 256;

inline std::string_view json_kind(char c) {
  switch (c) {
    case '"': return "a string";
    case '{': return "an object";
    case '[': return "an array";
    case 't': return "true";
    case 'f': return "false";
    case 'n': return "null";
    default: return (c == '-' || (c >= '0' && c <= '9')) ? "a number" : "an invalid token";
  }
}

class JsonScanner {
 public:
  explicit JsonScanner(JsonWindow& w) : w_(w) {}

  std::string error;
  const char* error_at = nullptr;
  std::deque<std::string> scratch;

  R fail(const char* at, std::string message) {
    error = std::move(message);
    error_at = at;
    return R::kErr;
  }

  // At end of the window: more needed. Elsewhere a NUL byte is an error.
  R at_nul(const char* p) {
    if (p >= w_.end) return R::kMore;
    return fail(p, "unexpected NUL byte");
  }

  static bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

  [[gnu::always_inline]] R ws(const char*& p) {
    // A local cursor: stepping `p` itself stores it at every byte (a char
    // read may alias it).
    const char* c = p;
    while (is_ws(*c)) ++c;
    p = c;
    if (*c == '\0') [[unlikely]] return at_nul(c);
    return R::kOk;
  }

  R expect(const char*& p, char c, const char* context) {
    if (*p == c) [[likely]] {
      ++p;
      return R::kOk;
    }
    ROOFLINE_JSON_TRY(ws(p));
    if (*p != c) [[unlikely]] return fail_expected(p, c, context);
    ++p;
    return R::kOk;
  }

  // fail() with "<what>, got <describe(at)>", out of line so that the
  // scanners' hot paths stay small.
  [[gnu::cold, gnu::noinline]] R fail_got(const char* at, std::string_view what) {
    return fail(at, cat(what, ", got ", describe(at)));
  }

  std::string describe(const char* p) {
    if (*p == '\0') return p >= w_.end ? "the end of the data" : "a NUL byte";
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c < 0x7f) return cat("'", *p, "'");
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", c);
    return cat("byte ", buf);
  }

  // p at '"'. Inlined up to the first escape (most strings have none).
  [[gnu::always_inline]] R string(const char*& p, std::string_view& out) {
    const char* s = p + 1;
    const char* bs = find_quote_or_backslash(s, w_.end);
    if (bs == w_.end) return R::kMore;
    if (*bs == '"') [[likely]] {
      out = std::string_view(s, static_cast<std::size_t>(bs - s));
      p = bs + 1;
      return R::kOk;
    }
    return escaped_string(p, bs, out);
  }

  // The rest of string() from its first backslash `bs`.
  [[gnu::noinline]] R escaped_string(const char*& p, const char* bs, std::string_view& out) {
    const char* s = p + 1;
    // Escapes: decoded only once the closing quote is in the window, so a
    // string cut by the window's end is read again whole, never judged.
    if (std::memchr(bs, '"', static_cast<std::size_t>(w_.end - bs)) == nullptr) return R::kMore;
    std::string& dst = scratch.emplace_back(s, static_cast<std::size_t>(bs - s));
    const char* c = bs;
    for (;;) {
      const char* run = c;
      while (*c != '"' && *c != '\\' && *c != '\0') ++c;
      dst.append(run, static_cast<std::size_t>(c - run));
      if (*c == '"') break;
      if (*c == '\0') {
        if (c >= w_.end) return R::kMore;
        dst.push_back('\0');
        ++c;
        continue;
      }
      // backslash
      if (c + 1 >= w_.end) return R::kMore;
      const char e = c[1];
      c += 2;
      switch (e) {
        case '"': dst.push_back('"'); break;
        case '\\': dst.push_back('\\'); break;
        case '/': dst.push_back('/'); break;
        case 'b': dst.push_back('\b'); break;
        case 'f': dst.push_back('\f'); break;
        case 'n': dst.push_back('\n'); break;
        case 'r': dst.push_back('\r'); break;
        case 't': dst.push_back('\t'); break;
        case 'u': {
          std::uint32_t cp;
          ROOFLINE_JSON_TRY(hex4(c, cp));
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (w_.end - c < 6) return R::kMore;
            std::uint32_t lo;
            if (c[0] == '\\' && c[1] == 'u') {
              const char* l = c + 2;
              ROOFLINE_JSON_TRY(hex4(l, lo));
              if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                c = l;
              } else {
                cp = 0xFFFD;
              }
            } else {
              cp = 0xFFFD;
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            cp = 0xFFFD;
          }
          utf8(dst, cp);
          break;
        }
        default: return fail(c - 1, cat("invalid escape '\\", e, "' in a string"));
      }
    }
    out = dst;
    p = c + 1;
    return R::kOk;
  }

  R skip_string(const char*& p) {
    const char* c = p + 1;
    for (;;) {
      c = find_quote_or_backslash(c, w_.end);
      if (c == w_.end) return R::kMore;
      if (*c == '"') {
        p = c + 1;
        return R::kOk;
      }
      // A backslash escapes the byte after it (a quote or another backslash).
      if (c + 1 >= w_.end) return R::kMore;
      c += 2;
    }
  }

  // A number token (validated loosely here; converters check it).
  R number(const char*& p, std::string_view& tok) {
    const char* s = p;
    const char* c = p;
    while ((*c >= '0' && *c <= '9') || *c == '-' || *c == '+' || *c == '.' || *c == 'e' || *c == 'E') ++c;
    if (*c == '\0' && c >= w_.end) return R::kMore;
    if (c == s) [[unlikely]] return fail_got(p, "expected a number");
    tok = std::string_view(s, static_cast<std::size_t>(c - s));
    p = c;
    return R::kOk;
  }

  R literal(const char*& p, std::string_view word) {
    if (static_cast<std::size_t>(w_.end - p) < word.size()) return R::kMore;
    if (std::memcmp(p, word.data(), word.size()) != 0)
      return fail(p, cat("invalid token ", describe(p)));
    p += word.size();
    return R::kOk;
  }

  R skip(const char*& p, int depth = 0) {
    ROOFLINE_JSON_TRY(ws(p));
    switch (*p) {
      case '"': return skip_string(p);
      case '{':
      case '[': {
        if (depth >= kMaxJsonDepth) return fail(p, cat("JSON nested deeper than ", kMaxJsonDepth));
        const char close = *p == '{' ? '}' : ']';
        const bool object = *p == '{';
        ++p;
        ROOFLINE_JSON_TRY(ws(p));
        if (*p == close) {
          ++p;
          return R::kOk;
        }
        for (;;) {
          if (object) {
            ROOFLINE_JSON_TRY(ws(p));
            if (*p != '"') [[unlikely]] return fail_got(p, "expected a key");
            ROOFLINE_JSON_TRY(skip_string(p));
            ROOFLINE_JSON_TRY(expect(p, ':', "after a key"));
          }
          ROOFLINE_JSON_TRY(skip(p, depth + 1));
          ROOFLINE_JSON_TRY(ws(p));
          if (*p == ',') {
            ++p;
            continue;
          }
          if (*p == close) {
            ++p;
            return R::kOk;
          }
          return fail(p, cat("expected ',' or '", close, "', got ", describe(p)));
        }
      }
      case 't': return literal(p, "true");
      case 'f': return literal(p, "false");
      case 'n': return literal(p, "null");
      default: {
        std::string_view tok;
        return number(p, tok);
      }
    }
  }

 private:
  R hex4(const char*& c, std::uint32_t& v) {
    if (w_.end - c < 4) return R::kMore;
    v = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = c[i];
      v <<= 4;
      if (h >= '0' && h <= '9') v |= static_cast<std::uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') v |= static_cast<std::uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') v |= static_cast<std::uint32_t>(h - 'A' + 10);
      else return fail(c, "invalid \\u escape");
    }
    c += 4;
    return R::kOk;
  }

  static void utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  [[gnu::cold, gnu::noinline]] R fail_expected(const char* p, char c, const char* context) {
    return fail(p, cat("expected '", c, "' ", context, ", got ", describe(p)));
  }

  JsonWindow& w_;
};

}  // namespace roofline::detail
