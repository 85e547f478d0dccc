// The XSpace reader without host timelines (host planes not looked into, the
// time base from the lines read) against the full read, on hand-built and
// real profiles.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "roofline/measure/op_stats.hpp"
#include "roofline/trace/read.hpp"
#include "src/wire/proto_wire.hpp"
#include "tests/test_support.hpp"
#include "tests/trace/identify.hpp"
#include "tests/trace/tpu_plane.hpp"
#include "tests/trace/xspace_writer.hpp"

using namespace roofline;
using roofline::testing::chip_name;
using roofline::testing::gzip_of;
using roofline::testing::identify;
using roofline::testing::Pb;
using roofline::testing::find_event;
using roofline::testing::tpu_plane;
using roofline::testing::xspace;
namespace rt = roofline::testing;
using namespace roofline::testing::tpu_stats;

namespace {

// What a read without host timelines keeps of a full read of an XPlane
// with a device plane: the devices, event by event, and the ops their
// events name, with the same names. Its warnings are the full read's less
// those of host events, which it does not decode. Without a device plane
// (XLA:CPU) host events are the devices: decoded, and all the same.
void check_same_devices(const Trace& full, const Trace& lean) {
  const bool has_device_plane = std::any_of(full.devices.begin(), full.devices.end(),
                                            [](const Device& d) { return d.kind != DeviceKind::kCpu; });
  const auto same_op = [&](std::uint32_t f, std::uint32_t l) {
    const OpInfo &x = full.ops[f], &y = lean.ops[l];
    return x.name == y.name && x.module == y.module && x.category == y.category && x.kernel == y.kernel &&
           x.hlo_text == y.hlo_text && x.program_id == y.program_id;
  };
  REQUIRE(full.devices.size() == lean.devices.size());
  std::set<std::uint32_t> named;  // full's ops that device events name
  for (std::size_t i = 0; i < full.devices.size(); ++i) {
    const Device &x = full.devices[i], &y = lean.devices[i];
    CHECK((x.name == y.name && x.host == y.host && x.kind == y.kind && x.id == y.id));
    REQUIRE(x.lines.size() == y.lines.size());
    for (std::size_t l = 0; l < x.lines.size(); ++l)
      CHECK((x.lines[l].name == y.lines[l].name && x.lines[l].role == y.lines[l].role));
    REQUIRE(x.events.size() == y.events.size());
    std::size_t differ = 0;
    for (std::size_t e = 0; e < x.events.size(); ++e) {
      const Event &p = x.events[e], &q = y.events[e];
      differ += p.start_ps != q.start_ps || p.duration_ps != q.duration_ps || p.self_ps != q.self_ps ||
                !same_op(p.op, q.op) || p.line != q.line || p.parent != q.parent || p.call != q.call;
      named.insert(p.op);
    }
    CHECK(differ == 0);
    CHECK(x.steps.size() == y.steps.size());
  }
  CHECK(lean.ops.size() == (has_device_plane ? named.size() : full.ops.size()));
  if (!has_device_plane) CHECK(lean.warnings == full.warnings);
  CHECK(lean.time_origin_ns == full.time_origin_ns);
  // Lean warnings: the full read's, in order, less some.
  std::size_t w = 0;
  for (const std::string& s : lean.warnings) {
    while (w < full.warnings.size() && full.warnings[w] != s) ++w;
    CHECK(w < full.warnings.size());
    ++w;
  }
  CHECK(full.hlo_modules.size() == lean.hlo_modules.size());
}

// A TPU plane and a host plane whose thread ran an op of its own, named
// undefined metadata (a warning) and, when `bad`, an event of negative
// duration (an error).
std::string tpu_and_host(bool bad) {
  Pb host;
  host.sint(1, 9).bytes(2, "/host:CPU");
  Pb thread;
  thread.sint(1, 7).bytes(2, "python/12").sint(3, 1000);
  thread.msg(4, rt::event(1, 0, 5'000'000)).msg(4, rt::event(1, 6'000'000, 1'000)).msg(4, rt::event(99, 7'000'000, 10));
  if (bad) thread.msg(4, rt::event(1, 8'000'000, -3));
  host.msg(3, thread).msg(4, rt::event_metadata(1, "PjitFunction(f)"));
  return xspace({tpu_plane(), host});
}

}  // namespace

TEST_CASE("xplane: without host timelines and with a device plane, host events are not decoded") {
  auto full = parse_xplane(tpu_and_host(false), "h.xplane.pb");
  auto lean = parse_xplane(tpu_and_host(false), "h.xplane.pb", {.host_timelines = false});
  REQUIRE(full.ok());
  REQUIRE(lean.ok());
  REQUIRE(full->hosts.size() == 1);
  CHECK(full->hosts[0].events.size() == 3);
  CHECK(lean->hosts.empty());
  check_same_devices(*full, *lean);
  // The host thread's op and its undefined metadata are a full read's only.
  const auto named = [](const Trace& t, std::string_view name) {
    return std::any_of(t.ops.begin(), t.ops.end(), [&](const OpInfo& o) { return o.name == name; });
  };
  CHECK(named(*full, "PjitFunction(f)"));
  CHECK_FALSE(named(*lean, "PjitFunction(f)"));
  const auto warns_99 = [](const Trace& t) {
    return std::any_of(t.warnings.begin(), t.warnings.end(),
                       [](const std::string& w) { return w.find("event metadata 99") != std::string::npos; });
  };
  CHECK(warns_99(*full));
  CHECK_FALSE(warns_99(*lean));

  // A damaged host event is the full read's error; the lean read never
  // decodes it (pass 1 checked the host line up to its first event only).
  auto bad_full = parse_xplane(tpu_and_host(true), "h.xplane.pb");
  REQUIRE_FALSE(bad_full.ok());
  CHECK_THAT(std::string(bad_full.status().message()), Catch::Contains("negative duration_ps -3"));
  auto bad_lean = parse_xplane(tpu_and_host(true), "h.xplane.pb", {.host_timelines = false});
  REQUIRE(bad_lean.ok());
  check_same_devices(*full, *bad_lean);
}

TEST_CASE("xplane: a host plane before the device plane is not looked into either") {
  // The host plane first: whether a device plane exists is known from the
  // planes' names before pass 1. Its line ends in a truncated events
  // field, which a full read refuses and a lean one never reaches.
  Pb host;
  host.sint(1, 9).bytes(2, "/host:CPU");
  Pb thread;
  thread.sint(1, 7).bytes(2, "python/12").sint(3, 1000);
  thread.msg(4, rt::event(1, 0, 5'000'000));
  std::string line = thread.str() + std::string("\x22\x7f", 2);  // an events field 127 bytes long, cut short
  host.bytes(3, line).msg(4, rt::event_metadata(1, "PjitFunction(f)"));
  const std::string bytes = xspace({host, tpu_plane()});
  auto full = parse_xplane(bytes, "h.xplane.pb");
  REQUIRE_FALSE(full.ok());
  CHECK_THAT(std::string(full.status().message()), Catch::Contains("truncated"));
  auto lean = parse_xplane(bytes, "h.xplane.pb", {.host_timelines = false});
  REQUIRE(lean.ok());
  CHECK(lean->hosts.empty());
  auto tpu_only = parse_xplane(xspace({tpu_plane()}), "t.xplane.pb");
  REQUIRE(tpu_only.ok());
  check_same_devices(*tpu_only, *lean);

  // Without a device plane (XLA:CPU), host events are the devices: decoded,
  // and the damage refused either way.
  auto cpu_only = parse_xplane(xspace({host}), "h.xplane.pb", {.host_timelines = false});
  REQUIRE_FALSE(cpu_only.ok());
}

TEST_CASE("xplane: the time base of a read without host timelines is taken from the lines it reads") {
  // A host line past 46 days (kSafeNs; 58 days here, still within int64
  // picoseconds of the TPU's line) makes a full read count times from the
  // earliest line (the TPU's, at 1000 ns); the lean read does not look at
  // host lines, and its TPU lines are small enough to count from 0. The
  // events are the same instants either way.
  Pb host;
  host.sint(1, 9).bytes(2, "/host:CPU");
  Pb thread;
  thread.sint(1, 7).bytes(2, "python/12").sint(3, std::int64_t{5'000'000'000'000'000});
  thread.msg(4, rt::event(1, 0, 5'000));
  host.msg(3, thread).msg(4, rt::event_metadata(1, "PjitFunction(f)"));
  const std::string bytes = xspace({tpu_plane(), host});
  auto full = parse_xplane(bytes, "h.xplane.pb");
  auto lean = parse_xplane(bytes, "h.xplane.pb", {.host_timelines = false});
  REQUIRE(full.ok());
  REQUIRE(lean.ok());
  CHECK(full->time_origin_ns == 1000);
  REQUIRE(full->devices.size() == lean->devices.size());
  REQUIRE_FALSE(full->devices[0].events.empty());
  REQUIRE(full->devices[0].events.size() == lean->devices[0].events.size());
  for (std::size_t e = 0; e < full->devices[0].events.size(); ++e)
    CHECK(lean->devices[0].events[e].start_ps == full->devices[0].events[e].start_ps + 1000 * 1000);
}

TEST_CASE("xplane: real profiles read without host timelines equal the full read less its hosts") {
  std::vector<std::string> paths = {
      // XLA:CPU: no device plane, so the host threads' thunks become devices.
      rt::test_data("trace/jax_cpu8.xplane.pb").string(),
      roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string()};
  for (const char* real : {"xprof/v100_tf_bert_multiworker.xplane.pb", "tracelens/mi300x_jax08_attention.xplane.pb",
                           "tracelens/mi300x_jax08_gemm.xplane.pb"})
    if (std::filesystem::exists(rt::shared_real_dir() / real)) paths.push_back((rt::shared_real_dir() / real).string());
  for (const std::string& p : paths) {
    INFO(p);
    auto full = read_trace(p);
    auto lean = read_trace(p, {.host_timelines = false});
    REQUIRE(full.ok());
    REQUIRE(lean.ok());
    CHECK(lean->hosts.empty());
    check_same_devices(*full, *lean);
  }
}

TEST_CASE("xplane: twenty thousand host planes and a device plane, read without host timelines") {
  // Whether a device plane exists was once looked up over all planes for
  // each host plane: this read took 3 s instead of 0.03 s (`report` on
  // 40 k planes, 125 s). Tests time nothing; this one checks the read.
  Pb s;
  for (int i = 0; i < 20'000; ++i) s.msg(1, Pb().sint(1, i + 10).bytes(2, "/host:CPU"));
  s.msg(1, tpu_plane());
  auto t = parse_xplane(s.str(), "many.xplane.pb", {.host_timelines = false});
  REQUIRE(t.ok());
  CHECK(t->hosts.empty());
  REQUIRE(t->devices.size() == 1);
  CHECK_FALSE(t->devices[0].events.empty());
}
