// Cross-chip scaling of a measured kernel, as Habitat does ("wave
// scaling": Yu et al., "Habitat: A Runtime-Based Computational Performance
// Predictor for Deep Neural Network Training", USENIX ATC 2021, section 3;
// github.com/geoffxy/habitat, analyzer/habitat/analysis/wave_scaling/
// roofline.py). A kernel whose implementation does not change between two
// GPUs (element-wise, reductions, copies) keeps its efficiency, so its
// time on chip B is its time measured on chip A scaled by how much faster
// B's memory and B's arithmetic are, each weighted by how much the kernel
// leans on it:
//
//   T_B = T_A x (BW_A / BW_B)^gamma x (P_A / P_B)^(1 - gamma)
//
// BW: HBM bandwidth (the spec's peak, as Habitat's mem_bandwidth_gb); P:
// the peak of the unit that times the kernel's dtype (Habitat uses clock x
// SMs, which our specs do not hold; the peak is clock x SMs x lanes per SM).
// gamma, from the kernel's intensity I (FLOPs / HBM bytes of our cost model;
// Habitat reads both from counters) against the target's ridge point
// R = P_B / BW_B:
//
//   gamma = 1 - 0.5 I / R   for I <= R   (1 for no FLOPs)
//   gamma = 0.5 R / I       for I >  R   (0 for no bytes)
//
// Where the launch is known (blocks, and blocks resident per SM, taken the
// same on both chips), a kernel that fills less than one wave on both
// chips (blocks < SMs x blocks per SM) is not bandwidth-limited the same
// way; Habitat scales it by the per-SM compute factor and the blocks each
// SM runs:
//
//   T_B = T_A x ((P_A / SMs_A) / (P_B / SMs_B) x ceil(blocks / SMs_B) / ceil(blocks / SMs_A))^(1 - gamma)
//
// Two limits that Habitat does not need but our inputs do: the scaled time is
// not below the kernel's roofline on B (a lower bound, t_lower_s), nor below
// B's shortest kernel (Chip::achieved.launch_s) unless A already ran it faster.
//
//   roofline::ScaleInputs in{.measured_s = 40e-6, .flops = 0, .hbm_bytes = 32e6, .dtype = DType::kF32};
//   roofline::ScaledTime t = roofline::wave_scale(in, chip("v100-sxm2"), chip("a100-sxm"), 0);
//   // gamma 1: 40 us x 900 / 2039 = 17.7 us
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "roofline/chip.hpp"
#include "roofline/dtype.hpp"

namespace roofline {

// How an op's time on the --target-chip was found (OpReport::target_method).
enum class TargetMethod : std::uint8_t {
  kModelled,  // the target's own expected time for the op (roofline/calibration.hpp expected_s)
  kScaled,    // its measured time scaled by wave_scale (Habitat)
  kMeasured,  // the target is the chip it was measured on: the measured time itself
};

constexpr std::string_view target_method_name(TargetMethod m) {
  switch (m) {
    case TargetMethod::kModelled: return "modelled";
    case TargetMethod::kScaled: return "scaled";
    case TargetMethod::kMeasured: return "measured";
  }
  return "modelled";
}

// What a report prints in its method column.
constexpr std::string_view target_method_label(TargetMethod m) {
  switch (m) {
    case TargetMethod::kModelled: return "modelled (expected on target)";
    case TargetMethod::kScaled: return "scaled (Habitat wave scaling)";
    case TargetMethod::kMeasured: return "measured (same chip)";
  }
  return "modelled (expected on target)";
}

// A kernel's launch: its thread blocks, and how many of them one SM holds
// at once (its occupancy in blocks), taken the same on both chips.
struct KernelLaunch {
  std::int64_t blocks = 0;
  double blocks_per_sm = 0;
};

struct ScaleInputs {
  double measured_s = 0;  // one occurrence on the chip it was measured on
  double flops = 0;       // its work, from the cost model
  double hbm_bytes = 0;
  DType dtype = DType::kF32;  // whose peak times its arithmetic
  std::optional<KernelLaunch> launch = {};
};

struct ScaledTime {
  double t_s = 0;             // on the target; NaN where it cannot be scaled
  double gamma = 1;           // the memory weight
  double bandwidth_ratio = 0; // BW_A / BW_B
  double compute_ratio = 0;   // P_A / P_B (0 where a chip lacks the unit and gamma is 1)
  bool partial_wave = false;  // the launch fills less than a wave on both chips
};

// Habitat's gamma for intensity `flops / hbm_bytes` against the ridge
// point `ridge_flops_per_byte` of the target.
double habitat_gamma(double flops, double hbm_bytes, double ridge_flops_per_byte);

// T_B from T_A (the formula above), before the two limits; NaN where a
// figure it needs is missing (a bandwidth, or the dtype's peak on either
// chip while gamma < 1).
ScaledTime wave_scale(const ScaleInputs& in, const Chip& from, const Chip& to);

// wave_scale's time held to the two limits: not below `target_lower_s` (the
// kernel's roofline on `to`), nor below to.achieved.launch_s unless the
// measured time already was.
double scaled_time_s(const ScaledTime& t, double measured_s, double target_lower_s, const Chip& to);

}  // namespace roofline
