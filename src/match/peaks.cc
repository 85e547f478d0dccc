// The peaks the match stage reads (src/match/peaks.hpp).
#include "src/match/peaks.hpp"

namespace roofline::detail {

double peak_flops_per_s(const Chip& chip, DType dtype) {
  return select_peak(chip, peak_class(dtype)).flops_per_s;
}

bool has_peak(const Chip& chip, DType dtype) { return select_peak(chip, peak_class(dtype)).available(); }

DType default_mfu_dtype(const Chip& chip) { return has_peak(chip, DType::kBF16) ? DType::kBF16 : DType::kF16; }

}  // namespace roofline::detail
