// An element-wise op: `inputs` arrays of `elements` each in, one array out.
//
//   FLOPs = elements * flops_per_element
//   bytes = elements * (inputs * |dtype| + |out|)
//
// Transcendentals (exp, tanh, ...) are counted apart, as XLA does, and do not
// enter T_math: their unit and rate differ per chip and no spec publishes it.
#pragma once

#include <cstdint>
#include <optional>

#include "roofline/chip.hpp"
#include "roofline/predict.hpp"

namespace roofline {

struct Elementwise {
  std::int64_t elements = 0;
  int inputs = 1;
  double flops_per_element = 1;
  double transcendentals_per_element = 0;
  DType dtype = DType::kBF16;
  std::optional<DType> out_dtype = {};

  DType out() const { return out_dtype.value_or(dtype); }
  double flops() const { return static_cast<double>(elements) * flops_per_element; }
  double hbm_bytes() const {
    return static_cast<double>(elements) *
           (inputs * bytes_per_element(dtype) + bytes_per_element(out()));
  }
};

inline Prediction predict(const Elementwise& op, const Chip& chip) {
  Prediction p = make_prediction(op.flops(), op.hbm_bytes(), 0, 0, op.dtype, chip);
  p.transcendentals = static_cast<double>(op.elements) * op.transcendentals_per_element;
  // Negative counts are invalid input: NaN times, Bound::kInvalid.
  if (op.elements < 0 || op.inputs < 0 || !(op.flops_per_element >= 0) || !(op.transcendentals_per_element >= 0))
    make_invalid(p);
  return p;
}

}  // namespace roofline
