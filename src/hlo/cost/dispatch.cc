// Which handler costs an instruction, and the walk through called
// computations with its memo. cost(i) is the only entry point; the handlers
// (one file per opcode family, handlers.hpp) do the arithmetic.
#include <algorithm>

#include "src/hlo/cost/handlers.hpp"
#include "src/hlo/opcode_families.hpp"

namespace roofline {
namespace detail {
namespace {

// Ops that cost nothing: they forward buffers or only order other ops.
bool is_free(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter: case HloOpcode::kConstant: case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast: case HloOpcode::kTuple: case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency: case HloOpcode::kDomain: case HloOpcode::kOptBarrier:
    case HloOpcode::kPartitionId: case HloOpcode::kReplicaId: case HloOpcode::kGetDimensionSize:
    case HloOpcode::kTrace:
      return true;
    default:
      return false;
  }
}

// The handler of the op an instruction performs (OpView::op). Every
// instruction of a fused computation or reducer is costed by it; so is an
// instruction costed on its own unless its own opcode picks a handler below.
Handler op_handler(HloOpcode op) {
  if (is_collective(op)) return collective;
  switch (op) {
    case HloOpcode::kDot: return dot;
    case HloOpcode::kConvolution: return convolution;
    case HloOpcode::kReduce: return reduce;
    case HloOpcode::kReduceWindow: return reduce_window;
    case HloOpcode::kSelectAndScatter: return select_and_scatter;
    case HloOpcode::kMap: return map;
    case HloOpcode::kRng: case HloOpcode::kRngBitGenerator: case HloOpcode::kRngUniform:
    case HloOpcode::kRngNormal: return rng;
    case HloOpcode::kSlice: return slice;
    case HloOpcode::kDynamicSlice: return dynamic_slice;
    case HloOpcode::kDynamicUpdateSlice: return dynamic_update_slice;
    case HloOpcode::kGather: return gather;
    case HloOpcode::kScatter: return scatter;
    case HloOpcode::kTranspose: return transpose;
    case HloOpcode::kSort: return sort;
    case HloOpcode::kFft: return fft;
    case HloOpcode::kTriangularSolve: return triangular_solve;
    case HloOpcode::kCholesky: return cholesky;
    case HloOpcode::kFusion: return nested_fusion;
    case HloOpcode::kBatchNormGrad: case HloOpcode::kBatchNormInference: case HloOpcode::kBatchNormTraining:
    case HloOpcode::kUnknown: return no_model;
    default: return is_elementwise(op) ? elementwise : moves_operands;
  }
}

// The handler of an instruction costed on its own: by its own opcode first
// (loops, calls, async halves, fusions, custom calls, copies between memory
// spaces), else by the op it performs. Inside a fused computation these
// instructions contribute no arithmetic (op_handler gives them none).
Handler instruction_handler(const HloInstruction& i, HloOpcode op) {
  if (is_free(i.opcode)) return free_op;
  if (is_async_tail(i.opcode)) return async_tail;
  switch (i.opcode) {
    case HloOpcode::kWhile: return while_loop;
    case HloOpcode::kCall: return call;
    case HloOpcode::kConditional: return conditional;
    case HloOpcode::kAsyncStart:
      if (i.called("calls") != nullptr) return async_start;
      break;
    case HloOpcode::kFusion: return fusion;
    case HloOpcode::kCustomCall: return custom_call;
    case HloOpcode::kCopyStart: return copy_start;
    case HloOpcode::kInfeed: case HloOpcode::kOutfeed: return infeed_outfeed;
    default: break;
  }
  return op_handler(op);
}

}  // namespace

HloCost Costing::cost(const HloInstruction& i, int depth) {
  HloCost c;
  c.dtype = array_type(i.shape);
  if (depth > kMaxCostDepth) return c;
  const OpView v = view_of(i, depth);
  bool unbounded = has_unbounded(i.shape);
  for (const Shape* s : v.in) unbounded |= has_unbounded(*s);
  c.flags.unbounded_dynamic_shape = unbounded;
  bool saturated = size_saturated(i.shape);
  for (const Shape* s : v.in) saturated |= size_saturated(*s);
  c.flags.size_saturated = saturated;
  Arith a;
  a.dtype = c.dtype;
  instruction_handler(i, v.op)(v, *this, &a, &c);
  c.flops += a.flops;
  c.transcendentals += a.transcendentals;
  c.flags |= a.flags;
  if (a.has_dot || a.has_conv) c.dtype = a.dtype;
  return c;
}

void Costing::add_arith(const HloInstruction& i, int depth, Arith* a) {
  const OpView v = view_of(i, depth);
  op_handler(v.op)(v, *this, a, nullptr);
}

bool Costing::entered(const HloComputation* comp) const {
  return std::find(in_progress_.begin(), in_progress_.end(), comp) != in_progress_.end();
}

Arith Costing::computation_arith(const HloComputation* comp, int depth) {
  Arith a;
  if (comp == nullptr || depth > kMaxCostDepth || entered(comp)) return a;
  if (auto it = computation_arith_.find(comp); it != computation_arith_.end()) return it->second;
  in_progress_.push_back(comp);
  for (const HloInstruction& i : comp->instructions) add_arith(i, depth, &a);
  in_progress_.pop_back();
  computation_arith_.emplace(comp, a);
  return a;
}

HloCost Costing::computation_cost(const HloComputation* comp, int depth) {
  HloCost total;
  total.category = HloCategory::kControl;
  if (comp == nullptr || depth > kMaxCostDepth || entered(comp)) return total;
  if (auto it = computation_cost_.find(comp); it != computation_cost_.end()) return it->second;
  in_progress_.push_back(comp);
  for (const HloInstruction& i : comp->instructions) {
    const HloCost c = cost(i, depth + 1);
    total.flops += c.flops;
    total.transcendentals += c.transcendentals;
    total.bytes_read += c.bytes_read;
    total.bytes_written += c.bytes_written;
    total.host_bytes += c.host_bytes;
    total.flags |= c.flags;
  }
  in_progress_.pop_back();
  computation_cost_.emplace(comp, total);
  return total;
}

}  // namespace detail

HloCost cost(const HloInstruction& instruction) {
  detail::Costing k;
  return k.cost(instruction, 0);
}

std::optional<std::int64_t> known_trip_count(const HloInstruction& while_instruction) {
  return while_instruction.typed->known_trip_count;
}

}  // namespace roofline
