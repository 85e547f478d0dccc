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
  // trip counts of the while loops around it (1 when a count is unknown).
  double executions = 1;
  // A while/call/conditional: its numbers total the rows of the instructions
  // it runs, which are listed too; module totals skip it.
  bool aggregate = false;

  double total_t_lower_s() const { return prediction.t_lower_s * executions; }
};

struct HloModulePrediction {
  // Every instruction the entry computation runs, in order, with the bodies
  // of while loops, calls and async wrappers inlined after the instruction
  // that runs them. Fused computations and reducers are not listed: their
  // cost is in the fusion / reduce that uses them. Conditional branches are
  // not listed either (which branch runs is unknown): the conditional row
  // carries the maximum over its branches and is counted in the totals.
  std::vector<HloPredictionRow> rows;

  // Sums over the non-aggregate rows, each times its executions
  // (accumulate()): t_lower_s is the sum of per-instruction
  // max(T_math, T_hbm, T_ici), t_upper_s the sum of their sums.
  Prediction total;
  double host_bytes = 0;  // of `total.ici_bytes`, what crossed PCIe to and from host memory
  int unknown_cost_instructions = 0;  // custom calls / opcodes without a cost model
  int unknown_trip_count_loops = 0;   // while loops counted once
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
