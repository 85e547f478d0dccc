// predict(op, chip)'s preconditions, checked where input enters: positive
// dimensions and a chip with a peak for the op's compute dtype. Part of the
// compiled roofline::roofline (abseil); the ops and predict() themselves are
// header-only roofline::core.
//
//   roofline::Matmul mm{.m = m, .k = k, .n = n};
//   if (absl::Status s = roofline::validate(mm, chip); !s.ok()) return s;
//   roofline::Prediction p = roofline::predict(mm, chip);
#pragma once

#include "absl/status/status.h"
#include "roofline/chip.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/ops/elementwise.hpp"
#include "roofline/ops/generic.hpp"
#include "roofline/ops/matmul.hpp"

namespace roofline {

inline absl::Status validate(const Matmul& mm, const Chip& chip) {
  if (mm.batch <= 0 || mm.m <= 0 || mm.k <= 0 || mm.n <= 0)
    return absl::InvalidArgumentError(detail::cat("matmul dims must be positive: batch=", mm.batch,
                                                   " m=", mm.m, " k=", mm.k, " n=", mm.n));
  if (!chip.has(mm.compute()))
    return absl::InvalidArgumentError(detail::cat(chip.name, " has no ",
                                                   peak_class_name(peak_class(mm.compute())),
                                                   " peak"));
  return absl::OkStatus();
}

inline absl::Status validate(const Elementwise& op, const Chip& chip) {
  if (op.elements <= 0 || op.inputs < 0 || op.flops_per_element < 0 ||
      op.transcendentals_per_element < 0)
    return absl::InvalidArgumentError(
        detail::cat("elementwise: elements must be positive and counts non-negative (elements=",
                     op.elements, ", inputs=", op.inputs, ")"));
  if (!chip.has(op.dtype))
    return absl::InvalidArgumentError(detail::cat(chip.name, " has no ",
                                                   peak_class_name(peak_class(op.dtype)), " peak"));
  return absl::OkStatus();
}

inline absl::Status validate(const CostedOp& op, const Chip&) {
  if (!(op.flops >= 0) || !(op.hbm_bytes >= 0) || !(op.ici_bytes >= 0) || !(op.t_ici_s >= 0))
    return absl::InvalidArgumentError("op counts must be non-negative numbers");
  return absl::OkStatus();
}

}  // namespace roofline
