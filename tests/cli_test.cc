#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "tests/cli_support.hpp"

using roofline::testing::run_cli;

TEST_CASE("cli: predict matmul --format json has the documented keys and 89.3 ms") {
  auto r = run_cli("predict matmul --chip tpu-v5e --m 32768 --k 8192 --n 32768 --format json");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"chip", "flops", "hbm_bytes", "ici_bytes", "t_math_s", "t_hbm_s",
                          "t_ici_s", "t_lower_s", "t_upper_s", "bound", "intensity_flops_per_byte",
                          "ridge_flops_per_byte", "expected_s", "cost_class", "calibration"})
    CHECK(j.contains(key));
  CHECK(j["chip"] == "tpu-v5e");
  CHECK(j["cost_class"] == "matmul");
  // 2*32768*8192*32768 / 1.97e14 = 0.08930 s (3 significant figures: 0.0893).
  CHECK(j["t_math_s"].get<double>() == Approx(0.0893).epsilon(5e-4));
  CHECK(j["bound"] == "compute");
}

TEST_CASE("cli: text output is readable") {
  auto r = run_cli("predict matmul --chip tpu-v5e --m 8 --k 8192 --n 32768");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("memory"));
  CHECK_THAT(r.out, Catch::Contains("T_hbm"));
}

TEST_CASE("cli: chips lists every embedded chip; chip shows sources") {
  auto r = run_cli("chips");
  REQUIRE(r.exit_code == 0);
  for (const char* name : {"tpu-v5e", "tpu-v6e", "h100-sxm", "mi300x", "tpu-7x"})
    CHECK_THAT(r.out, Catch::Contains(name));
  auto one = run_cli("chip tpu-v5e");
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.out, Catch::Contains("sources"));
  auto js = run_cli("chip h100-sxm --format json");
  REQUIRE(js.exit_code == 0);
  CHECK(nlohmann::json::parse(js.out)["name"] == "h100-sxm");
}

TEST_CASE("cli: a chip spec file is accepted by path") {
  auto r = run_cli(std::string("predict matmul --chip '") + ROOFLINE_SOURCE_DIR +
                   "/hardware/tpu-v5e.json' --m 8 --k 8 --n 8 --format json");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["chip"] == "tpu-v5e");
}

TEST_CASE("cli: bad arguments exit non-zero with one clear line") {
  struct Bad {
    const char* args;
    const char* says;
  };
  for (const Bad& b : {Bad{"predict matmul --chip tpu-v5x --m 1 --k 1 --n 1", "unknown chip 'tpu-v5x'"},
                       Bad{"predict matmul --chip tpu-v5e --m 1 --k 1", "missing required option --n"},
                       Bad{"predict matmul --chip tpu-v5e --m -4 --k 1 --n 1", "must be positive"},
                       Bad{"predict matmul --chip tpu-v5e --m x --k 1 --n 1", "--m: expected an integer"},
                       Bad{"predict matmul --chip tpu-v5e --m 1 --k 1 --n 1 --dtype bf17", "unknown dtype"},
                       Bad{"predict matmul --chip tpu-v5e --m 1 --k 1 --n 1 --format xml", "--format"},
                       Bad{"predict matmul --frobnicate", "unknown option --frobnicate"},
                       Bad{"frobnicate", "unknown command"},
                       Bad{"chip /nonexistent.json", "/nonexistent.json: cannot open chip spec"}}) {
    INFO(b.args);
    auto r = run_cli(b.args);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains(b.says));
    CHECK(r.out.empty());
    // One line on stderr.
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("cli: every command has --help") {
  for (const char* cmd : {"chips", "chip", "predict matmul"}) {
    INFO(cmd);
    auto r = run_cli(std::string(cmd) + " --help");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("usage: roofline"));
  }
}
