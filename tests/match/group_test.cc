// The group step: op events into ops.
#include <catch2/catch.hpp>

#include "roofline/match/group.hpp"
#include "roofline/match/identify.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

TEST_CASE("group: each kernel and launching op is one op; every measured op event is in its group") {
  auto t = roofline::read_trace(roofline::testing::test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  auto devices = roofline::select_devices(*t, std::nullopt);
  REQUIRE(devices.ok());
  const roofline::MeasuredTrace m = roofline::measure(*t, std::nullopt);
  const roofline::OpGroups g = roofline::group_ops(*t, m, *devices);
  // The fixture's GPU runs a GEMM, an element-wise kernel, an NCCL all-reduce and a memcpy.
  REQUIRE(g.groups.size() == 4);
  std::int64_t events = 0;
  for (const roofline::OpGroup& op : g.groups) {
    CHECK_FALSE(op.xla);
    CHECK(op.count() == 1);
    CHECK(op.median_s() == Approx(static_cast<double>(op.self_ps) * 1e-12));
    events += op.count();
  }
  std::int64_t mapped = 0;
  const roofline::MeasuredDevice& gpu = m.devices[devices->front()];
  REQUIRE(g.occurrence_group[devices->front()].size() == gpu.ops.size());
  for (const roofline::OpOccurrences& o : gpu.ops) mapped += o.count;
  CHECK(mapped == events);
  // The GEMM's module is its launching aten op.
  bool mm = false;
  for (const roofline::OpGroup& op : g.groups) mm = mm || roofline::eager_module(*t, op) == "aten::mm";
  CHECK(mm);
}

TEST_CASE("group: a median of one sample, of an even count, and the mean run of a multi-kernel op") {
  roofline::OpGroup g;
  g.self_runs = {{1, 1}, {2, 1}, {3, 1}, {4, 1}};
  g.self_ps = 10;
  g.per_kernel = {{0, 4}};
  CHECK(g.count() == 4);
  CHECK(g.median_s() == Approx(2.5e-12));  // (2 + 3) / 2
  g.per_kernel = {{0, 2}, {1, 2}};          // two kernels per run: no per-run samples
  CHECK(g.count() == 2);
  CHECK(g.median_s() == Approx(5e-12));  // 10 ps over 2 runs
}
