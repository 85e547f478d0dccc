// Every peak the match stage reads, in one place: the peak that times an
// op's arithmetic and measures its FLOP utilisation, the TF32 tensor-core
// re-timing of fp32 GEMMs, and the peak MFU is taken against.
#pragma once

#include "roofline/chip.hpp"
#include "roofline/predict.hpp"

namespace roofline::detail {

// Dense peak FLOP/s of `dtype`'s class on `chip`; 0 where the chip has no
// unit for it.
double peak_flops_per_s(const Chip& chip, DType dtype);

// Whether `chip` has a unit for `dtype`'s class.
bool has_peak(const Chip& chip, DType dtype);

// `p`, a prediction on the fp32 row, re-timed at the chip's TF32
// tensor-core rate where the chip has one (A100/H100 GEMM kernels named
// *tf32* or *s1688*); unchanged otherwise.
Prediction on_tf32_tensor_cores(Prediction p, const Chip& chip);

// The dtype MFU is measured against when no op carries FLOPs: bf16, or
// fp16 on chips without bf16 (V100).
DType default_mfu_dtype(const Chip& chip);

}  // namespace roofline::detail
