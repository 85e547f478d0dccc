// How `roofline stats` splits busy time by class and category on the real
// profiles in ../shared/data/real: every busy instant counted once, sync
// waits kept apart, copy kernels as data movement. The pinned figures were
// measured with this build (`roofline stats FILE --format json`) and agree
// with SOURCES.md where it states them. Skipped when that folder is absent.
// One hand-built device checks the same rules where every figure is known.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "roofline/measure/op_stats.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"
#include "tests/trace/identify.hpp"
#include "tests/trace/read_support.hpp"

using namespace roofline;
using roofline::testing::chip_name;
using roofline::testing::require_real;

namespace {

Trace read(const std::string& relative) { return roofline::testing::read_real(relative); }

const CategoryStat& category(const std::vector<CategoryStat>& cats, std::string_view name, OpClass c) {
  auto it = std::find_if(cats.begin(), cats.end(),
                         [&](const CategoryStat& s) { return s.category == name && s.op_class == c; });
  REQUIRE(it != cats.end());
  return *it;
}

double busy_sum(const std::vector<CategoryStat>& cats) {
  double n = 0;
  for (const CategoryStat& c : cats) n += c.busy_s;
  return n;
}

// The invariant the split keeps on every device: classes and categories
// each add up to the busy time, which is the union of the busy ops.
void check_adds_up(const DeviceStats& d) {
  INFO(d.name);
  REQUIRE(d.busy_s > 0);
  CHECK(std::abs(d.compute_s + d.collective_s + d.data_movement_s - d.busy_s) <= 1e-9 * d.busy_s);
  CHECK(std::abs(busy_sum(d.categories) - d.busy_s) <= 1e-9 * d.busy_s);
  CHECK(d.busy_s <= d.window_s);
}

}  // namespace

TEST_CASE("stats categories: A100 16-rank trainer, overlapping streams count once") {
  const Trace t = read("hta/a100-80gb_16rank_rank0.json.gz");
  const TraceStats s = compute_op_stats(t);
  REQUIRE(s.devices.size() == 1);
  const DeviceStats& d = s.devices[0];
  check_adds_up(d);
  CHECK(std::abs(busy_sum(s.categories) - s.busy_s) <= 1e-9 * s.busy_s);
  // Measured: busy 438.424 ms of a 1.231461 s window; compute 210.996 ms,
  // the collective time no compute hides 185.317 ms, copies neither hides
  // 42.111 ms.
  CHECK(d.busy_s == Approx(0.438424).epsilon(1e-9));
  CHECK(d.window_s == Approx(1.231461).epsilon(1e-9));
  CHECK(d.compute_s == Approx(0.210996).epsilon(1e-9));
  CHECK(d.collective_s == Approx(0.185317).epsilon(1e-9));
  CHECK(d.data_movement_s == Approx(0.042111).epsilon(1e-9));
  // The NCCL kernels are "kernel" like every GEMM: the class tells them
  // apart. Their self times sum to 190.345 ms, 5.028 ms of it under compute
  // on another stream; the sum of self times over all categories
  // (449.763 ms) exceeds the busy time, the categories' busy times do not.
  const CategoryStat& nccl = category(d.categories, "kernel", OpClass::kCollective);
  CHECK(nccl.count == 80);
  CHECK(nccl.total_s == Approx(0.190345).epsilon(1e-9));
  CHECK(nccl.busy_s == Approx(0.185317).epsilon(1e-9));
  CHECK(category(d.categories, "kernel", OpClass::kCompute).count == 6000);
  double self = 0;
  for (const CategoryStat& c : d.categories) self += c.total_s;
  CHECK(self > d.busy_s * 1.02);
  CHECK(d.sync_s == 0);  // this file has no cuda_sync events
}

TEST_CASE("stats categories: a hand-built stream's kernels, nested kernels and waits, to the picosecond") {
  // Stream 7: a kernel [0, 100) with one nested [10, 30), a wait [120, 150)
  // holding a wait [125, 135), a kernel [200, 260); stream 8: a wait
  // [240, 300), last on the device. Busy: 100 + 60; sync: 30 + 60.
  Trace t;
  OpInfo kernel, wait;
  kernel.name = "gemm";
  kernel.category = "kernel";
  kernel.op_class = OpClass::kCompute;
  wait.name = "Stream Sync";
  wait.category = "cuda_sync";
  wait.op_class = OpClass::kSync;
  t.ops = {kernel, wait};
  Device d;
  d.name = "GPU 0";
  d.kind = DeviceKind::kGpu;
  d.lines = {Line{.id = 7, .name = "stream 7", .role = LineRole::kOps},
             Line{.id = 8, .name = "stream 8", .role = LineRole::kOps}};
  auto event = [](std::uint32_t line, std::int64_t start_ps, std::int64_t duration_ps, std::uint32_t op) {
    Event e;
    e.line = line;
    e.start_ps = start_ps;
    e.duration_ps = e.self_ps = duration_ps;
    e.op = op;
    return e;
  };
  d.events = {event(0, 0, 100, 0), event(0, 10, 20, 0),  event(0, 120, 30, 1),
              event(0, 125, 10, 1), event(0, 200, 60, 0), event(1, 240, 60, 1)};
  d.events[0].self_ps = 80;
  d.events[2].self_ps = 20;
  t.devices.push_back(d);
  const TraceStats s = compute_op_stats(t);
  REQUIRE(s.devices.size() == 1);
  const DeviceStats& ds = s.devices[0];
  check_adds_up(ds);
  CHECK(ds.busy_s == Approx(160e-12).epsilon(1e-12));
  CHECK(ds.compute_s == Approx(160e-12).epsilon(1e-12));
  CHECK(ds.sync_s == Approx(90e-12).epsilon(1e-12));
  CHECK(ds.window_s == Approx(260e-12).epsilon(1e-12));
  const CategoryStat& sync = category(ds.categories, "cuda_sync", OpClass::kSync);
  CHECK(sync.count == 3);
  CHECK(sync.busy_s == 0);
}

TEST_CASE("stats categories: cuda_sync waits are not busy time (A100-PG509-200 AlexNet)") {
  const Trace t = read("hta/a100_alexnet_trace.json.gz");
  // 41 cuda_sync events in the file (python json): 16 Stream Sync and 16+4
  // Stream Wait Event on streams 7 and 20, 5 Context Sync on stream -1.
  std::int64_t sync_ops = 0;
  for (const OpInfo& op : t.ops)
    if (op.category == "cuda_sync") {
      CHECK(op.op_class == OpClass::kSync);
      ++sync_ops;
    }
  CHECK(sync_ops == 3);  // Stream Sync, Stream Wait Event, Context Sync
  const TraceStats s = compute_op_stats(t);
  REQUIRE(s.devices.size() == 1);
  const DeviceStats& d = s.devices[0];
  check_adds_up(d);
  // The 36 on stream lines cover 554 us (measured); none of it is busy.
  const CategoryStat& sync = category(d.categories, "cuda_sync", OpClass::kSync);
  CHECK(sync.count == 36);
  CHECK(sync.total_s == Approx(554e-6).epsilon(1e-9));
  CHECK(sync.busy_s == 0);
  CHECK(d.sync_s == Approx(554e-6).epsilon(1e-9));
  // Busy = kernels 10.630 ms + copies 55.511 ms (measured); the kernels'
  // self times are untouched by the 16 waits that overlap them on stream 7:
  // 79 kernels, 10.692 ms (SOURCES.md: 10.69 ms).
  CHECK(d.busy_s == Approx(0.066141).epsilon(1e-9));
  CHECK(d.compute_s == Approx(0.010630).epsilon(1e-9));
  CHECK(d.data_movement_s == Approx(0.055511).epsilon(1e-9));
  const CategoryStat& kernels = category(d.categories, "kernel", OpClass::kCompute);
  CHECK(kernels.count == 79);
  CHECK(kernels.total_s == Approx(0.010692).epsilon(1e-9));
  // Sync rows come after the busy ones, outside the shares.
  double shares = 0;
  bool sync_seen = false;
  for (const OpStat& o : d.ops) {
    if (o.op_class == OpClass::kSync) sync_seen = true;
    else if (!o.async) {
      CHECK_FALSE(sync_seen);
      shares += o.share;
    }
  }
  CHECK(sync_seen);
  CHECK(shares == Approx(1.0));
}

TEST_CASE("stats categories: ROCm copy kernels are data movement") {
  // jax on MI300X: __amd_rocclr_copyBuffer runs with no HLO op (the event is
  // named by the kernel): 24 of them, 87.88 us (measured), against 30 GEMM
  // and fusion kernels of 3.387604 ms.
  const Trace gemm = read("tracelens/mi300x_jax08_gemm.xplane.pb");
  bool copy_seen = false;
  for (const OpInfo& op : gemm.ops)
    if (op.name.rfind("__amd_rocclr_copyBuffer", 0) == 0 || op.kernel.rfind("__amd_rocclr_copyBuffer", 0) == 0) {
      INFO(op.name);
      CHECK(op.op_class == OpClass::kDataMovement);
      copy_seen = true;
    }
  CHECK(copy_seen);
  const TraceStats s = compute_op_stats(gemm, {.device_id = 0});
  REQUIRE(s.devices.size() == 1);
  const DeviceStats& d = s.devices[0];
  check_adds_up(d);
  const CategoryStat& copies = category(d.categories, "kernel", OpClass::kDataMovement);
  CHECK(copies.count == 24);
  CHECK(copies.busy_s == Approx(87.88e-6).epsilon(1e-9));
  CHECK(d.compute_s == Approx(3.387604e-3).epsilon(1e-9));

  // PyTorch on an MI250 GCD (Kineto, ROCm 6.2): 14 kernels 110.881 us and 2
  // host-to-device copies 38.161 us (measured).
  const Trace mi250 = read("hta/mi250_minitoy_train_rocm6.2_kineto.json.gz");
  const TraceStats m = compute_op_stats(mi250);
  REQUIRE(m.devices.size() == 1);
  check_adds_up(m.devices[0]);
  CHECK(m.devices[0].compute_s == Approx(110.881e-6).epsilon(1e-9));
  CHECK(m.devices[0].data_movement_s == Approx(38.161e-6).epsilon(1e-9));
  CHECK(category(m.devices[0].categories, "gpu_memcpy", OpClass::kDataMovement).count == 2);
}

TEST_CASE("stats categories: every real trace adds up") {
  for (const char* f : {"xprof/tpu_v6e_x4_inference_2.xplane.pb", "xprof/v100_tf_bert_multiworker.xplane.pb",
                        "tracelens/mi300x_jax08_attention.xplane.pb", "tracelens/h100_qwen1.5-0.5b.pt.trace.json.gz",
                        "tracelens/b200x8_vllm_eager_rank0.pt.trace.json.gz",
                        "hta/a100x2_resnet_ddp_nccl_data.json.gz", "kineto/v100_resnet50_worker0.pt.trace.json.gz"}) {
    INFO(f);
    const TraceStats s = compute_op_stats(read(f));
    REQUIRE_FALSE(s.devices.empty());
    for (const DeviceStats& d : s.devices) check_adds_up(d);
    CHECK(std::abs(busy_sum(s.categories) - s.busy_s) <= 1e-9 * s.busy_s);
  }
}

TEST_CASE("stats: the A100-PG509-200 (42.3 GB) is the 40 GB part") {
  // All three hta files from this board report totalGlobalMem 42,297,524,224 B.
  for (const char* f : {"hta/a100_alexnet_trace.json.gz", "hta/a100_triton_example.json.gz",
                        "hta/a100x2_resnet_ddp_nccl_data.json.gz"}) {
    INFO(f);
    const Trace t = read(f);
    CHECK(t.devices[0].model == "NVIDIA A100-PG509-200");
    CHECK(t.devices[0].caps.memory_bytes == 42297524224.0);
    CHECK(chip_name(t.devices[0]) == "a100-sxm-40gb");
    CHECK(testing::identify(t.devices[0]).warning.empty());
  }
  CHECK(chip_name(read("hta/a100-80gb_16rank_rank0.json.gz").devices[0]) == "a100-sxm");
}
