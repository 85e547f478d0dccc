// The calibrated expected time (roofline/calibration.hpp) of what the
// planning commands predict, beside the roofline they print: one matmul,
// one collective, a sharded matmul's strategies, an HLO module's rows and
// total. The report gets its expected times from the match stage; these are
// for `roofline predict` and `roofline hlo`, and for C++ callers of the same.
//
//   const roofline::Chip& v5e = roofline::chip("tpu-v5e");
//   const roofline::ChipCalibration cal = roofline::default_calibration(v5e);
//   double t = roofline::expected_s(roofline::predict(mm, v5e), roofline::CostClass::kMatmul, cal);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/collectives/expected.hpp"
#include "roofline/format/json.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/sharding/sharded_matmul.hpp"

namespace roofline {

// One collective timed by the collective model (its t_ici_s, latency floor
// included), through the calibration's collective curve alone: for a time
// whose collective is not known (a bare CollectiveTime).
double expected_s(const CollectiveTime& t, const ChipCalibration& cal);

// One collective's expectation and the model that gave it.
struct CollectiveExpected {
  double expected_s = 0;
  // The published model's basis ("NCCL 2.17.1 cost model, ring/LL (the
  // tuner's pick for this size), 8 ranks over NVLink", "published TPU
  // all-gather: 1.05 x the link bound"); empty where the collective curve
  // timed it.
  std::string model;
};

// One collective of shape `c` whose roofline is `t` on `chip`: as the
// report's match stage expects it (src/match/match.cc), by its shape's
// published model (expected_planned_collective,
// roofline/collectives/expected.hpp) where the calibration takes it
// (ChipCalibration::collective_shape_model) and one applies, else through
// the collective curve.
CollectiveExpected expected_collective_s(const CollectiveShape& c, const CollectiveTime& t, const Chip& chip,
                                         const ChipCalibration& cal);

// One execution of an HLO row, through the curve of cost_class(row.cost)
// (roofline/match/op_model.hpp), a collective as expected_collective_s
// takes it. Empty for an aggregate row (a while, call or conditional that
// totals the rows it runs): its expectation is that of its rows, each with
// its own launch, not one launch of their total.
std::optional<double> expected_s(const HloPredictionRow& row, const Chip& chip, const ChipCalibration& cal);

// The published model that expects the row (CollectiveExpected::model);
// empty where a curve does.
std::string expected_model(const HloPredictionRow& row, const Chip& chip, const ChipCalibration& cal);

// One run of the module: the expected time of every non-aggregate row times
// its executions, as HloModulePrediction::total sums their rooflines.
double expected_total_s(const HloModulePrediction& module, const Chip& chip, const ChipCalibration& cal);

// A sharded matmul's strategy: the local matmul through the matmul curve,
// each collective as expected_collective_s takes it, and the whole. The whole's
// roofline overlaps the local matmul with the collectives
// (max(T_math, T_hbm, sum of T_ici)); its expectation overlaps them the
// same way: max(local, sum of the collectives' expected times).
struct ShardedExpected {
  double local_s = 0;
  std::vector<double> collectives_s;  // in the order of the strategy's collectives
  std::vector<std::string> collectives_model;  // each one's CollectiveExpected::model
  double whole_s = 0;
};
ShardedExpected expected(const ShardedMatmulStrategy& strategy, const Chip& chip, const ChipCalibration& cal);

// Writes beside a prediction's keys: "expected_s" (null when unknown),
// "cost_class", and "calibration": {"origin": where the figures came from}.
void put_expected(Json& out, std::optional<double> expected_s, CostClass c, const ChipCalibration& cal);

// {"origin": ...}: the calibration's origin, the one key every output
// names it under.
Json calibration_json(const ChipCalibration& cal);

}  // namespace roofline
