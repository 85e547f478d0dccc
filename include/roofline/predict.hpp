// The roofline of one op on one chip.
//
//   T_math = FLOPs / peak FLOP/s of the op's compute dtype
//   T_hbm  = HBM bytes / HBM bandwidth
//   T_ici  = bytes on the busiest link / link bandwidth (0 for one device)
//
// The op cannot run faster than the slowest of the three (`t_lower_s`, the
// time if everything overlaps perfectly) and should not run slower than their
// sum (`t_upper_s`, nothing overlaps). The bound is whichever term is largest.
#pragma once

#include <algorithm>
#include <string_view>

#include "roofline/chip.hpp"
#include "roofline/dtype.hpp"

namespace roofline {

enum class Bound : unsigned char { kCompute, kMemory, kCommunication };

constexpr std::string_view bound_name(Bound b) {
  switch (b) {
    case Bound::kCompute: return "compute";
    case Bound::kMemory: return "memory";
    case Bound::kCommunication: return "communication";
  }
  return "?";
}

struct Prediction {
  double flops = 0;
  double transcendentals = 0;
  double hbm_bytes = 0;
  double ici_bytes = 0;  // bytes over the busiest link
  double t_math_s = 0;
  double t_hbm_s = 0;
  double t_ici_s = 0;
  double t_lower_s = 0;  // max of the three: perfect overlap
  double t_upper_s = 0;  // sum of the three: no overlap
  Bound bound = Bound::kMemory;
  double intensity_flops_per_byte = 0;  // flops / hbm_bytes
  double ridge_flops_per_byte = 0;      // chip peak / HBM bandwidth for `dtype`
  DType dtype = DType::kBF16;           // whose peak T_math used
};

// The lower and upper bounds and the bound of a Prediction whose three
// times are set. Ties go to compute, then memory: a perfectly balanced op is
// reported as compute-bound, as the scaling book does at the ridge.
inline void settle_bounds(Prediction& p) {
  p.t_lower_s = std::max({p.t_math_s, p.t_hbm_s, p.t_ici_s});
  p.t_upper_s = p.t_math_s + p.t_hbm_s + p.t_ici_s;
  if (p.t_math_s >= p.t_hbm_s && p.t_math_s >= p.t_ici_s && p.t_math_s > 0) p.bound = Bound::kCompute;
  else if (p.t_hbm_s >= p.t_ici_s) p.bound = Bound::kMemory;
  else p.bound = Bound::kCommunication;
}

// Assembles a Prediction from counts and the times they imply. Every op's
// predict() ends here, so the bound and the two totals mean the same thing
// everywhere.
inline Prediction make_prediction(double flops, double hbm_bytes, double ici_bytes,
                                  double t_ici_s, DType dtype, const Chip& chip) {
  Prediction p;
  p.flops = flops;
  p.hbm_bytes = hbm_bytes;
  p.ici_bytes = ici_bytes;
  p.dtype = dtype;
  const double peak = chip.peak_flops_per_s_for(dtype);
  p.t_math_s = flops > 0 && peak > 0 ? flops / peak : 0;
  p.t_hbm_s = hbm_bytes / chip.hbm_bytes_per_s;
  p.t_ici_s = t_ici_s;
  settle_bounds(p);
  p.intensity_flops_per_byte = hbm_bytes > 0 ? flops / hbm_bytes : 0;
  p.ridge_flops_per_byte = chip.ridge_flops_per_byte(dtype);
  return p;
}

}  // namespace roofline
