// Issue 38: strings from input (op, kernel, thread and process names, file
// names, a partial's source and hosts, a chip spec's names and sources, a
// model's name) pass through every command and format without one control
// or bidirectional character reaching the output raw: ESC, CR, NUL, BEL and
// U+202E (right-to-left override) each come out as a visible escape.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using roofline::testing::run_cli;

namespace {

// The hostile part of every name: ESC (a colour), CR, BEL, NUL and U+202E.
const std::string kHostile = std::string("\x1b[31mE\rC\aB") + std::string(1, '\0') + "N\xe2\x80\xaeR";

// What must not appear in an output: C0 controls but the newline (every
// output is lines), DEL, C1 controls (C2 80-9F), and U+061C, U+200E-U+200F,
// U+2028-U+202E, U+2066-U+2069 in UTF-8. Returns the first offence, or "".
std::string raw_control(const std::string& out) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto c = static_cast<unsigned char>(out[i]);
    const auto at = [&](std::size_t k) { return i + k < out.size() ? static_cast<unsigned char>(out[i + k]) : 0; };
    const std::string where = " at byte " + std::to_string(i) + ": ..." +
                              out.substr(i >= 40 ? i - 40 : 0, 40) + "...";
    if ((c < 0x20 && c != '\n') || c == 0x7f) return "control " + std::to_string(c) + where;
    if (c == 0xc2 && at(1) >= 0x80 && at(1) <= 0x9f) return "C1 control" + where;
    if (c == 0xd8 && at(1) == 0x9c) return "U+061C" + where;
    if (c == 0xe2 && at(1) == 0x80 && (at(2) == 0x8e || at(2) == 0x8f || (at(2) >= 0xa8 && at(2) <= 0xae)))
      return "bidi control or separator" + where;
    if (c == 0xe2 && at(1) == 0x81 && at(2) >= 0xa6 && at(2) <= 0xa9) return "bidi isolate" + where;
  }
  return "";
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

// A shell word for a path that holds ESC and the like (no single quote).
std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

struct Dir {
  fs::path path = fs::temp_directory_path() / ("roofline_hostile_" + std::to_string(::getpid()));
  Dir() { fs::create_directories(path); }
  ~Dir() { fs::remove_all(path); }
};

// kineto_small.json with every name, thread and process name, and step
// made hostile (the GPU keeps its model, so that the chip is known).
std::string hostile_kineto() {
  nlohmann::json doc = nlohmann::json::parse(read_file(roofline::testing::test_data("trace/kineto_small.json")));
  for (auto& e : doc["traceEvents"]) {
    if (!e.contains("name")) continue;
    if (e.value("ph", "") == "M") {
      e["args"]["name"] = e["args"]["name"].get<std::string>() + kHostile;
      continue;
    }
    e["name"] = e["name"].get<std::string>() + kHostile;
  }
  return doc.dump();
}

}  // namespace

TEST_CASE("hostile strings: no control or bidi character from input reaches any output raw",
          "[report][terminal]") {
  Dir dir;
  // The file name itself holds ESC and U+202E: the stats header, a
  // partial's source and its host (the file's stem) name it.
  const fs::path trace = dir.path / ("t\x1b[2J\xe2\x80\xaeX.json");
  write_file(trace, hostile_kineto());
  const fs::path part = dir.path / "part.json";
  const fs::path spec_dir = dir.path / "spec";
  fs::create_directories(spec_dir);
  nlohmann::json spec = nlohmann::json::parse(read_file(fs::path(ROOFLINE_SOURCE_DIR) / "hardware/h100-sxm.json"));
  spec["display_name"] = "H100" + kHostile;
  spec["vendor"] = "Nvidia" + kHostile;
  spec["sources"][0]["reference"] = spec["sources"][0]["reference"].get<std::string>() + kHostile;
  const fs::path chip = spec_dir / "h100-sxm.json";
  write_file(chip, spec.dump());
  const fs::path model = dir.path / "model.json";
  write_file(model, nlohmann::json{{"name", "tiny" + kHostile}, {"layers", 4}, {"d_model", 512}, {"d_ff", 2048},
                                   {"heads", 8}, {"kv_heads", 2}, {"head_dim", 64}, {"vocab", 32000},
                                   {"seq_len", 2048}}
                        .dump());

  REQUIRE(run_cli("stats " + quoted(trace) + " --partial -o " + quoted(part)).exit_code == 0);
  std::vector<std::string> commands;
  for (const char* f : {"text", "json", "csv"}) {
    commands.push_back("stats " + quoted(trace) + " --format " + f);
    commands.push_back("merge " + quoted(part) + " --format " + f);
  }
  commands.push_back("stats " + quoted(trace) + " --partial");
  commands.push_back("merge " + quoted(part) + " --partial");
  for (const char* f : {"text", "md", "json", "csv", "html"}) {
    commands.push_back("report " + quoted(trace) + " --format " + f);
    commands.push_back("report " + quoted(trace) + " --chip " + quoted(chip) + " --format " + f);
  }
  for (const char* f : {"text", "json"}) commands.push_back("chip " + quoted(chip) + " --format " + f);
  commands.push_back("predict matmul --m 1024 --k 1024 --n 1024 --chip " + quoted(chip));
  for (const char* f : {"text", "json", "csv"})
    commands.push_back("hlo " + roofline::testing::test_data("hlo/matmul.hlo.txt").string() + " --chip " + quoted(chip) +
                       " --format " + f);
  for (const char* f : {"text", "json", "csv"})
    commands.push_back("plan --model " + quoted(model) + " --chip " + quoted(chip) +
                       " --chips 8 --batch-tokens 16384 --format " + f);
  for (const std::string& c : commands) {
    INFO(c);
    const auto r = run_cli(c);
    CHECK(r.exit_code == 0);
    INFO(r.err);
    CHECK_FALSE(r.out.empty());
    CHECK(raw_control(r.out) == "");
    CHECK(raw_control(r.err) == "");
    // Each name is there, made visible, not dropped.
    if (c.rfind("plan", 0) == 0) {
      if (c.find("csv") == std::string::npos) CHECK(r.out.find("tiny") != std::string::npos);
    }
    else if (c.rfind("chip", 0) != 0 && c.rfind("predict", 0) != 0 && c.rfind("hlo", 0) != 0)
      CHECK((r.out.find("\\x1b[31mE") != std::string::npos || r.out.find("\\u001b[31mE") != std::string::npos));
  }
  // The partial file itself: JSON escapes all of them too.
  CHECK(raw_control(read_file(part)) == "");
}
