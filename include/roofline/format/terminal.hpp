// Strings from traces on a terminal. A profile is input: an op name may hold
// ESC, CR or BEL, and printed raw such a name can rewrite the screen, hide
// lines or ring the bell. Every string the CLI prints in text form passes
// through for_terminal(): C0 controls (U+0000-U+001F, newline and tab included: a cell or a message is one line), DEL and
// the C1 controls (U+0080-U+009F, which some terminals also obey) become a
// visible `\xHH` (or `\u00HH` for C1), and bytes that are not valid UTF-8
// become `\xHH`. Everything else, "µs" and "×" included, passes unchanged.
// HTML and CSV have their own escaping (render_html, format/csv.hpp).
//
//   for_terminal("fusion\x1b[2J")  // "fusion\\x1b[2J"
#pragma once

#include <string>
#include <string_view>

namespace roofline {

std::string for_terminal(std::string_view text);

}  // namespace roofline
