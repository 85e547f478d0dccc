// Issue 10, item 9: what every format shows of steps, modules, the cost
// source, long kernel names, the what-if chip, unpredicted ops and a report
// with nothing predicted; and `roofline hlo --format json`'s module total.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "roofline/report/labels.hpp"
#include "roofline/report/render.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using roofline::OpReport;
using roofline::testing::run_cli;

namespace {

// cuBLAS-style name as Kineto records it.
constexpr const char* kLongKernel =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, "
    "at::detail::Array<char*, 2> >(int, at::native::CUDAFunctorOnSelf_add<float>, at::detail::Array<char*, 2>)";

OpReport unpredicted(std::string name, double measured_s, std::string reason) {
  OpReport o;
  o.name = std::move(name);
  o.module = "aten::add_";
  o.category = "compute";
  o.count = 1;
  o.measured_s = measured_s;
  o.reason = std::move(reason);
  return o;
}

roofline::Report none_predicted() {
  roofline::Report r;
  r.trace_path = "t.json";
  r.chip = "h100-sxm";
  r.target_chip = "b200";
  r.ops.push_back(unpredicted(kLongKernel, 0.003, "no launching op recorded for this kernel"));
  r.ops.push_back(unpredicted("Memcpy HtoD (Pageable -> Device)", 0.001, "host-to-device copy"));
  r.summary.measured_s = r.summary.unmatched_s = 0.004;
  r.summary.wall_s = 0.005;
  r.summary.steps.push_back({.name = "ProfilerStep#1", .device = 0, .measured_s = 0.005, .busy_s = 0.004});
  r.summary.modules.push_back({.name = "aten::add_", .ops = 2, .measured_s = 0.004});
  return r;
}

}  // namespace

TEST_CASE("short_op_name: a long C++ kernel name loses its parameters, then its template arguments") {
  CHECK(roofline::short_op_name("fusion.1", 48) == "fusion.1");
  CHECK(roofline::short_op_name(kLongKernel, 48) == "at::native::vectorized_elementwise_kernel<...>");
  const std::string clipped = roofline::short_op_name(kLongKernel, 20);
  CHECK(clipped.size() == 20);
  CHECK(clipped.ends_with("..."));
}

TEST_CASE("nothing predicted: the headline says so and why, instead of 0 s vs 0 s") {
  const roofline::Report r = none_predicted();
  const std::string text = roofline::render_text(r);
  CHECK(text.find("nothing could be predicted: none of the 2 ops") != std::string::npos);
  // The reason covering the most measured time comes first.
  CHECK(text.find("main reasons: no launching op recorded for this kernel (3.00 ms); host-to-device copy") !=
        std::string::npos);
  CHECK(text.find("of roofline speed") == std::string::npos);
  CHECK(text.find("MFU 0.0%") == std::string::npos);
  const auto j = nlohmann::json::parse(roofline::render_json(r));
  CHECK(j["nothing_predicted"].get<std::string>().starts_with("nothing could be predicted"));
  CHECK(roofline::render_html(r).find("nothing could be predicted") != std::string::npos);
}

TEST_CASE("JSON: steps carry what the text shows, modules are listed, unpredicted ops have no dtype") {
  const auto j = nlohmann::json::parse(roofline::render_json(none_predicted()));
  const auto& step = j["summary"]["steps"][0];
  for (const char* k : {"name", "device", "measured_s", "busy_s", "predicted_s", "model_flops", "mfu"})
    CHECK(step.contains(k));
  CHECK(step["busy_s"] == 0.004);
  const auto& mod = j["summary"]["modules"][0];
  CHECK(mod["name"] == "aten::add_");
  CHECK(mod["ops"] == 2);
  for (const auto& op : j["ops"]) {
    CHECK(op["dtype"].is_null());
    CHECK(op["match"] == "unmatched");
  }
}

TEST_CASE("HTML: the what-if chip is kept, long names are short with the full name on hover, escaped") {
  const std::string html = roofline::render_html(none_predicted());
  CHECK(html.find("what-if chip b200") != std::string::npos);
  CHECK(html.find("<th>on b200</th>") != std::string::npos);
  CHECK(html.find(">at::native::vectorized_elementwise_kernel&lt;...&gt;<") != std::string::npos);
  CHECK(html.find("title=\"void at::native::vectorized_elementwise_kernel&lt;4, ") != std::string::npos);
  CHECK(html.find("<th>cost from</th>") != std::string::npos);
}

TEST_CASE("text: each op row says where its cost came from") {
  roofline::Report r = none_predicted();
  r.ops[0].predicted = true;
  r.ops[0].match = roofline::MatchSource::kHloGiven;
  r.ops[0].prediction.t_lower_s = 0.001;
  r.ops[0].prediction.bound = roofline::Bound::kHostLink;
  const std::string text = roofline::render_text(r);
  CHECK(text.find("src") != std::string::npos);
  CHECK(text.find("file = an HLO module given with --hlo") != std::string::npos);
  CHECK(text.find("host link") != std::string::npos);
  CHECK(roofline::render_csv(r).find(",hlo-given,") != std::string::npos);
}

TEST_CASE("cli report: --hlo on a trace and the cost source in CSV and JSON") {
  const std::string trace = roofline::testing::test_data("jax/scan.xplane.pb.gz").string();
  const std::string hlo = roofline::testing::test_data("jax/scan.hlo.pb").string();
  auto r = run_cli("report '" + trace + "' --chip tpu-v5e --hlo '" + hlo + "' --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  int given = 0;
  for (const auto& op : j["ops"]) given += op["match"] == "hlo-given";
  CHECK(given > 0);
}

TEST_CASE("cli hlo: JSON carries the module total of one run") {
  const std::string hlo = roofline::testing::test_data("jax/scan.hlo.txt").string();
  auto r = run_cli("hlo '" + hlo + "' --chip tpu-v5e --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["chip"] == "tpu-v5e");
  REQUIRE(j["instructions"].is_array());
  // A run of the scan: 6 trips of the 2 x 128 x 256 x 256 dot (XLA's
  // cost_analysis, tests/data/jax/scan.cost.json, counts one trip), plus the
  // loop counter's adds.
  CHECK(j["total"]["flops"].get<double>() >= 6 * 16777216.0);
  CHECK(j["total"]["flops"].get<double>() < 6 * 16777216.0 + 100);
  CHECK(j["total"]["unknown_trip_count_loops"] == 0);
}
