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

CollectiveExpected expected_collective_s(const CollectiveShape& c, const CollectiveTime& t, const Chip& chip,
                                         const ChipCalibration& cal) {
  if (cal.collective_shape_model)
    if (const std::optional<CollectiveExpectation> e = expected_planned_collective(c, chip, t.t_ici_s))
      return {.expected_s = e->total_s(), .model = e->basis};
  return {.expected_s = expected_s(t, cal), .model = {}};
}

namespace {

// The row's collective as the report's match stage reads it
// (src/match/cost_collective.cc, collective_shape), or nullopt.
std::optional<CollectiveExpectation> row_collective(const HloPredictionRow& row, const Chip& chip,
                                                    const ChipCalibration& cal) {
  if (row.aggregate || !cal.collective_shape_model || !row.cost.collective || row.cost.collective->group_size < 1)
    return std::nullopt;
  const HloCollective& c = *row.cost.collective;
  const CollectiveShape shape{.kind = c.kind,
                              .array_bytes = c.array_bytes,
                              .group_size = static_cast<int>(std::min<std::int64_t>(c.group_size, 1 << 30))};
  return expected_planned_collective(shape, chip, row.prediction.t_ici_s);
}

}  // namespace

std::optional<double> expected_s(const HloPredictionRow& row, const Chip& chip, const ChipCalibration& cal) {
  if (row.aggregate) return std::nullopt;
  if (const std::optional<CollectiveExpectation> e = row_collective(row, chip, cal)) return e->total_s();
  // The instruction's family ("fusion.12": "fusion"), as the report has it.
  return expected_s(row.prediction, cost_class(row.cost), cal,
                    row.instruction ? kernel_family(row.instruction->name) : std::string());
}

std::string expected_model(const HloPredictionRow& row, const Chip& chip, const ChipCalibration& cal) {
  const std::optional<CollectiveExpectation> e = row_collective(row, chip, cal);
  return e ? e->basis : std::string();
}

double expected_total_s(const HloModulePrediction& module, const Chip& chip, const ChipCalibration& cal) {
  double total = 0;
  for (const HloPredictionRow& r : module.rows)
    if (const std::optional<double> e = expected_s(r, chip, cal)) total += *e * r.executions;
  return total;
}

ShardedExpected expected(const ShardedMatmulStrategy& s, const Chip& chip, const ChipCalibration& cal) {
  ShardedExpected e;
  e.local_s = expected_s(s.local_prediction, CostClass::kMatmul, cal);
  double collectives = 0;
  for (const CollectiveStep& c : s.collectives) {
    const CollectiveExpected x = expected_collective_s(
        {.kind = c.kind, .array_bytes = c.array_bytes, .group_size = c.group_size}, c.time, chip, cal);
    e.collectives_s.push_back(x.expected_s);
    e.collectives_model.push_back(x.model);
    collectives += x.expected_s;
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
