// The three sharding commands, run as a user would.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/calibrate/fit.hpp"
#include "roofline/calibrate/io.hpp"
#include "roofline/core.hpp"
#include "tests/cli_support.hpp"

using roofline::testing::run_cli;

TEST_CASE("cli: predict collective prints t_ici_s, ici_bytes, bound and hops") {
  // v4p 4x4x4, AllGather_XY of 8 MiB: 8388608 / (2 x 9e10) = 46.6 us, 4 hops.
  const auto r = run_cli(
      "predict collective --op all-gather --chip tpu-v4 --mesh X=4,Y=4,Z=4 --axes X,Y --bytes 8388608 --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("t_ici_s").get<double>() == Approx(8388608.0 / 1.8e11));
  CHECK(j.at("ici_bytes").get<double>() == Approx(8388608.0 / 1.8e11 * 4.5e10));
  CHECK(j.at("bound") == "communication");
  CHECK(j.at("hops") == 4);
}

TEST_CASE("cli: predict collective permute takes --hops") {
  const auto r = run_cli(
      "predict collective --op permute --chip tpu-v5e --mesh X=16,Y=16 --axes X --bytes 1600000 --hops 3 --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("hops") == 3);
  // X is a wrapping ring of 16: three shards of V/16 share each link one way: 3 x 100000 bytes.
  CHECK(j.at("ici_bytes").get<double>() == Approx(300000));
  const auto bad = run_cli("predict collective --op all-gather --chip tpu-v5e --mesh X=16 --axes X --bytes 1 --hops 2");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--op permute only") != std::string::npos);
}

TEST_CASE("cli: predict collective refuses a mesh that does not fit") {
  const auto r = run_cli("predict collective --op all-reduce --chip tpu-v5e --mesh X=32,Y=16 --axes X --bytes 1");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("holds 256") != std::string::npos);
}

TEST_CASE("cli: predict 'x[B_X, D] @ w[D, F_Y]' reports the local matmul, collectives and bounds") {
  const auto r = run_cli(
      "predict 'x[B, D] @ w[D_X, F]' --chip tpu-v5p --mesh X=4,Y=4,Z=4 --dims B=1024,D=8192,F=8192 --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"local_matmul", "collectives", "t_math_s", "t_ici_s", "t_lower_s", "t_upper_s", "strategy",
                          "strategies", "cases"})
    CHECK(j.contains(key));
  // Reduce-after wins (sharding.md question 4): T_ici = 4BF/W = 186 us.
  REQUIRE(j.at("collectives").size() == 1);
  CHECK(j.at("collectives")[0].at("op") == "all-reduce");
  CHECK(j.at("collectives")[0].at("axes") == nlohmann::json::array({"X"}));
  CHECK(j.at("collectives")[0].at("array_bytes").get<double>() == 2.0 * 1024 * 8192);
  CHECK(j.at("t_ici_s").get<double>() == Approx(4.0 * 1024 * 8192 / 1.8e11));
  CHECK(j.at("strategies").size() == 2);
  CHECK(j.at("local_matmul").at("k") == 2048);
}

TEST_CASE("cli: predict with a bad expression points at the column") {
  const auto r = run_cli("predict 'x[B_X, D] @ w[D F_Y]' --chip tpu-v5e --mesh X=8,Y=4 --dims B=8,D=8,F=8");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "roofline: expression:1:17: expected ',' or ']' after dim 'D'\n");
}

TEST_CASE("cli: predict matmul still reaches its own command") {
  const auto r = run_cli("predict matmul --chip tpu-v5e --m 1024 --k 1024 --n 1024 --format json");
  REQUIRE(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out).contains("t_math_s"));
}

TEST_CASE("cli: plan ranks layouts for a built-in model") {
  const auto r = run_cli("plan --model llama-3-70b --chip tpu-v5p --chips 256 --batch-tokens 4194304 --top 5 --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j.at("candidates").size() == 5);
  CHECK(j.at("search_seconds").get<double>() < 1.0);
  double prev = 0;
  for (const auto& c : j.at("candidates")) {
    CHECK(c.at("memory").at("fits") == true);
    // Ranked by the expected step time (the lower bound where it is not modelled).
    CHECK(c.at("ranking_s").get<double>() >= prev);
    prev = c.at("ranking_s").get<double>();
    CHECK((c.at("expected_s").is_null() ? c.at("step_time_s") : c.at("expected_s")) == c.at("ranking_s"));
    for (const char* key : {"mfu", "mfu_expected", "mfu_no_overlap", "expected_s", "ranking_s", "bound", "layout",
                            "placement", "slices", "pipeline_stages"})
      CHECK(c.contains(key));
  }
  CHECK(j.at("rejected").size() == j.at("considered").get<std::size_t>() - j.at("fitting").get<std::size_t>());
  const auto text = run_cli("plan --model llama-3-8b --chip tpu-v5e --chips 16 --batch-tokens 131072 --top 3");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("expected") != std::string::npos);
  CHECK(text.out.find("MFU lower") != std::string::npos);
  CHECK(text.out.find("Ranking: ranked by expected step time") != std::string::npos);
}

TEST_CASE("cli: plan honours --slices, --no-pp and --remat") {
  const auto r = run_cli(
      "plan --model llama-3-8b --chip tpu-v5p --chips 64 --batch-tokens 2097152 --slices 2 --no-pp --remat full "
      "--top 1000 --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("slices") == 2);
  CHECK(j.at("constraints").at("slices") == 2);
  CHECK(j.at("constraints").at("max_pipeline_stages") == 1);
  REQUIRE_FALSE(j.at("candidates").empty());
  for (const auto& c : j.at("candidates")) {
    CHECK(c.at("slices") == 2);
    CHECK(c.at("mesh").get<std::string>().find("slice=2:dcn") != std::string::npos);
    CHECK(c.at("pipeline_stages") == 1);
    CHECK(c.at("remat") == "full");
  }
  for (const auto& rej : j.at("rejected")) {
    CHECK_FALSE(rej.at("reason").get<std::string>().empty());
    if (rej.at("kind") == "constraint")
      CHECK(rej.at("reason").get<std::string>().find("(--no-pp)") != std::string::npos);
  }
  // The default on a 64-chip v5p pod: one slice.
  const auto one = run_cli("plan --model llama-3-8b --chip tpu-v5p --chips 64 --batch-tokens 2097152 --format json");
  REQUIRE(one.exit_code == 0);
  CHECK(nlohmann::json::parse(one.out).at("slices") == 1);
}

TEST_CASE("cli: plan --layout evaluates that layout and says why it does not fit") {
  const auto r = run_cli(
      "plan --model llama-3-70b --chip tpu-v5e --batch-tokens 65536 --mesh data=8 --layout fsdp=data --remat none");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("DOES NOT FIT: needs ") != std::string::npos);
  CHECK(r.out.find("(remat none)") != std::string::npos);
  const auto j = run_cli(
      "plan --model llama-3-8b --chip tpu-v5p --batch-tokens 2097152 --mesh data=16,model=4 "
      "--layout 'fsdp=data tp=model' --format json");
  INFO(j.err);
  REQUIRE(j.exit_code == 0);
  const auto doc = nlohmann::json::parse(j.out);
  CHECK(doc.at("fits") == true);
  CHECK(doc.at("reason").is_null());
  CHECK(doc.at("chips") == 64);
  CHECK(doc.at("candidate").at("layout") == "fsdp=data tp=model");
  CHECK(doc.at("candidate").at("remat") == "full");  // the default with --layout
  const auto csv = run_cli(
      "plan --model llama-3-8b --chip tpu-v5p --batch-tokens 2097152 --mesh data=64 --layout fsdp=data --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.rfind("rank,mesh,layout,strategy,remat,", 0) == 0);
  CHECK(csv.out.find(",fits,reason\n") != std::string::npos);
}

TEST_CASE("cli: plan refuses bad layouts, slice shapes and constraints with the place") {
  const auto axis = run_cli(
      "plan --model llama-3-8b --chip tpu-v5p --batch-tokens 2097152 --mesh data=16,model=4 --layout 'fsdp=data tp=modl'");
  CHECK(axis.exit_code == 2);
  CHECK(axis.err ==
        "roofline: layout 'fsdp=data tp=modl': column 14: unknown mesh axis 'modl'; the mesh has data, model\n");
  const auto shape = run_cli("plan --model llama-3-8b --chip tpu-v5p --chips 64 --batch-tokens 2097152 --slice 4x4xa");
  CHECK(shape.exit_code == 2);
  CHECK(shape.err == "roofline: --slice '4x4xa': column 5: expected a dimension (e.g. 4x4x12)\n");
  const auto remat = run_cli("plan --model llama-3-8b --chip tpu-v5p --chips 64 --batch-tokens 2097152 --remat full,some");
  CHECK(remat.exit_code == 2);
  CHECK(remat.err.find("--remat: unknown policy 'some' at column 6") != std::string::npos);
  const auto both = run_cli(
      "plan --model llama-3-8b --chip tpu-v5p --chips 64 --batch-tokens 2097152 --no-pp --max-pp 4");
  CHECK(both.exit_code == 2);
  const auto mesh_only = run_cli("plan --model llama-3-8b --chip tpu-v5p --chips 64 --batch-tokens 2097152 --mesh data=64");
  CHECK(mesh_only.exit_code == 2);
  CHECK(mesh_only.err == "roofline: --mesh goes with --layout\n");
  const auto slices = run_cli("plan --model llama-3-8b --chip tpu-v5p --chips 64 --batch-tokens 2097152 --slices 3");
  CHECK(slices.exit_code == 2);
  CHECK(slices.err == "roofline: 3 slices do not divide 64 chips\n");
}

TEST_CASE("cli: plan --format csv has one row per candidate") {
  const auto r = run_cli("plan --model llama-3-8b --chip tpu-v5e --chips 16 --batch-tokens 131072 --top 4 --format csv");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  CHECK(lines == 5);  // the header and four candidates
  CHECK(r.out.rfind("rank,mesh,layout,strategy,remat,microbatches,slices,pipeline_stages,expected_s,", 0) == 0);
}

TEST_CASE("cli: plan --calibration takes the file's curves for the chip, else the built-in ones") {
  roofline::CalibrationFile file;
  file.chips.push_back(roofline::fit_calibration(roofline::chip("tpu-v5p"), {}));
  file.chips.back().calibration.origin = "test: tpu-v5p curves";
  const std::string path = "plan_calibration_" + std::to_string(::getpid()) + ".json";
  {
    std::ofstream out(path);
    out << roofline::calibration_to_json(file);
  }
  const std::string base = "plan --model llama-3-8b --batch-tokens 2097152 --chips 64 --top 1 --format json --calibration " + path;
  const auto v5p = run_cli(base + " --chip tpu-v5p");
  INFO(v5p.err);
  REQUIRE(v5p.exit_code == 0);
  CHECK(nlohmann::json::parse(v5p.out).at("calibration") == "test: tpu-v5p curves");
  // A chip the file lacks keeps its built-in calibration, as in `roofline report`.
  const auto v5e = run_cli(base + " --chip tpu-v5e");
  REQUIRE(v5e.exit_code == 0);
  CHECK(nlohmann::json::parse(v5e.out).at("calibration").get<std::string>().rfind("built-in", 0) == 0);
  std::remove(path.c_str());
  const auto missing = run_cli(base + " --chip tpu-v5p");
  CHECK(missing.exit_code != 0);
  CHECK(missing.err.find(path) != std::string::npos);
}

TEST_CASE("cli: predict and hlo take --calibration: the file's curve for the chip gives the expected time") {
  // Half the matmul peak and no launch floor: expected = T_math / 0.5.
  roofline::CalibrationFile file;
  file.chips.push_back(roofline::fit_calibration(roofline::chip("tpu-v5e"), {}));
  roofline::ChipCalibration& cal = file.chips.back().calibration;
  cal.origin = "test: half the matmul peak";
  for (auto& e : cal.matmul_math_efficiency) e = 0.5;
  cal.curve(roofline::CostClass::kMatmul) = {.floor_s = 0, .math_efficiency = 0.5, .memory_efficiency = 1,
                                              .link_efficiency = 1};
  const std::string path = "predict_calibration_" + std::to_string(::getpid()) + ".json";
  {
    std::ofstream out(path);
    out << roofline::calibration_to_json(file);
  }
  const auto r = run_cli("predict matmul --chip tpu-v5e --m 8192 --k 8192 --n 8192 --format json --calibration " + path);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("calibration").at("origin") == "test: half the matmul peak");
  CHECK(j.at("expected_s").get<double>() == Approx(2 * j.at("t_math_s").get<double>()));
  const auto hlo = run_cli("hlo " ROOFLINE_TEST_DATA "/hlo/matmul.hlo.txt --chip tpu-v5e --calibration " + path);
  INFO(hlo.err);
  CHECK(hlo.exit_code == 0);
  CHECK(hlo.out.find("calibration: test: half the matmul peak") != std::string::npos);
  std::remove(path.c_str());
  const auto missing = run_cli("predict matmul --chip tpu-v5e --m 8 --k 8 --n 8 --calibration " + path);
  CHECK(missing.exit_code != 0);
  CHECK(missing.err.find(path) != std::string::npos);
}

TEST_CASE("cli: plan --attention picks the attention kernel; dot_product costs more than flash") {
  const std::string base =
      "plan --model llama-3-8b --chip tpu-v5p --chips 64 --batch-tokens 2097152 --mesh data=64 --layout fsdp=data "
      "--remat full --format json";
  const auto flash = run_cli(base);
  const auto dot = run_cli(base + " --attention dot_product");
  INFO(flash.err << dot.err);
  REQUIRE(flash.exit_code == 0);
  REQUIRE(dot.exit_code == 0);
  const auto f = nlohmann::json::parse(flash.out), d = nlohmann::json::parse(dot.out);
  CHECK(f.at("attention") == "flash");
  CHECK(d.at("attention") == "dot_product");
  // The whole T x T product and the score traffic: more work, the same model FLOPs.
  CHECK(d.at("candidate").at("step_time_s").get<double>() > f.at("candidate").at("step_time_s").get<double>());
  CHECK(d.at("candidate").at("mfu").get<double>() < f.at("candidate").at("mfu").get<double>());
  const auto bad = run_cli("plan --model llama-3-8b --chip tpu-v5p --chips 64 --batch-tokens 2097152 --attention sparse");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "roofline: --attention: expected flash, flash-full-product or dot_product, got 'sparse'\n");
}
