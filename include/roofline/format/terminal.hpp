// Strings from traces on a terminal. A profile is input: an op name may hold
// ESC, CR or BEL, and printed raw such a name can rewrite the screen, hide
// lines or ring the bell. Every string the CLI prints in text form passes
// through for_terminal(): C0 controls (U+0000-U+001F, newline and tab included: a cell or a message is one line), DEL and
// the C1 controls (U+0080-U+009F, which some terminals also obey) become a
// visible `\xHH` (or `\u00HH` for C1), and bytes that are not valid UTF-8
// become `\xHH`. The bidirectional controls (U+202A-U+202E, U+2066-U+2069,
// U+200E, U+200F, U+061C: a U+202E in an op name shows the rest of the line
// reversed) and the line and paragraph separators U+2028, U+2029 become a
// visible `\uHHHH`. Everything else, "µs" and "×" included, passes unchanged.
// HTML and CSV have their own escaping (render_html, format/csv.hpp).
//
//   for_terminal("fusion\x1b[2J")  // "fusion\\x1b[2J"
//   for_terminal("a\u202Eb")        // "a\\u202eb"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace roofline {

std::string for_terminal(std::string_view text);

// Whether for_terminal shows code point `cp` as `\uHHHH` (a bidirectional
// control or a line or paragraph separator): for writers that escape the
// rest themselves (JSON).
bool is_format_control(std::uint32_t cp);

// JSON text (valid UTF-8, as nlohmann's dump writes it) with each
// is_format_control character written as `\uHHHH`. nlohmann escapes the C0
// controls but writes these raw, and a U+202E in an op name reverses the
// rest of a line wherever the JSON is shown. Outside strings JSON text is
// ASCII, so they occur only inside strings, where the escape reads back as
// the same string. Json::dump (roofline/format/json.hpp) applies it.
std::string json_format_controls_escaped(std::string text);

}  // namespace roofline
