// Control characters and broken UTF-8 made visible (roofline/format/terminal.hpp).
#include "roofline/format/terminal.hpp"

#include <cstdint>

namespace roofline {
namespace {

void hex_escape(std::string& out, const char* prefix, unsigned value) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += prefix;
  out += kHex[(value >> 4) & 0xF];
  out += kHex[value & 0xF];
}

// Length of the valid UTF-8 sequence at `s[i]` (shortest form, no
// surrogates, at most U+10FFFF), or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(s[i + k]); };
  const auto cont = [&](std::size_t k) { return i + k < s.size() && (b(k) & 0xC0) == 0x80; };
  const std::uint8_t c = b(0);
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;  // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;  // overlong
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

// The code point of the valid `n`-byte UTF-8 sequence at `s[i]`.
std::uint32_t code_point(std::string_view s, std::size_t i, std::size_t n) {
  const auto b = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[i + k])); };
  if (n == 2) return (b(0) & 0x1F) << 6 | (b(1) & 0x3F);
  if (n == 3) return (b(0) & 0x0F) << 12 | (b(1) & 0x3F) << 6 | (b(2) & 0x3F);
  return (b(0) & 0x07) << 18 | (b(1) & 0x3F) << 12 | (b(2) & 0x3F) << 6 | (b(3) & 0x3F);
}

}  // namespace

bool is_format_control(std::uint32_t cp) {
  return cp == 0x061C ||                    // ARABIC LETTER MARK
         cp == 0x200E || cp == 0x200F ||    // LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK
         (cp >= 0x2028 && cp <= 0x202E) ||  // LINE/PARAGRAPH SEPARATOR, embeddings and overrides (U+202E RLO)
         (cp >= 0x2066 && cp <= 0x2069);    // the isolates
}

// nlohmann escapes the C0 controls; the bidirectional controls and line
// separators (is_format_control) it writes raw, and a U+202E in an op name
// reverses the rest of a line wherever the JSON is shown. They occur only
// inside strings (the rest of the text is ASCII), where `\uHHHH` reads back
// as the same string. `text` is valid UTF-8 (dump replaces what is not).
std::string json_format_controls_escaped(std::string text) {
  std::string out;
  bool escaped = false;  // out holds the text so far once one is escaped
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto b = [&](std::size_t k) { return static_cast<std::uint32_t>(static_cast<std::uint8_t>(text[i + k])); };
    std::uint32_t cp = 0;
    std::size_t n = 0;
    if ((b(0) & 0xE0) == 0xC0 && i + 1 < text.size()) cp = (b(0) & 0x1F) << 6 | (b(1) & 0x3F), n = 2;
    else if ((b(0) & 0xF0) == 0xE0 && i + 2 < text.size())
      cp = (b(0) & 0x0F) << 12 | (b(1) & 0x3F) << 6 | (b(2) & 0x3F), n = 3;
    if (n == 0 || !is_format_control(cp)) {
      if (escaped) out += text[i];
      continue;
    }
    if (!escaped) out.assign(text, 0, i);  // the first one: copy what came before
    escaped = true;
    static constexpr char kHex[] = "0123456789abcdef";
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xF];
    i += n - 1;
  }
  return escaped ? out : text;
}

std::string for_terminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<std::uint8_t>(text[i]);
    if (c < 0x20 || c == 0x7F) {
      hex_escape(out, "\\x", c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      hex_escape(out, "\\x", c);
      ++i;
      continue;
    }
    // U+0080-U+009F are C2 80 - C2 9F: the C1 controls.
    if (n == 2 && c == 0xC2 && static_cast<std::uint8_t>(text[i + 1]) < 0xA0) {
      hex_escape(out, "\\u00", static_cast<std::uint8_t>(text[i + 1]));
    } else if (const std::uint32_t cp = code_point(text, i, n); is_format_control(cp)) {
      out += "\\u";
      hex_escape(out, "", cp >> 8);
      hex_escape(out, "", cp & 0xFF);
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace roofline
