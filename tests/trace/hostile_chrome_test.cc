// Odd and hostile trace-event JSON (issue 15): what is not understood is
// said, never cast into garbage or dropped in silence.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "roofline/trace/read.hpp"
#include "tests/zlib_support.hpp"

using namespace roofline;
using roofline::testing::gzip_for_test;

namespace {

const char* kOneKernel =
    R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": 1, "dur": 2})";

std::string kineto(const std::string& props, const std::string& extra = "") {
  return R"({"deviceProperties": [)" + props + "]" + extra + R"(, "traceEvents": [)" + kOneKernel + "]}";
}

bool any_warning(const Trace& t, const std::string& part) {
  for (const auto& w : t.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("json: device counts that are not counts are ignored with a warning, not cast", "[trace][hostile]") {
  auto t = parse_chrome_trace(
      kineto(R"({"id": 0, "name": "NVIDIA A100-SXM4-80GB", "numSms": 1e30, "computeMajor": -8,)"
             R"( "computeMinor": 0.5, "totalGlobalMem": -1})"),
      "props.json");
  REQUIRE(t.ok());
  REQUIRE(t->devices.size() == 1);
  const Device& d = t->devices[0];
  CHECK_FALSE(d.caps.core_count.has_value());
  CHECK_FALSE(d.caps.compute_capability_major.has_value());
  CHECK_FALSE(d.caps.compute_capability_minor.has_value());
  CHECK_FALSE(d.caps.memory_bytes.has_value());
  CHECK(any_warning(*t, "props.json: deviceProperties of device 0: numSms = 1e+30 is not a count; ignored"));
  CHECK(any_warning(*t, "computeMajor = -8 is not a count"));
  CHECK(any_warning(*t, "computeMinor = 0.5 is not a count"));
  CHECK(any_warning(*t, "totalGlobalMem is not a positive number"));
  // Sane values still read.
  auto ok = parse_chrome_trace(kineto(R"({"id": 0, "name": "NVIDIA H100", "numSms": 132, "computeMajor": 9,)"
                                      R"( "computeMinor": 0, "totalGlobalMem": 85520809984})"),
                               "ok.json");
  REQUIRE(ok.ok());
  CHECK(ok->devices[0].caps.core_count == 132);
  CHECK(ok->devices[0].caps.compute_capability_major == 9);
  CHECK(ok->warnings.empty());
}

TEST_CASE("json: a time origin past 2^63 ns is said, not wrapped", "[trace][hostile]") {
  // An older Kineto file counts from the epoch (ts in µs since 1970); the
  // origin is then baseTimeNanoseconds plus the first timestamp in ns.
  const std::string epoch_events = R"({"deviceProperties": [{"id": 0, "name": "NVIDIA H100"}], )"
                                   R"("baseTimeNanoseconds": 9223372036854775807, "traceEvents": [)"
                                   R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1,)"
                                   R"( "ts": 1700000000000000, "dur": 2}]})";
  auto near_max = parse_chrome_trace(epoch_events, "t.json");
  REQUIRE(near_max.ok());
  CHECK_FALSE(near_max->time_origin_ns.has_value());
  CHECK(any_warning(*near_max, "t.json: the trace's time origin"));
  const std::string props = R"({"id": 0, "name": "NVIDIA H100"})";
  auto fine = parse_chrome_trace(kineto(props, R"(, "baseTimeNanoseconds": 1700000000000000000)"), "t.json");
  REQUIRE(fine.ok());
  CHECK(fine->time_origin_ns == 1700000000000000000);
}

TEST_CASE("json: an unknown 'ph' is counted and named, a known one skipped quietly", "[trace][hostile]") {
  const std::string events = std::string(R"({"traceEvents": [)") + kOneKernel +
                             R"(, {"ph": "Q", "name": "a", "pid": 0, "tid": 1, "ts": 5},)"
                             R"( {"ph": "\u001b[2J", "name": "b", "pid": 0, "tid": 1, "ts": 6},)"
                             R"( {"ph": "i", "name": "instant", "pid": 0, "tid": 1, "ts": 7},)"
                             R"( {"ph": "C", "name": "counter", "pid": 0, "tid": 1, "ts": 8, "args": {"v": 1}}]})";
  auto t = parse_chrome_trace(events, "ph.json");
  REQUIRE(t.ok());
  REQUIRE(t->warnings.size() == 1);
  CHECK(t->warnings[0] ==
        "ph.json: 2 events with a 'ph' the Trace Event Format does not define (the first: \"Q\"); ignored");
  // The escape sequence reaches no terminal: the first unknown one is escaped.
  auto esc = parse_chrome_trace(std::string(R"({"traceEvents": [{"ph": "\u001b[2J", "name": "b", "pid": 0,)"
                                            R"( "tid": 1, "ts": 6}]})"),
                                "esc.json");
  REQUIRE(esc.ok());
  REQUIRE(esc->warnings.size() == 1);
  CHECK(esc->warnings[0].find("\\x1b[2J") != std::string::npos);
  CHECK(esc->warnings[0].find('\x1b') == std::string::npos);
}

TEST_CASE("a trace on a pipe (/dev/stdin) is read whole, gzip'd or not", "[trace][hostile]") {
  const std::string json = std::string(R"({"traceEvents": [)") + kOneKernel + "]}";
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::thread writer([&] {
    const char* p = json.data();
    std::size_t left = json.size();
    while (left > 0) {
      const ssize_t k = ::write(fds[1], p, left);
      if (k <= 0) break;
      p += k;
      left -= static_cast<std::size_t>(k);
    }
    ::close(fds[1]);
  });
  auto t = read_trace("/dev/fd/" + std::to_string(fds[0]));
  writer.join();
  ::close(fds[0]);
  INFO(t.status().ToString());
  REQUIRE(t.ok());  // was "read failed: Illegal seek"
  REQUIRE(t->devices.size() == 1);
  CHECK(t->devices[0].events.size() == 1);
}

TEST_CASE("json: negative FLOP and byte counts are ignored with a warning", "[trace][hostile]") {
  auto t = parse_chrome_trace(std::string(R"({"traceEvents": [{"ph": "X", "name": "fusion.1", "pid": 1, "tid": 1,)"
                                          R"( "ts": 1, "dur": 2, "args": {"flops": -5000, "bytes_accessed": -1,)"
                                          R"( "hlo_op": "fusion.1", "hlo_module": "m"}}]})"),
                              "neg.json");
  REQUIRE(t.ok());
  for (const OpInfo& op : t->ops) {
    CHECK_FALSE(op.flops.has_value());
    CHECK_FALSE(op.bytes_accessed.has_value());
  }
  CHECK(any_warning(*t, "neg.json: traceEvents[0].args.flops: negative count -5000; ignored"));
  CHECK(any_warning(*t, "neg.json: traceEvents[0].args.bytes_accessed: negative count -1; ignored"));
}

TEST_CASE("read limits: events kept and gunzipped bytes end in one located error naming the option",
          "[trace][hostile][limits]") {
  std::string json = R"({"traceEvents": [)";
  for (int i = 0; i < 4; ++i) json += std::string(i ? "," : "") + kOneKernel;
  json += "]}";
  TraceReadOptions few;
  few.max_events = 3;
  auto t = parse_chrome_trace(json, "many.json", few);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(std::string(t.status().message()) ==
        "many.json: traceEvents[3]: more than 3 timed events; the limit bounds memory (raise it with "
        "--max-events, TraceReadOptions::max_events)");
  few.max_events = 4;
  CHECK(parse_chrome_trace(json, "many.json", few).ok());

  // A gzip'd XSpace is inflated in memory: bounded by max_inflated_bytes.
  std::string zeros(1 << 20, '\0');
  zeros[0] = '\x0a';  // an XSpace's first field
  const std::string gz = gzip_for_test(zeros);
  TraceReadOptions small;
  small.max_inflated_bytes = 1 << 16;
  auto bomb = parse_trace_bytes(gz, "bomb.xplane.pb.gz", small);
  REQUIRE_FALSE(bomb.ok());
  CHECK(bomb.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK_THAT(std::string(bomb.status().message()),
             Catch::StartsWith("bomb.xplane.pb.gz: decompresses to more than 65536 bytes, over the limit") &&
                 Catch::Contains("--max-inflated-bytes"));
}

TEST_CASE("read limits: a gzip'd JSON past max_decompressed_bytes names its file once", "[trace][hostile][limits]") {
  std::string json = R"({"traceEvents": [)";
  for (int i = 0; i < 70000; ++i) json += std::string(i ? "," : "") + kOneKernel;  // 6 MB
  json += "]}";
  const std::string path = (std::filesystem::temp_directory_path() / "roofline_limit_test.json.gz").string();
  {
    std::ofstream f(path, std::ios::binary);
    f << gzip_for_test(json);
  }
  TraceReadOptions o;
  // Past the reader's first 2 MiB window, so the error comes from a refill.
  o.max_decompressed_bytes = 4000000;
  auto t = read_trace(path, o);
  std::filesystem::remove(path);
  REQUIRE_FALSE(t.ok());
  const std::string m(t.status().message());
  CHECK(m.starts_with(path + ": decompresses to more than 4000000 bytes"));
  CHECK(m.find(path, 1) == std::string::npos);  // once, not "path: path: ..."
  CHECK(m.find("--max-decompressed-bytes") != std::string::npos);
}

TEST_CASE("read limits: distinct ops of a JSON trace are bounded", "[trace][hostile][limits]") {
  std::string json = R"({"traceEvents": [)";
  for (int i = 0; i < 5; ++i)
    json += std::string(i ? "," : "") + R"({"ph": "X", "cat": "kernel", "name": "k)" + std::to_string(i) +
            R"(", "pid": 0, "tid": 1, "ts": 1, "dur": 2})";
  json += "]}";
  TraceReadOptions o;
  o.max_ops = 4;
  auto t = parse_chrome_trace(json, "ops.json", o);
  REQUIRE_FALSE(t.ok());
  CHECK(std::string(t.status().message()) ==
        "ops.json: traceEvents[4]: more than 4 distinct ops; the limit bounds memory (raise it with --max-ops, "
        "TraceReadOptions::max_ops)");
  o.max_ops = 5;
  CHECK(parse_chrome_trace(json, "ops.json", o).ok());
}
