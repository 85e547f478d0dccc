// predict() of a matmul that ran on TF32 tensor cores: its counts, timed at
// the peak select_peak picks for TF32 (the chip's TF32 unit; fp32 where it
// has none; the bf16 MXU on a TPU, as for any fp32 matmul there).
#include "roofline/match/op_model.hpp"

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

}  // namespace roofline
