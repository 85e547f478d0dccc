// Strings from traces made safe for a terminal (roofline/format/terminal.hpp).
#include <catch2/catch.hpp>

#include <string>

#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"

using roofline::for_terminal;

TEST_CASE("for_terminal: control characters become visible escapes", "[format][terminal]") {
  CHECK(for_terminal("fusion.1") == "fusion.1");
  CHECK(for_terminal("fusion\x1b[2J") == "fusion\\x1b[2J");  // clear screen
  CHECK(for_terminal("a\rb\nc\td\a") == "a\\x0db\\x0ac\\x09d\\x07");
  CHECK(for_terminal(std::string("nul\0x", 5)) == "nul\\x00x");
  CHECK(for_terminal("del\x7f") == "del\\x7f");
  // C1 controls (U+009B is CSI on terminals that obey 8-bit controls)
  CHECK(for_terminal("csi\xc2\x9b" "2J") == "csi\\u009b2J");
}

TEST_CASE("for_terminal: UTF-8 passes, broken UTF-8 is escaped byte by byte", "[format][terminal]") {
  CHECK(for_terminal("8.9 µs × 2 → ok 🙂") == "8.9 µs × 2 → ok 🙂");
  CHECK(for_terminal("\xc2\xa0") == "\xc2\xa0");        // U+00A0, not a control
  CHECK(for_terminal("bad\xff") == "bad\\xff");
  CHECK(for_terminal("cut\xe2\x82") == "cut\\xe2\\x82");  // truncated sequence
  CHECK(for_terminal("\xc0\xaf") == "\\xc0\\xaf");      // overlong '/'
  CHECK(for_terminal("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(for_terminal("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
}

TEST_CASE("for_terminal: bidirectional controls and line separators become \\u escapes", "[format][terminal]") {
  // U+202E (right-to-left override) shows the rest of the line reversed:
  // "fusion\u202Egnp.exe" reads "fusionexe.png".
  CHECK(for_terminal("fusion\u202Egnp.exe") == "fusion\\u202egnp.exe");
  CHECK(for_terminal("\u202A\u202B\u202C\u202D") == "\\u202a\\u202b\\u202c\\u202d");
  CHECK(for_terminal("\u2066\u2067\u2068\u2069") == "\\u2066\\u2067\\u2068\\u2069");
  CHECK(for_terminal("\u200E\u200F\u061C") == "\\u200e\\u200f\\u061c");
  CHECK(for_terminal("a\u2028b\u2029c") == "a\\u2028b\\u2029c");
  // Neighbours that are not controls pass: U+2027, U+202F, U+2065, U+206A.
  CHECK(for_terminal("\u2027\u202F\u2065\u206A") == "\u2027\u202F\u2065\u206A");
}

TEST_CASE("text tables escape their cells and align on the escaped width", "[format][terminal]") {
  roofline::TextTable t({{"op"}, {"n", roofline::TextTable::Align::kRight}});
  t.add_row({"x\x1b[31m", "1"});
  t.add_row({"longer_name", "2"});
  CHECK(t.render() ==
        "op           n\n"
        "-----------  -\n"
        "x\\x1b[31m    1\n"  // 9 columns wide once escaped
        "longer_name  2\n");
}
