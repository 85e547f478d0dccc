// The one CSV writer and its one quoting rule (RFC 4180).
#include <catch2/catch.hpp>

#include <string>

#include "roofline/format/csv.hpp"

TEST_CASE("csv: a field is quoted when it holds a comma or a quote, quotes doubled") {
  CHECK(roofline::csv_field("fusion.1") == "fusion.1");
  CHECK(roofline::csv_field("") == "");
  CHECK(roofline::csv_field("a, b") == "\"a, b\"");
  CHECK(roofline::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(roofline::csv_field("f32[8]{0}") == "f32[8]{0}");
}

TEST_CASE("csv: control and bidirectional characters from input are made visible, not written raw",
          "[format][terminal]") {
  // ESC, CR, LF, NUL, BEL and U+202E as for_terminal shows them; a CSV is
  // catted to terminals too. Quoting still applies to what remains.
  CHECK(roofline::csv_field("fusion\x1b[2J") == "fusion\\x1b[2J");
  CHECK(roofline::csv_field("two\nlines") == "two\\x0alines");
  CHECK(roofline::csv_field("cr\rhere") == "cr\\x0dhere");
  CHECK(roofline::csv_field(std::string("nul\0bel\a", 8)) == "nul\\x00bel\\x07");
  CHECK(roofline::csv_field("a,\u202Eb") == "\"a,\\u202eb\"");
}

TEST_CASE("csv: a header, then rows, every field through the one rule") {
  roofline::CsvWriter csv({"name", "t_math_s"});
  csv.add_row({"fusion, 1", "0.0893"});
  csv.add_row({"dot", ""});
  CHECK(csv.str() == "name,t_math_s\n\"fusion, 1\",0.0893\ndot,\n");
}
