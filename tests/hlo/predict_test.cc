#include <catch2/catch.hpp>

#include <cmath>

#include "roofline/collectives/collective.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/ops/matmul.hpp"
#include "tests/test_support.hpp"

using Catch::Detail::Approx;
using roofline::HloModule;

namespace {

HloModule parse(const std::string& text) {
  auto m = roofline::parse_hlo_text(text, "test.hlo");
  INFO(m.status().message());
  REQUIRE(m.ok());
  return std::move(*m);
}

HloModule read(const std::string& name) {
  auto m = roofline::read_hlo_file(roofline::testing::test_data("hlo/" + name).string());
  INFO(m.status().message());
  REQUIRE(m.ok());
  return std::move(*m);
}

}  // namespace

TEST_CASE("hlo predict: a dot instruction has the roofline of the same matmul") {
  HloModule m = parse(
      "HloModule mm\nENTRY e {\n  a = bf16[8192,8192]{1,0} parameter(0)\n  b = bf16[8192,8192]{1,0} parameter(1)\n"
      "  ROOT d = bf16[8192,8192]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  const roofline::Prediction p = roofline::predict(*m.instruction("d"), v5e);
  const roofline::Prediction ref =
      roofline::predict(roofline::Matmul{.m = 8192, .k = 8192, .n = 8192, .dtype = roofline::DType::kBF16}, v5e);
  // 2 x 8192^3 = 1.0995e12 FLOP at 1.97e14 FLOP/s = 5.58 ms;
  // 3 x 8192^2 x 2 B = 402,653,184 B at 8.2e11 B/s = 0.491 ms: compute-bound.
  CHECK(p.flops == 2.0 * 8192 * 8192 * 8192);
  CHECK(p.t_math_s == Approx(2.0 * 8192 * 8192 * 8192 / 1.97e14));
  CHECK(p.hbm_bytes == 3.0 * 8192 * 8192 * 2);
  CHECK(p.t_hbm_s == Approx(402653184 / 8.2e11));
  CHECK(p.bound == roofline::Bound::kCompute);
  CHECK(p.t_math_s == Approx(ref.t_math_s));
  CHECK(p.t_hbm_s == Approx(ref.t_hbm_s));
}

TEST_CASE("hlo predict: a collective's T_ici comes from the collective model with V and the group") {
  HloModule m = parse(
      "HloModule c, num_partitions=16\nENTRY e {\n  x = bf16[4096,1024]{1,0} parameter(0)\n"
      "  ROOT ag = bf16[65536,1024]{1,0} all-gather(x), channel_id=1, replica_groups=[1,16]<=[16], "
      "dimensions={0}, use_global_device_ids=true\n}\n");
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  const roofline::Prediction p = roofline::predict(*m.instruction("ag"), v5e);
  // V = 65536 x 1024 x 2 B = 134,217,728 B over a wrapped 16-ring of v5e:
  // V / (2 x 4.5e10 B/s) = 1.49 ms by the scaling book's formula.
  const double v = 65536.0 * 1024 * 2;
  const roofline::CollectiveTime t =
      roofline::collective_time_on_group(roofline::CollectiveKind::kAllGather, v, 16, v5e);
  CHECK(p.t_ici_s == Approx(t.t_ici_s));
  CHECK(p.t_ici_s == Approx(v / 9e10).epsilon(0.02));
  CHECK(p.ici_bytes == Approx(t.bytes_per_link));
  CHECK(p.bound == roofline::Bound::kCommunication);
  // Its HBM traffic: read the 8 MiB shard, write the 128 MiB result.
  CHECK(p.hbm_bytes == 4096.0 * 1024 * 2 + v);
}

TEST_CASE("hlo predict: a group of one device does not communicate") {
  HloModule m = parse(
      "HloModule c\nENTRY e {\n  x = f32[1024]{0} parameter(0)\n"
      "  ROOT ar = f32[1024]{0} all-reduce(x), replica_groups={{0}}, to_apply=a\n}\n"
      "a {\n  p = f32[] parameter(0)\n  q = f32[] parameter(1)\n  ROOT s = f32[] add(p, q)\n}\n");
  // (The reducer follows its user here; names resolve once the module is read.)
  CHECK(roofline::predict(*m.instruction("ar"), roofline::chip("tpu-v5e")).t_ici_s == 0);
}

TEST_CASE("hlo predict: host offload copies are bounded by PCIe") {
  HloModule m = parse(
      "HloModule h\nENTRY e {\n  x = f32[5,1024,1024,256]{3,2,1,0:T(8,128)} parameter(0)\n"
      "  cs = (f32[5,1024,1024,256]{3,2,1,0:T(8,128)S(5)}, f32[5,1024,1024,256]{3,2,1,0:T(8,128)}, u32[]{:S(2)}) "
      "copy-start(x)\n  ROOT cd = f32[5,1024,1024,256]{3,2,1,0:T(8,128)S(5)} copy-done(cs)\n}\n");
  const roofline::Chip& v6e = roofline::chip("tpu-v6e");
  const roofline::Prediction p = roofline::predict(*m.instruction("cs"), v6e);
  // 5,368,709,120 B to host at 3.2e10 B/s PCIe = 168 ms (the trace measured
  // 182-194 ms); reading it from HBM at 1.638e12 B/s is only 3.28 ms.
  // The host link is its own term: nothing crosses the interconnect.
  CHECK(p.host_bytes == 5368709120.0);
  CHECK(p.t_host_s == Approx(5368709120.0 / 3.2e10));
  CHECK(p.ici_bytes == 0);
  CHECK(p.t_ici_s == 0);
  CHECK(p.t_hbm_s == Approx(5368709120.0 / 1.638e12));
  CHECK(p.t_lower_s == p.t_host_s);
  CHECK(p.t_upper_s == Approx(p.t_hbm_s + p.t_host_s));
  CHECK(p.bound == roofline::Bound::kHostLink);
  CHECK(roofline::bound_name(p.bound) == "host link");
}

TEST_CASE("hlo predict: a send to the host crosses the host link; the module total keeps it apart") {
  HloModule m = parse(
      "HloModule s\nENTRY e {\n  x = f32[1024,1024]{1,0} parameter(0)\n  tok = token[] after-all()\n"
      "  snd = (f32[1024,1024]{1,0}, u32[], token[]) send(x, tok), channel_id=1, is_host_transfer=true\n"
      "  ROOT sd = token[] send-done(snd), channel_id=1, is_host_transfer=true\n}\n");
  const roofline::Chip& v6e = roofline::chip("tpu-v6e");
  const roofline::Prediction p = roofline::predict(*m.instruction("snd"), v6e);
  // 4 MiB at v6e's 3.2e10 B/s PCIe (hardware/tpu-v6e.json).
  CHECK(p.host_bytes == 4194304.0);
  CHECK(p.t_host_s == Approx(4194304.0 / 3.2e10));
  CHECK(p.ici_bytes == 0);
  CHECK(p.t_ici_s == 0);
  CHECK(p.bound == roofline::Bound::kHostLink);
  const roofline::HloModulePrediction mp = roofline::predict(m, v6e);
  CHECK(mp.total.host_bytes == 4194304.0);
  CHECK(mp.total.ici_bytes == 0);
  CHECK(mp.total.t_host_s == Approx(p.t_host_s));
  // A chip without a PCIe figure counts the bytes and times none of them.
  roofline::Chip no_pcie = v6e;
  no_pcie.pcie_bytes_per_s = 0;
  const roofline::Prediction q = roofline::predict(*m.instruction("snd"), no_pcie);
  CHECK(q.host_bytes == 4194304.0);
  CHECK(q.t_host_s == 0);
  CHECK(q.bound != roofline::Bound::kHostLink);
}

TEST_CASE("hlo predict: an f64 op on a chip without f64 units is timed at its fp32 peak") {
  HloModule m = parse(
      "HloModule d\nENTRY e {\n  a = f64[256,256]{1,0} parameter(0)\n"
      "  ROOT d = f64[256,256]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  const roofline::Prediction p = roofline::predict(*m.instruction("d"), v5e);
  CHECK(p.t_math_s == Approx(2.0 * 256 * 256 * 256 / v5e.peak_flops_per_s_for(roofline::DType::kF32)));
}

TEST_CASE("hlo predict: a module lists loop bodies with their trip counts and totals them once") {
  HloModule m = read("while_loop.hlo.txt");
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  const roofline::HloModulePrediction p = roofline::predict(m, v5e);
  const roofline::HloPredictionRow* loop = nullptr;
  const roofline::HloPredictionRow* body_fusion = nullptr;
  const roofline::HloPredictionRow* cond_fusion = nullptr;
  for (const roofline::HloPredictionRow& r : p.rows) {
    if (r.instruction->name == "while.1") loop = &r;
    if (r.instruction->name == "broadcast_add_fusion") body_fusion = &r;
    if (r.instruction->name == "wrapped_compare") cond_fusion = &r;
  }
  REQUIRE(loop != nullptr);
  REQUIRE(body_fusion != nullptr);
  REQUIRE(cond_fusion != nullptr);
  CHECK(loop->aggregate);
  CHECK(loop->cost.trip_count == 10);
  CHECK(body_fusion->executions == 10);  // known_trip_count n=10
  CHECK(cond_fusion->executions == 11);  // the condition also runs the exiting time
  // The body fusion: sine (1024 transcendentals), multiply, convert (1 element),
  // add: 1024 + 1 + 1024 FLOPs per trip.
  CHECK(body_fusion->cost.transcendentals == 1024);
  CHECK(body_fusion->cost.flops == 1024 + 1 + 1024);
  // The loop row is the sum of the rows it runs, and the module total counts them once.
  double flops = 0, lower = 0;
  for (const roofline::HloPredictionRow& r : p.rows)
    if (!r.aggregate) {
      flops += r.prediction.flops * r.executions;
      lower += r.prediction.t_lower_s * r.executions;
    }
  CHECK(p.total.flops == Approx(flops));
  CHECK(p.total.t_lower_s == Approx(lower));
  CHECK(loop->prediction.flops == Approx(roofline::cost(*loop->instruction).flops));
  CHECK(p.total.flops == Approx(loop->prediction.flops));  // the copies around it do no arithmetic
  CHECK(p.unknown_trip_count_loops == 0);
  // predict() of the while instruction alone is its summary row.
  CHECK(roofline::predict(*m.instruction("while.1"), v5e).t_lower_s == Approx(loop->prediction.t_lower_s));
}

TEST_CASE("hlo predict: loops without a trip count and unknown custom calls are counted in the totals") {
  HloModule m = read("while_dynamic.hlo.txt");
  const roofline::HloModulePrediction p = roofline::predict(m, roofline::chip("tpu-v5e"));
  CHECK(p.unknown_trip_count_loops == 1);
  HloModule k = parse(
      "HloModule k\nENTRY e {\n  x = f32[8]{0} parameter(0)\n"
      "  ROOT y = f32[8]{0} custom-call(x), custom_call_target=\"my_kernel\"\n}\n");
  CHECK(roofline::predict(k, roofline::chip("tpu-v5e")).unknown_cost_instructions == 1);
}

TEST_CASE("hlo predict: the fixture collectives on 8 devices get a network time") {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  for (const char* name : {"psum.hlo.txt", "all_gather.hlo.txt", "reduce_scatter.hlo.txt", "all_to_all.hlo.txt",
                           "ppermute.hlo.txt", "psum_2d.hlo.txt"}) {
    INFO(name);
    HloModule m = read(name);
    const roofline::HloModulePrediction p = roofline::predict(m, v5e);
    CHECK(p.total.t_ici_s > 0);
    bool found = false;
    for (const roofline::HloPredictionRow& r : p.rows)
      if (r.cost.collective) {
        found = true;
        CHECK(r.cost.collective->group_size == (std::string(name) == "psum_2d.hlo.txt" ? 4 : 8));
      }
    CHECK(found);
  }
}

TEST_CASE("hlo predict: shared and recursive computations cost linear work") {
  // c0 calls c1 twice, c1 calls c2 twice, ... c40 negates: 2^40 negations
  // when expanded, costed by visiting each computation once.
  std::string text = "HloModule chain\nc40 {\n  p40 = f32[] parameter(0)\n  ROOT n40 = f32[] negate(p40)\n}\n";
  for (int i = 39; i >= 0; --i) {
    const std::string k = std::to_string(i), next = std::to_string(i + 1);
    text += (i == 0 ? "ENTRY c0 {\n" : "c" + k + " {\n");
    text += "  p" + k + " = f32[] parameter(0)\n  a" + k + " = f32[] call(p" + k + "), to_apply=c" + next + "\n";
    text += "  ROOT b" + k + " = f32[] call(a" + k + "), to_apply=c" + next + "\n}\n";
  }
  HloModule m = parse(text);
  CHECK(roofline::cost(*m.instruction("b0")).flops == std::ldexp(1.0, 39));
  const roofline::HloModulePrediction p = roofline::predict(m, roofline::chip("tpu-v5e"));
  CHECK(p.total.flops == std::ldexp(1.0, 40));
  CHECK(p.rows.size() <= (std::size_t{1} << 20) + 64);  // inlining stops; summary rows carry the rest

  // A while whose body is its own computation (not valid XLA) is refused
  // when read (tests/hlo/invalid_graph_test.cc), not costed.
  auto cyc = roofline::parse_hlo_text(
      "HloModule cyc\nENTRY loop {\n  x = f32[8]{0} parameter(0)\n  y = f32[8]{0} negate(x)\n"
      "  ROOT w = f32[8]{0} while(y), condition=loop, body=loop\n}\n",
      "cyc.hlo");
  REQUIRE_FALSE(cyc.ok());
  CHECK(cyc.status().message() ==
        "cyc.hlo:5:8: instruction 'w' of computation 'loop' calls 'loop' itself (HLO has no recursion)");
}
