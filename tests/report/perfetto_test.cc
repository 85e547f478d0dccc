// The timeline (report --format perfetto): Chrome trace-event JSON that
// Perfetto and chrome://tracing open, checked by its schema and by reading
// it back through our own trace reader.
#include <catch2/catch.hpp>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>
#include <algorithm>

#include <nlohmann/json.hpp>

#include "roofline/chip_io.hpp"
#include "roofline/match/match.hpp"
#include "roofline/report/perfetto.hpp"
#include "roofline/trace/read.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

namespace {

struct Written {
  roofline::Timeline timeline;
  std::size_t op_events = 0;  // grouped op events of the selected devices, as measure counts them
  std::size_t devices = 0;
};

Written timeline_of(const roofline::Trace& trace, const roofline::Chip* chip) {
  roofline::ReportOptions o;
  o.chip = chip;
  auto m = roofline::match(trace, o);
  REQUIRE(m.ok());
  Written w{.timeline = roofline::render_perfetto(*m), .devices = m->devices.size()};
  for (std::size_t di : m->devices)
    for (const roofline::OpOccurrences& occ : m->measured.devices[di].ops)
      w.op_events += static_cast<std::size_t>(occ.count);
  return w;
}

// The complete events of each thread nest or follow one another, as the
// viewers draw a thread's slices as a stack (a slice that ends inside
// another one's neighbour is drawn wrong or dropped). 1e-6 us of slack for
// the picosecond-to-microsecond doubles.
void check_nesting(const nlohmann::json& j) {
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X")
      slices[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(e["ts"].get<double>(),
                                                                      e["ts"].get<double>() + e["dur"].get<double>());
  for (auto& [thread, s] : slices) {
    std::stable_sort(s.begin(), s.end(), [](const auto& a, const auto& b) {
      return a.first < b.first || (a.first == b.first && a.second > b.second);
    });
    std::vector<double> open;  // ends of the enclosing slices
    for (const auto& [start, end] : s) {
      while (!open.empty() && open.back() <= start + 1e-6) open.pop_back();
      if (!open.empty()) CHECK(end <= open.back() + 1e-6);
      open.push_back(end);
    }
  }
}

// Every event has the fields the format asks of its phase; returns the
// parsed document.
nlohmann::json check_schema(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  REQUIRE(j.contains("traceEvents"));
  REQUIRE(j["traceEvents"].is_array());
  for (const auto& e : j["traceEvents"]) {
    REQUIRE(e.contains("ph"));
    REQUIRE(e["pid"].is_number_integer());
    REQUIRE(e["tid"].is_number_integer());
    REQUIRE(e["ts"].is_number());
    REQUIRE(e["name"].is_string());
    const std::string ph = e["ph"];
    REQUIRE((ph == "X" || ph == "M" || ph == "C"));
    if (ph == "X") {
      REQUIRE(e["dur"].is_number());
      CHECK(e["dur"].get<double>() >= 0);
    }
    if (ph == "M") CHECK(e["args"].contains(e["name"] == "process_labels" ? "labels" : "name"));
    if (ph == "C") CHECK(e["args"].size() == 1);
  }
  check_nesting(j);
  return j;
}

void check_timeline(const roofline::Trace& trace, const roofline::Chip* chip) {
  const Written w = timeline_of(trace, chip);
  REQUIRE(w.op_events > 0);
  CHECK(w.timeline.ops_left_out == 0);
  CHECK(w.timeline.ops_written == w.op_events);
  const nlohmann::json j = check_schema(w.timeline.json);

  std::size_t measured = 0, processes = 0;
  std::map<std::pair<std::string, double>, double> roofline_of;  // (op, ts) -> roofline_us
  std::size_t predicted = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") ++processes;
    if (e["ph"] != "X") continue;
    if (e["cat"] == "measured") {
      ++measured;
      // Expected is the roofline lower bound or above (calibration.hpp:
      // T = floor + max(terms / efficiency), efficiencies <= 1).
      if (e["args"].contains("expected_us")) {
        ++predicted;
        CHECK(e["args"]["expected_us"].get<double>() >= e["args"]["roofline_us"].get<double>() * (1 - 1e-12));
      }
    }
    if (e["cat"] == "gap") CHECK(e["dur"].get<double>() >= 1.0);
  }
  CHECK(measured == w.op_events);
  CHECK(processes == w.devices);
  CHECK(predicted > 0);

  // Read back by our own Chrome JSON reader: the measured tracks are op
  // lines of devices, with every measured event on them.
  auto back = roofline::parse_chrome_trace(w.timeline.json, "timeline.json");
  REQUIRE(back.ok());
  std::size_t read_back = 0;
  for (const roofline::Device& d : back->devices)
    for (const roofline::Event& e : d.events)
      if (d.lines[e.line].role == roofline::LineRole::kOps) ++read_back;
  CHECK(read_back == w.op_events);
}

}  // namespace

TEST_CASE("perfetto: a Kineto trace's timeline", "[perfetto]") {
  auto trace = roofline::read_trace(roofline::testing::test_data("trace/kineto_small.json").string());
  REQUIRE(trace.ok());
  check_timeline(*trace, nullptr);
}

TEST_CASE("perfetto: a JAX CPU XPlane's timeline", "[perfetto]") {
  auto trace = roofline::read_trace(roofline::testing::test_data("diff/before.xplane.pb.gz").string());
  REQUIRE(trace.ok());
  auto chip = roofline::resolve_chip("h100-sxm");
  REQUIRE(chip.ok());
  check_timeline(*trace, &*chip);
}

TEST_CASE("perfetto: the op cap leaves the latest ops out and says so", "[perfetto]") {
  auto trace = roofline::read_trace(roofline::testing::test_data("trace/kineto_small.json").string());
  REQUIRE(trace.ok());
  auto m = roofline::match(*trace, roofline::ReportOptions{});
  REQUIRE(m.ok());
  const roofline::Timeline t = roofline::render_perfetto(*m, {.max_ops_per_device = 2});
  CHECK(t.ops_written == 2);
  CHECK(t.ops_left_out > 0);
  const nlohmann::json j = check_schema(t.json);
  CHECK(j["metadata"]["ops_left_out"] == t.ops_left_out);
}

TEST_CASE("perfetto: the CLI writes the timeline with -o", "[perfetto]") {
  const std::string trace = roofline::testing::test_data("trace/kineto_small.json").string();
  const auto dir = roofline::testing::fresh_temp_dir("perfetto", "cli");
  const std::string out = (dir / "t.json").string();
  auto r = roofline::testing::run_cli("report '" + trace + "' --format perfetto -o '" + out + "'");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = check_schema(roofline::testing::slurp(out));
  // Read back from the file by the reader every command uses.
  auto back = roofline::read_trace(out);
  REQUIRE(back.ok());
  CHECK_FALSE(back->devices.empty());
}

TEST_CASE("perfetto: real profiles", "[perfetto][real]") {
  for (const char* rel : {"kineto/v100_resnet50_worker0.pt.trace.json.gz", "xprof/tpu_v6e_x4_inference_2.xplane.pb"}) {
    INFO(rel);
    const std::filesystem::path p = roofline::testing::shared_real_dir() / rel;
    if (!std::filesystem::exists(p)) {
      WARN("skipped: " << p.string() << " is absent");
      continue;
    }
    auto trace = roofline::read_trace(p.string());
    REQUIRE(trace.ok());
    check_timeline(*trace, nullptr);
  }
}
