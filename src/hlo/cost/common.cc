// The view of an instruction that handlers cost, and the shape arithmetic
// they share: elements, array leaves, HBM and host bytes.
#include "src/hlo/cost/handlers.hpp"
#include "src/hlo/int_math.hpp"

namespace roofline {
namespace detail {
namespace {

// Padded bytes of the array leaves in host memory (host) or in device HBM;
// arrays in other (on-chip) memory spaces cost nothing.
double bytes_in_space(const Shape& s, bool host) {
  switch (s.kind) {
    case ShapeKind::kArray: {
      const bool in_host = s.memory_space() == kMemorySpaceHost;
      if (host ? in_host : s.memory_space() == kMemorySpaceDevice) return static_cast<double>(padded_bytes(s));
      return 0;
    }
    case ShapeKind::kTuple:
    case ShapeKind::kBuffer: {
      double n = 0;
      for (const Shape& e : s.tuple_shapes) n += bytes_in_space(e, host);
      return n;
    }
    default: return 0;
  }
}

}  // namespace

OpView view_of(const HloInstruction& i, int depth) {
  OpView v{&i, i.opcode, &i.shape, {}, depth};
  for (const HloInstruction* o : i.operands) v.in.push_back(&o->shape);
  const bool tuple2 = i.shape.is_tuple() && i.shape.tuple_shapes.size() >= 2;
  switch (i.opcode) {
    case HloOpcode::kAsyncStart:
      if (i.wrapped_opcode != HloOpcode::kUnknown) {
        v.op = i.wrapped_opcode;
        if (tuple2) v.out = &i.shape.tuple_shapes[1];  // ((operands), result, context)
      }
      break;
    case HloOpcode::kAllReduceStart: v.op = HloOpcode::kAllReduce; break;
    case HloOpcode::kAllGatherStart:
      v.op = HloOpcode::kAllGather;
      if (tuple2) v.out = &i.shape.tuple_shapes[1];
      break;
    case HloOpcode::kCollectivePermuteStart:
      v.op = HloOpcode::kCollectivePermute;
      if (tuple2) v.out = &i.shape.tuple_shapes[1];
      break;
    case HloOpcode::kCrossReplicaSum: v.op = HloOpcode::kAllReduce; break;
    default: break;
  }
  return v;
}

double elements(const Shape& s) { return static_cast<double>(element_count(s)); }

const Shape& first_array(const Shape& s) {
  const Shape* p = &s;
  while ((p->is_tuple() || p->kind == ShapeKind::kBuffer) && !p->tuple_shapes.empty()) p = &p->tuple_shapes.front();
  return *p;
}

bool has_unbounded(const Shape& s) {
  if (s.unbounded_dims) return true;
  for (const Shape& e : s.tuple_shapes)
    if (has_unbounded(e)) return true;
  return false;
}

bool size_saturated(const Shape& s) {
  if (s.is_array() && padded_bytes(s) == kInt64Max) return true;
  for (const Shape& e : s.tuple_shapes)
    if (size_saturated(e)) return true;
  return false;
}

DType array_type(const Shape& s) {
  const Shape& a = first_array(s);
  return a.is_array() ? a.element_type : DType::kF32;
}

void default_bytes(const OpView& v, HloCost* c) {
  for (const Shape* s : v.in) {
    c->bytes_read += hbm_bytes_of(*s);
    c->host_bytes += host_bytes_of(*s);
  }
  c->bytes_written += hbm_bytes_of(*v.out);
  c->host_bytes += host_bytes_of(*v.out);
}

}  // namespace detail

double hbm_bytes_of(const Shape& shape) { return detail::bytes_in_space(shape, false); }
double host_bytes_of(const Shape& shape) { return detail::bytes_in_space(shape, true); }

std::string_view category_name(HloCategory c) {
  switch (c) {
    case HloCategory::kMatmul: return "matmul";
    case HloCategory::kConvolution: return "convolution";
    case HloCategory::kLoopFusion: return "loop fusion";
    case HloCategory::kInputFusion: return "input fusion";
    case HloCategory::kOutputFusion: return "output fusion";
    case HloCategory::kCustomFusion: return "custom fusion";
    case HloCategory::kElementwise: return "elementwise";
    case HloCategory::kReduction: return "reduction";
    case HloCategory::kDataMovement: return "data movement";
    case HloCategory::kCollective: return "collective";
    case HloCategory::kCustomCall: return "custom call";
    case HloCategory::kControl: return "control";
  }
  return "?";
}

}  // namespace roofline
