// The one CSV writer and its one quoting rule (RFC 4180).
#include <catch2/catch.hpp>

#include "roofline/format/csv.hpp"

TEST_CASE("csv: a field is quoted when it holds a comma, a quote, CR or LF, quotes doubled") {
  CHECK(roofline::csv_field("fusion.1") == "fusion.1");
  CHECK(roofline::csv_field("") == "");
  CHECK(roofline::csv_field("a, b") == "\"a, b\"");
  CHECK(roofline::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(roofline::csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(roofline::csv_field("cr\rhere") == "\"cr\rhere\"");
  CHECK(roofline::csv_field("f32[8]{0}") == "f32[8]{0}");
}

TEST_CASE("csv: a header, then rows, every field through the one rule") {
  roofline::CsvWriter csv({"name", "t_math_s"});
  csv.add_row({"fusion, 1", "0.0893"});
  csv.add_row({"dot", ""});
  CHECK(csv.str() == "name,t_math_s\n\"fusion, 1\",0.0893\ndot,\n");
}
