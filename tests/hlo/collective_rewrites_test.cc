// The collective plan of a module (roofline/hlo/collective_rewrites.hpp):
// all-reduce + dynamic-slice of this device's shard costed as reduce-scatter,
// small all-reduces combined as XLA's AllReduceCombiner does, and replica
// groups timed over the mesh axes they span. The modules follow what jax
// 0.10.2's SPMD partitioner writes (8 virtual CPU devices,
// *.after_spmd-partitioning.*: an FSDP weight gradient is
// all-reduce -> dynamic-slice(ar, 0, reshape(dynamic-slice(table, partition-id))).
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "roofline/collectives/collective.hpp"
#include "roofline/hlo/collective_rewrites.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "tests/cli_support.hpp"
#include "tests/hlo/hlo_test_support.hpp"

using roofline::chip;
using roofline::CollectiveKind;
using roofline::HloCollectiveOptions;
using roofline::HloCollectiveRewrites;
using roofline::HloModulePrediction;
using roofline::testing::must_parse;

namespace {

constexpr double kW = 4.5e10;  // v5e one link, one way

const roofline::HloPredictionRow& row(const HloModulePrediction& p, std::string_view name) {
  for (const roofline::HloPredictionRow& r : p.rows)
    if (r.instruction->name == name) return r;
  FAIL("no row " << name);
  return p.rows.front();
}

HloModulePrediction predicted(const roofline::HloModule& m, const char* chip_name, HloCollectiveOptions o = {}) {
  auto p = roofline::predict(m, chip(chip_name), o);
  INFO(p.status().message());
  REQUIRE(p.ok());
  return *std::move(p);
}

roofline::Mesh laid(std::vector<roofline::MeshAxis> axes, const char* chip_name) {
  std::string why;
  auto m = roofline::lay_out_mesh(std::move(axes), chip(chip_name), &why);
  INFO(why);
  REQUIRE(m.has_value());
  return *m;
}

const std::string kAdd = R"(
%add (a: bf16[], b: bf16[]) -> bf16[] {
  %a = bf16[] parameter(0)
  %b = bf16[] parameter(1)
  ROOT %s = bf16[] add(%a, %b)
}

%addf (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %t = f32[] add(%x, %y)
}
)";

// The FSDP gradient of a bf16[4096,4096] weight sharded over 8 devices.
std::string fsdp_module(const char* header_extra = "") {
  return std::string("HloModule fsdp, num_partitions=8") + header_extra + "\n" + kAdd + R"(
ENTRY %main (p0: bf16[4096,4096]) -> bf16[4096,512] {
  %p0 = bf16[4096,4096]{1,0} parameter(0)
  %ar = bf16[4096,4096]{1,0} all-reduce(%p0), channel_id=2, replica_groups=mesh['axis_0'=1,'axis_1'=8] {'axis_1'}, use_global_device_ids=true, to_apply=%add
  %table = s32[8]{0} constant({0, 512, 1024, 1536, 2048, 2560, 3072, 3584})
  %pid = u32[] partition-id()
  %ds1 = s32[1]{0} dynamic-slice(%table, %pid), dynamic_slice_sizes={1}
  %off = s32[] reshape(%ds1)
  %zero = s32[] constant(0)
  ROOT %shard = bf16[4096,512]{1,0} dynamic-slice(%ar, %zero, %off), dynamic_slice_sizes={4096,512}
}
)";
}

}  // namespace

TEST_CASE("collective plan: an FSDP gradient's all-reduce + dynamic-slice is costed as a reduce-scatter") {
  // V = 4096 x 4096 x 2 = 33.5 MB over a ring of 8 on v5e (no wrap):
  // reduce-scatter 7/8 V / W = 652 us, the all-reduce as written twice that.
  const roofline::HloModule m = must_parse(fsdp_module());
  const double v = 4096.0 * 4096 * 2;
  const HloModulePrediction p = predicted(m, "tpu-v5e");
  const roofline::HloPredictionRow& ar = row(p, "ar");
  REQUIRE(ar.cost.collective);
  CHECK(ar.cost.collective->kind == CollectiveKind::kReduceScatter);
  CHECK(ar.cost.collective->from_all_reduce);
  CHECK(ar.prediction.t_ici_s == Approx(7.0 / 8 * v / kW));
  CHECK(ar.cost.bytes_written == Approx(v / 8));  // only the shard is written
  CHECK(p.collective_rewrites.applied);
  CHECK(p.collective_rewrites.reduce_scatters == 1);

  const HloModulePrediction as_written = predicted(m, "tpu-v5e", {.rewrites = HloCollectiveRewrites::kNone});
  CHECK(row(as_written, "ar").cost.collective->kind == CollectiveKind::kAllReduce);
  CHECK(row(as_written, "ar").prediction.t_ici_s == Approx(2 * 7.0 / 8 * v / kW));
  CHECK(as_written.collective_rewrites.reduce_scatters == 0);
}

TEST_CASE("collective plan: a scheduled (compiled) module keeps its collectives under the automatic choice") {
  const roofline::HloModule m = must_parse(fsdp_module(", is_scheduled=true"));
  const HloModulePrediction p = predicted(m, "tpu-v5e");
  CHECK_FALSE(p.collective_rewrites.applied);
  CHECK(row(p, "ar").cost.collective->kind == CollectiveKind::kAllReduce);
  const HloModulePrediction forced = predicted(m, "tpu-v5e", {.rewrites = HloCollectiveRewrites::kAccelerator});
  CHECK(row(forced, "ar").cost.collective->kind == CollectiveKind::kReduceScatter);
}

TEST_CASE("collective plan: an all-reduce with another use, or a slice not by device id, stays an all-reduce") {
  std::string text = fsdp_module();
  // The slice's offset is a constant: not this device's shard.
  const std::string by_id = "%zero, %off)";
  text.replace(text.find(by_id), by_id.size(), "%zero, %zero)");
  const roofline::HloModule m = must_parse(text);  // rows point into it: it outlives them
  const HloModulePrediction p = predicted(m, "tpu-v5e");
  CHECK(row(p, "ar").cost.collective->kind == CollectiveKind::kAllReduce);
  CHECK(p.collective_rewrites.reduce_scatters == 0);
}

namespace {

// Five all-reduces over all 8 partitions: ar0..ar2 bf16 2 KiB each and
// independent; ar3 reduces ar0's result (depends on it); ar4 is f32. Each is
// latency-bound on v5e (2 x 7 hops x 1 us = 14 us > its bytes' 80 ns), as
// a gradient step's bias and norm gradients are.
std::string many_all_reduces() {
  const std::string groups = "channel_id=1, replica_groups=[1,8]<=[8], use_global_device_ids=true";
  return "HloModule grads, num_partitions=8\n" + kAdd + R"(
ENTRY %main (p0: bf16[1024], p1: bf16[1024], p2: bf16[1024], pf: f32[256]) -> (bf16[1024], bf16[1024], bf16[1024], bf16[1024], f32[256]) {
  %p0 = bf16[1024]{0} parameter(0)
  %p1 = bf16[1024]{0} parameter(1)
  %p2 = bf16[1024]{0} parameter(2)
  %pf = f32[256]{0} parameter(3)
  %ar0 = bf16[1024]{0} all-reduce(%p0), )" + groups + R"(, to_apply=%add
  %ar1 = bf16[1024]{0} all-reduce(%p1), )" + groups + R"(, to_apply=%add
  %ar2 = bf16[1024]{0} all-reduce(%p2), )" + groups + R"(, to_apply=%add
  %ar3 = bf16[1024]{0} all-reduce(%ar0), )" + groups + R"(, to_apply=%add
  %ar4 = f32[256]{0} all-reduce(%pf), )" + groups + R"(, to_apply=%addf
  ROOT %t = (bf16[1024]{0}, bf16[1024]{0}, bf16[1024]{0}, bf16[1024]{0}, f32[256]{0}) tuple(%ar1, %ar2, %ar3, %ar4, %p0)
}
)";
}

double sum_t_ici(const HloModulePrediction& p) {
  double t = 0;
  for (const roofline::HloPredictionRow& r : p.rows)
    if (r.cost.collective) t += r.prediction.t_ici_s;
  return t;
}

}  // namespace

TEST_CASE("collective plan: independent all-reduces of one type combine as XLA's AllReduceCombiner does") {
  const roofline::HloModule m = must_parse(many_all_reduces());
  const roofline::Chip& v5e = chip("tpu-v5e");
  const double kib2 = 2.0 * 1024;
  const HloModulePrediction p = predicted(m, "tpu-v5e");
  CHECK(p.collective_rewrites.combined_all_reduces == 3);
  CHECK(p.collective_rewrites.all_reduce_combines == 1);
  for (const char* name : {"ar0", "ar1", "ar2"}) CHECK(row(p, name).cost.collective->combined_ops == 3);
  CHECK(row(p, "ar3").cost.collective->combined_ops == 1);  // depends on ar0
  CHECK(row(p, "ar4").cost.collective->combined_ops == 1);  // f32, another key
  // ar0..ar2 together: one all-reduce of 6 KiB; each row a third of it.
  const double combined = roofline::collective_time_on_group(CollectiveKind::kAllReduce, 3 * kib2, 8, v5e).t_ici_s;
  CHECK(combined == Approx(14e-6));  // the latency floor: 2 x 7 hops
  CHECK(row(p, "ar1").prediction.t_ici_s == Approx(combined / 3));
  const double one = roofline::collective_time_on_group(CollectiveKind::kAllReduce, kib2, 8, v5e).t_ici_s;
  const HloModulePrediction as_written = predicted(m, "tpu-v5e", {.rewrites = HloCollectiveRewrites::kNone});
  CHECK(row(as_written, "ar1").prediction.t_ici_s == Approx(one));
  // Combining saves two of the three ops' latency floors.
  CHECK(sum_t_ici(as_written) - sum_t_ici(p) == Approx(3 * one - combined));
  CHECK(sum_t_ici(as_written) - sum_t_ici(p) == Approx(28e-6));

  // A 5 KiB threshold takes ar0 and ar1 (4 KiB), not ar2 as well (6 KiB);
  // ar2 and ar3 then combine (ar3 depends on ar0 only, in another group).
  const HloModulePrediction small = predicted(m, "tpu-v5e", {.combine_threshold_bytes = 5.0 * 1024});
  CHECK(small.collective_rewrites.combined_all_reduces == 4);
  CHECK(small.collective_rewrites.all_reduce_combines == 2);
  CHECK(row(small, "ar2").cost.collective->combined_ops == 2);
  CHECK(row(small, "ar4").cost.collective->combined_ops == 1);
}

TEST_CASE("collective plan: XLA's default combine threshold is 30 MiB + 7 bytes and 256 ops") {
  // xla/service/collective_utils.h kDefaultAllReduceCombineThreshold; count
  // 256 in xla/service/gpu/gpu_compiler.cc.
  CHECK(roofline::kXlaAllReduceCombineThresholdBytes == 31457287.0);
  CHECK(roofline::kXlaAllReduceCombineThresholdCount == 256);
}

namespace {

std::string gather_module(int partitions, const std::string& groups) {
  return "HloModule g, num_partitions=" + std::to_string(partitions) + R"(
ENTRY %main (p: bf16[1024,16384]) -> bf16[8192,16384] {
  %p = bf16[1024,16384]{1,0} parameter(0)
  ROOT %ag = bf16[8192,16384]{1,0} all-gather(%p), channel_id=1, replica_groups=)" + groups +
         R"(, dimensions={0}, use_global_device_ids=true
}
)";
}

}  // namespace

TEST_CASE("collective plan: with a mesh each group is timed over the axes it spans, as Collective times it") {
  // The blog's FSDP all-gather: bf16[8192,16384] gathered over a v5e 2x4.
  const double v = 8192.0 * 16384 * 2;
  const roofline::Mesh mesh = laid({{.name = "X", .size = 2}, {.name = "Y", .size = 4}}, "tpu-v5e");
  // Each module outlives its prediction, whose rows point into it.
  const roofline::HloModule m8 = must_parse(gather_module(8, "mesh['axis_0'=8,'axis_1'=1] {'axis_0'}"));
  const HloModulePrediction all8 = predicted(m8, "tpu-v5e", {.mesh = &mesh});
  const double collective_s = roofline::collective_time(mesh, CollectiveKind::kAllGather, 0b11, v).t_ici_s;
  CHECK(row(all8, "ag").prediction.t_ici_s == Approx(collective_s).epsilon(1e-9));
  CHECK(row(all8, "ag").prediction.t_ici_s == Approx(7.0 / 8 * v / kW));
  CHECK(all8.collective_rewrites.mesh_timed == 1);
  // Without a mesh the group of 8 is one ring: the same figure.
  const HloModulePrediction no_mesh = predicted(m8, "tpu-v5e");
  CHECK(row(no_mesh, "ag").prediction.t_ici_s == Approx(collective_s).epsilon(0.05));
  // Groups {0,1,2,3},{4,5,6,7} are axis Y (minor); {0,4},{1,5},... axis X.
  const roofline::HloModule my = must_parse(gather_module(8, "[2,4]<=[8]"));
  const HloModulePrediction y = predicted(my, "tpu-v5e", {.mesh = &mesh});
  CHECK(row(y, "ag").prediction.t_ici_s ==
        Approx(roofline::collective_time(mesh, CollectiveKind::kAllGather, 0b10, v).t_ici_s));
  const roofline::HloModule mx = must_parse(gather_module(8, "[4,2]<=[2,4]T(1,0)"));
  const HloModulePrediction x = predicted(mx, "tpu-v5e", {.mesh = &mesh});
  CHECK(row(x, "ag").prediction.t_ici_s ==
        Approx(roofline::collective_time(mesh, CollectiveKind::kAllGather, 0b01, v).t_ici_s));
}

TEST_CASE("collective plan: a 16x16 v5e mesh splits a whole-pod all-gather over its two wrapping rings") {
  // Without a mesh a group of 256 is one ring that does not wrap (v5e wraps
  // axes of 16 only): 255/256 V / W. Laid on 16x16, both axes wrap and the
  // book's two-axis formula holds: V / (2 x W_bidi) = V / (4 W).
  const double v = 8192.0 * 16384 * 2;
  const roofline::Mesh mesh = laid({{.name = "X", .size = 16}, {.name = "Y", .size = 16}}, "tpu-v5e");
  const std::string text = gather_module(256, "[1,256]<=[256]");
  const roofline::HloModule m = must_parse(text);  // rows point into it: it outlives them
  const HloModulePrediction on_mesh = predicted(m, "tpu-v5e", {.mesh = &mesh});
  CHECK(row(on_mesh, "ag").prediction.t_ici_s == Approx(v / (4 * kW)));
  const HloModulePrediction ring = predicted(m, "tpu-v5e");
  CHECK(row(ring, "ag").prediction.t_ici_s == Approx(255.0 / 256 * v / kW));
}

TEST_CASE("collective plan: a mesh of another size or chip is refused with the reason") {
  const roofline::Mesh four = laid({{.name = "X", .size = 4}}, "tpu-v5e");
  auto p = roofline::predict(must_parse(fsdp_module()), chip("tpu-v5e"), {.mesh = &four});
  REQUIRE_FALSE(p.ok());
  CHECK(std::string(p.status().message()).find("the mesh has 4 devices but the module runs on 8") != std::string::npos);
  const roofline::Mesh other = laid({{.name = "X", .size = 8}}, "tpu-v4");
  auto q = roofline::predict(must_parse(fsdp_module()), chip("tpu-v5e"), {.mesh = &other});
  REQUIRE_FALSE(q.ok());
  CHECK(std::string(q.status().message()).find("laid on tpu-v4") != std::string::npos);
}

// The CLI's --mesh, --slice and --collective-rewrites (src/cli/cmd_hlo.cc).

namespace {
std::string mesh_fixture() {
  return "'" + roofline::testing::test_data("hlo/mesh_4x2.hlo.txt").string() + "'";
}
}  // namespace

TEST_CASE("cli hlo --mesh: groups timed over the mesh's axes, counted in JSON; bad options refused") {
  using roofline::testing::run_cli;
  // mesh_4x2: a compiled (scheduled) jax module on mesh['axis_0'=4,'axis_1'=2]
  // whose two collectives run over axis_1: on --mesh X=4,Y=2 that is Y.
  auto r = run_cli("hlo " + mesh_fixture() + " --chip tpu-v5e --mesh X=4,Y=2 --slice 4x2 --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json c = nlohmann::json::parse(r.out)["total"]["collective_rewrites"];
  CHECK(c["mesh_timed"] == 2);
  CHECK(c["applied"] == false);  // is_scheduled=true: already compiled
  auto text = run_cli("hlo " + mesh_fixture() + " --chip tpu-v5e --mesh X=4,Y=2");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("2 collective(s) timed over its axes") != std::string::npos);

  auto wrong = run_cli("hlo " + mesh_fixture() + " --chip tpu-v5e --mesh X=4");
  CHECK(wrong.exit_code != 0);
  CHECK(wrong.err.find("the mesh has 4 devices but the module runs on 8") != std::string::npos);
  auto slice_alone = run_cli("hlo " + mesh_fixture() + " --chip tpu-v5e --slice 2x4");
  CHECK(slice_alone.exit_code != 0);
  CHECK(slice_alone.err.find("--slice needs --mesh") != std::string::npos);
  auto bad = run_cli("hlo " + mesh_fixture() + " --chip tpu-v5e --collective-rewrites sometimes");
  CHECK(bad.exit_code != 0);
  CHECK(bad.err.find("expected auto, accelerator or none") != std::string::npos);
}
