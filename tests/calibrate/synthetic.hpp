// Samples generated exactly by the calibration model, for the calibrate tests.
#pragma once

#include <string>
#include <vector>

#include "roofline/calibrate/sample.hpp"

namespace roofline::testing {

// A sample of an H100 whose measured time is floor + max(T_math / (e_math
// s_math), T_mem / (e_mem s_mem)), times `outlier` (1: on the curve): its
// FLOPs and bytes are its terms at the H100's bf16 peak and HBM
// bandwidth, and s_math, s_mem the size factors of the H100's built-in
// curves (calibration.hpp, size_factors), which a fit keeps.
inline CalibrationSample model_sample(const std::string& trace, const std::string& op, CostClass c, PeakClass peak,
                                      double t_math_s, double t_mem_s, double floor_s, double e_math, double e_mem,
                                      double outlier = 1) {
  const Chip& h100 = chip("h100-sxm");
  const double flops = t_math_s * h100.peak_flops_per_s[static_cast<int>(PeakClass::kBf16)];
  const double bytes = t_mem_s * h100.hbm_bytes_per_s;
  const SizeFactors size = size_factors(flops, bytes, c, default_calibration(h100));
  const double t = floor_s + std::max(t_math_s / (e_math * size.math), t_mem_s / (e_mem * size.memory));
  return CalibrationSample{.trace = trace, .op = op, .family = kernel_family(op), .chip = "h100-sxm", .cost_class = c, .peak_used = peak,
                           .t_math_s = t_math_s, .t_mem_s = t_mem_s, .t_link_s = 0, .t_mem_cold_s = t_mem_s,
                           .flops = flops, .hbm_bytes = bytes,
                           .measured_s = t * outlier,
                           .count = 3};
}

// 20 matmuls (T_math from 1 us to about 0.6 ms, T_mem a quarter of it) on the
// curve floor 3 us, e_math 0.7 (bf16), plus 3 outliers at 3x and 0.3x; and 15
// memory ops (T_mem 1 us to about 0.3 ms) on floor 2 us, e_mem 0.85, plus 2
// outliers at 2.5x.
inline std::vector<CalibrationSample> known_curve_samples(const std::string& trace = "synthetic") {
  std::vector<CalibrationSample> s;
  double t = 1e-6;
  for (int i = 0; i < 20; ++i, t *= 1.4)
    s.push_back(model_sample(trace, "gemm." + std::to_string(i), CostClass::kMatmul, PeakClass::kBf16, t, t / 4, 3e-6, 0.7, 0.85));
  s.push_back(model_sample(trace, "gemm.out0", CostClass::kMatmul, PeakClass::kBf16, 4e-5, 1e-5, 3e-6, 0.7, 0.85, 3));
  s.push_back(model_sample(trace, "gemm.out1", CostClass::kMatmul, PeakClass::kBf16, 9e-5, 1e-5, 3e-6, 0.7, 0.85, 0.3));
  s.push_back(model_sample(trace, "gemm.out2", CostClass::kMatmul, PeakClass::kBf16, 2e-6, 1e-7, 3e-6, 0.7, 0.85, 3));
  t = 1e-6;
  for (int i = 0; i < 15; ++i, t *= 1.5)
    s.push_back(model_sample(trace, "add." + std::to_string(i), CostClass::kMemory, PeakClass::kFp32, t / 10, t, 2e-6, 0.7, 0.85));
  s.push_back(model_sample(trace, "add.out0", CostClass::kMemory, PeakClass::kFp32, 0, 3e-5, 2e-6, 0.7, 0.85, 2.5));
  s.push_back(model_sample(trace, "add.out1", CostClass::kMemory, PeakClass::kFp32, 0, 7e-6, 2e-6, 0.7, 0.85, 2.5));
  return s;
}

}  // namespace roofline::testing
