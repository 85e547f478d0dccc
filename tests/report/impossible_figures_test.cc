// Issue 38: a figure that cannot be (a kernel faster than its roofline, MFU
// above 100%) is never printed as a fact; a GPU and a TPU trace are not
// costed on one chip; a refused merge names the partial file.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/match/match.hpp"
#include "roofline/report/render.hpp"
#include "roofline/trace/read.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using roofline::testing::run_cli;
using roofline::testing::test_data;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// kineto_small.json with aten::mm's Input Dims made [m, k] x [k, n]: its
// kernel still lasts 30.5 us.
std::string kineto_with_mm(std::int64_t m, std::int64_t k, std::int64_t n) {
  nlohmann::json doc = nlohmann::json::parse(read_file(test_data("trace/kineto_small.json")));
  for (auto& e : doc["traceEvents"])
    if (e.value("name", "") == "aten::mm") e["args"]["Input Dims"] = {{m, k}, {k, n}};
  return doc.dump();
}

nlohmann::json report_json(const std::string& trace_text) {
  auto t = roofline::parse_chrome_trace(trace_text, "mm.json");
  REQUIRE(t.ok());
  auto r = roofline::make_report(*t, roofline::ReportOptions{});
  REQUIRE(r.ok());
  return nlohmann::json::parse(roofline::render_report(*r, roofline::ReportFormat::kJson));
}

}  // namespace

TEST_CASE("impossible figures: a kernel faster than its roofline is flagged and left out of MFU", "[report]") {
  // 8192 cubed in bf16: 2 x 8192^3 = 1.10e12 FLOP in 30.5 us is 36 PFLOP/s,
  // 36x an H100 SXM's dense bf16 peak (989 TFLOP/s): MFU printed 1069.0%.
  // 2^31 dimensions printed MFU 1.9e19 %.
  for (std::int64_t dim : {std::int64_t{8192}, std::int64_t{1} << 31}) {
    INFO("dim " << dim);
    const nlohmann::json j = report_json(kineto_with_mm(dim, dim, dim));
    const auto& s = j["summary"];
    CHECK(s["below_roofline_ops"] == 1);
    CHECK(s["below_roofline_measured_s"].get<double>() == Approx(30.5e-6));
    // Left out: what remains is at most 100%, or unknown.
    CHECK((s["mfu"].is_null() || s["mfu"].get<double>() <= 1.0));
    CHECK((s["hfu"].is_null() || s["hfu"].get<double>() <= 1.0));
    CHECK(s["matched_measured_s"].get<double>() >= s["predicted_s"].get<double>());
    int flagged = 0;
    for (const auto& op : j["ops"]) {
      if (!op["below_roofline"].get<bool>()) {
        if (op["flop_util"].is_number()) CHECK(op["flop_util"].get<double>() <= 1.0);
        if (op["bw_util"].is_number()) CHECK(op["bw_util"].get<double>() <= 1.0);
        continue;
      }
      ++flagged;
      CHECK(op["ratio"].get<double>() < 1);
      CHECK(op["flop_util"].is_null());
      CHECK(op["bw_util"].is_null());
      CHECK(op["lost_s"].is_null());  // negative against the roofline: no time lost is below 0
      CHECK_THAT(op["reason"].get<std::string>(), Catch::Contains("below the roofline lower bound"));
    }
    CHECK(flagged == 1);
    bool noted = false;
    for (const auto& n : j["notes"]) noted = noted || n.get<std::string>().find("faster than their roofline") != std::string::npos;
    CHECK(noted);
  }
  // The text says so where the op is listed, and prints no MFU above 100%.
  auto t = roofline::parse_chrome_trace(kineto_with_mm(8192, 8192, 8192), "mm.json");
  REQUIRE(t.ok());
  auto r = roofline::make_report(*t, roofline::ReportOptions{});
  REQUIRE(r.ok());
  for (auto f : {roofline::ReportFormat::kText, roofline::ReportFormat::kMarkdown, roofline::ReportFormat::kHtml,
                 roofline::ReportFormat::kCsv}) {
    const std::string out = roofline::render_report(*r, f);
    CHECK(out.find("1069") == std::string::npos);
    if (f == roofline::ReportFormat::kCsv) {
      CHECK(out.find("below the roofline lower bound") != std::string::npos);  // the op's reason
    } else {
      CHECK(out.find("x!") != std::string::npos);  // the op's ratio, marked
      CHECK(out.find("ran faster than their roofline lower bound") != std::string::npos);  // the note
    }
  }
}

TEST_CASE("impossible figures: the shapes that fit stay as they were", "[report]") {
  // kineto_small's own aten::mm (64x128 @ 128x256: 4.2 MFLOP, its bytes
  // 0.13 MB) in 30.5 us is far above its roofline: nothing flagged.
  const nlohmann::json j = report_json(read_file(test_data("trace/kineto_small.json")));
  CHECK(j["summary"]["below_roofline_ops"] == 0);
  for (const auto& op : j["ops"]) CHECK_FALSE(op["below_roofline"].get<bool>());
}

TEST_CASE("impossible figures: a GPU trace and a TPU trace are not costed on one chip", "[report]") {
  const std::string gpu = test_data("trace/kineto_small.json").string();
  const std::string tpu = test_data("trace/jax_cpu8.xplane.pb").string();
  const std::string tsl = test_data("trace/tsl_tpu_nested.json").string();
  auto r = run_cli("report '" + gpu + "' '" + tsl + "'");
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("devices of two kinds of chip") && Catch::Contains("kineto_small") &&
                        Catch::Contains("tsl_tpu_nested") && Catch::Contains("h100-sxm") &&
                        Catch::Contains("gpu") && Catch::Contains("tpu"));
  (void)tpu;
  // Each on its own still reports.
  CHECK(run_cli("report '" + gpu + "'").exit_code == 0);
}

TEST_CASE("impossible figures: a refused merge names the partial file; a tampered one its place", "[report]") {
  const fs::path dir = fs::temp_directory_path() / ("roofline_merge_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string trace = test_data("trace/kineto_small.json").string();
  const std::string a = (dir / "a.json").string(), b = (dir / "b.json").string(), c = (dir / "c.json").string();
  REQUIRE(run_cli("stats '" + trace + "' --partial -o '" + a + "'").exit_code == 0);
  fs::copy_file(a, b);
  // The same trace twice: the second partial brought the refusal.
  auto twice = run_cli("merge '" + a + "' '" + b + "'");
  CHECK(twice.exit_code != 0);
  CHECK_THAT(twice.err, Catch::StartsWith("roofline: " + b + ": cannot merge it with the partial " + a + ": "));
  // A duty cycle of 750%: refused where it is read, with its place.
  nlohmann::json j = nlohmann::json::parse(read_file(a));
  j["devices"][0]["stats"]["duty_cycle"] = 7.5;
  std::ofstream(c) << j.dump();
  auto tampered = run_cli("merge '" + c + "'");
  CHECK(tampered.exit_code != 0);
  CHECK_THAT(tampered.err, Catch::StartsWith("roofline: " + c + ": /devices/0/stats/duty_cycle: expected 0 to 1"));
  fs::remove_all(dir);
}
