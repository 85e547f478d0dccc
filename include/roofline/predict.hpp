// The roofline of one op on one chip, and of sums of ops.
//
//   T_math = FLOPs / peak FLOP/s of the op's compute precision (select_peak)
//   T_hbm  = bytes moved / bandwidth of the memory tier that serves them
//   T_ici  = bytes on the busiest link / link bandwidth (0 for one device)
//   T_host = bytes to or from host memory / the chip's PCIe bandwidth
//
// T_ici is the interconnect between accelerators (ICI, NVLink, the
// network); T_host the host link, which a host-offload copy (an HLO
// transfer to memory space S(5), a send / recv to the host) or a GPU
// memcpy between host and device crosses. They are different wires with
// different bandwidths, so they are separate terms with separate bounds.
//
// The bytes moved are the op's unique bytes (`hbm_bytes`, named for the
// usual case). They are timed at the fastest memory that can hold them
// between kernels (select_memory_tier in chip.hpp): HBM, or a GPU's L2 /
// Infinity Cache when they fit, since a small op whose operands the previous
// kernel left in L2 never reaches HBM and would otherwise beat its "bound".
// `memory_bytes_per_s` and `memory_tier` say which one timed T_hbm.
//
// One op cannot run faster than the slowest of the four (`t_lower_s`, the
// time if everything overlaps perfectly) and should not run slower than their
// sum (`t_upper_s`, nothing overlaps). The bound is whichever term is largest.
//
// `Prediction` is the one value type for such a breakdown: a single op, an
// HLO instruction, a collective, a loop body, a whole module, a part of a
// training step. A sum of ops (`accumulate`) adds the counts, the four times
// and the two bounds term by term, so its lower bound is the sum of the ops'
// lower bounds (each op overlaps its own terms, not its neighbours').
//
// An op that breaks predict()'s preconditions (a negative dimension, a
// precision the chip has no unit for) is never given a plausible time: its
// times are NaN and its bound is Bound::kInvalid. validate(op, chip) says why
// (it also refuses a zero dimension, which a user who types one likely did
// not mean; predict() costs it as an empty op, see ops/matmul.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "roofline/chip.hpp"
#include "roofline/dtype.hpp"

namespace roofline {

enum class Bound : unsigned char { kCompute, kMemory, kCommunication, kHostLink, kInvalid };

constexpr std::string_view bound_name(Bound b) {
  switch (b) {
    case Bound::kCompute: return "compute";
    case Bound::kMemory: return "memory";
    case Bound::kCommunication: return "communication";
    case Bound::kHostLink: return "host link";
    case Bound::kInvalid: return "invalid";
  }
  return "?";
}

// The one bound rule: the largest of the four times. Ties go to compute,
// then memory, then the interconnect: a perfectly balanced op is reported
// as compute-bound, as the scaling book does at the ridge. All four zero (an
// empty op) is memory: it only touches its operands. A NaN time (invalid
// input) makes it kInvalid.
constexpr Bound bound_of(double t_math_s, double t_hbm_s, double t_ici_s, double t_host_s) {
  if (t_math_s != t_math_s || t_hbm_s != t_hbm_s || t_ici_s != t_ici_s || t_host_s != t_host_s) return Bound::kInvalid;
  if (t_math_s >= t_hbm_s && t_math_s >= t_ici_s && t_math_s >= t_host_s && t_math_s > 0) return Bound::kCompute;
  if (t_hbm_s >= t_ici_s && t_hbm_s >= t_host_s) return Bound::kMemory;
  if (t_ici_s >= t_host_s) return Bound::kCommunication;
  return Bound::kHostLink;
}

struct Prediction {
  double flops = 0;
  double transcendentals = 0;
  double hbm_bytes = 0;  // bytes moved (unique bytes of the op), timed at `memory_tier`
  double ici_bytes = 0;   // bytes over the busiest interconnect link; never the host link's
  double host_bytes = 0;  // bytes to or from host memory over the host link (PCIe)
  double t_math_s = 0;
  double t_hbm_s = 0;  // hbm_bytes / memory_bytes_per_s
  // hbm_bytes at HBM's bandwidth, whichever tier timed t_hbm_s: the time if
  // no byte is found on chip. The bound takes t_hbm_s (an operand the last
  // kernel left in L2 may be read there); the expectation (expected_s,
  // calibration.hpp) takes this, since measured kernels mostly fetch theirs
  // from HBM (an A100's 12.6 MB copies, within its 40 MB L2, run at HBM
  // speed). Equal to t_hbm_s where no tier served any byte, above it where
  // one served some; 0 on a chip with no HBM figure.
  double t_hbm_cold_s = 0;
  double t_ici_s = 0;
  // host_bytes / the chip's PCIe bandwidth; 0 on a chip with no such
  // figure (the bytes are still counted: the report says the host link is
  // not modelled).
  double t_host_s = 0;
  double t_lower_s = 0;  // one op: max of the four (perfect overlap); a sum: the sum of its ops' maxima
  double t_upper_s = 0;  // one op: sum of the four (no overlap); a sum: the sum of its ops' sums
  Bound bound = Bound::kMemory;
  double intensity_flops_per_byte = 0;  // flops / hbm_bytes
  double ridge_flops_per_byte = 0;      // the peak that timed T_math / memory_bytes_per_s
  // The bandwidth that timed T_hbm and the memory it belongs to: kHbmTier
  // or an index into Chip::on_chip (memory_tier_name names it). A sum: the
  // effective rate, hbm_bytes / t_hbm_s, and kMixedTiers when its ops'
  // bytes were timed at different tiers.
  double memory_bytes_per_s = 0;
  int memory_tier = kHbmTier;
  DType dtype = DType::kBF16;           // the compute dtype of the op
  // The chip's peak that timed T_math, and whether it is the one `dtype`
  // asked for (see select_peak: a fallback is named, never silent).
  PeakChoice peak;

  bool valid() const { return bound != Bound::kInvalid; }
};

// Sets the two bounds and the bound of one op whose four times are set.
inline void settle_bounds(Prediction& p) {
  p.t_lower_s = std::max({p.t_math_s, p.t_hbm_s, p.t_ici_s, p.t_host_s});
  p.t_upper_s = p.t_math_s + p.t_hbm_s + p.t_ici_s + p.t_host_s;
  p.bound = bound_of(p.t_math_s, p.t_hbm_s, p.t_ici_s, p.t_host_s);
  if (p.bound == Bound::kInvalid) p.t_lower_s = p.t_upper_s = std::numeric_limits<double>::quiet_NaN();
}

// Marks `p` as the prediction of an op that breaks predict()'s preconditions.
inline void make_invalid(Prediction& p) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  p.t_math_s = p.t_hbm_s = p.t_hbm_cold_s = p.t_ici_s = p.t_host_s = p.t_lower_s = p.t_upper_s = nan;
  p.bound = Bound::kInvalid;
}

// Adds `part`, run `times` times, into the sum `total`: counts, times and
// both bounds add term by term. Finish a sum with settle_sum().
inline void accumulate(Prediction& total, const Prediction& part, double times = 1) {
  // The sum's tier: the one all its byte-moving parts share, else mixed.
  if (part.hbm_bytes > 0 && times > 0) {
    if (total.hbm_bytes <= 0) total.memory_tier = part.memory_tier;
    else if (total.memory_tier != part.memory_tier) total.memory_tier = kMixedTiers;
  }
  total.flops += part.flops * times;
  total.transcendentals += part.transcendentals * times;
  total.hbm_bytes += part.hbm_bytes * times;
  total.ici_bytes += part.ici_bytes * times;
  total.host_bytes += part.host_bytes * times;
  total.t_math_s += part.t_math_s * times;
  total.t_hbm_s += part.t_hbm_s * times;
  total.t_hbm_cold_s += part.t_hbm_cold_s * times;
  total.t_ici_s += part.t_ici_s * times;
  total.t_host_s += part.t_host_s * times;
  total.t_lower_s += part.t_lower_s * times;
  total.t_upper_s += part.t_upper_s * times;
}

// The bound, intensity and ridge of a sum built with accumulate(); `peak`
// is the one the sum is quoted against (the dominant dtype's). The sum's
// memory rate is its effective one, bytes moved / T_hbm (HBM's where it
// moves no bytes), and its ridge is quoted against that rate, so that
// intensity >= ridge still means T_math >= T_hbm at that peak.
inline void settle_sum(Prediction& total, DType dtype, const PeakChoice& peak, const Chip& chip) {
  total.bound = bound_of(total.t_math_s, total.t_hbm_s, total.t_ici_s, total.t_host_s);
  total.intensity_flops_per_byte = total.hbm_bytes > 0 ? total.flops / total.hbm_bytes : 0;
  total.dtype = dtype;
  total.peak = peak;
  const bool timed = total.hbm_bytes > 0 && total.t_hbm_s > 0 && std::isfinite(total.t_hbm_s);
  total.memory_bytes_per_s = timed ? total.hbm_bytes / total.t_hbm_s : chip.hbm_bytes_per_s;
  if (total.hbm_bytes <= 0) total.memory_tier = kHbmTier;
  total.ridge_flops_per_byte = peak.flops_per_s / total.memory_bytes_per_s;
}

// Assembles a Prediction from counts and the times they imply. Every op's
// predict() ends here, so the bound and the two totals mean the same thing
// everywhere. `peak` says which of the chip's peaks times the arithmetic
// (select_peak(chip, peak_class(dtype)) for most ops); a peak the chip
// lacks (flops_per_s == 0) with FLOPs to time makes the prediction invalid.
inline Prediction make_prediction(double flops, double hbm_bytes, double ici_bytes, double t_ici_s,
                                  DType dtype, const PeakChoice& peak, const Chip& chip) {
  Prediction p;
  p.flops = flops;
  p.hbm_bytes = hbm_bytes;
  p.ici_bytes = ici_bytes;
  p.dtype = dtype;
  p.peak = peak;
  p.t_math_s = flops > 0 && peak.flops_per_s > 0 ? flops / peak.flops_per_s : 0;
  const MemoryTierChoice tier = select_memory_tier(chip, hbm_bytes);
  p.memory_tier = tier.tier;
  p.memory_bytes_per_s = tier.bytes_per_s;
  p.t_hbm_s = hbm_bytes / tier.bytes_per_s;
  p.t_hbm_cold_s = chip.hbm_bytes_per_s > 0 ? std::max(p.t_hbm_s, hbm_bytes / chip.hbm_bytes_per_s) : 0;
  p.t_ici_s = t_ici_s;
  p.intensity_flops_per_byte = hbm_bytes > 0 ? flops / hbm_bytes : 0;
  p.ridge_flops_per_byte = peak.flops_per_s / tier.bytes_per_s;
  const bool counts_ok = flops >= 0 && hbm_bytes >= 0 && ici_bytes >= 0 && t_ici_s >= 0;
  if (!counts_ok || (flops > 0 && !peak.available())) make_invalid(p);
  else settle_bounds(p);
  return p;
}

// Adds a transfer of `host_bytes` to or from host memory to `p`, one op
// made by make_prediction: timed over the host link at the chip's PCIe
// bandwidth (0 s where the chip has no such figure; the bytes still count),
// and the bounds settled again. A negative count makes `p` invalid.
inline void add_host_link(Prediction& p, double host_bytes, const Chip& chip) {
  p.host_bytes += host_bytes;
  if (!p.valid()) return;
  if (host_bytes < 0) return make_invalid(p);
  p.t_host_s += chip.pcie_bytes_per_s > 0 ? host_bytes / chip.pcie_bytes_per_s : 0;
  settle_bounds(p);
}

// The roofline of `p` run `times` times one after another: counts, times
// and both bounds multiplied; the bound, dtype, peak, intensity, ridge and
// memory rate stay those of one run.
inline Prediction repeated(Prediction p, double times) {
  for (double* x : {&p.flops, &p.transcendentals, &p.hbm_bytes, &p.ici_bytes, &p.host_bytes, &p.t_math_s, &p.t_hbm_s,
                    &p.t_hbm_cold_s, &p.t_ici_s, &p.t_host_s, &p.t_lower_s, &p.t_upper_s})
    *x *= times;
  return p;
}

// The same with the peak of `dtype` chosen by select_peak's exact rule.
inline Prediction make_prediction(double flops, double hbm_bytes, double ici_bytes, double t_ici_s,
                                  DType dtype, const Chip& chip) {
  return make_prediction(flops, hbm_bytes, ici_bytes, t_ici_s, dtype, select_peak(chip, peak_class(dtype)), chip);
}

}  // namespace roofline
