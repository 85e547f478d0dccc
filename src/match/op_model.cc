// predict() of a matmul that ran on TF32 tensor cores: its counts, timed at
// the peak select_peak picks for TF32 (the chip's TF32 unit; fp32 where it
// has none; the bf16 MXU on a TPU, as for any fp32 matmul there).
#include "roofline/match/op_model.hpp"

#include <algorithm>
#include <span>
#include <variant>

#include "roofline/hlo/cost.hpp"

namespace roofline {

Prediction predict(const MatmulModel& m, const Chip& chip) {
  if (m.peak == MatmulPeak::kComputeDtype) return predict(m.matmul, chip);
  const Matmul& mm = m.matmul;
  Prediction p = make_prediction(mm.flops(), mm.hbm_bytes(), 0, 0, mm.compute(),
                                 select_peak(chip, PeakClass::kTf32), chip);
  // As predict(Matmul): a negative dimension is invalid input.
  if (mm.batch < 0 || mm.m < 0 || mm.k < 0 || mm.n < 0) make_invalid(p);
  return p;
}

Prediction predict(const ConvolutionModel& m, const Chip& chip) {
  const PeakChoice peak = m.peak == MatmulPeak::kTf32TensorCores ? select_peak(chip, PeakClass::kTf32)
                                                                  : select_peak(chip, peak_class(m.dtype));
  return make_prediction(m.flops, m.read_bytes + m.written_bytes, 0, 0, m.dtype, peak, chip);
}

CostClass cost_class(const HloCost& cost) {
  if (cost.host_bytes > 0) return CostClass::kHostLink;
  if (cost.collective) return CostClass::kCollective;
  if (cost.category == HloCategory::kMatmul || cost.category == HloCategory::kConvolution) return CostClass::kMatmul;
  if (cost.category == HloCategory::kCollective) return CostClass::kCollective;
  return CostClass::kMemory;
}

namespace {

constexpr double kMatrixIntensity = 4;  // FLOPs per byte: see cost_class()

struct ClassOf {
  CostClass operator()(const HloModel& m) const { return cost_class(cost(*m.instruction)); }
  CostClass operator()(const AsyncStartModel&) const { return CostClass::kMemory; }
  CostClass operator()(const LoopContainerModel&) const { return CostClass::kMemory; }
  CostClass operator()(const MatmulModel&) const { return CostClass::kMatmul; }
  CostClass operator()(const AttentionModel&) const { return CostClass::kMatmul; }
  CostClass operator()(const ConvolutionModel&) const { return CostClass::kMatmul; }
  CostClass operator()(const ElementwiseModel&) const { return CostClass::kMemory; }
  CostClass operator()(const CollectiveModel&) const { return CostClass::kCollective; }
  CostClass operator()(const XlaStatsModel& m) const {
    if (m.collective) return CostClass::kCollective;
    return m.flops >= kMatrixIntensity * m.hbm_bytes && m.flops > 0 ? CostClass::kMatmul : CostClass::kMemory;
  }
  CostClass operator()(const HostTransferModel&) const { return CostClass::kHostLink; }
};

}  // namespace

CostClass cost_class(const OpModel& model) { return std::visit(ClassOf{}, model); }

namespace {

// Product of an array's dims at the indices `at`; nullopt on a bad index or
// overflow.
std::optional<std::int64_t> dims_product(const Shape& s, std::span<const std::int64_t> at) {
  std::int64_t p = 1;
  for (std::int64_t i : at) {
    if (i < 0 || i >= s.rank() || __builtin_mul_overflow(p, s.dims[static_cast<std::size_t>(i)], &p)) return std::nullopt;
  }
  return p;
}

// Product of the dims that are neither batch nor contracting.
std::optional<std::int64_t> free_product(const Shape& s, std::span<const std::int64_t> batch,
                                         std::span<const std::int64_t> contracting) {
  std::int64_t p = 1;
  for (int i = 0; i < s.rank(); ++i) {
    if (std::find(batch.begin(), batch.end(), i) != batch.end()) continue;
    if (std::find(contracting.begin(), contracting.end(), i) != contracting.end()) continue;
    if (__builtin_mul_overflow(p, s.dims[static_cast<std::size_t>(i)], &p)) return std::nullopt;
  }
  return p;
}

// A dot (or GEMM custom call): batch = lhs batch dims, K = lhs contracting,
// M and N the free dims of each side.
std::optional<GemmDims> hlo_gemm_dims(const HloInstruction& in) {
  const DotDimensionNumbers* d = in.typed->dot_dimensions;
  if (d == nullptr || in.operand_count() < 2) return std::nullopt;
  const Shape& lhs = in.operand(0).shape;
  const Shape& rhs = in.operand(1).shape;
  if (!lhs.is_array() || !rhs.is_array()) return std::nullopt;
  const std::optional<std::int64_t> batch = dims_product(lhs, d->lhs_batch);
  const std::optional<std::int64_t> k = dims_product(lhs, d->lhs_contracting);
  const std::optional<std::int64_t> m = free_product(lhs, d->lhs_batch, d->lhs_contracting);
  const std::optional<std::int64_t> n = free_product(rhs, d->rhs_batch, d->rhs_contracting);
  if (!batch || !k || !m || !n || *batch <= 0 || *k <= 0 || *m <= 0 || *n <= 0) return std::nullopt;
  return GemmDims{.m = *m, .n = *n, .k = *k, .batch = *batch};
}

struct DimsOf {
  std::optional<GemmDims> operator()(const HloModel& m) const { return hlo_gemm_dims(*m.instruction); }
  std::optional<GemmDims> operator()(const MatmulModel& m) const {
    const Matmul& mm = m.matmul;
    if (mm.m <= 0 || mm.n <= 0 || mm.k <= 0 || mm.batch <= 0) return std::nullopt;
    return GemmDims{.m = mm.m, .n = mm.n, .k = mm.k, .batch = mm.batch};
  }
  std::optional<GemmDims> operator()(const ConvolutionModel& m) const { return m.gemm; }
  std::optional<GemmDims> operator()(const auto&) const { return std::nullopt; }
};

}  // namespace

std::optional<GemmDims> gemm_dims(const OpModel& model) { return std::visit(DimsOf{}, model); }

std::optional<GemmShape> gemm_shape(const OpModel& model, std::string_view kernel, const Chip& chip) {
  if (chip.compute_units <= 0) return std::nullopt;
  const std::optional<GemmDims> dims = gemm_dims(model);
  if (!dims) return std::nullopt;
  return gemm_shape_of(*dims, kernel, chip.compute_units);
}

}  // namespace roofline
