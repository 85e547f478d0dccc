// The JSON of `roofline predict` (roofline/report/prediction.hpp).
#include <string>
#include <utility>
#include <vector>

#include "roofline/expected/expected.hpp"
#include "roofline/report/json.hpp"
#include "roofline/report/prediction.hpp"

namespace roofline {

Json matmul_json(const Prediction& p, const Chip& chip, const ChipCalibration& cal) {
  Json j = to_json(p);
  j["chip"] = chip.name;
  put_expected(j, expected_s(p, CostClass::kMatmul, cal), CostClass::kMatmul, cal);
  return j;
}

Json collective_json(const CollectiveQuery& q, const CollectiveTime& t, const Chip& chip, const ChipCalibration& cal) {
  std::vector<std::string> axis_names;
  for (int i : q.axes) axis_names.push_back(q.mesh->axes[static_cast<std::size_t>(i)].name);
  Json j = to_json(t);
  const CollectiveExpected e = expected_collective_s(
      {.kind = q.kind, .array_bytes = q.array_bytes, .group_size = q.mesh->size(mask_of(q.axes))}, t, chip, cal);
  put_expected(j, e.expected_s, CostClass::kCollective, cal);
  j["expected_model"] = e.model.empty() ? Json() : Json(e.model);
  j["op"] = q.op;
  j["chip"] = chip.name;
  j["mesh"] = q.mesh_spec;
  j["layout"] = describe_layout(*q.mesh);
  j["axes"] = axis_names;
  j["group_size"] = q.mesh->size(mask_of(q.axes));
  j["array_bytes"] = q.array_bytes;
  if (q.kind == CollectiveKind::kPermute) j["shift"] = q.shift;
  return j;
}

Json sharded_matmul_json(const ShardedMatmulQuery& q, const ShardedMatmul& r, const Chip& chip,
                         const ChipCalibration& cal) {
  // A strategy's JSON with its expected times: the local matmul's, each
  // collective's and the whole's.
  const auto strategy_json = [&](const ShardedMatmulStrategy& s) { return to_json(s, expected(s, chip, cal)); };
  Json j = strategy_json(r.chosen());
  j["calibration"] = calibration_json(cal);
  Json cases = Json::array();
  for (int c : r.cases) cases.push_back(Json::object({{"case", c}, {"description", case_description(c)}}));
  Json all = Json::array();
  for (const ShardedMatmulStrategy& s : r.strategies) all.push_back(strategy_json(s));
  j["expression"] = q.expression;
  j["chip"] = chip.name;
  j["mesh"] = q.mesh_spec;
  j["layout"] = describe_layout(*q.mesh);
  j["dtype"] = dtype_name(q.dtype);
  j["cases"] = std::move(cases);
  j["strategies"] = std::move(all);
  return j;
}

}  // namespace roofline
