// Fusions are costed by what crosses their boundary: the FLOPs of the fused
// computation, the bytes of the parameters it reads (XLA's
// FusionParameterReadBytes) and of the result it writes.
#include "src/hlo/cost/handlers.hpp"

namespace roofline::detail {
namespace {

// FLOPs and transcendentals of the fused computation, nested fusions
// included; its first convolution's (else dot's) type.
void add_fused_arith(const OpView& v, Costing& k, Arith* a) {
  const Arith sub = k.computation_arith(v.ins->called("calls"), v.depth + 1);
  a->flops += sub.flops;
  a->transcendentals += sub.transcendentals;
  a->flags |= sub.flags;
  if (sub.has_dot || sub.has_conv) {
    if (!a->has_dot && !a->has_conv) a->dtype = sub.dtype;
    a->has_dot |= sub.has_dot;
    a->has_conv |= sub.has_conv;
  }
}

double fused_read_bytes(const HloInstruction& p, int depth, Costing& k);

// The bytes a fused parameter (or a get-tuple-element of one) is read for,
// by its users: a slice reads the slice; a dynamic-slice of it (as operand 0)
// the slice; a dynamic-update-slice into it (operand 0) nothing, it is
// updated in place; a broadcast or reshape the whole array each; a nested
// fusion asks its own parameter; all other users share one whole read.
double fused_read_bytes_of_users(const HloInstruction& p, int depth, Costing& k) {
  double size = 0;
  bool seen_trivial = false;
  auto trivial = [&] {
    if (!seen_trivial) {
      seen_trivial = true;
      size += hbm_bytes_of(p.shape);
    }
  };
  for (const HloInstruction& user : p.parent->instructions) {
    bool uses = false;
    for (const HloInstruction* o : user.operands) uses |= o == &p;
    if (!uses) continue;
    switch (user.opcode) {
      case HloOpcode::kFusion: {
        const HloComputation* inner = user.called("calls");
        for (std::size_t n = 0; n < user.operands.size(); ++n) {
          if (user.operands[n] != &p) continue;
          const HloInstruction* param = inner ? inner->parameter(static_cast<std::int64_t>(n)) : nullptr;
          size += param ? fused_read_bytes(*param, depth + 1, k) : hbm_bytes_of(p.shape);
        }
        break;
      }
      case HloOpcode::kSlice:
        size += hbm_bytes_of(user.shape);
        break;
      case HloOpcode::kDynamicSlice:
        if (user.operands.front() == &p) size += hbm_bytes_of(user.shape);
        else trivial();
        break;
      case HloOpcode::kDynamicUpdateSlice:
        if (user.operands.front() != &p) trivial();  // operand 0 is aliased to the output
        break;
      case HloOpcode::kBroadcast:
      case HloOpcode::kReshape:
        size += hbm_bytes_of(p.shape);
        break;
      case HloOpcode::kGetTupleElement:
        size += fused_read_bytes(user, depth + 1, k);
        break;
      default:
        trivial();  // other readers share one read from memory
    }
  }
  return size;
}

double fused_read_bytes(const HloInstruction& p, int depth, Costing& k) {
  if (depth > kMaxCostDepth) return hbm_bytes_of(p.shape);
  auto& memo = k.fused_read();
  if (auto it = memo.find(&p); it != memo.end()) return it->second;
  // Seeded with the whole shape so a cycle through this instruction ends
  // at an upper bound instead of recursing.
  memo[&p] = hbm_bytes_of(p.shape);
  double size = fused_read_bytes_of_users(p, depth, k);
  // A parameter that is its computation's root (the operand blocks of a
  // Triton GEMM fusion) is read to be produced, though nothing in the
  // computation uses it. XLA's base analysis counts 0 here.
  if (p.is_root && size == 0) size = hbm_bytes_of(p.shape);
  memo[&p] = size;
  return size;
}

// Reads: every fused parameter by fused_read_bytes, and constants of more
// than one element (they live in memory). Writes: the result, except that a
// dynamic-update-slice root (or tuple element) writes only its update.
void fusion_bytes(const OpView& v, Costing& k, HloCost* c) {
  const HloInstruction& fusion = *v.ins;
  const HloComputation* body = fusion.called("calls");
  if (body == nullptr || body->root == nullptr) {
    default_bytes(v, c);
    return;
  }
  for (const HloInstruction& i : body->instructions) {
    if (i.opcode == HloOpcode::kParameter) c->bytes_read += fused_read_bytes(i, 0, k);
    if (i.opcode == HloOpcode::kConstant && element_count(i.shape) > 1) c->bytes_read += hbm_bytes_of(i.shape);
  }
  const HloInstruction& root = *body->root;
  auto written = [](const HloInstruction& r, const Shape& s) {
    if (r.opcode == HloOpcode::kDynamicUpdateSlice && r.operands.size() > 1) return hbm_bytes_of(r.operands[1]->shape);
    return hbm_bytes_of(s);
  };
  if (fusion.shape.is_tuple() && root.opcode == HloOpcode::kTuple) {
    for (std::size_t n = 0; n < fusion.shape.tuple_shapes.size(); ++n)
      c->bytes_written += n < root.operands.size() ? written(*root.operands[n], fusion.shape.tuple_shapes[n])
                                                   : hbm_bytes_of(fusion.shape.tuple_shapes[n]);
  } else {
    c->bytes_written += written(root, fusion.shape);
  }
  c->host_bytes += host_bytes_of(fusion.shape);
}

// A fusion around a convolution is a convolution, around a dot a matmul;
// otherwise its kind= says which.
HloCategory fusion_category(FusionKind kind, const Arith& a) {
  if (a.has_conv) return HloCategory::kConvolution;
  if (a.has_dot) return HloCategory::kMatmul;
  switch (kind) {
    case FusionKind::kInput: return HloCategory::kInputFusion;
    case FusionKind::kOutput: return HloCategory::kOutputFusion;
    case FusionKind::kCustom: return HloCategory::kCustomFusion;
    default: return HloCategory::kLoopFusion;
  }
}

}  // namespace

// fusion       FLOPs and transcendentals: the sum over the fused computation.
//              Bytes: what crosses the boundary (fusion_bytes).
//              Category: by what it contains, else by kind=.
void fusion(const OpView& v, Costing& k, Arith* a, HloCost* c) {
  add_fused_arith(v, k, a);
  c->category = fusion_category(v.attrs().fusion_kind, *a);
  fusion_bytes(v, k, c);
}

// A fusion inside a fused computation adds its arithmetic (its bytes are
// the outer fusion's business). Costed on its own, which only async sugar
// around a fusion is, it reads its operands and writes its result.
void nested_fusion(const OpView& v, Costing& k, Arith* a, HloCost* c) {
  add_fused_arith(v, k, a);
  if (c == nullptr) return;
  c->category = HloCategory::kDataMovement;
  default_bytes(v, c);
}

}  // namespace roofline::detail
