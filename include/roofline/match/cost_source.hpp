// Where a measured op's cost comes from. Each function reads one kind of
// evidence a trace carries and returns the op's model (roofline/match/
// op_model.hpp) or, when the evidence is not enough, why not.
// find_cost_source (roofline/match/match.hpp) tries them in the order
// docs/report.md gives: HLO instruction, Input Dims, collective args, XLA's
// recorded figures.
//
//   roofline::CostSource c = roofline::cost_from_input_dims(call, "sm90_xmma_gemm_bf16");
//   if (c.model) roofline::Prediction p = roofline::predict(*c.model, chip);
//   else std::puts(c.note.c_str());   // "aten::foo: no cost model for ..."
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "roofline/hlo/module.hpp"
#include "roofline/match/op_model.hpp"
#include "roofline/match/report.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

struct CostSource {
  MatchSource source = MatchSource::kUnmatched;
  // Empty when the op has no usable cost; `note` then says why.
  std::optional<OpModel> model;
  std::string note;          // caveats of the match, or why there is none
  std::string hlo_category;  // "matmul", "loop fusion", ...; empty: keep the trace's
  std::string shape;         // HLO ops: the result shape, without layout
  // Rematerialised work (jax's remat / checkpoint) counts in hardware
  // FLOPs, not in model FLOPs.
  bool rematerialised = false;
  // The -done of an async pair: its measured time is the wait for a
  // transfer that may have been (partly) hidden behind other work.
  bool async_done = false;
  // HLO ops: the instruction the op was found as (not owned).
  const HloInstruction* instruction = nullptr;
};

// An HLO instruction by our cost model, async pairs attributed as
// roofline/match/attribute.hpp says: a -done is charged its -start's
// transfer, a -start with a -done nothing.
CostSource cost_from_hlo(const HloInstruction& instruction);

// A PyTorch kernel from its launching aten op, Input Dims, Input type and
// Concrete Inputs. `kernel` is the kernel's own name, or the names of all
// the kernels the op launched, one a line: they tell a TF32 GEMM from an
// fp32 one, a Winograd or FFT convolution from a direct one.
// `trace_calls`, every call of the trace, lets a convolution find the shapes
// its own call lacks in another: a forward's output in the backward of the
// same input and weight, a backward's weight in its forward.
CostSource cost_from_input_dims(const CallInfo& call, std::string_view kernel,
                                std::span<const CallInfo> trace_calls = {});

// An NCCL / RCCL kernel from its collective args.
CostSource cost_from_collective_args(const CallInfo& call);

// XLA's own recorded flops / bytes_accessed (and, for a collective, the
// replica groups in its HLO text).
CostSource cost_from_xla_stats(const OpInfo& op);

}  // namespace roofline
