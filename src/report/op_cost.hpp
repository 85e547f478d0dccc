// How one measured op is costed, whichever way its cost was found: a
// function from a chip to the roofline of one occurrence, so the same op can
// be re-predicted on a what-if chip.
#pragma once

#include <functional>
#include <string>

#include "roofline/chip.hpp"
#include "roofline/hlo/module.hpp"
#include "roofline/predict.hpp"
#include "roofline/report/report.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline::detail {

struct OpCost {
  MatchSource source = MatchSource::kUnmatched;
  // Empty when the op has no usable cost; `note` then says why.
  std::function<Prediction(const Chip&)> predict;
  std::string note;
  std::string hlo_category;
  std::string shape;  // HLO ops: the result shape
  // Rematerialised work counts in hardware FLOPs, not in model FLOPs.
  bool rematerialised = false;
  // The -done of an async pair: its measured time is the wait for a
  // transfer that may have been (partly) hidden behind other work.
  bool async_done = false;
};

// A PyTorch kernel from its launching aten op and Input Dims.
OpCost cost_from_input_dims(const CallInfo& call, const std::string& kernel);

// An NCCL / RCCL kernel from its collective args.
OpCost cost_from_collective_args(const CallInfo& call);

// An HLO instruction by our cost model.
OpCost cost_from_hlo(const HloInstruction& instruction);

// XLA's own recorded flops / bytes_accessed (and, for a collective, the
// replica groups in its HLO text).
OpCost cost_from_xla_stats(const OpInfo& op);

// Turns a prediction on the fp32 row into one on a chip's TF32 tensor-core
// rate (A100/H100 GEMM kernels named *tf32* or *s1688*).
Prediction with_peak(Prediction p, double peak_flops_per_s, const Chip& chip);

}  // namespace roofline::detail
