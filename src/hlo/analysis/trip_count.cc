// While-loop trip counts inferred from the loop's condition, the counter's
// initial value and its step (roofline/hlo/trip_count.hpp). Our own code for
// the patterns XLA's MatchTrivialLoopTripCount matches.
#include "roofline/hlo/trip_count.hpp"

#include <charconv>
#include <limits>

#include "roofline/detail/cat.hpp"
#include "src/hlo/int_math.hpp"

namespace roofline {
namespace {

using Int = detail::int128;  // -Wpedantic-clean, from int_math.hpp

// Copies and bitcasts hand the counter on unchanged.
const HloInstruction* strip(const HloInstruction* i) {
  for (int n = 0; i != nullptr && n < 16; ++n) {
    if ((i->opcode != HloOpcode::kCopy && i->opcode != HloOpcode::kBitcast) || i->operands.size() != 1) break;
    i = i->operands.front();
  }
  return i;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '{')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '}')) s.remove_suffix(1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

bool is_integer_scalar(const Shape& s) {
  if (!s.is_array() || !s.dims.empty()) return false;
  switch (s.element_type) {
    case DType::kS8: case DType::kS16: case DType::kS32: case DType::kS64:
    case DType::kU8: case DType::kU16: case DType::kU32: case DType::kU64:
      return true;
    default:
      return false;
  }
}

// The value of an integer scalar constant.
std::optional<std::int64_t> int_constant(const HloInstruction* i) {
  i = strip(i);
  if (i == nullptr || i->opcode != HloOpcode::kConstant || !is_integer_scalar(i->shape)) return std::nullopt;
  return parse_int(i->literal);
}

// The tuple index k when `i` is get-tuple-element(parameter(0), index=k) of `comp`.
std::optional<std::int64_t> state_index(const HloInstruction* i, const HloComputation* comp) {
  i = strip(i);
  if (i == nullptr || i->opcode != HloOpcode::kGetTupleElement || i->operands.size() != 1) return std::nullopt;
  const HloInstruction* p = i->operands.front();
  if (p->opcode != HloOpcode::kParameter || p->parent != comp || p->parameter_number != 0) return std::nullopt;
  return parse_int(i->attribute("index"));
}

// A binary op `i` of opcode `op`, or a fusion whose fused root is one with
// both operands parameters or constants: its two operands as seen from
// outside (a fused constant is returned as itself), and the op.
struct Binary {
  const HloInstruction* lhs = nullptr;
  const HloInstruction* rhs = nullptr;
  const HloInstruction* op = nullptr;
};

std::optional<Binary> binary(const HloInstruction* i, HloOpcode op) {
  if (i == nullptr) return std::nullopt;
  if (i->opcode == op && i->operands.size() == 2) return Binary{i->operands[0], i->operands[1], i};
  if (i->opcode != HloOpcode::kFusion) return std::nullopt;
  const HloComputation* fused = i->called("calls");
  if (fused == nullptr || fused->root == nullptr) return std::nullopt;
  const HloInstruction* r = fused->root;
  if (r->opcode != op || r->operands.size() != 2) return std::nullopt;
  auto outside = [&](const HloInstruction* x) -> const HloInstruction* {
    if (x->opcode == HloOpcode::kConstant) return x;
    if (x->opcode != HloOpcode::kParameter || x->parameter_number < 0 ||
        static_cast<std::size_t>(x->parameter_number) >= i->operands.size())
      return nullptr;
    return i->operands[static_cast<std::size_t>(x->parameter_number)];
  };
  const HloInstruction* a = outside(r->operands[0]);
  const HloInstruction* b = outside(r->operands[1]);
  if (a == nullptr || b == nullptr) return std::nullopt;
  return Binary{a, b, r};
}

// Element k of the tuple a while starts from, when it is written out.
const HloInstruction* init_element(const HloInstruction& w, std::int64_t k) {
  if (w.operands.size() != 1) return nullptr;
  const HloInstruction* t = strip(w.operands.front());
  if (t->opcode != HloOpcode::kTuple || k < 0 || static_cast<std::size_t>(k) >= t->operands.size()) return nullptr;
  return t->operands[static_cast<std::size_t>(k)];
}

// Element k of the body's root tuple.
const HloInstruction* body_element(const HloComputation* body, std::int64_t k) {
  const HloInstruction* r = body->root != nullptr ? strip(body->root) : nullptr;
  if (r == nullptr || r->opcode != HloOpcode::kTuple || k < 0 || static_cast<std::size_t>(k) >= r->operands.size())
    return nullptr;
  return r->operands[static_cast<std::size_t>(k)];
}

// A bound on the other side of the compare: a constant, or a tuple element
// the body passes on unchanged and that starts as a constant.
std::optional<std::int64_t> bound_value(const HloInstruction* x, const HloInstruction& w, const HloComputation* cond,
                                        const HloComputation* body) {
  if (auto c = int_constant(x)) return c;
  const std::optional<std::int64_t> k = state_index(x, cond);
  if (!k) return std::nullopt;
  const std::optional<std::int64_t> kept = state_index(body_element(body, *k), body);
  if (!kept || *kept != *k) return std::nullopt;
  return int_constant(init_element(w, *k));
}

enum class Dir { kLt, kLe, kGt, kGe, kEq, kNe, kNone };

Dir direction(std::string_view d) {
  if (d == "LT") return Dir::kLt;
  if (d == "LE") return Dir::kLe;
  if (d == "GT") return Dir::kGt;
  if (d == "GE") return Dir::kGe;
  if (d == "EQ") return Dir::kEq;
  if (d == "NE") return Dir::kNe;
  return Dir::kNone;
}

// counter `dir` bound, written with the counter on the right: flip it.
Dir flipped(Dir d) {
  switch (d) {
    case Dir::kLt: return Dir::kGt;
    case Dir::kLe: return Dir::kGe;
    case Dir::kGt: return Dir::kLt;
    case Dir::kGe: return Dir::kLe;
    default: return d;
  }
}

Int ceil_div(Int a, Int b) { return (a + b - 1) / b; }  // a >= 0, b > 0

// Trips of `for (i = init; i dir bound; i += step)`, or a reason.
std::optional<Int> trips_of(Int init, Int bound, Int step, Dir dir, std::string* why) {
  switch (dir) {
    case Dir::kLe: bound += 1; [[fallthrough]];
    case Dir::kLt:
      if (init >= bound) return 0;
      if (step <= 0) break;
      return ceil_div(bound - init, step);
    case Dir::kGe: bound -= 1; [[fallthrough]];
    case Dir::kGt:
      if (init <= bound) return 0;
      if (step >= 0) break;
      return ceil_div(init - bound, -step);
    case Dir::kEq:
      if (init != bound) return 0;
      if (step == 0) break;
      return 1;
    case Dir::kNe:
      if (init == bound) return 0;
      if (step == 0 || (bound - init) % step != 0 || (bound - init) / step < 0) break;
      return (bound - init) / step;
    case Dir::kNone:
      *why = "the condition's compare has no direction this analysis reads";
      return std::nullopt;
  }
  *why = detail::cat("the counter starts at ", static_cast<long long>(init), " and steps by ",
                     static_cast<long long>(step), ": it never leaves the condition's range (bound ",
                     static_cast<long long>(bound), ")");
  return std::nullopt;
}

WhileTripCount unknown(std::string why) {
  return WhileTripCount{.trips = std::nullopt, .source = TripCountSource::kUnknown, .why_unknown = std::move(why)};
}

}  // namespace

WhileTripCount while_trip_count(const HloInstruction& w) {
  if (w.opcode != HloOpcode::kWhile) return unknown("not a while loop");
  if (w.typed->known_trip_count)
    return WhileTripCount{.trips = w.typed->known_trip_count, .source = TripCountSource::kBackendConfig,
                          .why_unknown = {}};
  const HloComputation* cond = w.called("condition");
  const HloComputation* body = w.called("body");
  if (cond == nullptr || body == nullptr || cond->root == nullptr || body->root == nullptr)
    return unknown("the loop has no condition or body computation");
  if (!w.shape.is_tuple()) return unknown("the loop state is not a tuple, so it holds no separate counter");
  const std::optional<Binary> cmp = binary(cond->root, HloOpcode::kCompare);
  if (!cmp)
    return unknown(detail::cat("the condition's root is ", cond->root->opcode_name,
                               ", not a compare of the counter with a bound"));
  Dir dir = direction(cmp->op->attribute("direction"));
  std::optional<std::int64_t> k = state_index(cmp->lhs, cond);
  const HloInstruction* other = cmp->rhs;
  std::optional<std::int64_t> bound = k ? bound_value(other, w, cond, body) : std::nullopt;
  if (!bound) {  // the counter on the right: bound OP counter
    k = state_index(cmp->rhs, cond);
    bound = k ? bound_value(cmp->lhs, w, cond, body) : std::nullopt;
    dir = flipped(dir);
  }
  if (!k || !bound)
    return unknown("the condition does not compare a tuple element of the loop state with a constant bound");
  const std::optional<std::int64_t> init = int_constant(init_element(w, *k));
  if (!init)
    return unknown(detail::cat("the counter (tuple element ", *k, ") does not start from a constant in the "
                               "while's operand tuple"));
  const std::optional<Binary> add = binary(strip(body_element(body, *k)), HloOpcode::kAdd);
  std::optional<std::int64_t> step;
  if (add) {
    if (state_index(add->lhs, body) == k) step = int_constant(add->rhs);
    else if (state_index(add->rhs, body) == k) step = int_constant(add->lhs);
  }
  if (!step)
    return unknown(detail::cat("the body does not set the counter (tuple element ", *k, ") to itself plus a constant"));
  std::string why;
  const std::optional<Int> n = trips_of(*init, *bound, *step, dir, &why);
  if (!n) return unknown(why);
  if (*n > std::numeric_limits<std::int64_t>::max()) return unknown("the trip count exceeds 2^63 - 1");
  return WhileTripCount{.trips = static_cast<std::int64_t>(*n), .source = TripCountSource::kInferred,
                        .why_unknown = {}};
}

}  // namespace roofline
