// --target-chip: Habitat's wave scaling on hand-made kernels (figures from
// the formula in roofline/expected/scale.hpp, worked in the comments), and
// the method per op on the V100 ResNet-50 step of examples/profiles.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/expected/scale.hpp"
#include "roofline/match/match.hpp"
#include "roofline/match/op_model.hpp"
#include "roofline/match/target.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

using roofline::chip;
using roofline::DType;
using roofline::ScaledTime;
using roofline::TargetMethod;

namespace {

const roofline::Chip& v100() { return chip("v100-sxm2"); }  // HBM 900 GB/s, fp32 15.7 TFLOP/s, 80 SMs
const roofline::Chip& a100() { return chip("a100-sxm"); }   // HBM 2039 GB/s, fp32 19.5 TFLOP/s, 108 SMs

double a100_fp32_ridge() { return a100().peak_flops_per_s_for(DType::kF32) / a100().hbm_bytes_per_s; }

}  // namespace

TEST_CASE("target: Habitat's gamma weighs bandwidth by intensity against the target's ridge point") {
  // R = 10 FLOP/B: gamma = 1 - 0.5 I / R up to R, 0.5 R / I past it.
  CHECK(roofline::habitat_gamma(0, 1e6, 10) == 1);      // no FLOPs: all bandwidth
  CHECK(roofline::habitat_gamma(1e6, 0, 10) == 0);      // no bytes: all compute
  CHECK(roofline::habitat_gamma(5e6, 1e6, 10) == 0.75); // I = 5
  CHECK(roofline::habitat_gamma(10e6, 1e6, 10) == 0.5); // I = R: both branches meet
  CHECK(roofline::habitat_gamma(40e6, 1e6, 10) == 0.125);
}

TEST_CASE("target: a memory-bound kernel scales by the bandwidth ratio, a mixed one by both ratios") {
  // No FLOPs, gamma 1: 40 us x 900 / 2039 = 17.6557 us.
  const ScaledTime mem = roofline::wave_scale({.measured_s = 40e-6, .hbm_bytes = 32e6}, v100(), a100());
  CHECK(mem.gamma == 1);
  CHECK(mem.bandwidth_ratio == Approx(900.0 / 2039));
  CHECK(mem.t_s == Approx(17.6557e-6).epsilon(1e-5));
  // I = R / 2 on the A100 (fp32, R = 19.5e12 / 2.039e12 = 9.5635): gamma
  // 0.75, 40 us x (900 / 2039)^0.75 x (15.7 / 19.5)^0.25 = 20.5185 us.
  const double bytes = 1e6;
  const ScaledTime mixed = roofline::wave_scale(
      {.measured_s = 40e-6, .flops = 0.5 * a100_fp32_ridge() * bytes, .hbm_bytes = bytes, .dtype = DType::kF32}, v100(),
      a100());
  CHECK(mixed.gamma == Approx(0.75));
  CHECK(mixed.compute_ratio == Approx(15.7 / 19.5));
  CHECK(mixed.t_s == Approx(20.5185e-6).epsilon(1e-5));
  // I = 2R: gamma 0.25, 40 us x (900 / 2039)^0.25 x (15.7 / 19.5)^0.75 = 27.7118 us.
  const ScaledTime compute = roofline::wave_scale(
      {.measured_s = 40e-6, .flops = 2 * a100_fp32_ridge() * bytes, .hbm_bytes = bytes, .dtype = DType::kF32}, v100(),
      a100());
  CHECK(compute.gamma == Approx(0.25));
  CHECK(compute.t_s == Approx(27.7118e-6).epsilon(1e-5));
  CHECK_FALSE(compute.partial_wave);
}

TEST_CASE("target: a launch under one wave on both chips scales by the per-SM factor only") {
  // 50 blocks, one per SM: under a wave on 80 and on 108 SMs. gamma 1: the
  // time stays. gamma 0.75: ((15.7/80) / (19.5/108) x ceil(50/108) /
  // ceil(50/80))^0.25 = 1.08692^0.25: 40 us -> 40.8423 us.
  const roofline::KernelLaunch small{.blocks = 50, .blocks_per_sm = 1};
  const ScaledTime mem = roofline::wave_scale({.measured_s = 40e-6, .hbm_bytes = 1e6, .launch = small}, v100(), a100());
  CHECK(mem.partial_wave);
  CHECK(mem.t_s == 40e-6);
  const ScaledTime mixed = roofline::wave_scale({.measured_s = 40e-6,
                                                 .flops = 0.5 * a100_fp32_ridge() * 1e6,
                                                 .hbm_bytes = 1e6,
                                                 .dtype = DType::kF32,
                                                 .launch = small},
                                                v100(), a100());
  CHECK(mixed.partial_wave);
  CHECK(mixed.t_s == Approx(40.8423e-6).epsilon(1e-5));
  // 1,000 blocks fill waves on both: the full formula again.
  const ScaledTime big = roofline::wave_scale(
      {.measured_s = 40e-6, .hbm_bytes = 1e6, .launch = roofline::KernelLaunch{.blocks = 1000, .blocks_per_sm = 1}},
      v100(), a100());
  CHECK_FALSE(big.partial_wave);
  CHECK(big.t_s == Approx(17.6557e-6).epsilon(1e-5));
}

TEST_CASE("target: what cannot be scaled is NaN; the scaled time keeps the roofline and the launch floor") {
  // bf16 arithmetic on a V100 (no bf16 unit) with gamma < 1: no compute ratio.
  const ScaledTime no_unit =
      roofline::wave_scale({.measured_s = 40e-6, .flops = 1e9, .hbm_bytes = 1e6, .dtype = DType::kBF16}, v100(), a100());
  CHECK(std::isnan(no_unit.t_s));
  const ScaledTime mem = roofline::wave_scale({.measured_s = 2e-6, .hbm_bytes = 1e3}, v100(), a100());
  CHECK(mem.t_s == Approx(2e-6 * 900 / 2039));  // 0.883 us
  // Below the A100's 1 us shortest kernel: held there.
  CHECK(roofline::scaled_time_s(mem, 2e-6, 0, a100()) == 1e-6);
  // Measured faster than the floor already: kept at what it measured.
  const ScaledTime tiny = roofline::wave_scale({.measured_s = 0.5e-6, .hbm_bytes = 1e3}, v100(), a100());
  CHECK(roofline::scaled_time_s(tiny, 0.5e-6, 0, a100()) == 0.5e-6);
  // Never below the roofline on the target.
  CHECK(roofline::scaled_time_s(mem, 2e-6, 1.5e-6, a100()) == 1.5e-6);
}

namespace {

roofline::Trace resnet50_v100() {
  auto t = roofline::read_trace(
      (std::filesystem::path(ROOFLINE_SOURCE_DIR) / "examples/profiles/resnet50_v100_train_step.pt.trace.json.gz").string());
  REQUIRE(t.ok());
  return *std::move(t);
}

struct Totals {
  int scaled = 0, modelled = 0, measured = 0;
  double measured_s = 0, target_s = 0;
};

}  // namespace

TEST_CASE("target: V100 ResNet-50 to A100: element-wise kernels scaled, GEMMs and convolutions modelled") {
  const roofline::Trace trace = resnet50_v100();
  roofline::ReportOptions o;
  o.target_chip = &a100();
  auto m = roofline::match(trace, o);
  REQUIRE(m.ok());
  REQUIRE(m->chip.chip->name == "v100-sxm2");
  const roofline::ChipCalibration a100_cal = roofline::default_calibration(a100());
  Totals t;
  int checked_by_hand = 0;
  for (const roofline::MatchedOp& op : m->ops) {
    if (!op.target_expected_s) continue;
    const std::int64_t n = op.group.count();
    const double measured_s = static_cast<double>(op.group.self_ps) * 1e-12 / static_cast<double>(n);
    t.measured_s += measured_s * static_cast<double>(n);
    t.target_s += *op.target_expected_s * static_cast<double>(n);
    INFO(trace.ops[op.group.op].name);
    if (op.target_method == TargetMethod::kScaled) {
      ++t.scaled;
      CHECK(op.cost_class == roofline::CostClass::kMemory);
      CHECK_FALSE(op.cost.async_done);
      CHECK(*op.target_expected_s >= op.target_prediction->t_lower_s);
      // No FLOPs (copies, batch-norm statistics, ...): gamma 1, the
      // bandwidth ratio alone, above the two floors.
      if (op.prediction->flops == 0) {
        const double want = std::max({measured_s * 900 / 2039, op.target_prediction->t_lower_s, std::min(measured_s, 1e-6)});
        CHECK(*op.target_expected_s == Approx(want));
        ++checked_by_hand;
      }
    } else if (op.target_method == TargetMethod::kModelled) {
      ++t.modelled;
      // The target's own expected time: every GEMM and convolution lands
      // here, timed as a GEMM whose kernel on the A100 is not known (the
      // V100 kernel's tile is not the A100's).
      const std::string family = roofline::kernel_family(trace.ops[op.group.op].name);
      CHECK(*op.target_expected_s ==
            Approx(roofline::expected_s(*op.target_prediction, op.cost_class, a100_cal, family,
                                        roofline::gemm_shape(*op.cost.model, "", a100()))));
    } else {
      ++t.measured;
    }
    if (op.cost_class == roofline::CostClass::kMatmul) CHECK(op.target_method == TargetMethod::kModelled);
  }
  CHECK(t.measured == 0);
  CHECK(t.scaled > 100);
  CHECK(t.modelled > 50);
  CHECK(checked_by_hand > 0);
  // The step's predicted ops, 603 ms measured on the V100, take less on the A100.
  CHECK(t.target_s < t.measured_s);
}

TEST_CASE("target: the chip it was measured on gives back the measured time") {
  const roofline::Trace trace = resnet50_v100();
  roofline::ReportOptions o;
  o.target_chip = &v100();
  auto r = roofline::make_report(trace, o);
  REQUIRE(r.ok());
  int measured = 0;
  for (const roofline::OpReport& op : r->ops) {
    if (!op.target_method || *op.target_method != TargetMethod::kMeasured) continue;
    ++measured;
    CHECK(*op.target_expected_s == Approx(op.measured_s));
  }
  CHECK(measured > 200);
}

TEST_CASE("gemm waves: a GEMM of fewer output tiles than SMs says its expectation assumes no split-K") {
  const roofline::Trace trace = resnet50_v100();
  auto m = roofline::match(trace, roofline::ReportOptions{});
  REQUIRE(m.ok());
  int warned = 0, split_k_sgemm = 0;
  for (const roofline::MatchedOp& op : m->ops) {
    const bool sub_wave = op.gemm && op.gemm->schedule == roofline::GemmSchedule::kTileWaves &&
                          roofline::tile_count(op.gemm->dims, op.gemm->tile) < op.gemm->units;
    const bool noted = op.cost.note.find("a kernel that splits K runs faster") != std::string::npos;
    CHECK(sub_wave == noted);
    // The weight gradient of 2 output tiles of 128x32 on the V100's 80 SMs
    // (one of the kernel's shapes; its others fill the waves).
    if (trace.ops[op.group.op].name == "volta_sgemm_128x32_nt" &&
        op.cost.note.find("expected with 2 output tiles on 80 SMs") != std::string::npos)
      ++split_k_sgemm;
    warned += noted;
  }
  CHECK(split_k_sgemm == 1);
  CHECK(warned >= 1);
}
