#include "src/match/peaks.hpp"

namespace roofline::detail {

double peak_flops_per_s(const Chip& chip, DType dtype) { return chip.peak_flops_per_s_for(dtype); }

bool has_peak(const Chip& chip, DType dtype) { return chip.has(dtype); }

Prediction on_tf32_tensor_cores(Prediction p, const Chip& chip) {
  if (!chip.has(PeakClass::kTf32)) return p;
  const double peak = chip.peak_flops_per_s[static_cast<int>(PeakClass::kTf32)];
  p.t_math_s = p.flops > 0 ? p.flops / peak : 0;
  settle_bounds(p);
  p.ridge_flops_per_byte = peak / chip.hbm_bytes_per_s;
  return p;
}

DType default_mfu_dtype(const Chip& chip) { return chip.has(DType::kBF16) ? DType::kBF16 : DType::kF16; }

}  // namespace roofline::detail
