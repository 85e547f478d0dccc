// The aligned text table (roofline/format/text_table.hpp).
#include "roofline/format/text_table.hpp"

#include <algorithm>

#include "roofline/format/terminal.hpp"

namespace roofline {

std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

std::string TextTable::render() const {
  std::vector<std::vector<std::string>> rows;
  rows.reserve(rows_.size());
  for (const auto& r : rows_) {
    std::vector<std::string> safe;
    safe.reserve(r.size());
    for (const std::string& cell : r) safe.push_back(for_terminal(cell));
    rows.push_back(std::move(safe));
  }
  std::vector<std::size_t> w(columns_.size(), 0);
  for (std::size_t i = 0; i < columns_.size(); ++i) w[i] = display_width(columns_[i].title);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], display_width(r[i]));
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l(static_cast<std::size_t>(indent_), ' ');
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const std::string& c = i < cells.size() ? cells[i] : std::string();
      const std::string pad(w[i] - display_width(c), ' ');
      if (i) l += "  ";
      l += columns_[i].align == Align::kRight ? pad + c : c + pad;
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  std::vector<std::string> titles;
  for (const auto& c : columns_) titles.push_back(c.title);
  line(titles);
  std::vector<std::string> rule;
  for (std::size_t x : w) rule.push_back(std::string(x, '-'));
  line(rule);
  for (const auto& r : rows) line(r);
  return out;
}

}  // namespace roofline
