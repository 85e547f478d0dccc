// Any op described by its counts alone: FLOPs, HBM bytes and, if it talks to
// other chips, the bytes over its busiest link and the link time already
// worked out by a collective model.
#pragma once

#include "roofline/chip.hpp"
#include "roofline/predict.hpp"

namespace roofline {

struct CostedOp {
  double flops = 0;
  double hbm_bytes = 0;
  double ici_bytes = 0;
  double t_ici_s = 0;
  double transcendentals = 0;
  DType dtype = DType::kBF16;
};

inline Prediction predict(const CostedOp& op, const Chip& chip) {
  Prediction p = make_prediction(op.flops, op.hbm_bytes, op.ici_bytes, op.t_ici_s, op.dtype, chip);
  p.transcendentals = op.transcendentals;
  return p;
}

}  // namespace roofline
