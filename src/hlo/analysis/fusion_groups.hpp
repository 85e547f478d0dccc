// Which values of an unfused computation an accelerator's compiler keeps in
// HBM once it has fused it, and the HBM bytes each instruction is charged
// then (docs/hlo_cost.md, "Fusion of unfused modules"). Used by
// predict(HloModule) on modules that hold no fusion instruction (XLA's
// fusion passes have not run: the partitioned form roofline.jax.predict costs).
#pragma once

#include <vector>

#include "roofline/hlo/module.hpp"

namespace roofline::detail {

// Per instruction of the computation, by its index in `instructions`.
struct FusionGroups {
  // True: bytes_read/bytes_written replace what cost() charges it. False:
  // the instruction is costed as it is (collectives, calls, loops, custom
  // calls, gather, scatter, sort, free ops).
  std::vector<bool> fused;
  std::vector<double> bytes_read;
  std::vector<double> bytes_written;
  // The kernel (0..count-1) an instruction is part of: a kernel's root and
  // the producers fused into it; -1 for instructions in none. A producer
  // fused into several kernels is listed with the first.
  std::vector<int> group;
  int count = 0;  // kernels of two or more instructions
};

// The fusion of `comp`'s element-wise ops, broadcasts, reshapes, converts,
// transposes, slices, pads, concatenates and iotas into the kernels that
// use them (dots, convolutions, reductions, dynamic-update-slices, and
// element-wise values that must reach HBM), as XLA's instruction fusion
// does with cheap producers: such a producer is recomputed in every kernel
// that uses it and reaches HBM only when something that cannot fuse uses
// it (a collective, a call or loop, the computation's result).
FusionGroups fuse_computation(const HloComputation& comp);

}  // namespace roofline::detail
