// Two reports of one program, before and after a change: what got faster,
// what got slower, what appeared or vanished, and whether the step time and
// MFU moved past a limit a CI job sets (`roofline diff`, docs/diff.md).
//
// Ops are matched by what they are, not by their names: XLA renumbers its
// instructions at each compilation (`fusion.253` becomes `fusion.251`), so
// a diff by name pairs the wrong ops. An op's identity is its kind (the
// name's family: `fusion`, `at::native::reduce_kernel`, see
// kernel_family()), its module's family, its source scope (OpReport::scope),
// its category, its shapes and its cost per occurrence (our FLOPs and
// bytes). Ops of one identity are one
// row, totalled: two identical fusions are "2 ops of this kind".
//
//   const roofline::ReportDiff d = roofline::diff(before, after);
//   std::fputs(roofline::render_diff(d, roofline::ReportFormat::kText).c_str(), stdout);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/report/render.hpp"
#include "roofline/match/report.hpp"

namespace roofline {

// One side of a row: its ops' totals, scaled to one step where both
// reports mark steps (ReportDiff::per_step), else over the whole trace.
struct DiffSide {
  std::int64_t ops = 0;     // distinct ops of this identity
  std::int64_t count = 0;   // their occurrences
  double measured_s = 0;
  double expected_s = 0;    // of the predicted ones; 0 where none is
  double roofline_s = 0;    // their lower bound, likewise
};

// kChanged: the same op on both sides. kResized: the one op of its kind in
// its module, scope and category that vanished, paired with the one that appeared
// (a shape or a cost changed: a matmul that grew). Otherwise an op appeared
// or vanished.
enum class DiffChange : unsigned char { kChanged, kResized, kAppeared, kVanished };
std::string_view diff_change_name(DiffChange c);  // "changed", "resized", "appeared", "vanished"

struct OpDiff {
  std::string kind;      // the name's family ("fusion", "volta_sgemm_128x64_nt")
  std::string module;    // the module's family
  std::string scope;     // OpReport::scope: the source scope ("block/mlp"), may be empty
  std::string category;
  std::string shapes;    // as OpReport::shapes; may be empty
  std::string shapes_before;  // kResized: the before side's (shapes holds the after side's)
  std::string example_before, example_after;  // one op's name on each side (empty where absent)
  DiffSide before, after;
  DiffChange change = DiffChange::kChanged;
  double delta_measured_s() const { return after.measured_s - before.measured_s; }
};

// A per-category or per-module total on both sides.
struct GroupDiff {
  std::string name;
  DiffSide before, after;
  double delta_measured_s() const { return after.measured_s - before.measured_s; }
};

// The headline figures of one report, as the diff compares them.
struct DiffHeadline {
  std::int64_t steps = 0;       // steps the report marks (0: none)
  double step_time_s = 0;       // median step, or the wall span per device without steps
  double busy_s = 0;            // device busy time, per step where per_step
  double idle_s = 0;            // likewise
  double expected_s = 0;        // predicted ops' expected total, likewise
  double mfu = 0;               // NaN where the report could not tell it
  double duty_cycle = 0;
};

struct ReportDiff {
  std::string before_path, after_path;
  std::string before_chip, after_chip;
  bool per_step = false;  // rows are per step (both reports mark steps)
  DiffHeadline before, after;
  std::vector<OpDiff> ops;            // largest |change in measured| first
  std::vector<GroupDiff> categories;  // likewise
  std::vector<GroupDiff> modules;     // likewise
  std::vector<std::string> notes;     // what a reader must know (a chip changed, steps differ)
};

// Matches the two reports' ops and totals them as above.
ReportDiff diff(const Report& before, const Report& after);

// --fail-if: conditions on the change of a headline figure, joined by `or`
// and `and` (`and` binds tighter), e.g. "mfu<-2% or step_time>+5%".
//   METRIC    step_time, busy, idle, expected (times), mfu, duty_cycle (fractions)
//   OP        <  >  <=  >=
//   LIMIT     a signed number with a unit:
//             %   relative change: (after - before) / before
//             pp  absolute change of a fraction, in percentage points
//             s, ms, us, ns  absolute change of a time
// A condition holds when the change passes its limit; the diff fails when
// the expression holds. A figure that is unknown on either side (an MFU the
// report could not tell) makes its condition hold, with the reason, so an
// unknown never passes a gate silently.
struct GateCondition {
  std::string metric;
  std::string op;      // "<", ">", "<=", ">="
  double limit = 0;    // in the unit below: a fraction for %, pp; seconds for times
  std::string unit;    // "%", "pp" or "s"
  std::string text;    // as written
};
struct Gate {
  std::vector<std::vector<GateCondition>> any_of;  // or of ands
  std::string text;
};
absl::StatusOr<Gate> parse_gate(std::string_view expression);

struct GateResult {
  bool failed = false;
  std::vector<std::string> reasons;  // each condition that held, with the figures
};
GateResult evaluate(const Gate& gate, const ReportDiff& d);

struct DiffRenderOptions {
  int top = 15;  // rows of the op table in text, Markdown and HTML (JSON and CSV list all)
};
std::string render_diff(const ReportDiff& d, ReportFormat format, DiffRenderOptions options = {},
                        const GateResult* gate = nullptr);

}  // namespace roofline
