// predict() of the models whose roofline needs more than counts: a matmul
// that ran on TF32 tensor cores is timed at the chip's TF32 peak.
#include "roofline/match/op_model.hpp"

#include "src/match/peaks.hpp"

namespace roofline {

Prediction predict(const MatmulModel& m, const Chip& chip) {
  Prediction p = predict(m.matmul, chip);
  if (m.peak == MatmulPeak::kTf32TensorCores) p = detail::on_tf32_tensor_cores(p, chip);
  return p;
}

}  // namespace roofline
