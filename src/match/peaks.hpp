// Every peak the match stage reads outside predict(), in one place, each
// chosen by select_peak (roofline/chip.hpp): the peak an op's FLOP
// utilisation is measured against, and the one MFU is.
#pragma once

#include "roofline/chip.hpp"

namespace roofline::detail {

// Dense peak FLOP/s of `dtype`'s precision on `chip` (select_peak's exact
// rule); 0 where the chip has no unit for it.
double peak_flops_per_s(const Chip& chip, DType dtype);

// Whether `chip` can time arithmetic in `dtype` (the same rule).
bool has_peak(const Chip& chip, DType dtype);

// The dtype MFU is measured against when no op carries FLOPs: bf16, or
// fp16 on chips without bf16 (V100).
DType default_mfu_dtype(const Chip& chip);

}  // namespace roofline::detail
