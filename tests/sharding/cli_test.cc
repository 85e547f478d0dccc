// The three sharding commands, run as a user would.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <nlohmann/json.hpp>

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
    CHECK(c.at("step_time_s").get<double>() >= prev);
    prev = c.at("step_time_s").get<double>();
    CHECK(c.contains("mfu"));
    CHECK(c.contains("bound"));
  }
  const auto text = run_cli("plan --model llama-3-8b --chip tpu-v5e --chips 16 --batch-tokens 131072 --top 3");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("step time") != std::string::npos);
  CHECK(text.out.find("MFU") != std::string::npos);
}
