// The one CSV writer of the library and the CLI (report, hlo and stats
// tables), with one quoting rule, RFC 4180's: a field holding a comma, a
// double quote, CR or LF is written in double quotes, with each double quote
// inside doubled; every other field is written as it is. Before quoting, a
// field's control and bidirectional characters are made visible as
// for_terminal() shows them (roofline/format/terminal.hpp: ESC as `\x1b`, a
// newline as `\x0a`, U+202E as `\u202e`): names come from traces, and a CSV
// is read in terminals and spreadsheets too. Empty fields are
// unknown figures (never 0, which would read as a measurement). Lines end in
// "\n". Which columns each table has is in roofline/report/csv.hpp,
// documented in docs/json.md.
//
//   roofline::CsvWriter csv({"name", "t_math_s"});
//   csv.add_row({"fusion, 1", "0.0893"});
//   csv.str();   // "name,t_math_s\n\"fusion, 1\",0.0893\n"
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "roofline/format/terminal.hpp"

namespace roofline {

// One field, quoted when RFC 4180 says it must be.
inline std::string csv_field(std::string_view raw) {
  const std::string s = for_terminal(raw);
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

class CsvWriter {
 public:
  explicit CsvWriter(const std::vector<std::string>& header) { add_row(header); }
  // Cells are raw text (numbers already formatted); each is quoted as needed.
  void add_row(const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i) out_ += ',';
      out_ += csv_field(cells[i]);
    }
    out_ += '\n';
  }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

}  // namespace roofline
