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
#include <vector>

#include "roofline/calibration.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/format/json.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/sharding/sharded_matmul.hpp"

namespace roofline {

// One collective timed by the collective model (its t_ici_s, latency floor
// included), through the calibration's collective curve.
double expected_s(const CollectiveTime& t, const ChipCalibration& cal);

// One execution of an HLO row, through the curve of cost_class(row.cost)
// (roofline/match/op_model.hpp). Empty for an aggregate row (a while, call
// or conditional that totals the rows it runs): its expectation is that of
// its rows, each with its own launch, not one launch of their total.
std::optional<double> expected_s(const HloPredictionRow& row, const ChipCalibration& cal);

// One run of the module: the expected time of every non-aggregate row times
// its executions, as HloModulePrediction::total sums their rooflines.
double expected_total_s(const HloModulePrediction& module, const ChipCalibration& cal);

// A sharded matmul's strategy: the local matmul through the matmul curve,
// each collective through the collective curve, and the whole. The whole's
// roofline overlaps the local matmul with the collectives
// (max(T_math, T_hbm, sum of T_ici)); its expectation overlaps them the
// same way: max(local, sum of the collectives' expected times).
struct ShardedExpected {
  double local_s = 0;
  std::vector<double> collectives_s;  // in the order of the strategy's collectives
  double whole_s = 0;
};
ShardedExpected expected(const ShardedMatmulStrategy& strategy, const ChipCalibration& cal);

// Writes beside a prediction's keys: "expected_s" (null when unknown),
// "cost_class", and "calibration": {"origin": where the figures came from}.
void put_expected(Json& out, std::optional<double> expected_s, CostClass c, const ChipCalibration& cal);

// {"origin": ...}: the calibration's origin, the one key every output
// names it under.
Json calibration_json(const ChipCalibration& cal);

}  // namespace roofline
