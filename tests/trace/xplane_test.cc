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
