// Ops that move data and compute nothing: free ops, slices, in-place
// updates, gather/scatter, transposes, copies between memory spaces,
// infeed/outfeed, and everything else that just reads its operands and
// writes its result (broadcast, reshape, copy, concatenate, pad, reverse, iota, ...).
#include "src/hlo/cost/handlers.hpp"
#include "src/hlo/opcode_families.hpp"

namespace roofline::detail {

// parameter, constant, get-tuple-element, bitcast, tuple, after-all,
// add-dependency, domain, opt-barrier, partition-id, replica-id, ...
//              Nothing: they forward buffers or only order other ops.
void free_op(const OpView& v, Costing&, Arith*, HloCost* c) {
  const HloOpcode op = v.ins->opcode;
  c->category = op == HloOpcode::kConstant || op == HloOpcode::kBitcast ? HloCategory::kDataMovement
                                                                        : HloCategory::kControl;
}

// broadcast, reshape, copy, concatenate, pad, reverse, iota, ..., and an op
// whose cost is its own opcode's (a while or custom call inside a fused
// computation, async sugar around one): no FLOPs; operands read, result written.
void moves_operands(const OpView& v, Costing&, Arith*, HloCost* c) {
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  default_bytes(v, c);
}

// slice        Reads and writes only the slice (the result).
void slice(const OpView& v, Costing&, Arith*, HloCost* c) {
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  c->bytes_read = hbm_bytes_of(*v.out);
  c->bytes_written = hbm_bytes_of(*v.out);
}

// dynamic-slice  Reads the slice and the start indices, writes the slice.
void dynamic_slice(const OpView& v, Costing&, Arith*, HloCost* c) {
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  c->bytes_read = hbm_bytes_of(*v.out);
  for (std::size_t k = 1; k < v.in.size(); ++k) c->bytes_read += hbm_bytes_of(*v.in[k]);
  c->bytes_written = hbm_bytes_of(*v.out);
}

// dynamic-update-slice  Operand 0 is updated in place: reads the update and
//              the indices, writes the update.
void dynamic_update_slice(const OpView& v, Costing&, Arith*, HloCost* c) {
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  for (std::size_t k = 1; k < v.in.size(); ++k) c->bytes_read += hbm_bytes_of(*v.in[k]);
  c->bytes_written = v.in.size() > 1 ? hbm_bytes_of(*v.in[1]) : 0;
}

// gather       Reads what it gathers (the result) and the indices, writes the result.
void gather(const OpView& v, Costing&, Arith*, HloCost* c) {
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  c->bytes_read = hbm_bytes_of(*v.out) + (v.in.size() > 1 ? hbm_bytes_of(*v.in[1]) : 0);
  c->bytes_written = hbm_bytes_of(*v.out);
}

// scatter      FLOPs = elements(updates) x cost(combiner), the same for
//              transcendentals. Operands: N arrays, the indices, N updates.
//              Reads the updated elements of the operands and the updates
//              (2 x updates) and the indices; writes the updates.
void scatter(const OpView& v, Costing& k, Arith* a, HloCost* c) {
  const Arith combiner = k.computation_arith(v.ins->called("to_apply"), v.depth + 1);
  const std::size_t n = (v.in.size() - 1) / 2;  // operands..., indices, updates...
  a->add_applications(combiner, v.in.size() >= 3 ? elements(*v.in[n + 1]) : 0);
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  double updates = 0;
  for (std::size_t u = n + 1; u < v.in.size(); ++u) updates += hbm_bytes_of(*v.in[u]);
  c->bytes_read = 2 * updates + (n < v.in.size() ? hbm_bytes_of(*v.in[n]) : 0);
  c->bytes_written = updates;
}

namespace {

// A transpose whose permutation only relabels the layout: the same bytes in
// the same order, a bitcast.
bool transpose_is_bitcast(const OpView& v) {
  const HloInstruction& t = *v.ins;
  if (t.operands.size() != 1) return false;
  const Shape& in = t.operands[0]->shape;
  const Shape& out = t.shape;
  if (!in.has_layout || !out.has_layout || in.rank() != out.rank() || in.layout.tiles != out.layout.tiles) return false;
  const std::optional<std::span<const std::int64_t>>& perm = v.attrs().dimensions;
  if (!perm || static_cast<int>(perm->size()) != out.rank()) return false;
  for (int k = 0; k < out.rank(); ++k) {
    const std::int64_t out_dim = out.layout.minor_to_major[static_cast<std::size_t>(k)];
    const std::int64_t p = (*perm)[static_cast<std::size_t>(out_dim)];
    if (p != in.layout.minor_to_major[static_cast<std::size_t>(k)]) return false;
  }
  return true;
}

}  // namespace

// transpose    Operands read, result written; nothing when it only relabels
//              the layout (transpose_is_bitcast).
void transpose(const OpView& v, Costing&, Arith*, HloCost* c) {
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  if (!transpose_is_bitcast(v)) default_bytes(v, c);
}

// copy-start   An async copy between memory spaces (TPU host offload,
//              prefetch): reads the source where it lives, writes the
//              destination (tuple element 0): HBM bytes on the device side,
//              host bytes on the S(5) side. The copy-done costs nothing.
void copy_start(const OpView& v, Costing&, Arith*, HloCost* c) {
  const Shape& shape = v.ins->shape;
  const Shape& dst = shape.is_tuple() && !shape.tuple_shapes.empty() ? shape.tuple_shapes[0] : shape;
  c->category = HloCategory::kDataMovement;
  for (const Shape* s : v.in) {
    c->bytes_read += hbm_bytes_of(*s);
    c->host_bytes += host_bytes_of(*s);
  }
  c->bytes_written += hbm_bytes_of(dst);
  c->host_bytes += host_bytes_of(dst);
}

// infeed       Writes its result, moved from the host: as many host bytes.
// outfeed      Reads operand 0, moved to the host: as many host bytes.
void infeed_outfeed(const OpView& v, Costing&, Arith*, HloCost* c) {
  c->category = HloCategory::kDataMovement;
  if (v.ins->opcode == HloOpcode::kInfeed) {
    c->bytes_written = hbm_bytes_of(v.ins->shape);
    c->host_bytes = c->bytes_written;
  } else {
    c->bytes_read = v.in.empty() ? 0 : hbm_bytes_of(*v.in[0]);
    c->host_bytes = c->bytes_read;
  }
}

}  // namespace roofline::detail
