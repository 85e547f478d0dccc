#include "src/cli/text_table.hpp"

#include <algorithm>

namespace roofline::cli {
namespace {

// Display width in code points, so "µ" or "×" do not skew the columns.
std::size_t width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char c : s) w += (c & 0xC0) != 0x80;
  return w;
}

}  // namespace

std::string TextTable::render() const {
  std::vector<std::size_t> w(columns_.size(), 0);
  for (std::size_t i = 0; i < columns_.size(); ++i) w[i] = width(columns_[i].title);
  for (const auto& r : rows_)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], width(r[i]));
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const std::string& c = i < cells.size() ? cells[i] : std::string();
      const std::string pad(w[i] - width(c), ' ');
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
  for (const auto& r : rows_) line(r);
  return out;
}

}  // namespace roofline::cli
