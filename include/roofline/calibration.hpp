// The calibrated expectation: what an op should take on a real chip, beside
// the roofline it cannot beat. The roofline (predict.hpp) answers "at least
// how long"; real kernels reach only a fraction of the peaks and every launch
// costs a few microseconds, so a user also needs "how long, normally". One
// occurrence of an op of class c is expected to take
//
//   T_expected = floor_s + max(T_math / (math_efficiency   x s_math(FLOPs)),
//                              T_mem  / (memory_efficiency x s_mem(bytes)),
//                              T_link / link_efficiency)
//
// where T_math and T_link are the roofline's terms (Prediction's t_math_s,
// and t_ici_s + t_host_s: an op crosses one link or the other), T_mem its
// bytes at HBM's bandwidth (t_hbm_cold_s: the roofline's own memory term
// may take a working set that fits in L2 at L2's speed, a
// bound most kernels do not reach: they find their operands in HBM), and
// the four parameters belong to the op's class on that chip. The achieved
// efficiency, T_lower / T_expected, thus rises with the size of the op and
// saturates at the class's efficiency: a small GEMM is launch-bound, a large
// one runs at the chip's achievable matmul rate (a memory-bound op whose
// bound is L2's saturates lower, at e_mem x t_hbm_s / t_hbm_cold_s).
// s_math and s_mem (expected/gemm.hpp, expected/memory.hpp; 1 where the
// calibration has no size curve) are the share of the largest ops' rate an
// op of its size reaches: a GEMM of a few tiles, a copy of a few
// kilobytes, run far below the rate of one that fills the chip for long.
// A GEMM whose dimensions are known may lose more by its shape (tile and
// wave quantization, size_factors).
//
// The parameters come from a `ChipCalibration`: the built-in one of each
// embedded chip (default_calibration(chip), from the published measurements
// in the chip's spec, each with its source), or one fitted to measured
// traces by `roofline calibrate` (roofline/calibrate/fit.hpp), which a user
// passes back with --calibration.
//
// Part of roofline::core (header-only).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/chip.hpp"
#include "roofline/expected/gemm.hpp"
#include "roofline/expected/memory.hpp"
#include "roofline/expected/size_curve.hpp"
#include "roofline/predict.hpp"

namespace roofline {

// Which curve times an op: what kind of unit does its work.
enum class CostClass : std::uint8_t {
  kMatmul,      // matrix units: GEMMs, convolutions, attention, dot fusions
  kMemory,      // element-wise, reductions, normalisation, copies, gathers
  kCollective,  // all-reduce, all-gather, ... over ICI / NVLink / the network
  kHostLink,    // transfers between host and device memory (PCIe)
};
inline constexpr int kCostClassCount = 4;

constexpr std::string_view cost_class_name(CostClass c) {
  switch (c) {
    case CostClass::kMatmul: return "matmul";
    case CostClass::kMemory: return "memory";
    case CostClass::kCollective: return "collective";
    case CostClass::kHostLink: return "host link";
  }
  return "?";
}

// The four parameters of one class on one chip. An efficiency of 1 and a
// floor of 0 make the expectation the roofline itself.
struct ClassCurve {
  double floor_s = 0;            // time of the smallest launch of this class
  double math_efficiency = 1;    // achieved / peak FLOP/s of large ops
  double memory_efficiency = 1;  // achieved / HBM's peak bytes/s of large ops
  double link_efficiency = 1;    // achieved / modelled link (or PCIe) bytes/s
};

// How well a calibration predicts the ops it was made from, as
// |measured / expected - 1| over the distinct ops (each op's median
// occurrence); zero samples for a built-in calibration.
struct FitQuality {
  std::int64_t samples = 0;
  double median_abs_error = 0;
  double p90_abs_error = 0;
};

// The family of a kernel or op name: the name without "void ", its
// template and call arguments, an "(anonymous namespace)::" and a numeric
// suffix. Kernels of one implementation share it whatever their sizes and
// types: "void at::native::reduce_kernel<512, 1, ...>(...)" is
// "at::native::reduce_kernel", "Memcpy DtoD (Device -> Device)" is "Memcpy
// DtoD", "fusion.12" is "fusion", "volta_sgemm_128x64_nt" itself.
inline std::string kernel_family(std::string_view name) {
  std::string s(name.starts_with("void ") ? name.substr(5) : name);
  for (std::size_t at; (at = s.find("(anonymous namespace)::")) != std::string::npos;) s.erase(at, 23);
  s.resize(std::min(s.find_first_of("<("), s.size()));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  const std::size_t dot = s.find_last_of('.');
  if (dot != std::string::npos && dot + 1 < s.size() &&
      s.find_first_not_of("0123456789", dot + 1) == std::string::npos)
    s.resize(dot);
  return s;
}

// A kernel family's own curve, where a fit found its ops off their class's
// curve together (roofline calibrate: FitOptions::min_family_samples ops
// or more; fewer than 3 only where they are launch-bound, and they tell
// the floor alone): one implementation's kernels share a launch cost and a
// way of moving bytes that the class's other kernels do not (cuDNN's batch
// norms, PyTorch's reductions and its dtype-converting copies, an A100's
// device copies).
struct FamilyCurve {
  CostClass cost_class = CostClass::kMemory;
  std::string family;  // kernel_family() of the ops' names
  ClassCurve curve;
  FitQuality quality;  // on the family's own samples
};

// What scales a matmul whose GEMM dimensions are known.
enum class MatmulShapeModel : std::uint8_t {
  kSizeCurve,    // the matmul size curve by FLOPs, as where they are unknown
  // min(size curve, quantization_efficiency(shape)): the curve, measured
  // over GEMMs of every shape, holds the quantization a GEMM of that size
  // loses on average; where the shape's own loss is larger (a few tiles on
  // a chip of a hundred SMs), it takes that instead. Not their product,
  // which would count the average loss twice.
  kTileAndWave,
};

constexpr std::string_view matmul_shape_model_name(MatmulShapeModel m) {
  return m == MatmulShapeModel::kTileAndWave ? "tile_and_wave" : "size_curve";
}

struct ChipCalibration {
  std::string chip;    // our chip name ("h100-sxm")
  std::string origin;  // "built-in: published measurements" or "fit to N ops of M traces"
  std::array<ClassCurve, kCostClassCount> classes{};
  // Matmul math efficiency per peak class (the unit that timed T_math,
  // Prediction::peak.used); 0 where unknown, then classes[kMatmul]'s
  // math_efficiency applies.
  std::array<double, kPeakClassCount> matmul_math_efficiency{};
  std::vector<FamilyCurve> families;  // a built-in calibration has none
  // How an op's size scales its class's efficiencies (size_curve.hpp,
  // relative to the table's largest step); empty: not at all. Matmul's by
  // the FLOPs of a matmul-class op, memory's by the bytes of any op.
  std::vector<SizeStep> matmul_size_steps;
  std::vector<SizeStep> memory_size_steps;
  // Whether a collective is expected by its own shape where a published
  // model applies (NCCL's cost model, the TPU figures:
  // roofline/collectives/expected.hpp) instead of the collective class's
  // curve: the built-in calibration's way; a fitted one times every
  // collective by its fitted curve.
  bool collective_shape_model = false;
  // How a matmul whose GEMM shape is known (GemmShape) is scaled: by the
  // lower of its tile and wave quantization (expected/gemm.hpp) and the size
  // curve, or by the size curve like any other.
  MatmulShapeModel matmul_shape_model = MatmulShapeModel::kSizeCurve;
  FitQuality quality;

  const ClassCurve& curve(CostClass c) const { return classes[static_cast<int>(c)]; }
  ClassCurve& curve(CostClass c) { return classes[static_cast<int>(c)]; }
  // The family's own curve in class c, or nullptr.
  const FamilyCurve* family_curve(CostClass c, std::string_view family) const {
    if (family.empty()) return nullptr;
    for (const FamilyCurve& f : families)
      if (f.cost_class == c && f.family == family) return &f;
    return nullptr;
  }
  double math_efficiency(CostClass c, PeakClass used) const {
    const double per_peak = matmul_math_efficiency[static_cast<int>(used)];
    return c == CostClass::kMatmul && per_peak > 0 ? per_peak : curve(c).math_efficiency;
  }
};

// The share of its class's efficiencies an op of `flops` and `hbm_bytes`
// (one occurrence) reaches by its size on `cal`: s_math and s_mem above. A
// matmul whose GEMM shape is known takes the lower of the size curve and
// its tile and wave quantization where the calibration says so
// (matmul_shape_model).
struct SizeFactors {
  double math = 1;
  double memory = 1;
};
inline SizeFactors size_factors(double flops, double hbm_bytes, CostClass c, const ChipCalibration& cal,
                                const std::optional<GemmShape>& gemm = std::nullopt) {
  double math = 1;
  if (c == CostClass::kMatmul) {
    math = relative_size_efficiency(cal.matmul_size_steps, flops);
    if (gemm && cal.matmul_shape_model == MatmulShapeModel::kTileAndWave)
      math = std::min(math, quantization_efficiency(*gemm));
  }
  return {.math = math, .memory = relative_size_efficiency(cal.memory_size_steps, hbm_bytes)};
}

// The expected time of one occurrence of an op of class `c` whose roofline
// is `p`. An invalid prediction gives NaN; an op with no work at all (all
// three terms zero: a loop's own row, an async start) is expected to take
// no time, since it launches nothing we cost.
// `family` (kernel_family() of the op's name; empty: none known) picks the
// family's own curve where the calibration has one, else the class's;
// `gemm`, a matmul's GEMM shape where known, its size factor (size_factors).
inline double expected_s(const Prediction& p, CostClass c, const ChipCalibration& cal, std::string_view family = {},
                         const std::optional<GemmShape>& gemm = std::nullopt) {
  if (!p.valid()) return std::numeric_limits<double>::quiet_NaN();
  if (p.t_math_s <= 0 && p.t_hbm_s <= 0 && p.t_ici_s <= 0 && p.t_host_s <= 0) return 0;
  const FamilyCurve* own = cal.family_curve(c, family);
  const ClassCurve& k = own ? own->curve : cal.curve(c);
  const SizeFactors size = size_factors(p.flops, p.hbm_bytes, c, cal, gemm);
  const auto stretch = [](double t, double efficiency) { return efficiency > 0 ? t / efficiency : t; };
  return k.floor_s + std::max({stretch(p.t_math_s, (own ? k.math_efficiency : cal.math_efficiency(c, p.peak.used)) * size.math),
                               stretch(std::max(p.t_hbm_s, p.t_hbm_cold_s), k.memory_efficiency * size.memory),
                               stretch(p.t_ici_s + p.t_host_s, k.link_efficiency)});
}

// The built-in calibration of `chip`: its published achievable rates
// (Chip::achieved, each with a source in the spec) as efficiencies against
// its peaks, and on a GPU the size curves of Calculon (expected/gemm.hpp,
// expected/memory.hpp), whose largest steps (0.95 of the matrix peak, 0.90
// of HBM's) stand for a rate the spec lacks; the memory curve is the
// published bandwidth-by-size curve of the chip's die where one exists. A TPU's rate the spec lacks
// leaves that efficiency at 1 (the roofline), and a TPU has no size curve
// (Calculon's tables are of GPUs); no launch floor leaves the floor at 0.
inline ChipCalibration default_calibration(const Chip& chip) {
  ChipCalibration cal;
  cal.chip = chip.name;
  cal.origin = "built-in: published measurements (hardware/" + chip.name + ".json, \"achieved\")";
  const AchievedRates& a = chip.achieved;
  const bool gpu = chip.kind == ChipKind::kGpu;
  const double matmul_default = gpu ? std::end(kCalculonMatrixSteps)[-1].efficiency : 1.0;
  const double memory_default = gpu ? std::end(kCalculonHbmSteps)[-1].efficiency : 1.0;
  const auto ratio = [](double achieved, double peak, double otherwise) {
    return achieved > 0 && peak > 0 ? std::min(1.0, achieved / peak) : otherwise;
  };
  for (int i = 0; i < kPeakClassCount; ++i)
    cal.matmul_math_efficiency[i] = a.matmul_flops_per_s[i] > 0 ? ratio(a.matmul_flops_per_s[i], chip.peak_flops_per_s[i], 1.0) : 0;
  const double memory = ratio(a.hbm_bytes_per_s, chip.hbm_bytes_per_s, memory_default);
  const double link = ratio(a.link_bytes_per_s, chip.ici.link_bytes_per_s, 1.0);
  const double pcie = ratio(a.pcie_bytes_per_s, chip.pcie_bytes_per_s, 1.0);
  for (ClassCurve& k : cal.classes) {
    k.floor_s = a.launch_s;
    k.memory_efficiency = memory;
  }
  cal.curve(CostClass::kMatmul).math_efficiency = matmul_default;
  cal.curve(CostClass::kCollective).floor_s = std::max(a.launch_s, a.collective_launch_s);
  cal.curve(CostClass::kCollective).link_efficiency = link;
  cal.collective_shape_model = true;
  cal.curve(CostClass::kHostLink).floor_s = std::max(a.launch_s, a.copy_launch_s);
  cal.curve(CostClass::kHostLink).link_efficiency = pcie;
  // A GPU whose SM / CU count the spec gives quantizes the GEMMs whose
  // shape is known (expected/gemm.hpp).
  if (gpu && chip.compute_units > 0) cal.matmul_shape_model = MatmulShapeModel::kTileAndWave;
  if (gpu) {
    cal.matmul_size_steps.assign(std::begin(kCalculonMatrixSteps), std::end(kCalculonMatrixSteps));
    // The published curve of the chip's die where there is one, at the
    // chip's own streaming rate (expected/memory.hpp), else Calculon's.
    const double stream_bytes_per_s = memory * chip.hbm_bytes_per_s;
    cal.memory_size_steps = stream_size_steps(stream_curve_of(chip.die, chip.name), a.launch_s, stream_bytes_per_s);
    if (cal.memory_size_steps.empty())
      cal.memory_size_steps.assign(std::begin(kCalculonHbmSteps), std::end(kCalculonHbmSteps));
  }
  return cal;
}

}  // namespace roofline
