// One op's time on the --target-chip (ReportOptions::target_chip), by the
// method the evidence supports (docs/report.md, "What-if on another chip"):
//
// - the target is the chip it was measured on: the measured time itself;
// - a memory-bound kernel (cost class memory: element-wise, reductions,
//   normalisations, copies), whose implementation does not change between
//   GPUs of one vendor (Habitat's evidence: NVIDIA GPUs): its measured time
//   scaled by Habitat's wave scaling (roofline/expected/scale.hpp);
// - anything else (GEMMs, convolutions and attention, whose library picks
//   another kernel on another chip, and which Habitat times with MLPs;
//   collectives and host copies, which no chip ratio describes; async waits
//   and loop containers; every op when either chip is a TPU, whose program
//   XLA compiles for it, or the two GPUs' vendors differ): the target's own
//   expected time for the op.
#pragma once

#include "roofline/chip.hpp"
#include "roofline/expected/scale.hpp"
#include "roofline/match/match.hpp"

namespace roofline {

struct TargetTime {
  double t_s = 0;  // one occurrence on the target
  TargetMethod method = TargetMethod::kModelled;
};

// `op` has a prediction on both chips; `modelled_s`: its expected time on
// `to` (expected_s of op.target_prediction through the target's
// calibration), the answer for every op not measured or scaled.
TargetTime target_time(const MatchedOp& op, const Chip& from, const Chip& to, double modelled_s);

}  // namespace roofline
