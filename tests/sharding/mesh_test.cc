// Meshes laid on interconnects, and collectives over their axes pinned to
// the scaling book's worked examples (anchors.md 2.4, 2.5; sharding.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

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

// ---- Physical slice shapes (Google Cloud TPU v4 / v5p configuration pages:
// v4 "AxBxC with A, B, C all <= 4 or all integer multiples of 4"; v5p's
// published shapes 2x2x1, 2x2x2, 2x4x4, 4x4x4, 4x4x8, ...).

namespace {

std::vector<int> sorted(std::vector<int> s) {
  std::sort(s.begin(), s.end());
  return s;
}

std::string refusal(const roofline::Chip& c, std::vector<roofline::MeshAxis> axes, std::vector<int> shape) {
  auto m = roofline::make_mesh(std::move(axes), c, shape);
  REQUIRE_FALSE(m.ok());
  return std::string(m.status().message());
}

}  // namespace

TEST_CASE("mesh: a v4 slice of 64 chips or more is whole 4x4x4 cubes, and wraps (192 -> 4x4x12)") {
  const Mesh m = mesh("X=192", "tpu-v4");
  CHECK(sorted(m.slice_shape) == std::vector<int>{4, 4, 12});
  REQUIRE(m.placement[0].size() == 3);
  for (const auto& p : m.placement[0]) CHECK(p.wraps);
  // The same on v5p and TPU7x (4x4x576 pod).
  CHECK(sorted(mesh("X=192", "tpu-v5p").slice_shape) == std::vector<int>{4, 4, 12});
  CHECK(mesh("X=192", "tpu-7x").slice_shape == std::vector<int>{4, 4, 12});
  // 256 stays the most cube-like whole-cube shape, 4x8x8 (v5p table).
  CHECK(sorted(mesh("X=256", "tpu-v5p").slice_shape) == std::vector<int>{4, 8, 8});
}

TEST_CASE("mesh: v4 slices under a cube take the small published shapes, without wraparound") {
  CHECK(sorted(mesh("X=4", "tpu-v4").slice_shape) == std::vector<int>{1, 2, 2});  // 2x2x1
  CHECK(sorted(mesh("X=8", "tpu-v4").slice_shape) == std::vector<int>{2, 2, 2});
  CHECK(sorted(mesh("X=16", "tpu-v4").slice_shape) == std::vector<int>{2, 2, 4});
  const Mesh m = mesh("X=32", "tpu-v4");
  CHECK(sorted(m.slice_shape) == std::vector<int>{2, 4, 4});
  for (const auto& p : m.placement[0]) CHECK_FALSE(p.wraps);
}

TEST_CASE("mesh: a chip count that is neither part of a cube nor whole cubes makes no v4 slice") {
  // 96 = 4x4x6 = 4x8x3 = 2x6x8 ...: none is within one cube or whole cubes.
  auto m = parse_mesh("X=96", chip("tpu-v4"));
  REQUIRE_FALSE(m.ok());
  const std::string why(m.status().message());
  CHECK(contains(why, "cannot be laid on a tpu-v4 slice"));
  CHECK(contains(why, "96 chips make no slice"));
  CHECK(contains(why, "a multiple of 4"));
  // v5e keeps its rule (any shape within 16x16): 96 = 8x12 is laid.
  CHECK(mesh("X=96", "tpu-v5e").device_count() == 96);
}

TEST_CASE("mesh collective: 192 v4 chips all-gather about 6 times faster on 4x4x12 than on 3x8x8 without wraparound") {
  // Issue 12: AllGather over one axis of 192 v4 chips, V = 1e9 bytes (the
  // gathered array). On 4x4x12 every dimension wraps: each ring carries
  // V/2 per link, T_i = V / W_bidi, and three rings at once give
  // T = V / (3 W_bidi) = 1e9 / 2.7e11 = 3.7037 ms.
  // On 3x8x8 no dimension wraps: since issue 36 several non-wrapping
  // dimensions run as one one-way ring over the whole group (the blog's v5e
  // 2x4 measurement, docs/collectives.md), T = (191/192) V / W = 22.106 ms;
  // ratio (191/192) / (1/6) = 5.97. (Split across the three lines, as before,
  // it was (14/53) V / W = 5.87 ms.)
  const double v = 1e9, w = 4.5e10;
  const Mesh cubes = mesh("X=192", "tpu-v4");
  const double t_cubes = ici(cubes, CollectiveKind::kAllGather, "X", v);
  CHECK(t_cubes == Approx(v / (3 * 2 * w)));
  CHECK(t_cubes == Approx(3.7037e-3).epsilon(1e-4));
  const roofline::CollectiveDim open3{.network = roofline::DimNetwork::kTorusRing, .size = 3, .wraps = false,
                                      .bytes_per_s = w, .hop_latency_s = 1e-6};
  roofline::CollectiveDim open8 = open3;
  open8.size = 8;
  const std::vector<roofline::CollectiveDim> mesh_3x8x8 = {open3, open8, open8};
  const double t_open = roofline::collective_time(CollectiveKind::kAllGather, v, mesh_3x8x8).t_ici_s;
  CHECK(t_open == Approx(191.0 / 192.0 * v / w));
  CHECK(t_open == Approx(22.106e-3).epsilon(1e-4));
  CHECK(t_open / t_cubes == Approx(6.0 * 191.0 / 192.0));
}

TEST_CASE("mesh: a fixed slice shape is used as given, or refused with the reason") {
  const roofline::Chip& v4 = chip("tpu-v4");
  const std::vector<int> s4x4x12 = {4, 4, 12};
  auto m = roofline::make_mesh({{.name = "X", .size = 4}, {.name = "Y", .size = 48}}, v4, s4x4x12);
  REQUIRE(m.ok());
  CHECK(m->slice_shape == s4x4x12);
  for (const auto& axis : m->placement)
    for (const auto& p : axis) CHECK(p.wraps);
  // A shape may be given turned any way: 12x4x4 fits the 16x16x16 pod and
  // the 4x4x576 TPU7x pod alike; 4x8x10 fits neither's...
  CHECK(roofline::make_mesh({{.name = "X", .size = 192}}, v4, std::vector<int>{12, 4, 4}).ok());
  CHECK(roofline::make_mesh({{.name = "X", .size = 192}}, chip("tpu-7x"), std::vector<int>{12, 4, 4}).ok());
  CHECK(contains(refusal(chip("tpu-7x"), {{.name = "X", .size = 320}}, {4, 8, 10}), "larger than the tpu-7x pod"));

  CHECK(contains(refusal(v4, {{.name = "X", .size = 192}}, {3, 8, 8}),
                 "slice 3x8x8 cannot be provisioned on tpu-v4"));
  CHECK(contains(refusal(v4, {{.name = "X", .size = 192}}, {4, 4, 8}),
                 "slice 4x4x8 holds 128 chips but the mesh puts 192 chips on ICI"));
  CHECK(contains(refusal(v4, {{.name = "X", .size = 320}}, {4, 4, 20}), "larger than the tpu-v4 pod (16x16x16)"));
  CHECK(contains(refusal(v4, {{.name = "X", .size = 16}}, {4, 4}), "has 2 dimensions; a tpu-v4 slice has 3"));
  CHECK(contains(refusal(chip("h100-sxm"), {{.name = "X", .size = 8}}, {8}), "no torus"));
  // DCN axes do not count: each slice is the fixed shape.
  auto two = roofline::make_mesh({{.name = "S", .size = 2, .network = roofline::AxisNetwork::kDcn},
                                  {.name = "X", .size = 192}},
                                 v4, s4x4x12);
  REQUIRE(two.ok());
  CHECK(two->slice_shape == s4x4x12);
  // v5e keeps its rule: an 8x16 slice wraps on the 16 only.
  auto v5e = roofline::make_mesh({{.name = "X", .size = 8}, {.name = "Y", .size = 16}}, chip("tpu-v5e"),
                                 std::vector<int>{8, 16});
  REQUIRE(v5e.ok());
  CHECK_FALSE(v5e->placement[0][0].wraps);
  CHECK(v5e->placement[1][0].wraps);
}

TEST_CASE("mesh: --slice shapes parse as NxNxN with the column of a mistake") {
  CHECK(*roofline::parse_slice_shape("4x4x12") == std::vector<int>{4, 4, 12});
  CHECK(*roofline::parse_slice_shape("16x16") == std::vector<int>{16, 16});
  auto err = [](const char* text) {
    auto s = roofline::parse_slice_shape(text);
    REQUIRE_FALSE(s.ok());
    return std::string(s.status().message());
  };
  CHECK(err("4x4x") == "slice '4x4x': column 5: expected a dimension (e.g. 4x4x12)");
  CHECK(contains(err("4x0x4"), "column 3: dimension 0 must be >= 1"));
  CHECK(contains(err("4*4"), "column 2: expected 'x' between dimensions"));
  CHECK(contains(err("2x2x2x2"), "at most 3 dimensions"));
  CHECK(contains(err(""), "column 1: expected a dimension"));
  CHECK(contains(err("99999999999x2"), "column 1: dimension 99999999999 is too large"));
  // Three dimensions that each parse can hold more chips than a long long
  // counts (found by the fuzzer: a signed overflow): refused, not wrapped.
  auto huge = roofline::parse_slice_shape("66066x664660066x664666");
  REQUIRE(huge.ok());
  auto m = roofline::make_mesh({{.name = "X", .size = 64}}, chip("tpu-v4"), *huge);
  REQUIRE_FALSE(m.ok());
  CHECK(contains(std::string(m.status().message()), "holds more chips than a long long counts"));
}

TEST_CASE("mesh collective: DCN steps pay the network latency on top of the achieved rate") {
  // A v5p with a per-step DCN latency of 20 us and an achieved DCN rate of
  // 5e9 B/s (of 6.25e9): figures set here, not published ones.
  roofline::Chip c = chip("tpu-v5p");
  c.dcn_latency_s = 2e-5;
  c.achieved.dcn_bytes_per_s = 5e9;
  auto m = roofline::make_mesh({{.name = "S", .size = 4, .network = roofline::AxisNetwork::kDcn},
                                {.name = "X", .size = 64}},
                               c);
  REQUIRE(m.ok());
  REQUIRE(m->dims[0].size() == 1);
  CHECK(m->dims[0][0].bytes_per_s == 5e9);
  CHECK(m->dims[0][0].hop_latency_s == 2e-5);
  const double v = 1e9;
  // AllGather over S alone: a ring of 4 slices, 3 steps; each chip sends
  // V (N-1)/N = 0.75 V: T = 3 x 20 us + 0.75e9 / 5e9 = 0.15006 s.
  auto ag = roofline::collective_time(*m, CollectiveKind::kAllGather, "S", v);
  REQUIRE(ag.ok());
  CHECK(ag->t_ici_s == Approx(3 * 2e-5 + 0.75 * v / 5e9));
  CHECK(ag->t_latency_s == Approx(6e-5));
  // AllReduce over S and X: ICI reduce-scatter V / (3 W_bidi), DCN
  // all-reduce of V/64 (6 steps, 2 x 0.75 x V/64 bytes), ICI all-gather.
  auto ar = roofline::collective_time(*m, CollectiveKind::kAllReduce, "S,X", v);
  REQUIRE(ar.ok());
  const double ici_phase = v / (3 * 1.8e11);
  const double dcn_phase = 6 * 2e-5 + 2 * 0.75 * (v / 64) / 5e9;
  CHECK(ar->t_ici_s == Approx(2 * ici_phase + dcn_phase));
  // Without a latency or a measurement, the line rate and no latency.
  const Mesh plain = mesh("S=4:dcn,X=64", "tpu-v5p");
  CHECK(ici(plain, CollectiveKind::kAllGather, "S", v) == Approx(0.75 * v / 6.25e9));
}
