// The roofline of HLO instructions and whole modules on a chip.
//
//   T_math = FLOPs / peak of the instruction's compute dtype
//   T_hbm  = HBM bytes (padded) / HBM bandwidth
//   T_ici  = the collective model's time for collectives
//            (collective_time_on_group with V and the replica-group size),
//            bytes / PCIe bandwidth for transfers to and from host memory
//
// An instruction whose type has no unit on the chip is timed on the unit
// XLA would upcast it to (select_peak with PeakSearch::kUpcast), and its
// Prediction::peak says so.
//
//   auto m = roofline::read_hlo_file("step.hlo");
//   roofline::HloModulePrediction p = roofline::predict(*m, roofline::chip("tpu-v6e"));
//   for (const auto& row : p.rows) ... row.prediction.t_lower_s * row.executions
//   p.total.t_lower_s  // the whole module
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "roofline/chip.hpp"
#include "roofline/hlo/collective_rewrites.hpp"
#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/module.hpp"
#include "roofline/predict.hpp"

namespace roofline {

// One execution of `instruction` on `chip`. While/call/conditional give the
// total of what they run (each instruction's own roofline, summed; the
// lower bound is the sum of the per-instruction lower bounds).
Prediction predict(const HloInstruction& instruction, const Chip& chip);

// The roofline of counts already worked out.
Prediction predict(const HloCost& cost, const Chip& chip);

struct HloPredictionRow {
  const HloInstruction* instruction = nullptr;
  HloCost cost;
  Prediction prediction;  // one execution
  // How many times one run of the module executes it: the product of the
  // trip counts of the while loops around it (1 for a loop whose count is
  // unknown, or whose runs would pass kMaxLoopRuns: HloModulePrediction::loop_warnings).
  double executions = 1;
  // HBM bytes of one execution charged as if nothing were fused (the
  // instruction reads its operands and writes its result). `cost` and
  // `prediction` carry the fused figure: equal unless the fusion pass put
  // the instruction in a group (fusion_group >= 0).
  double hbm_bytes_unfused = 0;
  // The fusion group (module-wide id) the pass put it in, or -1.
  std::int64_t fusion_group = -1;
  // A while whose runs with the loops around it would pass kMaxLoopRuns:
  // what it runs is charged one trip per run of those loops (a loop warning says so).
  bool runs_capped = false;
  // A while/call/conditional: its numbers total the rows of the instructions
  // it runs, which are listed too; module totals skip it.
  bool aggregate = false;

  double total_t_lower_s() const { return prediction.t_lower_s * executions; }
};

// A while loop charged fewer times than it runs: its trip count is unknown
// (its body and condition are counted once per run of what encloses it),
// or its runs with the loops around it pass kMaxLoopRuns (counted as one trip).
struct HloLoopWarning {
  enum class Kind : std::uint8_t { kTripCountUnknown, kRunsOverflow };
  const HloInstruction* instruction = nullptr;  // the while; its parent names the computation
  Kind kind = Kind::kTripCountUnknown;
  std::string reason;  // why, in words (while_trip_count's why_unknown, or the runs)
};

// Runs past which a loop nest is not multiplied out: with counts of one
// instruction below 1e30 (any shape under 2^63 bytes), totals stay finite.
inline constexpr double kMaxLoopRuns = 1e270;

struct HloModulePrediction {
  // Every instruction the entry computation runs, in order, with the bodies
  // of while loops, calls and async wrappers inlined after the instruction
  // that runs them. Fused computations and reducers are not listed: their
  // cost is in the fusion / reduce that uses them. Conditional branches are
  // not listed either (which branch runs is unknown): the conditional row
  // carries the maximum over its branches and is counted in the totals.
  std::vector<HloPredictionRow> rows;

  // Sums over the non-aggregate rows, each times its executions
  // (accumulate()): t_lower_s is the sum of max(T_math, T_hbm, T_ici, T_host) over
  // each fusion group (its members' times added) and each instruction in
  // none, t_upper_s the sum of their sums.
  Prediction total;
  // The same sums with every instruction charged its own HBM traffic, as if
  // nothing were fused: an upper estimate of the bytes (equal to `total`
  // where the fusion pass did not run).
  Prediction unfused;
  // Fusion groups the pass formed. The pass runs on modules without a
  // fusion instruction (XLA has not fused them: the partitioned form); a
  // module XLA fused already is costed as fused, with 0 here.
  int fusion_groups = 0;
  int unknown_cost_instructions = 0;  // custom calls / opcodes without a cost model
  int unknown_trip_count_loops = 0;   // while loops counted once
  // Every loop charged fewer times than it runs, in execution order.
  std::vector<HloLoopWarning> loop_warnings;
  // The collective plan's rewrites (reduce-scatters, combined all-reduces)
  // and how many collectives were timed over mesh axes.
  HloCollectiveRewriteCounts collective_rewrites;
};

// Collectives as planned by plan_collectives with default options: no mesh
// (each group one ring), the accelerator's rewrites on a module not yet
// scheduled (roofline/hlo/collective_rewrites.hpp).
HloModulePrediction predict(const HloModule& module, const Chip& chip);
// The same with a mesh or other rewrite options; errors as plan_collectives.
absl::StatusOr<HloModulePrediction> predict(const HloModule& module, const Chip& chip,
                                            const HloCollectiveOptions& options);

}  // namespace roofline
