// The same events in any order give the same report (issue 15): attribution
// never falls back to where an event sits in the file.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/match/match.hpp"
#include "roofline/measure/op_stats.hpp"
#include "roofline/report/json.hpp"
#include "roofline/report/render.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"
#include "tests/zlib_support.hpp"

namespace {

std::string report_json(const std::string& trace_json, const std::string& origin) {
  auto t = roofline::parse_chrome_trace(trace_json, origin);
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  roofline::ReportOptions o;
  o.chip = &roofline::chip("a100-sxm");
  auto r = roofline::make_report(*t, o);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return roofline::render_report(*r, roofline::ReportFormat::kJson);
}

// A kernel launched inside two cpu_ops with identical spans (a parent and
// the child it calls, equal to the µs): the child launches it.
std::string nested(bool child_first) {
  const std::string parent =
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": 10, "dur": 20,)"
      R"( "args": {"External id": 5, "Input Dims": [[1024, 1024], [1024, 1024]], "Input type": ["float", "float"]}})";
  const std::string child =
      R"({"ph": "X", "cat": "cpu_op", "name": "reducer::mul_out", "pid": 1, "tid": 1, "ts": 10, "dur": 20,)"
      R"( "args": {"External id": 6}})";
  const std::string rest =
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 3,)"
      R"( "args": {"correlation": 9}},)"
      R"( {"ph": "X", "cat": "kernel", "name": "elementwise_kernel", "pid": 0, "tid": 7, "ts": 40, "dur": 30,)"
      R"( "args": {"correlation": 9, "device": 0, "stream": 7}})";
  return R"({"deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-80GB"}], "traceEvents": [)" +
         (child_first ? child + ", " + parent : parent + ", " + child) + ", " + rest + "]}";
}

}  // namespace

TEST_CASE("order: parent and child with identical spans give one launcher in either order", "[match][order]") {
  const std::string a = report_json(nested(false), "t.json");
  const std::string b = report_json(nested(true), "t.json");
  CHECK(a == b);
  // The inner op (External id 6, created after its parent) is the launcher.
  CHECK(a.find("reducer::mul_out") != std::string::npos);
}

TEST_CASE("order: a TSL TPU trace reversed or shuffled gives the same report and statistics", "[match][order]") {
  // Issue 38: reversed, tsl_tpu_nested.json's fusion.1 of jit_g (no XLA
  // figures) was met first, and fusion.1 of jit_f (1 MiB, 2048 FLOPs) took
  // its op: "roofline of the predicted ops 3.84 us" became "nothing could
  // be predicted". Ops are told apart by XLA's figures too now.
  std::ifstream f(roofline::testing::test_data("trace/tsl_tpu_nested.json"), std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(text.str());
  auto& events = doc.at("traceEvents");
  auto outputs = [&]() {
    auto t = roofline::parse_chrome_trace(doc.dump(), "tpu.json");
    REQUIRE(t.ok());
    roofline::ReportOptions o;
    o.chip = &roofline::chip("tpu-v5e");
    auto r = roofline::make_report(*t, o);
    REQUIRE(r.ok());
    const roofline::TraceStats s = roofline::compute_op_stats(*t);
    return roofline::render_report(*r, roofline::ReportFormat::kJson) + roofline::to_json(*t, s, s.ops.size()).dump();
  };
  const std::string in_order = outputs();
  // What the forward order gives: fusion.1 of jit_f costed from its bytes.
  CHECK(in_order.find("1048576") != std::string::npos);
  CHECK(in_order.find("nothing could be predicted") == std::string::npos);
  std::reverse(events.begin(), events.end());
  CHECK(outputs() == in_order);
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    for (std::size_t i = events.size(); i > 1; --i) std::swap(events[i - 1], events[rng() % i]);
    INFO("seed " << seed);
    CHECK(outputs() == in_order);
  }
}

TEST_CASE("order: shuffling a real trace's events changes nothing in the report", "[match][order][real]") {
  const auto path = roofline::testing::require_real("hta/a100-80gb_16rank_rank0.json.gz");
  // The JSON text itself, events shuffled with a fixed seed (std::mt19937's
  // sequence is fixed by the standard; the shuffle is ours, so portable).
  std::ifstream f(path, std::ios::binary);
  std::stringstream gz;
  gz << f.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(roofline::testing::gunzip_for_test(gz.str()));
  auto& events = doc.at("traceEvents");
  const std::string in_order = report_json(doc.dump(), "rank0.json");
  for (std::uint32_t seed : {1u, 2u}) {
    std::mt19937 rng(seed);
    for (std::size_t i = events.size(); i > 1; --i) std::swap(events[i - 1], events[rng() % i]);
    INFO("seed " << seed);
    CHECK(report_json(doc.dump(), "rank0.json") == in_order);
  }
}
