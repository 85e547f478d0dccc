// Ops with their own FLOP formulas that XLA counts as data movement: sort,
// fft, triangular-solve, cholesky; and the ops we have no formula for.
#include <cmath>

#include "src/hlo/cost/handlers.hpp"

namespace roofline::detail {

// sort         FLOPs = n x ceil(log2 n), n = elements(operand 0).
//              Bytes: operands read, result written.
void sort(const OpView& v, Costing&, Arith* a, HloCost* c) {
  const double n = v.in.empty() ? 0 : elements(*v.in[0]);
  a->flops += n > 1 ? n * std::ceil(std::log2(n)) : 0;
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  default_bytes(v, c);
}

// fft          FLOPs = 8 x prod(floor(log2 length)) x elements(operand 0)
//              over the fft_length= dimensions (a length of 0 gives 0).
//              Bytes: operands read, result written.
void fft(const OpView& v, Costing&, Arith* a, HloCost* c) {
  double log_factors = 1;
  for (std::int64_t l : v.attrs().fft_length) log_factors *= l > 0 ? std::floor(std::log2(static_cast<double>(l))) : 0;
  a->flops += 2 * 4 * log_factors * (v.in.empty() ? 0 : elements(first_array(*v.in[0])));
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  default_bytes(v, c);
}

// triangular-solve  FLOPs = 2 x n x elements(b), n = the last dimension of a.
//              Bytes: reads half of a (a triangle) and b, writes the result.
void triangular_solve(const OpView& v, Costing&, Arith* a, HloCost* c) {
  if (v.in.size() >= 2 && v.in[0]->rank() > 0)
    a->flops += 2 * static_cast<double>(v.in[0]->dims.back()) * elements(*v.in[1]);
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  c->bytes_read = (v.in.size() > 0 ? hbm_bytes_of(*v.in[0]) / 2 : 0) + (v.in.size() > 1 ? hbm_bytes_of(*v.in[1]) : 0);
  c->bytes_written = hbm_bytes_of(*v.out);
}

// cholesky     FLOPs = n x elements(a) / 3, n = the last dimension of a.
//              Bytes: reads and writes half of a (a triangle).
void cholesky(const OpView& v, Costing&, Arith* a, HloCost* c) {
  if (!v.in.empty() && v.in[0]->rank() > 0)
    a->flops += static_cast<double>(v.in[0]->dims.back()) * elements(*v.in[0]) / 3;
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  c->bytes_read = v.in.empty() ? 0 : hbm_bytes_of(*v.in[0]) / 2;
  c->bytes_written = c->bytes_read;
}

// batch-norm-*, and an opcode the reader does not know: FLOPs unknown,
//              flagged "no FLOP model". Bytes: operands read, result written.
void no_model(const OpView& v, Costing&, Arith* a, HloCost* c) {
  a->flags.unknown_opcode = true;
  if (c == nullptr) return;
  c->category = v.op == HloOpcode::kUnknown ? HloCategory::kCustomCall : HloCategory::kDataMovement;
  default_bytes(v, c);
}

}  // namespace roofline::detail
