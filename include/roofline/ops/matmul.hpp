// A (batched) matrix multiply: [batch, m, k] @ [batch, k, n] -> [batch, m, n].
//
//   FLOPs = 2 * batch * m * k * n   (one multiply and one add per MAC; the
//           exact count is batch*m*n*(2k-1), the scaling book and XLA use 2mkn)
//   bytes = batch * (m*k*|lhs| + k*n*|rhs| + m*n*|out|)
//
// Bytes assume each operand crosses HBM once, the best a tiled kernel can do
// when the tiles fit on chip. For x[32,1024,8192] @ W[8192,32768] write
// m = 32*1024 with batch 1: W is shared, not batched.
#pragma once

#include <cstdint>
#include <optional>

#include "roofline/chip.hpp"
#include "roofline/predict.hpp"

namespace roofline {

struct Matmul {
  std::int64_t batch = 1;
  std::int64_t m = 0;
  std::int64_t k = 0;
  std::int64_t n = 0;
  DType dtype = DType::kBF16;             // lhs element type
  std::optional<DType> rhs_dtype = {};    // defaults to dtype
  std::optional<DType> out_dtype = {};    // defaults to dtype

  DType rhs() const { return rhs_dtype.value_or(dtype); }
  DType out() const { return out_dtype.value_or(dtype); }
  // Mixed precision computes in the wider of the two inputs.
  DType compute() const { return compute_dtype(dtype, rhs()); }
  double flops() const {
    return 2.0 * static_cast<double>(batch) * static_cast<double>(m) *
           static_cast<double>(k) * static_cast<double>(n);
  }
  double hbm_bytes() const {
    const double b = static_cast<double>(batch);
    const double mm = static_cast<double>(m), kk = static_cast<double>(k),
                 nn = static_cast<double>(n);
    return b * (mm * kk * bytes_per_element(dtype) + kk * nn * bytes_per_element(rhs()) +
                mm * nn * bytes_per_element(out()));
  }
};

// A negative dimension, or a compute dtype the chip has no unit for, gives
// NaN times and Bound::kInvalid (validate(), roofline/ops/validate.hpp, says
// which); a zero dimension is an empty matmul (an MoE expert that got no
// tokens): no FLOPs, and the operands that still have elements are charged
// once, as the formula above says (W[k, n] for m = 0).
inline Prediction predict(const Matmul& mm, const Chip& chip) {
  Prediction p = make_prediction(mm.flops(), mm.hbm_bytes(), 0, 0, mm.compute(), chip);
  if (mm.batch < 0 || mm.m < 0 || mm.k < 0 || mm.n < 0) make_invalid(p);
  return p;
}

}  // namespace roofline
