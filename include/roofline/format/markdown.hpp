// Markdown tables for the md outputs (report, fidelity). A cell's `|`
// would end the cell and a newline the row, so both are escaped; control
// and bidirectional characters (ESC, CR, NUL, BEL, U+202E) are made visible
// as for_terminal() shows them (roofline/format/terminal.hpp), since
// Markdown is read as plain text in a terminal as often as rendered.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "roofline/format/terminal.hpp"

namespace roofline {

inline std::string markdown_cell(std::string_view raw) {
  const std::string s = for_terminal(raw);
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

// A GitHub-flavoured table; `right[i]` right-aligns column i (missing
// entries: left).
inline std::string markdown_table(const std::vector<std::string>& header,
                                  const std::vector<std::vector<std::string>>& rows,
                                  const std::vector<bool>& right = {}) {
  std::string out = "|";
  for (const auto& h : header) out += " " + markdown_cell(h) + " |";
  out += "\n|";
  for (std::size_t i = 0; i < header.size(); ++i) out += i < right.size() && right[i] ? "---:|" : "---|";
  out += "\n";
  for (const auto& r : rows) {
    out += "|";
    for (const auto& c : r) out += " " + markdown_cell(c) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace roofline
