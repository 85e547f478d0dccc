// The size and shape model of the expected time (roofline/expected/):
// each function against a figure computed by hand from its formula.
#include <catch2/catch.hpp>

#include <cmath>

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/expected/gemm.hpp"
#include "roofline/expected/memory.hpp"
#include "roofline/expected/size_curve.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/predict.hpp"

namespace roofline {
namespace {

TEST_CASE("size curve: Calculon's steps read as points") {
  // Halfway in log(size) between 1 MB (0.6) and 10 MB (0.75).
  CHECK(size_efficiency(kCalculonHbmSteps, std::sqrt(10.0) * 1e6) == Approx(0.675));
  // Linear from the step at 0 (0.3) to 1 MB (0.6).
  CHECK(size_efficiency(kCalculonHbmSteps, 0.5e6) == Approx(0.45));
  CHECK(size_efficiency(kCalculonHbmSteps, 1e6) == Approx(0.6));
  CHECK(size_efficiency(kCalculonHbmSteps, 5e9) == Approx(0.9));
  // Nothing known of the size, or no table: nothing taken off.
  CHECK(size_efficiency(kCalculonHbmSteps, 0) == 1);
  CHECK(size_efficiency(kCalculonHbmSteps, std::nan("")) == 1);
  CHECK(size_efficiency({}, 1e6) == 1);
  // Relative to the largest step: 1 MB reaches 0.6 / 0.9 of what 100 MB does.
  CHECK(memory_size_efficiency(1e6) == Approx(0.6 / 0.9));
  CHECK(memory_size_efficiency(1e9) == Approx(1));
  // 4 GFLOP: 0.6 + 0.3 log(4) / log(16) = 0.75, over 0.95.
  CHECK(matmul_size_efficiency(4e9) == Approx(0.75 / 0.95));
}

TEST_CASE("gemm: tile and wave quantization") {
  // 200 rows in 128-row tiles: two tiles, 256 rows computed.
  CHECK(tile_efficiency({.m = 200, .n = 128, .k = 64}, {128, 128}) == Approx(200.0 / 256.0));
  CHECK(tile_efficiency({.m = 512, .n = 3072, .k = 768}, {128, 128}) == 1);
  // 4 x 24 = 96 tiles on an H100's 132 SMs: one wave, 96 of 132 busy.
  CHECK(tile_count({.m = 512, .n = 3072, .k = 768}, {128, 128}) == 96);
  CHECK(wave_efficiency({.m = 512, .n = 3072, .k = 768}, {128, 128}, 132) == Approx(96.0 / 132.0));
  // 8192 squared: 4096 tiles, 32 waves of 132 (the last 4 short).
  CHECK(wave_efficiency({.m = 8192, .n = 8192, .k = 8192}, {128, 128}, 132) == Approx(4096.0 / (32 * 132)));
  // A batch multiplies the tiles; two tiles per SM double a wave's slots.
  CHECK(tile_count({.m = 128, .n = 128, .k = 64, .batch = 12}, {128, 128}) == 12);
  CHECK(wave_efficiency({.m = 1024, .n = 1024, .k = 64}, {128, 128}, 108, 2) == Approx(64.0 / 216.0));
  // Unknown units: 1.
  CHECK(wave_efficiency({.m = 1024, .n = 1024, .k = 64}, {128, 128}, 0) == 1);
}

TEST_CASE("gemm: the tile a kernel's name gives") {
  const auto tile = [](std::string_view name) {
    const std::optional<GemmTile> t = gemm_tile_of(name);
    return t ? std::pair<std::int64_t, std::int64_t>{t->m, t->n} : std::pair<std::int64_t, std::int64_t>{0, 0};
  };
  CHECK(tile("cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4") == std::pair<std::int64_t, std::int64_t>{128, 128});
  CHECK(tile("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize1x1x1") ==
        std::pair<std::int64_t, std::int64_t>{128, 256});
  CHECK(tile("Cijk_Ailk_Bljk_HHS_BH_MT64x128x32_MI32x32x8x1_SN") == std::pair<std::int64_t, std::int64_t>{64, 128});
  CHECK(tile("volta_sgemm_128x64_nt") == std::pair<std::int64_t, std::int64_t>{128, 64});
  CHECK(tile("ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_stages_64x6_tn") == std::pair<std::int64_t, std::int64_t>{64, 64});
  CHECK(tile("void at::native::vectorized_elementwise_kernel<4, float>(int, float*)") ==
        std::pair<std::int64_t, std::int64_t>{0, 0});
  CHECK(tile("fusion_1x1x1") == std::pair<std::int64_t, std::int64_t>{0, 0});
}

TEST_CASE("expected: a small GEMM on a GPU is expected below the large-GEMM rate") {
  // 1024 x 1024 x 512 in bf16 on an H100: 1.07 GFLOP, T_math = 1.07e9 /
  // 989e12. Its built-in efficiency: the achieved 791.2 of 989 TFLOP/s
  // times Calculon's share at its size, (0.6 + 0.3 log(1.074) / log(16)) /
  // 0.95; before the size curves it was expected at the achieved rate alone.
  const Chip& h100 = chip("h100-sxm");
  const Prediction p = predict(Matmul{.m = 1024, .k = 512, .n = 1024}, h100);
  REQUIRE(p.flops == Approx(2.0 * 1024 * 1024 * 512));
  const ChipCalibration cal = default_calibration(h100);
  const double share = (0.6 + 0.3 * std::log(p.flops / 1e9) / std::log(16.0)) / 0.95;
  const double e_math = 791.2e12 / h100.peak_flops_per_s[static_cast<int>(PeakClass::kBf16)];
  const double memory = std::max(p.t_hbm_s, p.t_hbm_cold_s) / (0.9 * relative_size_efficiency(cal.memory_size_steps, p.hbm_bytes));
  CHECK(expected_s(p, CostClass::kMatmul, cal) == Approx(1e-6 + std::max(p.t_math_s / (e_math * share), memory)));
  // A TPU keeps one efficiency per class: no size curve.
  const Chip& v5e = chip("tpu-v5e");
  const ChipCalibration tpu = default_calibration(v5e);
  CHECK(tpu.matmul_size_steps.empty());
  CHECK(tpu.memory_size_steps.empty());
}

TEST_CASE("expected: a memory-bound op's efficiency by the bytes it moves") {
  // A 2 MB copy on a V100 (achieved 790 of 900 GB/s): the share of 2 MB,
  // 0.6 + 0.15 log(2) / log(10), over 0.9.
  const Chip& v100 = chip("v100-sxm2");
  ChipCalibration cal = default_calibration(v100);
  Prediction p;
  p.hbm_bytes = 2e6;
  p.t_hbm_s = p.t_hbm_cold_s = 2e6 / v100.hbm_bytes_per_s;
  settle_bounds(p);
  const double share = (0.6 + 0.15 * std::log10(2.0)) / 0.9;
  CHECK(expected_s(p, CostClass::kMemory, cal) == Approx(1e-6 + p.t_hbm_s / (790e9 / 900e9 * share)));
}

}  // namespace
}  // namespace roofline
