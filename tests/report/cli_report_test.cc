#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using roofline::testing::run_cli;

TEST_CASE("cli report: JSON with the documented keys") {
  const std::string trace = roofline::testing::test_data("trace/kineto_small.json").string();
  auto r = run_cli("report '" + trace + "' --format json");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["chip"] == "h100-sxm");
  CHECK(j["devices"].size() == 1);
  CHECK(j["summary"].contains("mfu"));
  CHECK(j["ops"].size() == 4);
}

TEST_CASE("cli report: every format renders, -o writes a file") {
  const std::string trace = roofline::testing::test_data("trace/kineto_small.json").string();
  for (const char* f : {"text", "md", "csv", "html"}) {
    INFO(f);
    auto r = run_cli("report '" + trace + "' --format " + f);
    CHECK(r.exit_code == 0);
    CHECK_FALSE(r.out.empty());
  }
  const auto out = std::filesystem::temp_directory_path() / ("roofline_report_" + std::to_string(::getpid()) + ".html");
  auto r = run_cli("report '" + trace + "' --format html -o '" + out.string() + "'");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());
  std::ifstream in(out);
  std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(html, Catch::StartsWith("<!DOCTYPE html>"));
  std::filesystem::remove(out);
}

TEST_CASE("cli report: what-if on another chip") {
  const std::string trace = roofline::testing::test_data("trace/kineto_small.json").string();
  auto r = run_cli("report '" + trace + "' --target-chip b200 --format json");
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["target_chip"] == "b200");
  bool any = false;
  for (const auto& op : j["ops"]) any = any || op["target_predicted_s"].is_number();
  CHECK(any);
}

TEST_CASE("cli report: bad input is one clear line") {
  auto missing = run_cli("report /nonexistent/trace.json");
  CHECK(missing.exit_code != 0);
  CHECK_THAT(missing.err, Catch::Contains("/nonexistent/trace.json"));
  const std::string trace = roofline::testing::test_data("trace/kineto_small.json").string();
  auto fmt = run_cli("report '" + trace + "' --format pdf");
  CHECK(fmt.exit_code != 0);
  CHECK_THAT(fmt.err, Catch::Contains("--format"));
  auto chip = run_cli("report '" + trace + "' --target-chip tpu-v9");
  CHECK(chip.exit_code != 0);
  CHECK_THAT(chip.err, Catch::Contains("unknown chip"));
  auto dev = run_cli("report '" + trace + "' --device 3");
  CHECK(dev.exit_code != 0);
  CHECK_THAT(dev.err, Catch::Contains("no device 3"));
}

TEST_CASE("cli report: the CLI names its flags where the library names its options") {
  // The library says "set ReportOptions::chip"; the CLI, as it always has, "pass --chip NAME".
  const std::string tsl = roofline::testing::test_data("trace/tsl_tpu_nested.json").string();
  auto none = run_cli("report '" + tsl + "'");
  CHECK(none.exit_code != 0);
  CHECK_THAT(none.err, Catch::EndsWith("(no model name) is; pass --chip NAME\n"));
  auto given = run_cli("report '" + tsl + "' --chip tpu-v6e --format json");
  REQUIRE(given.exit_code == 0);
  CHECK(nlohmann::json::parse(given.out)["chip_source"] == "--chip");
  const std::string real = "xprof/tpu_v6e_x4_inference_2.xplane.pb";
  auto several = run_cli("report '" + roofline::testing::require_real(real).string() + "' --format json");
  REQUIRE(several.exit_code == 0);
  const auto j = nlohmann::json::parse(several.out);
  bool said = false;
  for (const auto& n : j["notes"])
    said = said || n.get<std::string>().ends_with("(device-seconds); use --device N for one");
  CHECK(said);
}

TEST_CASE("cli report: the peak is named by the unit that has it") {
  // The v6e profile's ops are f32; XLA runs them on the bf16 MXU, so its
  // 918 TFLOP/s peak is the bf16 one (it was printed as "fp32 peak").
  const std::string trace = roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string();
  const auto r = run_cli("report '" + trace + "' --device 0");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("bf16 peak 918 TFLOP/s (the unit fp32 ops run on)"));
  CHECK_THAT(r.out, !Catch::Contains("fp32 peak"));
  const auto h100 = run_cli("report '" + roofline::testing::test_data("trace/kineto_small.json").string() + "'");
  REQUIRE(h100.exit_code == 0);
  CHECK_THAT(h100.out, !Catch::Contains("the unit"));  // a chip with the dtype's own unit says nothing more
}
