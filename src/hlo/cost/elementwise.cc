// Elementwise ops, map and the random-number generators.
#include "src/hlo/cost/handlers.hpp"

namespace roofline::detail {
namespace {

bool is_transcendental(HloOpcode op) {
  switch (op) {  // XLA's list (HandleElementwiseOp)
    case HloOpcode::kExponential: case HloOpcode::kLog: case HloOpcode::kLogistic:
    case HloOpcode::kPower: case HloOpcode::kSqrt: case HloOpcode::kCbrt:
    case HloOpcode::kRsqrt: case HloOpcode::kTanh: case HloOpcode::kSine:
    case HloOpcode::kCosine: case HloOpcode::kExponentialMinusOne:
    case HloOpcode::kLogPlusOne: case HloOpcode::kAtan2:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool is_elementwise(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAbs: case HloOpcode::kAcos: case HloOpcode::kAcosh: case HloOpcode::kAdd:
    case HloOpcode::kAnd: case HloOpcode::kAsin: case HloOpcode::kAsinh: case HloOpcode::kAtan:
    case HloOpcode::kAtan2: case HloOpcode::kAtanh: case HloOpcode::kCbrt: case HloOpcode::kCeil:
    case HloOpcode::kClamp: case HloOpcode::kCompare: case HloOpcode::kComplex: case HloOpcode::kConvert:
    case HloOpcode::kCosine: case HloOpcode::kCosh: case HloOpcode::kCountLeadingZeros:
    case HloOpcode::kDivide: case HloOpcode::kErf: case HloOpcode::kExponential:
    case HloOpcode::kExponentialMinusOne: case HloOpcode::kFloor: case HloOpcode::kImag:
    case HloOpcode::kIsFinite: case HloOpcode::kLog: case HloOpcode::kLogPlusOne:
    case HloOpcode::kLogistic: case HloOpcode::kMaximum: case HloOpcode::kMinimum:
    case HloOpcode::kMulhi: case HloOpcode::kMultiply: case HloOpcode::kNegate: case HloOpcode::kNot:
    case HloOpcode::kOr: case HloOpcode::kPopcnt: case HloOpcode::kPower: case HloOpcode::kReal:
    case HloOpcode::kReducePrecision: case HloOpcode::kRemainder: case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven: case HloOpcode::kRsqrt: case HloOpcode::kSelect:
    case HloOpcode::kShiftLeft: case HloOpcode::kShiftRightArithmetic: case HloOpcode::kShiftRightLogical:
    case HloOpcode::kSign: case HloOpcode::kSine: case HloOpcode::kSinh: case HloOpcode::kSqrt:
    case HloOpcode::kStochasticConvert: case HloOpcode::kSubtract: case HloOpcode::kTan:
    case HloOpcode::kTanh: case HloOpcode::kXor: case HloOpcode::kTupleSelect:
      return true;
    default:
      return false;
  }
}

// elementwise  FLOPs = elements(result); exp, log, logistic, power, sqrt,
//              cbrt, rsqrt, tanh, sine, cosine, expm1, log1p, atan2 count
//              as transcendentals instead.
//              Bytes: operands read, result written.
//              Compute type: the operand's for compare / convert / is-finite.
void elementwise(const OpView& v, Costing&, Arith* a, HloCost* c) {
  const double n = elements(first_array(*v.out));
  (is_transcendental(v.op) ? a->transcendentals : a->flops) += n;
  if (c == nullptr) return;
  c->category = HloCategory::kElementwise;
  if ((v.op == HloOpcode::kCompare || v.op == HloOpcode::kConvert || v.op == HloOpcode::kIsFinite) && !v.in.empty())
    c->dtype = array_type(*v.in[0]);
  default_bytes(v, c);
}

// map          FLOPs = elements(result) x cost(mapped computation), the same
//              for transcendentals. Bytes: operands read, result written.
void map(const OpView& v, Costing& k, Arith* a, HloCost* c) {
  const Arith mapped = k.computation_arith(v.ins->called("to_apply"), v.depth + 1);
  a->add_applications(mapped, elements(first_array(*v.out)));
  if (c == nullptr) return;
  c->category = HloCategory::kElementwise;
  default_bytes(v, c);
}

// rng, rng-bit-generator, rng-uniform, rng-normal
//              transcendentals = elements(result), no FLOPs.
//              Bytes: operands read, result written.
void rng(const OpView& v, Costing&, Arith* a, HloCost* c) {
  a->transcendentals += elements(*v.out);
  if (c == nullptr) return;
  // rng-uniform / rng-normal (older spellings) have always been data movement.
  c->category = v.op == HloOpcode::kRng || v.op == HloOpcode::kRngBitGenerator ? HloCategory::kElementwise
                                                                               : HloCategory::kDataMovement;
  default_bytes(v, c);
}

}  // namespace roofline::detail
