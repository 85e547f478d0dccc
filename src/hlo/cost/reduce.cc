// Ops that fold values with a reducer computation: reduce, reduce-window,
// select-and-scatter. cost(reducer) is the sum over the reducer's
// instructions (one add of scalars: 1 FLOP).
#include <algorithm>

#include "src/hlo/cost/handlers.hpp"
#include "src/hlo/int_math.hpp"

namespace roofline::detail {
namespace {

// Elements in one window (1 for a window not written or not readable).
std::int64_t window_elements(const OpView& v) {
  std::int64_t n = 1;
  for (const WindowDimension& d : v.attrs().window) n = sat_mul(n, std::max<std::int64_t>(d.size, 0));
  return n;
}

}  // namespace

// reduce       FLOPs = (elements(input) - elements(result)) x cost(reducer),
//              the same for transcendentals. Bytes: operands read, result written.
void reduce(const OpView& v, Costing& k, Arith* a, HloCost* c) {
  const Arith reducer = k.computation_arith(v.ins->called("to_apply"), v.depth + 1);
  const double folded =
      v.in.empty() ? 0 : std::max(0.0, elements(first_array(*v.in[0])) - elements(first_array(*v.out)));
  a->add_applications(reducer, folded);
  a->flags |= reducer.flags;
  if (c == nullptr) return;
  c->category = HloCategory::kReduction;
  default_bytes(v, c);
}

// reduce-window  FLOPs = (window elements - 1) x elements(result) x cost(reducer).
//              Bytes: operands read, result written.
void reduce_window(const OpView& v, Costing& k, Arith* a, HloCost* c) {
  const Arith reducer = k.computation_arith(v.ins->called("to_apply"), v.depth + 1);
  const double applications =
      static_cast<double>(std::max<std::int64_t>(window_elements(v) - 1, 0)) * elements(first_array(*v.out));
  a->add_applications(reducer, applications);
  a->flags |= reducer.flags;
  if (c == nullptr) return;
  c->category = HloCategory::kReduction;
  default_bytes(v, c);
}

// select-and-scatter  FLOPs = source x (window elements - 1) x cost(select)
//              + source x cost(scatter), source = elements(operand 1).
//              Bytes: operands read, result written.
void select_and_scatter(const OpView& v, Costing& k, Arith* a, HloCost* c) {
  const Arith select = k.computation_arith(v.ins->called("select"), v.depth + 1);
  const Arith scatter = k.computation_arith(v.ins->called("scatter"), v.depth + 1);
  const double source = v.in.size() > 1 ? elements(*v.in[1]) : 0;
  const double selects = source * static_cast<double>(std::max<std::int64_t>(window_elements(v) - 1, 0));
  a->flops += select.flops * selects + scatter.flops * source;
  a->transcendentals += select.transcendentals * selects + scatter.transcendentals * source;
  if (c == nullptr) return;
  c->category = HloCategory::kReduction;
  default_bytes(v, c);
}

}  // namespace roofline::detail
