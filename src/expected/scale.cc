// Habitat's wave scaling (roofline/expected/scale.hpp has the formula and
// its source).
#include "roofline/expected/scale.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace roofline {

double habitat_gamma(double flops, double hbm_bytes, double ridge_flops_per_byte) {
  // Habitat: "fully memory bandwidth bound" without FLOPs, fully compute
  // bound without bytes.
  if (!(flops > 0)) return 1;
  if (!(hbm_bytes > 0)) return 0;
  if (!(ridge_flops_per_byte > 0)) return 1;  // no peak: only the bandwidth can scale it
  const double intensity = flops / hbm_bytes;
  if (intensity > ridge_flops_per_byte) return 0.5 * ridge_flops_per_byte / intensity;
  return 1 - 0.5 / ridge_flops_per_byte * intensity;
}

ScaledTime wave_scale(const ScaleInputs& in, const Chip& from, const Chip& to) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  ScaledTime s;
  const double p_from = from.peak_flops_per_s_for(in.dtype), p_to = to.peak_flops_per_s_for(in.dtype);
  const double ridge = p_to > 0 && to.hbm_bytes_per_s > 0 ? p_to / to.hbm_bytes_per_s : 0;
  s.gamma = habitat_gamma(in.flops, in.hbm_bytes, ridge);
  const double gamma_compl = 1 - s.gamma;
  if (from.hbm_bytes_per_s > 0 && to.hbm_bytes_per_s > 0) s.bandwidth_ratio = from.hbm_bytes_per_s / to.hbm_bytes_per_s;
  if (p_from > 0 && p_to > 0) s.compute_ratio = p_from / p_to;
  const bool needs_compute = gamma_compl > 0;
  if (!(in.measured_s >= 0) || (needs_compute && s.compute_ratio == 0)) {
    s.t_s = kNaN;
    return s;
  }
  if (const std::optional<KernelLaunch>& l = in.launch;
      l && l->blocks > 0 && l->blocks_per_sm > 0 && from.compute_units > 0 && to.compute_units > 0) {
    const double blocks = static_cast<double>(l->blocks);
    const bool under_a_wave_on_both = blocks < from.compute_units * l->blocks_per_sm &&
                                      blocks < to.compute_units * l->blocks_per_sm;
    if (under_a_wave_on_both) {
      s.partial_wave = true;
      if (!needs_compute) {
        s.t_s = in.measured_s;  // Habitat: factor^(1 - gamma) = 1
        return s;
      }
      const double per_sm_ratio = (p_from / from.compute_units) / (p_to / to.compute_units);
      const double blocks_per_sm_ratio = std::ceil(blocks / to.compute_units) / std::ceil(blocks / from.compute_units);
      s.t_s = in.measured_s * std::pow(per_sm_ratio * blocks_per_sm_ratio, gamma_compl);
      return s;
    }
  }
  if (s.bandwidth_ratio == 0 && s.gamma > 0) {
    s.t_s = kNaN;
    return s;
  }
  s.t_s = in.measured_s * (s.gamma > 0 ? std::pow(s.bandwidth_ratio, s.gamma) : 1.0) *
          (needs_compute ? std::pow(s.compute_ratio, gamma_compl) : 1.0);
  return s;
}

double scaled_time_s(const ScaledTime& t, double measured_s, double target_lower_s, const Chip& to) {
  const double launch_floor_s = std::min(measured_s, to.achieved.launch_s);
  return std::max({t.t_s, target_lower_s, launch_floor_s});
}

}  // namespace roofline
