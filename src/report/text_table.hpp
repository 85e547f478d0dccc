// An aligned plain-text table for terminal output: left-aligned text columns,
// right-aligned numeric ones, widths counted in code points. Shared by the
// report's text renderer and the CLI's tables.
#pragma once

#include <string>
#include <vector>

namespace roofline::detail {

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string title;
    Align align = Align::kLeft;
  };
  explicit TextTable(std::vector<Column> columns, int indent = 0)
      : columns_(std::move(columns)), indent_(indent) {}
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  int indent_ = 0;  // spaces before every line
};

// Display width in code points, so "µ" or "×" do not skew the columns.
std::size_t display_width(const std::string& s);

}  // namespace roofline::detail
