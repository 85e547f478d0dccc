// Text for HTML, the one escape every HTML renderer uses: control and
// bidirectional characters made visible first (for_terminal: an entity for
// U+202E would still reverse the line), then the five HTML specials
// escaped. Names from traces, spec and calibration files pass through it.
#pragma once

#include <string>
#include <string_view>

#include "roofline/format/terminal.hpp"

namespace roofline {

inline std::string html_escape(std::string_view raw) {
  std::string out;
  for (char c : for_terminal(raw)) switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  return out;
}

}  // namespace roofline
