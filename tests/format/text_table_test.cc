#include <catch2/catch.hpp>

#include "roofline/format/text_table.hpp"

TEST_CASE("text table: titles, a rule, left text and right numbers, no trailing spaces") {
  roofline::TextTable t({{"op"}, {"time", roofline::TextTable::Align::kRight}, {"note"}});
  t.add_row({"fusion.1", "89.3 ms", ""});
  t.add_row({"dot", "1.2 s", "compute"});
  CHECK(t.render() ==
        "op           time  note\n"
        "--------  -------  -------\n"
        "fusion.1  89.3 ms\n"
        "dot         1.2 s  compute\n");
}

TEST_CASE("text table: widths count code points, and an indent prefixes every line") {
  roofline::TextTable t({{"µs"}, {"x"}}, 2);
  t.add_row({"×", "y"});
  CHECK(roofline::display_width("µs×") == 3);
  CHECK(t.render() == "  µs  x\n  --  -\n  ×   y\n");
}
