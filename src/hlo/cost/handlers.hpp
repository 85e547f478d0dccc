// What the per-opcode cost handlers share. One small handler per opcode
// family, each with its formula in plain sight (the shape of XLA's
// HloCostAnalysis, not its code); docs/hlo_cost.md lists every rule and the
// file it lives in:
//
//   dispatch.cc         which handler costs an instruction; cost(); memo per call
//   common.cc           the view of an instruction; shapes, bytes, default bytes
//   elementwise.cc      elementwise ops, map, rng
//   dot_conv.cc         dot, convolution (also the FLOPs of cuDNN convolutions)
//   reduce.cc           reduce, reduce-window, select-and-scatter
//   data_movement.cc    free ops, slices, dynamic-update-slice, gather, scatter,
//                       transpose, copy-start, infeed/outfeed, everything else
//   sort_fft_linalg.cc  sort, fft, triangular-solve, cholesky, ops with no model
//   collective.cc       all-reduce, all-gather, ..., send/recv
//   control.cc          while, call, conditional, async-start, async -done halves
//   custom_call.cc      library GEMMs and convolutions, annotations, unknown kernels
//   fusion.cc           fusions: FLOPs of the fused computation, bytes across its boundary
//
// Attributes come typed from the reader (HloInstruction::typed); no handler
// parses text.
#pragma once

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/module.hpp"

namespace roofline::detail {

// Recursion through called computations is bounded: a malformed module
// could make a while body call itself.
inline constexpr int kMaxCostDepth = 64;

// ---- the view of an instruction a handler costs ------------------------------

// An instruction seen as the op that does the work: for async sugar
// (`reduce-scatter-start`) and the real -start ops, the wrapped op with its
// result taken out of the start's tuple.
struct OpView {
  const HloInstruction* ins;
  HloOpcode op;
  const Shape* out;
  absl::InlinedVector<const Shape*, 4> in;  // the operands' shapes
  int depth;                                // calls between cost() and here

  const HloTypedAttributes& attrs() const { return *ins->typed; }
};

OpView view_of(const HloInstruction& i, int depth);

// ---- shapes --------------------------------------------------------------------

double elements(const Shape& s);
// The first array leaf of a tuple (or the shape itself).
const Shape& first_array(const Shape& s);
// A shape (or a tuple element) whose size in bytes saturated at 2^63 - 1.
bool size_saturated(const Shape& s);
bool has_unbounded(const Shape& s);
// The element type of first_array(s); f32 for a token or an empty tuple.
DType array_type(const Shape& s);
// Reads every operand, writes the result: HBM bytes, and host bytes for
// arrays in host memory.
void default_bytes(const OpView& v, HloCost* c);

// ---- arithmetic ------------------------------------------------------------------

// FLOPs and transcendentals, of one instruction or summed over a fused
// computation or reducer, and the type whose peak bounds them.
struct Arith {
  double flops = 0;
  double transcendentals = 0;
  HloCostFlags flags;  // only unknown_opcode, from the instructions summed
  bool has_dot = false;
  bool has_conv = false;
  DType dtype = DType::kF32;  // the compute type of the first convolution, else of the first dot

  // `times` executions of a called computation (a reducer per element folded).
  void add_applications(const Arith& sub, double times) {
    flops += sub.flops * times;
    transcendentals += sub.transcendentals * times;
  }
};

class Costing;

// A handler adds the FLOPs and transcendentals of the instruction in `v` to
// `a`. When `c` is set it also writes the instruction's bytes, category,
// flags and collective into `c` (cost() of the instruction); `c` is null
// when only the arithmetic of a fused computation or a reducer is summed.
// Handlers picked by the instruction's own opcode (while, call, conditional,
// async-start, fusion, custom-call, copy-start, infeed/outfeed, free ops,
// async tails) are only ever called with `c` set.
using Handler = void (*)(const OpView& v, Costing& k, Arith* a, HloCost* c);

// One cost() call: the memo that keeps the work linear in the module's size
// whatever its call graph (a computation called from many places, or, in a
// malformed module, from itself, is costed once).
class Costing {
 public:
  // What one execution of `i` costs; `depth` calls deep.
  HloCost cost(const HloInstruction& i, int depth);
  // Adds the arithmetic of `i`, an instruction of a fused computation or reducer, to `a`.
  void add_arith(const HloInstruction& i, int depth, Arith* a);
  // The arithmetic of a fused computation or reducer (zero for null, too
  // deep, or a computation being summed already: a cycle costs nothing more).
  Arith computation_arith(const HloComputation* comp, int depth);
  // The cost of every instruction of `comp` (while bodies, called computations).
  HloCost computation_cost(const HloComputation* comp, int depth);
  // Memo of XLA's FusionParameterReadBytes per fused parameter (fusion.cc).
  absl::flat_hash_map<const HloInstruction*, double>& fused_read() { return fused_read_; }

 private:
  bool entered(const HloComputation* comp) const;

  absl::flat_hash_map<const HloComputation*, HloCost> computation_cost_;
  absl::flat_hash_map<const HloComputation*, Arith> computation_arith_;
  absl::flat_hash_map<const HloInstruction*, double> fused_read_;
  absl::InlinedVector<const HloComputation*, 8> in_progress_;  // the computations being summed
};

// ---- the handlers, by file -----------------------------------------------------

// elementwise.cc
bool is_elementwise(HloOpcode op);
void elementwise(const OpView& v, Costing& k, Arith* a, HloCost* c);
void map(const OpView& v, Costing& k, Arith* a, HloCost* c);
void rng(const OpView& v, Costing& k, Arith* a, HloCost* c);

// dot_conv.cc
void dot(const OpView& v, Costing& k, Arith* a, HloCost* c);
void convolution(const OpView& v, Costing& k, Arith* a, HloCost* c);
// XLA's GetConvolutionFlops for a convolution of `lhs` by `rhs` into `out`;
// false when the convolution's attributes could not be read.
bool conv_flops(const ConvolutionAttributes* conv, const Shape& lhs, const Shape& rhs,
                const Shape& out, double* flops);

// reduce.cc
void reduce(const OpView& v, Costing& k, Arith* a, HloCost* c);
void reduce_window(const OpView& v, Costing& k, Arith* a, HloCost* c);
void select_and_scatter(const OpView& v, Costing& k, Arith* a, HloCost* c);

// data_movement.cc
void free_op(const OpView& v, Costing& k, Arith* a, HloCost* c);
void moves_operands(const OpView& v, Costing& k, Arith* a, HloCost* c);
void slice(const OpView& v, Costing& k, Arith* a, HloCost* c);
void dynamic_slice(const OpView& v, Costing& k, Arith* a, HloCost* c);
void dynamic_update_slice(const OpView& v, Costing& k, Arith* a, HloCost* c);
void gather(const OpView& v, Costing& k, Arith* a, HloCost* c);
void scatter(const OpView& v, Costing& k, Arith* a, HloCost* c);
void transpose(const OpView& v, Costing& k, Arith* a, HloCost* c);
void copy_start(const OpView& v, Costing& k, Arith* a, HloCost* c);
void infeed_outfeed(const OpView& v, Costing& k, Arith* a, HloCost* c);

// sort_fft_linalg.cc
void sort(const OpView& v, Costing& k, Arith* a, HloCost* c);
void fft(const OpView& v, Costing& k, Arith* a, HloCost* c);
void triangular_solve(const OpView& v, Costing& k, Arith* a, HloCost* c);
void cholesky(const OpView& v, Costing& k, Arith* a, HloCost* c);
void no_model(const OpView& v, Costing& k, Arith* a, HloCost* c);

// collective.cc
void collective(const OpView& v, Costing& k, Arith* a, HloCost* c);

// control.cc
void while_loop(const OpView& v, Costing& k, Arith* a, HloCost* c);
void call(const OpView& v, Costing& k, Arith* a, HloCost* c);
void conditional(const OpView& v, Costing& k, Arith* a, HloCost* c);
void async_start(const OpView& v, Costing& k, Arith* a, HloCost* c);
void async_tail(const OpView& v, Costing& k, Arith* a, HloCost* c);

// custom_call.cc
void custom_call(const OpView& v, Costing& k, Arith* a, HloCost* c);

// fusion.cc
void fusion(const OpView& v, Costing& k, Arith* a, HloCost* c);
void nested_fusion(const OpView& v, Costing& k, Arith* a, HloCost* c);

}  // namespace roofline::detail
