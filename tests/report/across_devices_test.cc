// The report's figures across devices (Report::across_devices): the same as
// the trace statistics' (TraceStats::skew, roofline/measure/skew.hpp) on the
// TPU v6e x4 profile; a straggling Kineto rank named in the text, Markdown,
// HTML and JSON; names from traces escaped; one device has none.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "roofline/match/match.hpp"
#include "roofline/measure/op_stats.hpp"
#include "roofline/measure/skew.hpp"
#include "roofline/report/labels.hpp"
#include "roofline/report/render.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

using namespace roofline;
using roofline::testing::test_data;
using roofline::testing::fresh_temp_dir;
using roofline::testing::slurp;
namespace fs = std::filesystem;

namespace {

// As the report names a device (DeviceSummary::name).
std::string label(const Trace& t, std::size_t device) {
  const Device& d = t.devices[device];
  return d.host.empty() ? d.name : d.name + " @ " + d.host;
}

void replace_once(std::string& text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(from, at + 1) == std::string::npos);
  text.replace(at, from.size(), to);
}

// kineto_small.json as `rank0`, and as `straggler` with its GPU step 130 µs
// long (rank0's: 104) and its one NCCL all-reduce 35 µs (rank0's: 50), as
// tests/trace/skew_test.cc builds them. The file stems name the hosts.
std::vector<std::string> two_ranks(const std::string& dir, const std::string& straggler) {
  const fs::path root = fresh_temp_dir("across_test", dir);
  std::string text = slurp(test_data("trace/kineto_small.json"));
  std::ofstream(root / "rank0.json", std::ios::binary) << text;
  replace_once(text, R"("ts": 1100.000, "dur": 104.000)", R"("ts": 1100.000, "dur": 130.000)");
  replace_once(text, R"("ts": 1120.000, "dur": 50.000)", R"("ts": 1120.000, "dur": 35.000)");
  std::ofstream(root / (straggler + ".json"), std::ios::binary) << text;
  return {(root / "rank0.json").string(), (root / (straggler + ".json")).string()};
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("across devices: the TPU v6e x4 report has the statistics' figures, devices by their report names") {
  // The same file as ../shared/data/real/xprof/tpu_v6e_x4_inference_2.xplane.pb, kept in examples/.
  auto t = read_trace(roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string());
  REQUIRE(t.ok());
  const TraceStats s = compute_op_stats(*t);
  REQUIRE(s.skew);
  const SkewStats& k = *s.skew;
  auto r = make_report(*t, ReportOptions{});
  REQUIRE(r.ok());
  REQUIRE(r->across_devices);
  const AcrossDevices& a = *r->across_devices;

  // 4 chips, no step marked, one all-reduce called 3 times on each.
  REQUIRE(r->devices.size() == 4);
  CHECK(a.steps.empty());
  CHECK(k.steps.empty());
  REQUIRE(a.collectives.size() == 1);
  REQUIRE(k.collectives.size() == 1);
  const CollectiveWait& c = a.collectives[0];
  const CollectiveSkew& kc = k.collectives[0];
  CHECK(c.calls == 3);
  CHECK(c.name == kc.name);
  CHECK(c.module == kc.module);  // one program of that name: no "(program id)" in the report
  CHECK(c.calls == kc.occurrences);
  CHECK(c.wait_s == kc.wait_s);
  CHECK(c.max_skew_s == kc.max_skew_s);
  CHECK(c.median_skew_s == kc.median_skew_s);
  REQUIRE(kc.waited_for);
  CHECK(c.waited_for_device == label(*t, *kc.waited_for));
  CHECK(c.waited_for_count == kc.waited_for_count);
  // One row per device, in the report's device order, each the statistics' own.
  REQUIRE(a.devices.size() == k.devices.size());
  for (std::size_t i = 0; i < a.devices.size(); ++i) {
    INFO(i);
    CHECK(a.devices[i].device == r->devices[i].name);
    CHECK(a.devices[i].device == label(*t, k.devices[i].device));
    CHECK(a.devices[i].collective_wait_s == k.devices[i].collective_wait_s);
    CHECK(a.devices[i].slowest_steps == k.devices[i].slowest_steps);
    CHECK(a.devices[i].waited_for_count == k.devices[i].waited_for_count);
  }
  // The wait over devices is the collective's total wait (both sums of the same waits).
  double wait_s = 0;
  for (const DeviceWait& d : a.devices) wait_s += d.collective_wait_s;
  CHECK(wait_s == Approx(c.wait_s));

  // JSON: the same figures under "across_devices".
  const nlohmann::json j = nlohmann::json::parse(render_json(*r));
  REQUIRE(j.contains("across_devices"));
  CHECK(j["across_devices"]["collectives"][0]["calls"] == 3);
  CHECK(j["across_devices"]["collectives"][0]["waited_for_device"] == c.waited_for_device);
  CHECK(j["across_devices"]["devices"].size() == 4);
  CHECK(j["across_devices"]["steps"].empty());
  // The text says no step ran on 2 devices and names the chip waited for.
  const std::string text = render_text(*r);
  CHECK_THAT(text, Catch::Contains("no step ran on 2 or more devices"));
  CHECK_THAT(text, Catch::Contains("across devices: collective waits: "));
  CHECK_THAT(text, Catch::Contains("most often waiting for " + c.waited_for_device + " (" +
                                   std::to_string(c.waited_for_count) + " of 3 calls)"));
}

TEST_CASE("across devices: two Kineto ranks, rank1 the straggler, in every format") {
  const std::vector<std::string> paths = two_ranks("ranks", "rank1");
  auto t = read_traces(paths);
  REQUIRE(t.ok());
  auto r = make_report(*t, ReportOptions{});
  REQUIRE(r.ok());
  REQUIRE(r->across_devices);
  const AcrossDevices& a = *r->across_devices;
  REQUIRE(r->devices.size() == 2);
  const std::string rank1 = r->devices[1].name;
  CHECK(rank1.size() > 8);
  CHECK(rank1.substr(rank1.size() - 8) == " @ rank1");
  // ProfilerStep#1 on both: rank1 130 µs, rank0 104 µs: skew 26 µs, median
  // (104 + 130) / 2 = 117 µs.
  REQUIRE(a.steps.size() == 1);
  CHECK(a.steps[0].slowest_device == rank1);
  CHECK(a.steps[0].fastest_device == r->devices[0].name);
  CHECK(a.steps[0].skew_s == Approx(26e-6));
  CHECK(a.steps[0].median_s == Approx(117e-6));
  // The all-reduce: rank0 50 µs, rank1 35 µs: rank0 waited 50 - 35 = 15 µs for rank1.
  REQUIRE(a.collectives.size() == 1);
  CHECK(a.collectives[0].calls == 1);
  CHECK(a.collectives[0].wait_s == Approx(15e-6));
  CHECK(a.collectives[0].waited_for_device == rank1);
  REQUIRE(a.devices.size() == 2);
  CHECK(a.devices[0].collective_wait_s == Approx(15e-6));
  CHECK(a.devices[1].collective_wait_s == 0);
  CHECK(a.devices[1].slowest_steps == 1);
  CHECK(a.devices[1].waited_for_count == 1);

  const std::string text = render_text(*r);
  CHECK_THAT(text, Catch::Contains("across devices: slowest device per step: " + rank1 +
                                   " in 1 of 1 steps (up to +26.0 us); collective waits: 15.0 us over 2 devices, "
                                   "most often waiting for " + rank1 + " (1 of 1 calls)"));
  CHECK_THAT(text, Catch::Contains("Across devices: steps with the largest skew"));
  CHECK_THAT(text, Catch::Contains("Across devices: collectives with the most wait"));
  CHECK_THAT(text, Catch::Contains("Across devices: per device"));
  CHECK_THAT(render_markdown(*r), Catch::Contains("## Across devices: steps with the largest skew"));
  const std::string html = render_html(*r);
  CHECK_THAT(html, Catch::Contains("<h2 id=\"across-devices\">Across devices</h2>"));
  CHECK_THAT(html, Catch::Contains("id=\"across-headline\">Across devices: slowest device per step: " + rank1));
  CHECK_THAT(html, Catch::Contains("<td>" + rank1 + "</td>"));
  // The text's step row: the slowest rank1 at 130 us, skew 26.0 us.
  CHECK_THAT(text, Catch::Contains(rank1 + "  130 us"));
  // CSV is one row per op: unchanged by devices.
  CHECK(count(render_csv(*r), "rank1") == 0);
}

TEST_CASE("across devices: device names from traces reach text and HTML escaped") {
  // The straggler's file stem, its host: ESC (clear the screen) and markup.
  const std::vector<std::string> paths = two_ranks("escape", "\x1b[2J<script>x");
  auto t = read_traces(paths);
  REQUIRE(t.ok());
  auto r = make_report(*t, ReportOptions{});
  REQUIRE(r.ok());
  REQUIRE(r->across_devices);
  REQUIRE(count(r->across_devices->devices[0].device + r->across_devices->devices[1].device, "\x1b") == 1);
  const std::string text = render_text(*r);
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK_THAT(text, Catch::Contains("\\x1b[2J<script>x"));  // visible, and in the section, not only the headline
  CHECK(count(text, "\\x1b[2J<script>x") >= 4);
  const std::string md = render_markdown(*r);
  CHECK(md.find('\x1b') == std::string::npos);
  const std::string html = render_html(*r);
  CHECK(html.find('\x1b') == std::string::npos);
  CHECK(count(html, "<script") == 1);  // the page's own
  CHECK_THAT(html, Catch::Contains("\\x1b[2J&lt;script&gt;x"));
  // JSON keeps the name as it is (JSON escapes it).
  const nlohmann::json j = nlohmann::json::parse(render_json(*r));
  CHECK(j["across_devices"]["steps"][0]["slowest_device"].get<std::string>().find("\x1b[2J<script>x") !=
        std::string::npos);
}

TEST_CASE("across devices: one device, or --device, has none: no section, no key") {
  auto t = read_trace(test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  auto r = make_report(*t, ReportOptions{});
  REQUIRE(r.ok());
  CHECK_FALSE(r->across_devices);
  CHECK(render_text(*r).find("Across devices") == std::string::npos);
  CHECK(render_html(*r).find("Across devices") == std::string::npos);
  CHECK_FALSE(nlohmann::json::parse(render_json(*r)).contains("across_devices"));

  auto tpu = read_trace(roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string());
  REQUIRE(tpu.ok());
  auto one = make_report(*tpu, ReportOptions{.device_id = tpu->devices[0].id});
  REQUIRE(one.ok());
  CHECK(one->devices.size() == 1);
  CHECK_FALSE(one->across_devices);
}

TEST_CASE("across devices: more than 8 devices: the 8 that waited most, and how many are left out") {
  Report r;
  r.chip = "tpu-v5e";
  AcrossDevices a;
  // Device k waited k µs: the 8 shown are 11 .. 4 µs, 4 left out.
  for (int k = 0; k < 12; ++k) {
    DeviceSummary d;
    d.id = k;
    d.name = "TPU:" + std::to_string(k);
    r.devices.push_back(d);
    a.devices.push_back({.device = d.name, .collective_wait_s = k * 1e-6, .slowest_steps = 0, .waited_for_count = 0});
  }
  r.across_devices = a;
  // The text's headline lists the first 4 devices: look at the section only.
  const std::string text = render_text(r), html = render_html(r);
  for (const std::string& out : {text.substr(text.find("Across devices: per device")),
                                 html.substr(html.find("<h2 id=\"across-devices\">"))}) {
    CHECK_THAT(out, Catch::Contains("the 8 with the most wait, 4 more left out"));
    CHECK_THAT(out, Catch::Contains("TPU:11"));
    CHECK_THAT(out, Catch::Contains("TPU:4"));
    CHECK(out.find("TPU:3") == std::string::npos);
  }
  // 66 µs of wait (0 + 1 + ... + 11), no one waited for: no "most often" part.
  CHECK_THAT(render_text(r), Catch::Contains("across devices: collective waits: 66.0 us over 12 devices\n"));
}

TEST_CASE("across devices: the two-rank HTML loads in headless Chromium without errors") {
  const char* chromium = nullptr;
  for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(c)) chromium = c;
  if (!chromium) {
    std::printf("SKIPPED: Debian's chromium is not installed (apt-get install chromium)\n");
    std::fflush(stdout);
    std::_Exit(4);
  }
  auto t = read_traces(two_ranks("chromium", "rank1"));
  REQUIRE(t.ok());
  auto r = make_report(*t, ReportOptions{});
  REQUIRE(r.ok());
  const fs::path dir = fresh_temp_dir("across_test", "chromium_page");
  const fs::path page = dir / "report.html", dom = dir / "dom.html";
  std::ofstream(page) << render_html(*r);
  // --dump-dom prints the DOM after the page's script ran: it sets
  // data-ready="ok" at its end and records errors in data-errors.
  const std::string cmd = std::string("timeout 120 ") + chromium +
                          " --headless=new --no-sandbox --disable-gpu --no-first-run --user-data-dir=" +
                          (dir / "profile").string() + " --dump-dom file://" + page.string() + " > " + dom.string() +
                          " 2>/dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string out = slurp(dom);
  CHECK_THAT(out, Catch::Contains("data-ready=\"ok\""));
  CHECK_THAT(out, Catch::Contains("data-errors=\"\""));
  // The section's tables parsed as tables: 3 of them (steps, collectives, devices).
  const std::size_t at = out.find("id=\"across-devices\"");
  REQUIRE(at != std::string::npos);
  CHECK(count(out.substr(at, out.find("<h2", at) - at), "<table class=\"ranked\">") == 3);
  fs::remove_all(dir);
}

TEST_CASE("across devices: a headline's device that shares its count says how many tie") {
  // Hosts a and b were each the one slowest device of one step; c never.
  // Their calls: a the shortest (waited for) in 2, b in 2, c in 1.
  Report r;
  AcrossDevices a;
  a.steps = {{.step = "1", .repeat = 0, .devices = 3, .slowest_device = "GPU 0 @ a", .fastest_device = "GPU 0 @ c",
              .slowest_s = 0.011, .fastest_s = 0.010, .median_s = 0.010, .skew_s = 0.001},
             {.step = "2", .repeat = 0, .devices = 3, .slowest_device = "GPU 0 @ b", .fastest_device = "GPU 0 @ c",
              .slowest_s = 0.012, .fastest_s = 0.010, .median_s = 0.010, .skew_s = 0.002}};
  a.collectives = {{.name = "ncclKernel_AllReduce", .module = "", .calls = 5, .wait_s = 0.003, .max_skew_s = 0.001,
                    .median_skew_s = 0.0005, .waited_for_device = "GPU 0 @ a", .waited_for_count = 2}};
  a.devices = {{.device = "GPU 0 @ a", .collective_wait_s = 0.001, .slowest_steps = 1, .waited_for_count = 2},
               {.device = "GPU 0 @ b", .collective_wait_s = 0.001, .slowest_steps = 1, .waited_for_count = 2},
               {.device = "GPU 0 @ c", .collective_wait_s = 0.001, .slowest_steps = 0, .waited_for_count = 1}};
  r.across_devices = a;
  const std::optional<std::string> h = across_devices_headline(r);
  REQUIRE(h);
  CHECK(*h == "slowest device per step: GPU 0 @ a in 1 of 2 steps (up to +1.00 ms), tied with 1 other device; "
              "collective waits: 3.00 ms over 3 devices, most often waiting for GPU 0 @ a (2 of 5 calls), "
              "tied with 1 other device");
  a.devices[1].slowest_steps = 0;  // now a alone
  a.devices[1].waited_for_count = 1;
  r.across_devices = a;
  CHECK(across_devices_headline(r)->find("tied") == std::string::npos);
}
