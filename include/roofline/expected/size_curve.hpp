// An efficiency that rises with an op's size: a kernel too small to fill
// the chip (a GEMM of a few tiles, a copy of a few kilobytes) reaches a
// smaller share of the peak than one that streams for milliseconds.
// Calculon (Isaev et al., SC'23; github.com/calculon-ai/calculon,
// systems/*.json) tabulates it as steps, {size, efficiency}: an op of at
// least `size` reaches `efficiency`. A step makes an op just under a
// threshold several times slower than one just over it, so we read the
// table as points and interpolate between them: in log(size) between two
// positive sizes, linearly in size from the step at size 0 up to the
// first positive one; above the largest size, its efficiency.
//
//   constexpr roofline::SizeStep hbm[] = {{0, 0.3}, {1e6, 0.6}, {10e6, 0.75}, {100e6, 0.9}};
//   roofline::size_efficiency(hbm, 3.16e6);  // 0.675: halfway in log between 1 and 10 MB
//
// Part of roofline::core (header-only).
#pragma once

#include <cmath>
#include <span>

namespace roofline {

struct SizeStep {
  double size = 0;        // FLOPs or bytes of one occurrence
  double efficiency = 1;  // achieved / peak from this size on
};

// The efficiency at `size` of a table sorted by size, its first step at
// size 0. An empty table, or a size that is not a positive number, gives 1:
// nothing is known of the op's size, so nothing is taken off.
inline double size_efficiency(std::span<const SizeStep> steps, double size) {
  if (steps.empty() || !(size > 0) || !std::isfinite(size)) return 1;
  if (size >= steps.back().size) return steps.back().efficiency;
  for (std::size_t i = 1; i < steps.size(); ++i) {
    const SizeStep& lo = steps[i - 1];
    const SizeStep& hi = steps[i];
    if (size >= hi.size) continue;
    const double at = lo.size > 0 ? std::log(size / lo.size) / std::log(hi.size / lo.size) : (size - lo.size) / (hi.size - lo.size);
    return lo.efficiency + (hi.efficiency - lo.efficiency) * at;
  }
  return steps.back().efficiency;
}

// The same, as a share of the table's largest efficiency: the factor by
// which an op of `size` falls short of the largest ops, whose own rate a
// chip's spec may give (Chip::achieved) more exactly than the table.
inline double relative_size_efficiency(std::span<const SizeStep> steps, double size) {
  if (steps.empty() || !(steps.back().efficiency > 0) || !(size > 0) || !std::isfinite(size)) return 1;
  return size_efficiency(steps, size) / steps.back().efficiency;
}

}  // namespace roofline
