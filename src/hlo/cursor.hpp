// A position in HLO text and the few token readers the shape and module
// parsers share. One pass, no allocation: tokens are views into the text.
// A reader that fails records what was expected and where (the first failure
// wins) and returns false; callers unwind and turn it into a located Status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "roofline/hlo/shape.hpp"

namespace roofline::detail {

class Cursor {
 public:
  explicit Cursor(std::string_view text) : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  bool at_end() const { return p_ >= end_; }
  char peek() const { return p_ < end_ ? *p_ : '\0'; }
  char peek(std::size_t ahead) const { return p_ + ahead < end_ ? p_[ahead] : '\0'; }
  const char* pos() const { return p_; }
  void set_pos(const char* p) { p_ = p; }
  std::size_t offset() const { return static_cast<std::size_t>(p_ - begin_); }
  std::string_view rest() const { return {p_, static_cast<std::size_t>(end_ - p_)}; }
  const char* begin() const { return begin_; }
  const char* end() const { return end_; }
  void advance(std::size_t n = 1) { p_ = (n > static_cast<std::size_t>(end_ - p_)) ? end_ : p_ + n; }

  // Blanks, newlines and comments (/* ... */ and // to end of line).
  void skip_space() {
    while (p_ < end_) {
      const char c = *p_;
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++p_;
      } else if (c == '/' && p_ + 1 < end_ && p_[1] == '*') {
        const char* q = p_ + 2;
        while (q + 1 < end_ && !(q[0] == '*' && q[1] == '/')) ++q;
        p_ = q + 1 < end_ ? q + 2 : end_;
      } else if (c == '/' && p_ + 1 < end_ && p_[1] == '/') {
        while (p_ < end_ && *p_ != '\n') ++p_;
      } else {
        return;
      }
    }
  }
  // Blanks and comments but not newlines (a header line ends at a newline).
  void skip_blanks() {
    while (p_ < end_) {
      const char c = *p_;
      if (c == ' ' || c == '\t' || c == '\r') {
        ++p_;
      } else if (c == '/' && p_ + 1 < end_ && p_[1] == '*') {
        const char* q = p_ + 2;
        while (q + 1 < end_ && !(q[0] == '*' && q[1] == '/')) ++q;
        p_ = q + 1 < end_ ? q + 2 : end_;
      } else if (c == '/' && p_ + 1 < end_ && p_[1] == '/') {
        while (p_ < end_ && *p_ != '\n') ++p_;
      } else {
        return;
      }
    }
  }

  bool consume(char c) {
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool consume(std::string_view s) {
    if (static_cast<std::size_t>(end_ - p_) >= s.size() && std::string_view(p_, s.size()) == s) {
      p_ += s.size();
      return true;
    }
    return false;
  }
  bool expect(char c, const char* what) {
    if (consume(c)) return true;
    return fail(what);
  }

  static bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-' || c == '$';
  }
  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  // [A-Za-z0-9_.$-]+ ; empty when there is none.
  std::string_view name() {
    const char* s = p_;
    while (p_ < end_ && is_name_char(*p_)) ++p_;
    return {s, static_cast<std::size_t>(p_ - s)};
  }
  // Letters, digits and '_' only (element types, layout letters).
  std::string_view word() {
    const char* s = p_;
    while (p_ < end_ && ((*p_ >= 'a' && *p_ <= 'z') || (*p_ >= 'A' && *p_ <= 'Z') || is_digit(*p_) || *p_ == '_'))
      ++p_;
    return {s, static_cast<std::size_t>(p_ - s)};
  }

  // A decimal integer with an optional '-'; fails on overflow.
  bool integer(std::int64_t* out, const char* what) {
    const char* s = p_;
    bool neg = false;
    if (p_ < end_ && *p_ == '-') {
      neg = true;
      ++p_;
    }
    if (p_ >= end_ || !is_digit(*p_)) {
      p_ = s;
      return fail(what);
    }
    std::uint64_t v = 0;
    const char* digits = p_;
    while (p_ < end_ && is_digit(*p_)) {
      v = v * 10 + static_cast<std::uint64_t>(*p_ - '0');
      ++p_;
      // 19 digits cannot wrap a uint64; more than 19 cannot fit an int64.
      if (p_ - digits >= 19 && (p_ - digits > 19 || v > static_cast<std::uint64_t>(INT64_MAX))) {
        p_ = s;
        return fail("an integer that fits in 64 bits");
      }
    }
    *out = neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
    return true;
  }

  // "..." with C escapes; returns the raw text between the quotes.
  bool quoted(std::string_view* out) {
    if (!consume('"')) return fail("'\"'");
    const char* s = p_;
    while (p_ < end_ && *p_ != '"') {
      if (*p_ == '\\' && p_ + 1 < end_) ++p_;
      ++p_;
    }
    if (p_ >= end_) {
      p_ = s - 1;
      return fail("a closing '\"'");
    }
    *out = {s, static_cast<std::size_t>(p_ - s)};
    ++p_;
    return true;
  }

  // Skips one balanced value: brackets {[( with their closers, strings,
  // anything else up to a ',' or closer at depth 0 (or a newline at depth 0
  // when `stop_at_newline`). Returns the skipped text with blanks trimmed.
  bool balanced(std::string_view* out, bool stop_at_newline) {
    const char* s = p_;
    char stack[kMaxDepth];
    int depth = 0;
    while (p_ < end_) {
      const char c = *p_;
      if (c == '"') {
        std::string_view ignored;
        if (!quoted(&ignored)) return false;
        continue;
      }
      if (c == '{' || c == '[' || c == '(') {
        if (depth == kMaxDepth) return fail("less deeply nested brackets");
        stack[depth++] = c == '{' ? '}' : c == '[' ? ']' : ')';
      } else if (c == '}' || c == ']' || c == ')') {
        if (depth == 0) break;
        if (stack[depth - 1] != c) {
          return fail(std::string{'\'', stack[depth - 1], '\''});
        }
        --depth;
      } else if (depth == 0 && (c == ',' || (stop_at_newline && c == '\n'))) {
        break;
      }
      ++p_;
    }
    if (depth != 0) {
      return fail(std::string{'\'', stack[depth - 1], '\''});
    }
    const char* e = p_;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n')) --e;
    *out = {s, static_cast<std::size_t>(e - s)};
    return true;
  }

  // After an opening bracket already consumed: everything up to its matching
  // closer `close` (commas included), which is consumed too.
  bool enclosed(char close, std::string_view* inner) {
    const char* s = p_;
    std::string_view part;
    for (;;) {
      if (!balanced(&part, /*stop_at_newline=*/false)) return false;
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        continue;
      }
      break;
    }
    if (p_ >= end_ || *p_ != close) return fail(std::string{'\'', close, '\''});
    *inner = {s, static_cast<std::size_t>(p_ - s)};
    ++p_;
    return true;
  }

  // Records "expected <what>" at the current position (first failure wins).
  bool fail(const char* what) {
    if (!failed_) {
      failed_ = true;
      error_at_ = p_;
      error_what_ = what;
    }
    return false;
  }
  bool fail(std::string what) {
    if (!failed_) {
      failed_ = true;
      error_at_ = p_;
      error_what_ = std::move(what);
    }
    return false;
  }
  // Records a message that is not of the "expected ..." form.
  bool fail_message(std::string message, const char* at) {
    if (!failed_) {
      failed_ = true;
      error_at_ = at;
      error_what_ = std::move(message);
      error_is_message_ = true;
    }
    return false;
  }

  bool failed() const { return failed_; }

  // "<origin>:<line>:<column>: expected <what>" (1-based line and column).
  absl::Status error_status(std::string_view origin) const;
  // Line and column of a pointer into the text.
  void line_column(const char* at, int* line, int* column) const;

 private:
  static constexpr int kMaxDepth = 256;
  const char* begin_;
  const char* p_;
  const char* end_;
  bool failed_ = false;
  bool error_is_message_ = false;
  const char* error_at_ = nullptr;
  std::string error_what_;
};

// Reads one shape at the cursor (blanks before it skipped). `depth` bounds
// tuple nesting.
bool parse_shape_at(Cursor& c, Shape* out, int depth = 0);

}  // namespace roofline::detail
