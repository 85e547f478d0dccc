// The XSpace reader on hand-built protobufs: each test encodes exactly the
// wire-level case it is about (tests/trace/xspace_writer.hpp).
#include <catch2/catch.hpp>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "roofline/trace/op_stats.hpp"
#include "roofline/trace/read.hpp"
#include "src/wire/proto_wire.hpp"
#include "tests/test_support.hpp"
#include "tests/trace/identify.hpp"
#include "tests/trace/xspace_writer.hpp"

using namespace roofline;
using roofline::testing::chip_name;
using roofline::testing::gzip_of;
using roofline::testing::identify;
using roofline::testing::Pb;
using roofline::testing::xspace;
namespace rt = roofline::testing;

namespace {

// Stat metadata ids of the TPU plane below.
enum : int {
  kDeviceType = 1, kPeakTflops, kPeakHbm, kHloCategory, kProgramId, kFlops, kBytes, kLoopFusion,
  kUnrelated, kHloOp, kHloModule, kCorrelation, kVendor, kCcMajor, kCcMinor, kCores, kMemSize,
  kMemBw, kClock, kModuleName, kOpName, kProfileStart
};

// A TPU plane: XLA Modules holds jit_f(77) for 100 us; XLA Ops holds while.1
// (10..60 us) with fusion.1 nested twice (12..32, 35..50), then a zero-length
// fusion.1 at 70 us. Line start 1000 ns.
Pb tpu_plane(std::int64_t line_timestamp_ns = 1000) {
  Pb p;
  p.sint(1, 2).bytes(2, "/device:TPU:0");
  Pb modules, ops;
  modules.sint(1, 2).bytes(2, "XLA Modules").sint(3, line_timestamp_ns).msg(4, rt::event(10, 0, 100'000'000));
  ops.sint(1, 3).bytes(2, "XLA Ops").sint(3, line_timestamp_ns);
  ops.msg(4, rt::event(12, 10'000'000, 50'000'000));
  // An unknown field (15, length-delimited) inside an event is skipped.
  ops.msg(4, rt::event(11, 12'000'000, 20'000'000, Pb().bytes(15, "future field")));
  ops.msg(4, rt::event(11, 35'000'000, 15'000'000));
  ops.msg(4, rt::event(11, 70'000'000, 0));
  p.msg(3, modules).msg(3, ops);
  p.msg(4, rt::event_metadata(10, "jit_f(77)"));
  p.msg(4, rt::event_metadata(11, "%fusion.1 = f32[8]{0} fusion(f32[8]{0} %p), kind=kLoop, calls=%c",
                              "fusion.1",
                              Pb().msg(5, rt::stat_ref(kHloCategory, kLoopFusion))
                                  .msg(5, rt::stat_uint(kProgramId, 77))
                                  .msg(5, rt::stat_int(kFlops, 2048))
                                  .msg(5, rt::stat_int(kBytes, 1024))));
  p.msg(4, rt::event_metadata(12, "%while.1 = f32[8]{0} while(f32[8]{0} %p), condition=%c, body=%b",
                              "while.1",
                              Pb().msg(5, rt::stat_str(kHloCategory, "while"))
                                  .msg(5, rt::stat_uint(kProgramId, 77))));
  for (auto [id, name] : std::initializer_list<std::pair<int, const char*>>{
           {kDeviceType, "device_type_string"},
           {kPeakTflops, "peak_teraflops_per_second"},
           {kPeakHbm, "peak_hbm_bw_gigabytes_per_second"},
           {kHloCategory, "hlo_category"},
           {kProgramId, "program_id"},
           {kFlops, "flops"},
           {kBytes, "bytes_accessed"},
           {kLoopFusion, "loop fusion"},
           {kUnrelated, "something_else"}})
    p.msg(5, rt::stat_metadata(id, name));
  p.msg(6, rt::stat_str(kDeviceType, "TPU v6 Lite"));
  p.msg(6, rt::stat_double(kPeakTflops, 918.0));
  p.msg(6, rt::stat_double(kPeakHbm, 1638.0));
  return p;
}

const Event* find_event(const Trace& t, const Device& d, const std::string& name, std::int64_t start_ps) {
  for (const Event& e : d.events)
    if (t.ops[e.op].name == name && e.start_ps == start_ps) return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("xplane: TPU device, its peaks from plane stats, and the chip it is") {
  auto t = parse_xplane(xspace({tpu_plane()}), "hand.xplane.pb");
  REQUIRE(t.ok());
  REQUIRE(t->devices.size() == 1);
  const Device& d = t->devices[0];
  CHECK(d.kind == DeviceKind::kTpu);
  CHECK(d.id == 0);
  CHECK(d.host == "tpu-host");
  CHECK(d.model == "TPU v6 Lite");
  CHECK(chip_name(d) == "tpu-v6e");
  // 918 TFLOP/s and 1638 GB/s as written, in SI units.
  CHECK(*d.caps.peak_flops_per_s == Approx(918e12));
  CHECK(*d.caps.hbm_bytes_per_s == Approx(1638e9));
  REQUIRE(d.lines.size() == 2);
  CHECK(d.lines[0].role == LineRole::kModules);
  CHECK(d.lines[1].role == LineRole::kOps);
}

TEST_CASE("xplane: nested XLA ops get self time; start = line ns x 1000 + offset ps") {
  auto t = parse_xplane(xspace({tpu_plane()}), "hand.xplane.pb");
  REQUIRE(t.ok());
  const Device& d = t->devices[0];
  // while.1 starts at 1000 ns * 1000 + 10e6 ps = 11e6 ps; its self time is
  // 50 us - 20 us - 15 us = 15 us.
  const Event* w = find_event(*t, d, "while.1", 11'000'000);
  REQUIRE(w != nullptr);
  CHECK(w->duration_ps == 50'000'000);
  CHECK(w->self_ps == 15'000'000);
  const Event* f = find_event(*t, d, "fusion.1", 13'000'000);
  REQUIRE(f != nullptr);
  CHECK(f->self_ps == 20'000'000);
  CHECK(&d.events[static_cast<std::size_t>(f->parent)] == w);
  // The zero-length fusion at 71e6 ps is an event of its own, with no parent.
  const Event* z = find_event(*t, d, "fusion.1", 71'000'000);
  REQUIRE(z != nullptr);
  CHECK(z->duration_ps == 0);
  CHECK(z->parent == kNoParent);
}

TEST_CASE("xplane: op metadata resolved by stat name, module from the program id") {
  auto t = parse_xplane(xspace({tpu_plane()}), "hand.xplane.pb");
  REQUIRE(t.ok());
  const OpInfo* fusion = nullptr;
  for (const OpInfo& op : t->ops)
    if (op.name == "fusion.1") fusion = &op;
  REQUIRE(fusion != nullptr);
  CHECK(fusion->module == "jit_f");  // "jit_f(77)" names program 77
  CHECK(fusion->program_id == 77u);
  CHECK(fusion->category == "loop fusion");  // a ref value: the name of stat metadata 8
  CHECK(fusion->flops == 2048);
  CHECK(fusion->bytes_accessed == 1024);
  CHECK(fusion->hlo_text.rfind("%fusion.1 = f32[8]{0} fusion(", 0) == 0);
}

TEST_CASE("xplane: op stats of the hand-built plane") {
  auto t = parse_xplane(xspace({tpu_plane()}), "hand.xplane.pb");
  REQUIRE(t.ok());
  TraceStats s = compute_op_stats(*t);
  REQUIRE(s.devices.size() == 1);
  const DeviceStats& d = s.devices[0];
  // Window 11e6..71e6 ps = 60 us; busy: while.1 covers 11..61 us = 50 us.
  CHECK(d.window_s == Approx(60e-6));
  CHECK(d.busy_s == Approx(50e-6));
  CHECK(d.idle_s == Approx(10e-6));
  CHECK(d.duty_cycle == Approx(50.0 / 60.0));
  REQUIRE(s.ops.size() == 2);
  // fusion.1: 20 + 15 + 0 us over 3 occurrences; median 15 us.
  const OpStat& f = s.ops[0];
  CHECK(f.name == "fusion.1");
  CHECK(f.count == 3);
  CHECK(f.total_s == Approx(35e-6));
  CHECK(f.median_s == Approx(15e-6));
  CHECK(f.min_s == 0);
  CHECK(f.max_s == Approx(20e-6));
  // Shares over all self time (35 + 15 us).
  CHECK(f.share == Approx(35.0 / 50.0));
  CHECK(s.ops[1].name == "while.1");
  CHECK(s.ops[1].total_s == Approx(15e-6));
}

TEST_CASE("xplane: epoch timestamps are rebased instead of overflowing int64 ps") {
  // 1.741722099e18 ns x 1000 would overflow int64 picoseconds.
  const std::int64_t epoch_ns = 1'741'722'099'081'044'120;
  auto t = parse_xplane(xspace({tpu_plane(epoch_ns)}), "epoch.xplane.pb");
  REQUIRE(t.ok());
  REQUIRE(t->time_origin_ns == epoch_ns);
  const Event* w = find_event(*t, t->devices[0], "while.1", 10'000'000);
  REQUIRE(w != nullptr);
}

TEST_CASE("xplane: line timestamps too far apart for int64 ps are an error, not a wrap") {
  Pb p;
  p.sint(1, 1).bytes(2, "/device:TPU:0");
  p.msg(3, Pb().sint(1, 1).bytes(2, "XLA Ops").sint(3, 0).msg(4, rt::event(1, 0, 1)));
  p.msg(3, Pb().sint(1, 2).bytes(2, "XLA Ops").sint(3, 9'000'000'000'000'000'000).msg(4, rt::event(1, 0, 1)));
  p.msg(4, rt::event_metadata(1, "op"));
  auto t = parse_xplane(xspace({p}), "far.xplane.pb");
  REQUIRE_FALSE(t.ok());
  CHECK_THAT(std::string(t.status().message()), Catch::Contains("far.xplane.pb: byte ") &&
                                                     Catch::Contains("overflows int64 picoseconds"));
}

TEST_CASE("xplane: gzip-compressed string stats are inflated") {
  Pb p;
  p.sint(1, 2).bytes(2, "/device:TPU:0");
  p.msg(3, Pb().sint(1, 3).bytes(2, "XLA Ops").msg(4, rt::event(11, 0, 5)));
  p.msg(4, rt::event_metadata(11, "%f = f32[] add(f32[] %a, f32[] %b)", "f",
                              Pb().msg(5, Pb().sint(1, kHloCategory).bytes(8, gzip_of("non-fusion elementwise")))));
  p.msg(5, rt::stat_metadata(kHloCategory, "hlo_category"));
  auto t = parse_xplane(xspace({p}), "gz.xplane.pb");
  REQUIRE(t.ok());
  CHECK(t->ops[t->devices[0].events[0].op].category == "non-fusion elementwise");
}

TEST_CASE("xplane: gzip'd string stats together stay within max_inflated_bytes", "[hostile][limits]") {
  // Two ops whose gzip'd category inflates to 40 kB each; the limit holds
  // one of them: the second is ignored with one warning naming the option.
  const std::string big(40000, 'x');
  Pb p;
  p.sint(1, 2).bytes(2, "/device:TPU:0");
  p.msg(3, Pb().sint(1, 3).bytes(2, "XLA Ops").msg(4, rt::event(11, 0, 5)).msg(4, rt::event(12, 10, 5)));
  p.msg(4, rt::event_metadata(11, "%f = f32[] add(f32[] %a, f32[] %b)", "f",
                              Pb().msg(5, Pb().sint(1, kHloCategory).bytes(8, gzip_of(big)))));
  p.msg(4, rt::event_metadata(12, "%g = f32[] add(f32[] %a, f32[] %b)", "g",
                              Pb().msg(5, Pb().sint(1, kHloCategory).bytes(8, gzip_of(big)))));
  p.msg(5, rt::stat_metadata(kHloCategory, "hlo_category"));
  TraceReadOptions o;
  o.max_inflated_bytes = 60000;
  auto t = parse_xplane(xspace({p}), "bomb.xplane.pb", o);
  REQUIRE(t.ok());
  int inflated = 0;
  for (const Event& e : t->devices[0].events) inflated += t->ops[e.op].category == big;
  CHECK(inflated == 1);
  bool warned = false;
  for (const std::string& w : t->warnings)
    warned |= w.find("bomb.xplane.pb: plane '/device:TPU:0': stat 'hlo_category': decompresses to more than") == 0 &&
              w.find("--max-inflated-bytes") != std::string::npos && w.find("the stat is ignored") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("xplane: a string stat longer than any name is ignored, gzip'd or not", "[hostile][limits]") {
  // 300 kB of category: kept, it would be copied into every op, table and
  // output (two 300 MiB ones once took 4.96 GB). The gzip'd one is refused
  // after 64 KiB of inflating.
  const std::string big(300000, 'x');
  Pb p;
  p.sint(1, 2).bytes(2, "/device:TPU:0");
  p.msg(3, Pb().sint(1, 3).bytes(2, "XLA Ops").msg(4, rt::event(11, 0, 5)).msg(4, rt::event(12, 10, 5)));
  p.msg(4, rt::event_metadata(11, "%f = f32[] add(f32[] %a, f32[] %b)", "f",
                              Pb().msg(5, rt::stat_str(kHloCategory, big))));
  p.msg(4, rt::event_metadata(12, "%g = f32[] add(f32[] %a, f32[] %b)", "g",
                              Pb().msg(5, Pb().sint(1, kHloCategory).bytes(8, gzip_of(big)))));
  p.msg(5, rt::stat_metadata(kHloCategory, "hlo_category"));
  auto t = parse_xplane(xspace({p}), "long.xplane.pb");
  REQUIRE(t.ok());
  for (const Event& e : t->devices[0].events) CHECK(t->ops[e.op].category.size() < 100);
  int warned = 0;
  for (const std::string& w : t->warnings)
    warned += w == "long.xplane.pb: plane '/device:TPU:0': stat 'hlo_category' is 300000 bytes long, more than "
                   "any name (65536); ignored" ||
              w == "long.xplane.pb: plane '/device:TPU:0': stat 'hlo_category': decompresses to more than 65537 "
                   "bytes, over the limit; refusing (longer than any name); the stat is ignored";
  CHECK(warned == 2);
}

TEST_CASE("xplane: negative flops and bytes stats are ignored with a warning", "[hostile]") {
  Pb p;
  p.sint(1, 2).bytes(2, "/device:TPU:0");
  p.msg(3, Pb().sint(1, 3).bytes(2, "XLA Ops").msg(4, rt::event(11, 0, 5)));
  p.msg(4, rt::event_metadata(11, "%f = f32[] add(f32[] %a, f32[] %b)", "f",
                              Pb().msg(5, rt::stat_int(kFlops, -5000)).msg(5, rt::stat_int(kBytes, -1))));
  p.msg(5, rt::stat_metadata(kFlops, "flops"));
  p.msg(5, rt::stat_metadata(kBytes, "bytes_accessed"));
  auto t = parse_xplane(xspace({p}), "neg.xplane.pb");
  REQUIRE(t.ok());
  const OpInfo& op = t->ops[t->devices[0].events[0].op];
  CHECK_FALSE(op.flops.has_value());
  CHECK_FALSE(op.bytes_accessed.has_value());
  int warned = 0;
  for (const std::string& w : t->warnings)
    warned += w == "neg.xplane.pb: plane '/device:TPU:0': stat 'flops' is a negative count (-5000); ignored" ||
              w == "neg.xplane.pb: plane '/device:TPU:0': stat 'bytes_accessed' is a negative count (-1); ignored";
  CHECK(warned == 2);
}

TEST_CASE("xplane: GPU kernels are named by the HLO op they ran for, per program") {
  Pb p;
  p.sint(1, 0).bytes(2, "/device:GPU:0");
  Pb kernel_stats_a = Pb()
                          .msg(4, rt::stat_ref(kHloModule, kModuleName))
                          .msg(4, rt::stat_ref(kHloOp, kOpName))
                          .msg(4, rt::stat_int(kProgramId, 17))
                          .msg(4, rt::stat_uint(kCorrelation, 812));
  Pb kernel_stats_b = Pb()
                          .msg(4, rt::stat_ref(kHloModule, kModuleName))
                          .msg(4, rt::stat_str(kHloOp, "custom-call.1"))
                          .msg(4, rt::stat_int(kProgramId, 18));
  Pb stream;
  stream.sint(1, 7).bytes(2, "Stream #7(Kernel)").sint(3, 0);
  stream.msg(4, rt::event(1, 1'000'000, 3'100'000, kernel_stats_a));
  stream.msg(4, rt::event(2, 5'000'000, 148'000'000, kernel_stats_b));
  Pb copies;
  copies.sint(1, 8).bytes(2, "Stream #8(MemcpyH2D)").sint(3, 0).msg(4, rt::event(3, 0, 2'000'000));
  p.msg(3, stream).msg(3, copies);
  p.msg(4, rt::event_metadata(1, "loop_multiply_fusion"));
  p.msg(4, rt::event_metadata(2, "Cijk_Ailk_Bljk_BBS_BH_MT256x240x64"));
  p.msg(4, rt::event_metadata(3, "MemcpyH2D"));
  for (auto [id, name] : std::initializer_list<std::pair<int, const char*>>{
           {kHloOp, "hlo_op"}, {kHloModule, "hlo_module"}, {kProgramId, "program_id"},
           {kCorrelation, "correlation_id"}, {kVendor, "device_vendor"}, {kCcMajor, "compute_cap_major"},
           {kCcMinor, "compute_cap_minor"}, {kCores, "core_count"}, {kMemSize, "memory_size"},
           {kMemBw, "memory_bandwidth"}, {kClock, "clock_rate"}, {kModuleName, "jit_step"},
           {kOpName, "loop_multiply_fusion"}})
    p.msg(5, rt::stat_metadata(id, name));
  p.msg(6, rt::stat_str(kVendor, "Nvidia"));
  p.msg(6, rt::stat_int(kCcMajor, 9)).msg(6, rt::stat_int(kCcMinor, 0)).msg(6, rt::stat_int(kCores, 132));
  p.msg(6, rt::stat_uint(kMemSize, 85'000'000'000)).msg(6, rt::stat_uint(kMemBw, 3'352'320'000'000));
  p.msg(6, rt::stat_int(kClock, 1'980'000));
  auto t = parse_xplane(xspace({p}), "gpu.xplane.pb");
  REQUIRE(t.ok());
  REQUIRE(t->devices.size() == 1);
  const Device& d = t->devices[0];
  // CUPTI planes carry no name: 9.0 with 132 SMs and 85 GB is an H100 SXM.
  CHECK(d.model.empty());
  CHECK(d.vendor == "Nvidia");
  CHECK(identify(d).model == "NVIDIA H100 80GB HBM3");
  CHECK(identify(d).inferred);
  CHECK(chip_name(d) == "h100-sxm");
  CHECK(*d.caps.clock_hz == Approx(1.98e9));  // clock_rate is in kHz
  CHECK(*d.caps.hbm_bytes_per_s == Approx(3.35232e12));
  REQUIRE(d.events.size() == 3);
  const OpInfo& fusion = t->ops[d.events[0].op];
  CHECK(fusion.name == "loop_multiply_fusion");
  CHECK(fusion.kernel.empty());  // the kernel is the op itself
  CHECK(fusion.module == "jit_step");
  CHECK(fusion.program_id == 17u);
  CHECK(d.events[0].correlation_id == 812);
  const OpInfo& gemm = t->ops[d.events[1].op];
  CHECK(gemm.name == "custom-call.1");
  CHECK(gemm.kernel == "Cijk_Ailk_Bljk_BBS_BH_MT256x240x64");
  CHECK(gemm.program_id == 18u);
  CHECK(gemm.op_class == OpClass::kCompute);
  const OpInfo& copy = t->ops[d.events[2].op];
  CHECK(copy.category == "memcpy");
  CHECK(copy.op_class == OpClass::kDataMovement);
}

TEST_CASE("xplane: truncated files fail with the byte offset, at every cut") {
  const std::string full = xspace({tpu_plane()});
  int failures = 0;
  for (std::size_t cut = 1; cut < full.size(); cut += 7) {
    auto t = parse_xplane(std::string_view(full).substr(0, cut), "cut.xplane.pb");
    if (t.ok()) continue;  // a cut on a field boundary is a valid, shorter XSpace
    ++failures;
    CHECK_THAT(std::string(t.status().message()), Catch::StartsWith("cut.xplane.pb: byte "));
  }
  CHECK(failures > 0);
}

TEST_CASE("xplane: a length beyond the remaining bytes is refused, not allocated") {
  // Field 1 (planes), wire type 2, length 2^32 - 1, then nothing.
  const std::string bytes = "\x0a\xff\xff\xff\xff\x0f";
  auto t = parse_xplane(bytes, "huge.xplane.pb");
  REQUIRE_FALSE(t.ok());
  CHECK(std::string(t.status().message()) ==
        "huge.xplane.pb: byte 0: truncated length-delimited field (length 4294967295, 0 bytes remain)");
}

TEST_CASE("xplane: invalid wire types and negative durations are located errors") {
  auto bad_type = parse_xplane(std::string("\x0a\x02\x0f\x00", 4), "wt.xplane.pb");
  REQUIRE_FALSE(bad_type.ok());
  CHECK_THAT(std::string(bad_type.status().message()), Catch::Contains("byte 2: invalid wire type 7"));

  Pb p;
  p.sint(1, 1).bytes(2, "/device:TPU:0");
  p.msg(3, Pb().sint(1, 1).bytes(2, "XLA Ops").msg(4, rt::event(1, 0, -5)));
  p.msg(4, rt::event_metadata(1, "op"));
  auto neg = parse_xplane(xspace({p}), "neg.xplane.pb");
  REQUIRE_FALSE(neg.ok());
  CHECK_THAT(std::string(neg.status().message()), Catch::Contains("negative duration_ps -5"));
}

TEST_CASE("xplane: events naming undefined metadata are kept and reported") {
  Pb p;
  p.sint(1, 1).bytes(2, "/device:TPU:0");
  p.msg(3, Pb().sint(1, 1).bytes(2, "XLA Ops").msg(4, rt::event(42, 0, 1000)));
  auto t = parse_xplane(xspace({p}), "nometa.xplane.pb");
  REQUIRE(t.ok());
  CHECK(t->ops[t->devices[0].events[0].op].name == "metadata #42");
  REQUIRE(t->warnings.size() == 1);
  CHECK_THAT(t->warnings[0], Catch::Contains("event metadata 42"));
}

TEST_CASE("xplane: HloProtos in /host:metadata are kept as bytes by module and program") {
  Pb meta;
  meta.sint(1, 0).bytes(2, "/host:metadata");
  meta.msg(4, rt::event_metadata(5, "jit_f(77)", {}, Pb().msg(5, Pb().sint(1, 1).bytes(6, std::string("\x0a\x03\x61\x62\x63", 5)))));
  meta.msg(5, rt::stat_metadata(1, "Hlo Proto"));
  auto t = parse_xplane(xspace({tpu_plane(), meta}), "meta.xplane.pb");
  REQUIRE(t.ok());
  REQUIRE(t->hlo_modules.size() == 1);
  CHECK(t->hlo_modules[0].module == "jit_f");
  CHECK(t->hlo_modules[0].program_id == 77u);
  CHECK(t->hlo_modules[0].bytes == std::string("\x0a\x03\x61\x62\x63", 5));
}

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
      std::string(ROOFLINE_SOURCE_DIR) + "/examples/profiles/tpu_v6e_x4_inference_2.xplane.pb"};
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

TEST_CASE("proto wire: varints of every length, with and without eight bytes after them") {
  using roofline::detail::read_varint;
  auto encode = [](std::uint64_t v) {
    std::string s;
    do {
      s.push_back(static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
      v >>= 7;
    } while (v != 0);
    return s;
  };
  std::vector<std::uint64_t> values = {0, 1, 127, 128, 300, std::numeric_limits<std::uint64_t>::max()};
  for (int bits = 7; bits < 64; bits += 7) {
    values.push_back((std::uint64_t{1} << bits) - 1);
    values.push_back(std::uint64_t{1} << bits);
    values.push_back((std::uint64_t{1} << bits) + 0x5a5a5a5a5a5a5a5aull % (std::uint64_t{1} << bits));
  }
  for (std::uint64_t v : values)
    // The slow path; the fast path, followed by bytes that each would end a
    // varint (0x00) or none would (0xff); exactly eight bytes from its start.
    for (const std::string& tail : {std::string(), std::string(12, '\xff'), std::string(12, '\0'),
                                    std::string(encode(v).size() < 8 ? 8 - encode(v).size() : 0, '\x7f')}) {
      const std::string bytes = encode(v) + tail;
      std::size_t pos = 0;
      std::uint64_t got = 0;
      INFO(v << " followed by " << tail.size() << " bytes");
      REQUIRE(read_varint(reinterpret_cast<const std::uint8_t*>(bytes.data()), pos, bytes.size(), got));
      CHECK(got == v);
      CHECK(pos == bytes.size() - tail.size());
      // Cut one byte short: truncated.
      std::size_t cut_pos = 0;
      CHECK_FALSE(read_varint(reinterpret_cast<const std::uint8_t*>(bytes.data()), cut_pos,
                              encode(v).size() - 1, got));
    }
  // More than 64 bits: a tenth byte above 1, or an eleventh byte.
  for (const std::string& tail : {std::string(), std::string(12, '\0')}) {
    const std::string over = std::string(9, '\x80') + '\x02' + tail;
    const std::string eleven = std::string(10, '\x80') + '\x01' + tail;
    std::size_t pos = 0;
    std::uint64_t got = 0;
    CHECK_FALSE(read_varint(reinterpret_cast<const std::uint8_t*>(over.data()), pos, over.size(), got));
    CHECK_FALSE(read_varint(reinterpret_cast<const std::uint8_t*>(eleven.data()), pos, eleven.size(), got));
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
