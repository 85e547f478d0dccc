// Which instructions of an unfused computation an accelerator's compiler
// would fuse, and the HBM bytes each is charged once fused (docs/hlo_cost.md,
// "Fusion of unfused modules"). Used by predict(HloModule) on modules that
// hold no fusion instruction (XLA's fusion passes have not run: the
// partitioned form roofline.jax.predict costs).
#pragma once

#include <vector>

#include "roofline/hlo/module.hpp"

namespace roofline::detail {

// Per instruction of the computation, by its index in `instructions`.
struct FusionGroups {
  // The group an instruction belongs to (0..count-1), or -1 when it is in
  // none or alone in its group: it is then charged its own bytes (cost()).
  std::vector<int> group;
  // For grouped instructions: the HBM bytes it is charged under fusion,
  // what the group reads from outside it (each outside value once per
  // group) and what it writes for users outside it.
  std::vector<double> bytes_read;
  std::vector<double> bytes_written;
  int count = 0;
};

// Producer-consumer fusion of `comp`'s element-wise ops, broadcasts,
// reshapes, converts, transposes, slices, pads, concatenates, iotas and
// reductions; a dot or convolution fuses with element-wise producers and
// consumers (XLA's output fusion, and operand fusion into the MXU op), at
// most one per group and never in a group with a reduction.
FusionGroups fuse_computation(const HloComputation& comp);

}  // namespace roofline::detail
