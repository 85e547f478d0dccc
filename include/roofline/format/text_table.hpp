// An aligned plain-text table for terminal output: left-aligned text columns,
// right-aligned numeric ones, widths counted in code points, trailing spaces
// trimmed. The report's text renderer and the CLI's tables are this one.
//
//   roofline::TextTable t({{"op"}, {"time", roofline::TextTable::Align::kRight}});
//   t.add_row({"fusion.1", "89.3 ms"});
//   std::cout << t.render();   // "op        time\n--------  -------\nfusion.1  89.3 ms\n"
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace roofline {

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string title;
    Align align = Align::kLeft;
  };
  // `indent`: spaces before every line.
  explicit TextTable(std::vector<Column> columns, int indent = 0)
      : columns_(std::move(columns)), indent_(indent) {}
  // Missing cells are blank; cells beyond the columns are ignored. Cells may
  // hold strings from traces: render() passes each through for_terminal().
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // Title line, a rule of dashes, then the rows; every line ends in "\n".
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
  int indent_ = 0;
};

// Display width in code points (UTF-8 lead bytes), so "µ" or "×" do not skew
// the columns.
std::size_t display_width(const std::string& s);

}  // namespace roofline
