// predict() of a matmul that ran on TF32 tensor cores: its counts, timed at
// the peak select_peak picks for TF32 (the chip's TF32 unit; fp32 where it
// has none; the bf16 MXU on a TPU, as for any fp32 matmul there).
#include "roofline/match/op_model.hpp"

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

}  // namespace roofline
