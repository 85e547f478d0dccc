// Expected times of the planning outputs (roofline/expected/expected.hpp).
#include "roofline/expected/expected.hpp"

#include <algorithm>

#include "roofline/match/op_model.hpp"

namespace roofline {

double expected_s(const CollectiveTime& t, const ChipCalibration& cal) {
  Prediction p;
  p.t_ici_s = t.t_ici_s;
  settle_bounds(p);
  return expected_s(p, CostClass::kCollective, cal);
}

std::optional<double> expected_s(const HloPredictionRow& row, const ChipCalibration& cal) {
  if (row.aggregate) return std::nullopt;
  // The instruction's family ("fusion.12": "fusion"), as the report has it.
  return expected_s(row.prediction, cost_class(row.cost), cal,
                    row.instruction ? kernel_family(row.instruction->name) : std::string());
}

double expected_total_s(const HloModulePrediction& module, const ChipCalibration& cal) {
  double total = 0;
  for (const HloPredictionRow& r : module.rows)
    if (const std::optional<double> e = expected_s(r, cal)) total += *e * r.executions;
  return total;
}

ShardedExpected expected(const ShardedMatmulStrategy& s, const ChipCalibration& cal) {
  ShardedExpected e;
  e.local_s = expected_s(s.local_prediction, CostClass::kMatmul, cal);
  double collectives = 0;
  for (const CollectiveStep& c : s.collectives) {
    e.collectives_s.push_back(expected_s(c.time, cal));
    collectives += e.collectives_s.back();
  }
  e.whole_s = std::max(e.local_s, collectives);
  return e;
}

Json calibration_json(const ChipCalibration& cal) { return Json::object({{"origin", cal.origin}}); }

void put_expected(Json& out, std::optional<double> expected, CostClass c, const ChipCalibration& cal) {
  out["expected_s"] = expected ? Json(*expected) : Json();
  out["cost_class"] = cost_class_name(c);
  out["calibration"] = calibration_json(cal);
}

}  // namespace roofline
