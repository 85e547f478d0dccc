// Control flow and async pairs: instructions whose cost is that of the
// computations they run, or nothing.
#include <algorithm>

#include "roofline/hlo/trip_count.hpp"
#include "src/hlo/cost/handlers.hpp"
#include "src/hlo/opcode_families.hpp"

namespace roofline::detail {
namespace {

void add_scaled(HloCost* to, const HloCost& c, double k) {
  to->flops += c.flops * k;
  to->transcendentals += c.transcendentals * k;
  to->bytes_read += c.bytes_read * k;
  to->bytes_written += c.bytes_written * k;
  to->host_bytes += c.host_bytes * k;
  to->flags |= c.flags;
}

}  // namespace

// while        n x body + (n + 1) x condition (the condition runs once more
//              to exit), n = known_trip_count from backend_config, else the
//              count inferred from the condition, the counter's init and its
//              step (while_trip_count); without one, body and condition
//              once, flagged "trip count unknown".
void while_loop(const OpView& v, Costing& k, Arith*, HloCost* c) {
  const std::optional<std::int64_t> trip = while_trip_count(*v.ins).trips;
  c->category = HloCategory::kControl;
  c->trip_count = trip ? *trip : 1;
  c->flags.trip_count_unknown = !trip.has_value();
  const double n = static_cast<double>(c->trip_count);
  add_scaled(c, k.computation_cost(v.ins->called("body"), v.depth), n);
  add_scaled(c, k.computation_cost(v.ins->called("condition"), v.depth), n + 1);
}

// call         The cost of its computation.
void call(const OpView& v, Costing& k, Arith*, HloCost* c) {
  add_scaled(c, k.computation_cost(v.ins->called("to_apply"), v.depth), 1);
  c->category = HloCategory::kControl;
}

// conditional  Per count, the maximum over the branches (which one runs is
//              unknown), flagged.
void conditional(const OpView& v, Costing& k, Arith*, HloCost* c) {
  c->category = HloCategory::kControl;
  c->flags.conditional_max = true;
  for (const CalledComputation& b : v.ins->called_computations) {
    const HloCost bc = k.computation_cost(b.computation, v.depth);
    c->flops = std::max(c->flops, bc.flops);
    c->transcendentals = std::max(c->transcendentals, bc.transcendentals);
    c->bytes_read = std::max(c->bytes_read, bc.bytes_read);
    c->bytes_written = std::max(c->bytes_written, bc.bytes_written);
    c->host_bytes = std::max(c->host_bytes, bc.host_bytes);
    c->flags |= bc.flags;
  }
}

// async-start with calls=  The cost of the op its computation wraps (the root).
void async_start(const OpView& v, Costing& k, Arith*, HloCost* c) {
  const HloComputation* wrapped = v.ins->called("calls");
  if (wrapped != nullptr && wrapped->root != nullptr) *c = k.cost(*wrapped->root, v.depth + 1);
}

// -done / -update halves (all-reduce-done, copy-done, async-done, ...)
//              Nothing: the -start carries the whole cost, so a profiler's
//              time for the pair meets the transfer once.
void async_tail(const OpView& v, Costing&, Arith*, HloCost* c) {
  const HloInstruction& i = *v.ins;
  c->category = is_collective(i.opcode) || is_collective(i.wrapped_opcode) ? HloCategory::kCollective
                                                                          : HloCategory::kDataMovement;
}

}  // namespace roofline::detail
