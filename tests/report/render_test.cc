#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/report/rank.hpp"
#include "roofline/report/render.hpp"
#include "tests/test_support.hpp"

using roofline::Bound;
using roofline::OpReport;

namespace {

// A report with a compute-bound op, a memory-bound op, a zero-FLOP copy,
// and an op without a prediction; its figures are internally consistent
// (ratio = measured / predicted, lost = measured - predicted).
roofline::Report sample() {
  roofline::Report r;
  r.trace_path = "sample <trace>.json";
  r.chip = "tpu-v5e";
  r.chip_source = "--chip";
  r.dominant_dtype = "bf16";
  r.peak_flops_per_s = 1.97e14;
  r.hbm_bytes_per_s = 8.2e11;
  r.devices.push_back({.id = 0, .name = "/device:TPU:0", .chip = "tpu-v5e", .busy_s = 0.1, .idle_s = 0.01, .duty_cycle = 0.1 / 0.11});
  auto op = [](std::string name, double measured, double predicted, double flops, double bytes, Bound b) {
    OpReport o;
    o.name = std::move(name);
    o.module = "jit_step(1)";
    o.category = "compute";
    o.count = 2;
    o.measured_s = measured;
    o.predicted = true;
    o.prediction.t_lower_s = predicted;
    o.prediction.flops = flops;
    o.prediction.hbm_bytes = bytes;
    o.prediction.bound = b;
    o.ratio = measured / predicted;
    o.lost_s = measured - predicted;
    return o;
  };
  r.ops.push_back(op("fusion.1", 0.05, 0.04, 7.88e12, 1e9, Bound::kCompute));
  r.ops.push_back(op("add.2 <&\"quoted\">", 0.03, 0.01, 1e6, 8.2e9, Bound::kMemory));
  r.ops.push_back(op("copy.3", 0.01, 0.005, 0, 4.1e9, Bound::kMemory));
  OpReport un;
  un.name = "custom-call.4, with comma";
  un.module = "jit_step(1)";
  un.category = "compute";
  un.count = 1;
  un.measured_s = 0.01;
  un.reason = "custom call 'tpu_custom_call' has no cost model";
  r.ops.push_back(un);
  r.summary.measured_s = 0.1;
  r.summary.wall_s = 0.11;
  r.summary.idle_s = 0.01;
  r.summary.duty_cycle = 0.1 / 0.11;
  r.summary.predicted_s = 0.055;
  r.summary.matched_measured_s = 0.09;
  r.summary.unmatched_s = 0.01;
  r.summary.model_flops = 7.88e12 + 1e6;
  r.summary.mfu = r.summary.model_flops / (0.11 * 1.97e14);
  r.summary.by_category = {{"compute", 0.1, 0.055, 4}, {"idle", 0.01, 0, 0}};
  return r;
}

int run(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("render: JSON has the documented keys, nulls where nothing is predicted") {
  const auto j = nlohmann::json::parse(roofline::render_json(sample()));
  for (const char* k : {"chip", "devices", "summary", "ops"}) CHECK(j.contains(k));
  for (const char* k : {"measured_s", "predicted_s", "mfu", "duty_cycle", "by_category"})
    CHECK(j["summary"].contains(k));
  for (const char* k : {"name", "module", "category", "count", "measured_s", "predicted_s", "t_math_s",
                        "t_hbm_s", "t_ici_s", "bound", "ratio", "flop_util", "bw_util", "xla_flops",
                        "xla_bytes"})
    CHECK(j["ops"][0].contains(k));
  CHECK(j["ops"][0]["ratio"].get<double>() == Approx(0.05 / 0.04));
  CHECK(j["ops"][3]["predicted_s"].is_null());
  CHECK(j["ops"][3]["reason"] == "custom call 'tpu_custom_call' has no cost model");
}

TEST_CASE("render: JSON survives names that are not UTF-8 (found by the fuzzer)") {
  roofline::Report r = sample();
  r.ops[0].name = "bad\x8a\xff name";
  const auto j = nlohmann::json::parse(roofline::render_json(r));
  CHECK(j["ops"][0]["name"].get<std::string>().find("name") != std::string::npos);
}

TEST_CASE("render: CSV has a header and one row per op, quoted where needed") {
  const std::string csv = roofline::render_csv(sample());
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 4);
  CHECK_THAT(csv, Catch::StartsWith("name,module,category,"));
  CHECK_THAT(csv, Catch::Contains("\"custom-call.4, with comma\""));
  CHECK_THAT(csv, Catch::Contains("\"add.2 <&\"\"quoted\"\">\""));
}

TEST_CASE("render: text answers first, then one ranked table, then the run") {
  const std::string text = roofline::render_text(sample());
  const auto went = text.find("  Where the time went: ");
  const auto versus = text.find("  Measured vs expected: ");
  const auto worth = text.find("  Most worth fixing: ");
  const auto table = text.find("Worth fixing: most time lost against the expected");
  const auto run = text.find("\nThe run\n");
  REQUIRE(went != std::string::npos);
  REQUIRE(table != std::string::npos);
  REQUIRE(run != std::string::npos);
  CHECK(went < versus);
  CHECK(versus < worth);
  CHECK(worth < table);
  CHECK(table < run);
  CHECK(text.find("Most time lost against the roofline") == std::string::npos);  // one ranking
  CHECK(text.find("Top ops by measured time") == std::string::npos);
  // --rank picks another ranking in its place.
  const std::string by_time = roofline::render_text(sample(), {.rank = roofline::ReportRank::kTime});
  CHECK_THAT(by_time, Catch::Contains("Top ops by measured time"));
  CHECK(by_time.find("Worth fixing: most time") == std::string::npos);
  CHECK_THAT(text, Catch::Contains("Ops without a prediction"));
  CHECK_THAT(text, Catch::Contains("has no cost model"));
  // fusion.1 lost 10 ms, add.2 20 ms: add.2 ranks first by time lost.
  const roofline::Report r = sample();
  auto ranked = roofline::ops_by_time_lost(r, 10);
  REQUIRE(ranked.size() == 3);
  CHECK(ranked[0]->name.rfind("add.2", 0) == 0);
  // Furthest below the roofline: add.2 at 3x, then copy.3 at 2x.
  auto below = roofline::ops_furthest_below_roofline(r, 10);
  CHECK(below[0]->ratio == Approx(3));
  CHECK(below[1]->name == "copy.3");
}

TEST_CASE("render: Markdown tables escape pipes") {
  roofline::Report r = sample();
  r.ops[0].name = "a|b";
  const std::string md = roofline::render_markdown(r);
  CHECK_THAT(md, Catch::StartsWith("# roofline report"));
  CHECK_THAT(md, Catch::Contains("a\\|b"));
}

TEST_CASE("render: HTML is self-contained, escaped, with one plot mark per predicted op") {
  const std::string html = roofline::render_html(sample());
  CHECK(html.find("http://") == html.rfind("http://www.w3.org/2000/svg"));  // only the SVG namespace
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find("<script src") == std::string::npos);
  CHECK_THAT(html, Catch::Contains("add.2 &lt;&amp;&quot;quoted&quot;&gt;"));
  std::regex mark("class=\"op-mark");
  const auto marks = std::distance(std::sregex_iterator(html.begin(), html.end(), mark), std::sregex_iterator());
  CHECK(marks == 3);
}

TEST_CASE("render: the HTML loads in headless Chromium without errors, one mark per op") {
  const char* chromium = nullptr;
  for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (std::filesystem::exists(c)) chromium = c;
  if (!chromium) {
    std::printf("SKIPPED: Debian's chromium is not installed (apt-get install chromium)\n");
    std::fflush(stdout);
    std::_Exit(4);
  }
  const auto dir = std::filesystem::temp_directory_path() / ("roofline_html_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto page = dir / "report.html", dom = dir / "dom.html";
  std::ofstream(page) << roofline::render_html(sample());
  // --dump-dom prints the DOM after the page's scripts ran; the page sets
  // data-ready="ok" at the end of its script and records errors.
  const std::string cmd = std::string("timeout 120 ") + chromium +
                          " --headless=new --no-sandbox --disable-gpu --no-first-run "
                          "--user-data-dir=" + (dir / "profile").string() + " --dump-dom file://" +
                          page.string() + " > " + dom.string() + " 2>/dev/null";
  REQUIRE(run(cmd) == 0);
  std::ifstream in(dom);
  const std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(out, Catch::Contains("data-ready=\"ok\""));
  CHECK_THAT(out, Catch::Contains("data-errors=\"\""));
  std::regex mark("class=\"op-mark");
  CHECK(std::distance(std::sregex_iterator(out.begin(), out.end(), mark), std::sregex_iterator()) == 3);
  std::filesystem::remove_all(dir);
}

TEST_CASE("render: the answer names each share of the wall span once") {
  const std::string text = roofline::render_text(sample());
  const auto at = text.find("  Where the time went: ");
  REQUIRE(at != std::string::npos);
  const std::string line = text.substr(at, text.find('\n', at) - at);
  // sample()'s categories, idle among them, each once.
  std::size_t idle = 0;
  for (std::size_t p = line.find("idle"); p != std::string::npos; p = line.find("idle", p + 1)) ++idle;
  CHECK(idle == 1);
}
