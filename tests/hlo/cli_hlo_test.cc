#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using roofline::testing::run_cli;

namespace {

std::string fixture(const std::string& name) { return "'" + roofline::testing::test_data("hlo/" + name).string() + "'"; }

}  // namespace

TEST_CASE("cli hlo: the text table is sorted by predicted time and ends with the total") {
  auto r = run_cli("hlo " + fixture("mlp.hlo.txt") + " --chip tpu-v5e");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.starts_with("module jit_mlp ("));
  CHECK(r.out.find("on tpu-v5e") != std::string::npos);
  CHECK(r.out.find("instruction") != std::string::npos);
  CHECK(r.out.find("total (one run") != std::string::npos);
  CHECK(r.out.find("lower bound") != std::string::npos);
}

TEST_CASE("cli hlo: JSON lists per-instruction objects with the documented keys") {
  auto r = run_cli("hlo " + fixture("matmul.hlo.pb") + " --chip h100-sxm --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out)["instructions"];
  REQUIRE(j.is_array());
  REQUIRE(!j.empty());
  for (const char* key : {"name", "opcode", "category", "shape", "flops", "transcendentals", "hbm_bytes", "t_math_s",
                          "t_hbm_s", "t_ici_s", "bound"})
    for (const auto& row : j) CHECK(row.contains(key));
  // The slowest instruction comes first: the bf16 [256,512] x [512,1024] dot,
  // 2 x 256 x 1024 x 512 = 268,435,456 FLOPs.
  CHECK(j[0]["flops"].get<double>() == 268435456.0);
  for (std::size_t k = 1; k < j.size(); ++k)
    CHECK(j[k - 1]["t_lower_s"].get<double>() >= j[k]["t_lower_s"].get<double>());
}

TEST_CASE("cli hlo: --top keeps the N slowest rows; CSV has a header and one line per row") {
  auto r = run_cli("hlo " + fixture("mlp.hlo.txt") + " --chip tpu-v5e --format csv --top 3");
  REQUIRE(r.exit_code == 0);
  std::size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  CHECK(lines == 4);
  CHECK(r.out.starts_with("name,opcode,category,shape,"));
}

TEST_CASE("cli hlo: a malformed module fails with the file, line and column") {
  auto r = run_cli("hlo " + fixture("../chips/does-not-exist.hlo") + " --chip tpu-v5e");
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("does-not-exist.hlo") != std::string::npos);
  const std::string bad = "/tmp/roofline_hlo_cli_bad_" + std::to_string(::getpid()) + ".hlo";
  {
    std::FILE* f = std::fopen(bad.c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs("HloModule m\nENTRY e {\n  p = f32[8]{0} parameter(0\n}\n", f);
    std::fclose(f);
  }
  auto e = run_cli("hlo " + bad + " --chip tpu-v5e");
  std::remove(bad.c_str());
  CHECK(e.exit_code != 0);
  // The ')' is missing: the parser stops at the '}' on line 4.
  CHECK(e.err == "roofline: " + bad + ":4:1: expected ')' after the parameter number, found '}'\n");
}

TEST_CASE("cli hlo: --chip is required and checked") {
  CHECK(run_cli("hlo " + fixture("matmul.hlo.txt")).exit_code != 0);
  auto r = run_cli("hlo " + fixture("matmul.hlo.txt") + " --chip tpu-v99");
  CHECK(r.exit_code != 0);
  CHECK(r.err.find("tpu-v99") != std::string::npos);
}

TEST_CASE("cli hlo: run counts past 2^53 print in scientific notation, never wrapped") {
  auto r = run_cli("hlo " + fixture("huge_trip_counts.hlo") + " --chip tpu-v5e");
  REQUIRE(r.exit_code == 0);
  // sine runs 1e12 x 1e15 = 1e27 times; the outer loop's bytes 1e27 x 32 B.
  CHECK(r.out.find("1.000e+27") != std::string::npos);
  CHECK(r.out.find("3.20e+28 B") != std::string::npos);
  CHECK(r.out.find("-9223372036854775808") == std::string::npos);
  CHECK(r.out.find(" 1000000000000  ") != std::string::npos);  // exact below 2^53
}

TEST_CASE("cli hlo: a loop without a trip count is named on stderr and in JSON") {
  // jax's data-dependent while_loop (while x.sum() < 1000): nothing to count.
  auto r = run_cli("hlo " + fixture("while_dynamic.hlo.txt") + " --chip tpu-v5e --format json");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("warning: ") != std::string::npos);
  CHECK(r.err.find("while while.5 in computation main.4: trip count unknown (the loop state is not a tuple") !=
        std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  REQUIRE(j["loop_warnings"].size() == 1);
  CHECK(j["loop_warnings"][0]["name"] == "while.5");
  CHECK(j["loop_warnings"][0]["computation"] == "main.4");
  CHECK(j["loop_warnings"][0]["kind"] == "trip_count_unknown");
  CHECK(j["total"]["unknown_trip_count_loops"] == 1);
  // A module XLA fused: the pass leaves it, and the unfused total is the total.
  CHECK(j["total"]["fusion_groups"] == 0);
  CHECK(j["total"]["unfused"]["hbm_bytes"] == j["total"]["hbm_bytes"]);
}

TEST_CASE("cli hlo: nested loops whose runs overflow a double print finite figures and say why") {
  auto r = run_cli("hlo " + fixture("huge_trip_counts.hlo") + " --chip tpu-v5e");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("inf") == std::string::npos);  // 1e27 runs are within range: no warning either
  CHECK(r.err.find("runs") == std::string::npos);
}
