// What share of the matrix units' peak a GEMM reaches, by its size and
// shape. Two effects, each with its source:
//
// * Size (Calculon, Isaev et al. SC'23: systems/a100_80g.json and
//   h100_80g_nvl8.json, "matrix" / "gflops_efficiency" / "float16"): a GEMM
//   of 128 GFLOP or more reaches 0.95 of the peak, 16 GFLOP 0.90, 1 GFLOP
//   0.60, less 0.10 (read as points, size_curve.hpp). It stands for what a
//   small GEMM loses where its shape is not known.
// * Shape (NVIDIA, "Matrix Multiplication Background User's Guide",
//   DU-09799-001, 2023, ch. 3, "Dimension Quantization Effects"): a GEMM
//   runs as tiles of tm x tn outputs, each on one SM (one MXU pass of 128
//   or 256 on a TPU); the last tile of a row or column computes padding
//   (tile quantization) and the last wave of tiles leaves SMs idle (wave
//   quantization):
//     tile efficiency = M N / (ceil(M / tm) tm  ceil(N / tn) tn)
//     tiles           = batch ceil(M / tm) ceil(N / tn)
//     waves           = ceil(tiles / (SMs x tiles per SM))
//     wave efficiency = tiles / (waves x SMs x tiles per SM)
//   The tile is in the kernel's name where the library writes it there
//   (cutlass_80_tensorop_s1688gemm_128x128_32x3, sm90_xmma_gemm_..._128x256x64,
//   Tensile's MT128x128x32); gemm_tile_of() reads it.
//
//   Where the dimensions are known (GemmShape: a PyTorch matmul's Input
//   Dims, a convolution as its implicit GEMM, an HLO dot), the expectation
//   takes the lower of the size curve and the two factors (calibration.hpp,
//   size_factors): the curve holds the average quantization of GEMMs of a
//   size, a GEMM of a few tiles on a hundred SMs loses more. Where they are
//   not known (a TPU, whose spec gives no MXU count; an attention kernel,
//   whose tiles are its own), the curve alone.
//
//   roofline::GemmDims d{.m = 512, .n = 3072, .k = 768};
//   roofline::tile_efficiency(d, {128, 128});       // 1: both dimensions divide
//   roofline::wave_efficiency(d, {128, 128}, 132);  // 96 tiles on 132 SMs: 0.727
//
// Part of roofline::core (header-only).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "roofline/expected/size_curve.hpp"

namespace roofline {

// Calculon's matrix-unit efficiency by GFLOPs of one GEMM (float16; the
// same table for its A100 and H100 systems).
inline constexpr SizeStep kCalculonMatrixSteps[] = {{0, 0.10}, {1e9, 0.60}, {16e9, 0.90}, {128e9, 0.95}};

// The share of the largest GEMMs' rate a GEMM of `flops` reaches.
inline double matmul_size_efficiency(double flops) { return relative_size_efficiency(kCalculonMatrixSteps, flops); }

struct GemmDims {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 1;
};

struct GemmTile {
  std::int64_t m = 0, n = 0;  // outputs of one tile (one thread block, one MXU pass)
};

// ceil(extent / tile): the tiles along one dimension (both positive).
inline std::int64_t tiles_along(std::int64_t extent, std::int64_t tile) { return (extent + tile - 1) / tile; }

// M N over the padded tiles' outputs; 1 for a dimension or tile that is not positive.
inline double tile_efficiency(const GemmDims& d, const GemmTile& t) {
  if (d.m <= 0 || d.n <= 0 || t.m <= 0 || t.n <= 0) return 1;
  return static_cast<double>(d.m) * static_cast<double>(d.n) /
         (static_cast<double>(tiles_along(d.m, t.m) * t.m) * static_cast<double>(tiles_along(d.n, t.n) * t.n));
}

inline std::int64_t tile_count(const GemmDims& d, const GemmTile& t) {
  if (d.m <= 0 || d.n <= 0 || t.m <= 0 || t.n <= 0) return 0;
  return std::max<std::int64_t>(d.batch, 1) * tiles_along(d.m, t.m) * tiles_along(d.n, t.n);
}

// Tiles over the slots of the waves they need (units x tiles per unit
// each); 1 where the units are unknown.
inline double wave_efficiency(const GemmDims& d, const GemmTile& t, std::int64_t units, std::int64_t tiles_per_unit = 1) {
  const std::int64_t tiles = tile_count(d, t);
  const std::int64_t slots = units * std::max<std::int64_t>(tiles_per_unit, 1);
  if (tiles <= 0 || slots <= 0) return 1;
  const std::int64_t waves = tiles_along(tiles, slots);
  return static_cast<double>(tiles) / static_cast<double>(waves * slots);
}

// How a GEMM's work is spread over the units, as far as the kernel's name
// tells.
enum class GemmSchedule : std::uint8_t {
  // One output tile per unit at a time, in waves: the name gives the tile
  // and says nothing of splitting K.
  kTileWaves,
  // The last wave's idle units may be filled by slices of K (split-K,
  // stream-K; Osama et al., "Stream-K: Work-centric Parallel Decomposition
  // for Dense Matrix-Multiplication on the GPU", PPoPP 2023), or the tile
  // is not known: only tile quantization is counted. cuDNN's weight-gradient
  // GEMMs, whose K (batch x output positions) is thousands of times M and N,
  // run this way: counted in waves of output tiles, the V100 ResNet-50
  // trace's were expected 7 to 100 times slower than they ran
  // (docs/fidelity.md, "Tile and wave quantization").
  kSplitOrUnknown,
};

// A GEMM as the chip runs it: its dimensions, the tile its kernel uses
// (gemm_tile_of(kernel name), else kUsualGpuTile), the chip's SMs / CUs
// (Chip::compute_units), and how its work is spread over them.
struct GemmShape {
  GemmDims dims;
  GemmTile tile;
  std::int64_t units = 0;
  GemmSchedule schedule = GemmSchedule::kTileWaves;
};

// The tile assumed where the kernel's name gives none. NVIDIA's guide
// (DU-09799-001, sec. 2.3, "Typical Tile Dimensions In cuBLAS And
// Performance") lists cuBLAS's tiles from 256x128 (the most efficient) down
// to 64x64, chosen smaller for GEMMs too small to fill the chip; 128x128 is
// the middle of that list.
inline constexpr GemmTile kUsualGpuTile{.m = 128, .n = 128};

// Waves of tiles over the units; 0 where the shape is not complete.
inline std::int64_t gemm_waves(const GemmShape& s) {
  const std::int64_t tiles = tile_count(s.dims, s.tile);
  return tiles > 0 && s.units > 0 ? tiles_along(tiles, s.units) : 0;
}

// Tile times wave efficiency (wave efficiency only for kTileWaves): the
// share of the chip's matrix rate a GEMM of this shape can use, relative to
// one whose tiles fill every unit in every wave (the large GEMMs a chip's
// achieved rate is measured on). 1 where the shape is not complete:
// nothing known is taken off.
inline double quantization_efficiency(const GemmShape& s) {
  if (s.dims.m <= 0 || s.dims.n <= 0 || s.dims.k <= 0 || s.tile.m <= 0 || s.tile.n <= 0 || s.units <= 0) return 1;
  const double waves = s.schedule == GemmSchedule::kTileWaves ? wave_efficiency(s.dims, s.tile, s.units) : 1;
  return tile_efficiency(s.dims, s.tile) * waves;
}

// The tile a kernel's name gives: the first "<a>x<b>" whose two numbers
// are tile sizes (16 to 512, powers of two), as CUTLASS, cuBLAS and
// Tensile write them ("_128x64_", "128x256x64", "MT64x128x32"); empty
// where the name gives none.
inline std::optional<GemmTile> gemm_tile_of(std::string_view name) {
  const auto tile_size = [](std::int64_t v) { return v >= 16 && v <= 512 && (v & (v - 1)) == 0; };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!digit(name[i]) || (i > 0 && digit(name[i - 1]))) continue;
    std::size_t j = i;
    std::int64_t a = 0, b = 0;
    while (j < name.size() && digit(name[j]) && a < 100000) a = a * 10 + (name[j++] - '0');
    if (j + 1 >= name.size() || name[j] != 'x' || !digit(name[j + 1])) continue;
    ++j;
    while (j < name.size() && digit(name[j]) && b < 100000) b = b * 10 + (name[j++] - '0');
    if (tile_size(a) && tile_size(b)) return GemmTile{.m = a, .n = b};
  }
  return std::nullopt;
}

// Whether a kernel's name says it splits K ("splitK", "splitk", "SplitK",
// "streamk", "stream_k", "StreamK"): the libraries' own words for it.
inline bool splits_k(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  return lower.find("splitk") != std::string::npos || lower.find("streamk") != std::string::npos ||
         lower.find("stream_k") != std::string::npos;
}

// The shape of a GEMM of `dims` run by the kernel `name` on `units` SMs /
// CUs: the name's tile and schedule where it gives a tile, else
// kUsualGpuTile with tile quantization only.
inline GemmShape gemm_shape_of(const GemmDims& dims, std::string_view name, std::int64_t units) {
  const std::optional<GemmTile> tile = gemm_tile_of(name);
  const bool waves = tile && !splits_k(name);
  return GemmShape{.dims = dims, .tile = tile.value_or(kUsualGpuTile), .units = units,
                   .schedule = waves ? GemmSchedule::kTileWaves : GemmSchedule::kSplitOrUnknown};
}

}  // namespace roofline
