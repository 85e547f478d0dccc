// Meshes laid on interconnects, and collectives over their axes pinned to
// the scaling book's worked examples (anchors.md 2.4, 2.5; sharding.md).
#include <catch2/catch.hpp>

#include <string>

#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/parse.hpp"

using roofline::chip;
using roofline::CollectiveKind;
using roofline::Mesh;
using roofline::parse_mesh;

namespace {

Mesh mesh(const char* spec, const char* chip_name) {
  auto m = parse_mesh(spec, chip(chip_name));
  INFO(spec << " on " << chip_name << ": " << (m.ok() ? "" : std::string(m.status().message())));
  REQUIRE(m.ok());
  return *m;
}

double ici(const Mesh& m, CollectiveKind k, const char* axes, double v) {
  auto t = roofline::collective_time(m, k, axes, v);
  REQUIRE(t.ok());
  return t->t_ici_s;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("mesh: v4 4x4x4 puts each axis on its own wrapping torus dimension") {
  const Mesh m = mesh("X=4,Y=4,Z=4", "tpu-v4");
  CHECK(m.slice_shape == std::vector<int>{4, 4, 4});
  for (std::size_t i = 0; i < 3; ++i) {
    REQUIRE(m.placement[i].size() == 1);
    CHECK(m.placement[i][0].wraps);
    CHECK(m.placement[i][0].stride == 1);
  }
  CHECK(m.device_count() == 64);
}

TEST_CASE("mesh: v5e wraps only axes of 16") {
  const Mesh small = mesh("X=8,Y=4", "tpu-v5e");
  CHECK_FALSE(small.placement[0][0].wraps);
  CHECK_FALSE(small.placement[1][0].wraps);
  const Mesh pod = mesh("X=16,Y=16", "tpu-v5e");
  CHECK(pod.placement[0][0].wraps);
  CHECK(pod.placement[1][0].wraps);
  // An 8x16 slice wraps on its long axis only (tpus.md).
  const Mesh half = mesh("X=8,Y=16", "tpu-v5e");
  CHECK_FALSE(half.placement[0][0].wraps);
  CHECK(half.placement[1][0].wraps);
}

TEST_CASE("mesh: v5p wraps only slices made of whole 4x4x4 cubes") {
  // 64 chips on one axis: 4x4x4, three wrapping rings.
  const Mesh cube = mesh("X=64", "tpu-v5p");
  CHECK(cube.slice_shape == std::vector<int>{4, 4, 4});
  REQUIRE(cube.placement[0].size() == 3);
  for (const auto& p : cube.placement[0]) CHECK(p.wraps);
  // 16 chips cannot make a cube: no wraparound anywhere (a 2x2x4 slice has none).
  const Mesh sixteen = mesh("X=16", "tpu-v5p");
  for (const auto& p : sixteen.placement[0]) CHECK_FALSE(p.wraps);
}

TEST_CASE("mesh: an axis longer than any dimension spans several") {
  // v5e X=256: 16x16, both dimensions, both wrap; all-gather over it uses
  // two rings: V / (2 W_bidi).
  const Mesh m = mesh("X=256", "tpu-v5e");
  CHECK(m.placement[0].size() == 2);
  const double v = 1e8;
  CHECK(ici(m, CollectiveKind::kAllGather, "X", v) == Approx(v / (2 * 9e10)));
}

TEST_CASE("mesh: more axes than dimensions share one, the major axis strided") {
  const Mesh m = mesh("A=4,B=4,C=4", "tpu-v5e");
  int strided = 0, placements = 0;
  for (const auto& axis : m.placement)
    for (const auto& p : axis) {
      ++placements;
      if (p.stride > 1) ++strided;
    }
  CHECK(strided >= 1);
  CHECK(placements >= 3);
  CHECK(m.slice_shape[0] * m.slice_shape[1] == 64);
}

TEST_CASE("mesh: DCN axes and GPU NVLink domains") {
  const Mesh two_pods = mesh("S=2:dcn,X=16,Y=16", "tpu-v5e");
  CHECK(two_pods.device_count() == 512);
  CHECK(two_pods.ici_device_count() == 256);
  REQUIRE(two_pods.dims[0].size() == 1);
  CHECK(two_pods.dims[0][0].network == roofline::DimNetwork::kScaleOut);
  CHECK(two_pods.dims[0][0].bytes_per_s == 3.125e9);  // v5e DCN per chip
  const Mesh gpus = mesh("node=4:dcn,gpu=8", "h100-sxm");
  CHECK(gpus.dims[1][0].network == roofline::DimNetwork::kSwitch);
  CHECK(gpus.dims[1][0].bytes_per_s == 450e9);
}

TEST_CASE("mesh: errors say why") {
  auto err = [](const char* spec, const char* chip_name) {
    auto m = parse_mesh(spec, chip(chip_name));
    REQUIRE_FALSE(m.ok());
    return std::string(m.status().message());
  };
  CHECK(contains(err("X=4,X=2", "tpu-v5e"), "names axis 'X' twice"));
  const std::string big = err("X=32,Y=16", "tpu-v5e");
  CHECK(contains(big, "512 chips"));
  CHECK(contains(big, "holds 256"));
  CHECK(contains(big, ":dcn"));
  CHECK(contains(err("X=16", "h100-sxm"), "NVLink"));
  CHECK(contains(err("X=17", "tpu-v5e"), "cannot be laid"));
  CHECK(contains(err("X=8,Y", "tpu-v5e"), "column 6: expected '=' after axis name 'Y'"));
  CHECK(contains(err("X=0", "tpu-v5e"), "sizes are >= 1"));
  CHECK(contains(err("X=8:wan", "tpu-v5e"), "expected 'ici' or 'dcn'"));
  CHECK(contains(err("", "tpu-v5e"), "expected axes"));
}

TEST_CASE("mesh: axis lists resolve by name, comma list or run-together subscripts") {
  const Mesh m = mesh("X=4,Y=4,Z=4", "tpu-v4");
  CHECK(*roofline::resolve_axes(m, "XY") == std::vector<int>{0, 1});
  CHECK(*roofline::resolve_axes(m, "Z, X") == std::vector<int>{2, 0});
  CHECK_FALSE(roofline::resolve_axes(m, "XQ").ok());
  CHECK_FALSE(roofline::resolve_axes(m, "XX").ok());
  const Mesh named = mesh("data=4,model=4", "tpu-v4");
  CHECK(*roofline::resolve_axes(named, "datamodel") == std::vector<int>{0, 1});
}

// --- the book's worked examples ---

TEST_CASE("mesh collective: v4p 4x4x4 AllGather_X of [B_X, D_Y] takes about 23 us") {
  // sharding.md question 2: gathering 2BD/Y bytes over one wrapping axis at
  // W_ici = 9e10 bidirectional: 2 x 1024 x 4096 / (9e10 x 4) = 23.3 us.
  const Mesh m = mesh("X=4,Y=4,Z=4", "tpu-v4");
  const double v = 2.0 * 1024 * 4096 / 4;
  CHECK(ici(m, CollectiveKind::kAllGather, "X", v) == Approx(2.0 * 1024 * 4096 / (9e10 * 4)));
  CHECK(ici(m, CollectiveKind::kAllGather, "X", v) == Approx(23e-6).epsilon(0.02));  // the book rounds to 23 us
}

TEST_CASE("mesh collective: v4p 4x4x4 AllGather_XY of [B_X, D_Y] takes about 46 us") {
  // Multi-axis: max(T_min (4+4)/2, 2BD / (2 W_ici)) = max(4 us, 8 MiB / 1.8e11) = 46.6 us.
  const Mesh m = mesh("X=4,Y=4,Z=4", "tpu-v4");
  const double v = 2.0 * 1024 * 4096;
  CHECK(ici(m, CollectiveKind::kAllGather, "XY", v) == Approx(v / 1.8e11));
  CHECK(ici(m, CollectiveKind::kAllGather, "XY", v) == Approx(46e-6).epsilon(0.02));
  auto t = roofline::collective_time(m, CollectiveKind::kAllGather, "XY", v);
  CHECK(t->hops == 4);
}

TEST_CASE("mesh collective: v4p 4x4x4 AllReduce_Z of [B_X, D_Y]{U_Z} takes about 11.6 us") {
  // Each device holds 2BD/(XY) bytes = 512 KiB; AllReduce = 2 V / W_ici over
  // the wrapping Z ring: 2 x 524288 / 9e10 = 11.65 us.
  const Mesh m = mesh("X=4,Y=4,Z=4", "tpu-v4");
  const double v = 2.0 * 1024 * 4096 / 16;
  CHECK(ici(m, CollectiveKind::kAllReduce, "Z", v) == Approx(2 * v / 9e10));
  CHECK(ici(m, CollectiveKind::kAllReduce, "Z", v) == Approx(11.6e-6).epsilon(0.01));
}

TEST_CASE("mesh collective: latency-bound AllGather_X of bf16[128] on v4p takes about 2 us") {
  // 256 bytes over a wrapping axis of 4: 2 hops x 1 us (sharding.md question 3).
  const Mesh m = mesh("X=4,Y=4,Z=4", "tpu-v4");
  CHECK(ici(m, CollectiveKind::kAllGather, "X", 256) == Approx(2e-6));
}

TEST_CASE("mesh collective: v5e {X: 8, Y: 4} AllGather_Y has no wraparound") {
  // sharding.md pop quiz 2: E = 2048, F = 8192 bf16, [E_Y, F]: each device
  // holds 8.4 MB; no wrap on an axis of 4, so 3 hops of 8.4 MB at 4.5e10 =
  // 560 us (the book's profile shows 680 us). E = F = 256: latency-bound,
  // 3 hops ~ 3 us.
  const Mesh m = mesh("X=8,Y=4", "tpu-v5e");
  const double v = 2.0 * 2048 * 8192;
  CHECK(ici(m, CollectiveKind::kAllGather, "Y", v) == Approx(3 * (v / 4) / 4.5e10));
  CHECK(ici(m, CollectiveKind::kAllGather, "Y", v) == Approx(560e-6).epsilon(0.01));
  CHECK(ici(m, CollectiveKind::kAllGather, "Y", 2.0 * 256 * 256) == Approx(3e-6));
}

TEST_CASE("mesh collective: all-to-all over a v4 cube is V max(X) / (4 N W)") {
  const Mesh m = mesh("X=4,Y=4,Z=4", "tpu-v4");
  const double v = 1e9;
  CHECK(ici(m, CollectiveKind::kAllToAll, "XYZ", v) == Approx(v * 4 / (4.0 * 64 * 9e10)));
}

TEST_CASE("mesh collective: across DCN the slices all-reduce V/N_ici after the ICI reduce-scatter") {
  // Two v5p 4x4x4 slices, all-reduce over S (DCN) and X, Y, Z (ICI):
  // RS over three wrapping rings V/(3 W_bidi), AR over DCN of V/64 at 6.25e9
  // per chip ((2-1)/2 x 2 x V/64), AG again V/(3 W_bidi).
  const Mesh m = mesh("S=2:dcn,X=4,Y=4,Z=4", "tpu-v5p");
  const double v = 1e9;
  auto t = roofline::collective_time(m, CollectiveKind::kAllReduce, "S,X,Y,Z", v);
  REQUIRE(t.ok());
  const double ici_phase = v / (3 * 1.8e11);
  const double dcn_phase = 2 * (v / 64) * 0.5 / 6.25e9;
  CHECK(t->t_bandwidth_s == Approx(2 * ici_phase + dcn_phase));
  // DCN alone: each chip all-reduces its V over its own NIC.
  CHECK(ici(m, CollectiveKind::kAllReduce, "S", v) == Approx(2 * v * 0.5 / 6.25e9));
}

TEST_CASE("mesh collective: GPU axes merge inside the NVLink domain") {
  const Mesh m = mesh("X=2,Y=4", "h100-sxm");
  const double v = 1e9;
  // Over Y: groups of 4 GPUs; over X and Y: one group of 8.
  CHECK(ici(m, CollectiveKind::kAllGather, "Y", v) == Approx(v * 3.0 / 4.0 / 450e9));
  CHECK(ici(m, CollectiveKind::kAllGather, "XY", v) == Approx(v * 7.0 / 8.0 / 450e9));
}

TEST_CASE("mesh: lay_out_mesh (core) refuses what make_mesh refuses, with the same reason") {
  const roofline::Chip& v5e = chip("tpu-v5e");
  std::string why;
  CHECK_FALSE(roofline::lay_out_mesh({{.name = "X", .size = 17}}, v5e, &why).has_value());
  CHECK(contains(why, "cannot be laid on a tpu-v5e slice"));
  auto m = roofline::make_mesh({{.name = "X", .size = 17}}, v5e);
  REQUIRE_FALSE(m.ok());
  CHECK(std::string(m.status().message()) == why);
  CHECK_FALSE(roofline::lay_out_mesh({{.name = "X", .size = 0}}, v5e).has_value());

  // The same axes laid by the core and parsed from text give the same mesh.
  const auto laid = roofline::lay_out_mesh({{.name = "X", .size = 8}, {.name = "Y", .size = 4}}, v5e);
  REQUIRE(laid.has_value());
  CHECK(laid->chip_name == "tpu-v5e");
  CHECK(roofline::describe_layout(*laid) == roofline::describe_layout(mesh("X=8,Y=4", "tpu-v5e")));
}

TEST_CASE("mesh: a mesh remembers its chip; the checked entry points refuse it on another") {
  // X=8 fits a v5e slice and an 8-GPU NVLink domain alike, with different
  // links: predicting on h100-sxm with v5e's mesh would mix the two.
  const Mesh on_v5e = mesh("X=8", "tpu-v5e");
  CHECK(on_v5e.chip_name == "tpu-v5e");
  CHECK(roofline::check_mesh_chip(on_v5e, chip("tpu-v5e")).ok());
  const absl::Status other = roofline::check_mesh_chip(on_v5e, chip("h100-sxm"));
  REQUIRE_FALSE(other.ok());
  CHECK(contains(std::string(other.message()), "mesh X=8 was laid on tpu-v5e, not on h100-sxm"));

  auto e = roofline::parse_matmul_expression("x[B_X, D] @ w[D, F]");
  REQUIRE(e.ok());
  auto mm = roofline::predict_sharded_matmul(*e, on_v5e, chip("h100-sxm"), {{"B", 1024}, {"D", 1024}, {"F", 1024}});
  REQUIRE_FALSE(mm.ok());
  CHECK(contains(std::string(mm.status().message()), "laid on tpu-v5e, not on h100-sxm"));

  const roofline::TrainingConfig cfg{.batch_tokens = 8 * 8192};
  const roofline::ParallelLayout lay{.data = 0b1};
  const auto& model = *roofline::find_builtin_model("llama-3-8b");
  CHECK(roofline::predict_training_step(model, chip("tpu-v5e"), on_v5e, lay, cfg).ok());
  auto step = roofline::predict_training_step(model, chip("h100-sxm"), on_v5e, lay, cfg);
  REQUIRE_FALSE(step.ok());
  CHECK(contains(std::string(step.status().message()), "laid on tpu-v5e, not on h100-sxm"));
}
