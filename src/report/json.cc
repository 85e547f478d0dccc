// The JSON of predictions, HLO rows, collectives and sharded matmuls
// (roofline/report/json.hpp; plans: roofline/report/plan.hpp). Keys are documented in docs/json.md.
#include "roofline/report/json.hpp"

#include <string>

#include "roofline/collectives/collective.hpp"
#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/shape.hpp"
#include "roofline/match/op_model.hpp"
#include "roofline/report/hlo_rows.hpp"
#include "roofline/sharding/layers.hpp"

namespace roofline {
namespace {

Json bound_json(Bound b) { return std::string(bound_name(b)); }

std::string key(PredictionKey k) { return std::string(json_key(k)); }

Json collective_step_json(const CollectiveStep& c) {
  return Json::object({{"op", collective_name(c.kind)},
                       {"axes", c.axes},
                       {"what", c.what},
                       {"array_bytes", c.array_bytes},
                       {key(PredictionKey::kIciBytes), c.time.bytes_per_link},
                       {"hops", c.time.hops},
                       {key(PredictionKey::kTIci), c.time.t_ici_s}});
}

}  // namespace

std::string_view json_key(PredictionKey key) {
  switch (key) {
    case PredictionKey::kFlops: return "flops";
    case PredictionKey::kTranscendentals: return "transcendentals";
    case PredictionKey::kHbmBytes: return "hbm_bytes";
    case PredictionKey::kIciBytes: return "ici_bytes";
    case PredictionKey::kTMath: return "t_math_s";
    case PredictionKey::kTHbm: return "t_hbm_s";
    case PredictionKey::kTIci: return "t_ici_s";
    case PredictionKey::kTLower: return "t_lower_s";
    case PredictionKey::kTUpper: return "t_upper_s";
    case PredictionKey::kBound: return "bound";
    case PredictionKey::kDtype: return "dtype";
    case PredictionKey::kIntensity: return "intensity_flops_per_byte";
    case PredictionKey::kRidge: return "ridge_flops_per_byte";
  }
  return "?";
}

void put(Json& out, const Prediction& p, std::initializer_list<PredictionKey> keys) {
  for (PredictionKey k : keys) {
    Json& v = out[json_key(k)];
    switch (k) {
      case PredictionKey::kFlops: v = p.flops; break;
      case PredictionKey::kTranscendentals: v = p.transcendentals; break;
      case PredictionKey::kHbmBytes: v = p.hbm_bytes; break;
      case PredictionKey::kIciBytes: v = p.ici_bytes; break;
      case PredictionKey::kTMath: v = p.t_math_s; break;
      case PredictionKey::kTHbm: v = p.t_hbm_s; break;
      case PredictionKey::kTIci: v = p.t_ici_s; break;
      case PredictionKey::kTLower: v = p.t_lower_s; break;
      case PredictionKey::kTUpper: v = p.t_upper_s; break;
      case PredictionKey::kBound: v = bound_json(p.bound); break;
      case PredictionKey::kDtype: v = dtype_name(p.dtype); break;
      case PredictionKey::kIntensity: v = p.intensity_flops_per_byte; break;
      case PredictionKey::kRidge: v = p.ridge_flops_per_byte; break;
    }
  }
}

Json to_json(const Prediction& p) {
  using K = PredictionKey;
  Json j = Json::object();
  put(j, p, {K::kDtype, K::kFlops, K::kHbmBytes, K::kIciBytes, K::kTMath, K::kTHbm, K::kTIci, K::kTLower,
             K::kTUpper, K::kBound, K::kIntensity, K::kRidge});
  return j;
}

Json to_json(const HloPredictionRow& r, const Chip& chip) {
  using K = PredictionKey;
  const Prediction& p = r.prediction;
  Json j = Json::object({{"name", r.instruction->name},
                         {"opcode", r.instruction->opcode_name},
                         {"category", category_name(r.cost.category)},
                         {"shape", to_string(r.instruction->shape)},
                         {"computation", r.instruction->parent->name},
                         {"executions", r.executions},
                         {"aggregate", r.aggregate},
                         {"host_bytes", p.host_bytes},
                         {"notes", hlo_row_notes(r, chip)}});
  put(j, p, {K::kFlops, K::kTranscendentals, K::kHbmBytes, K::kIciBytes, K::kTMath, K::kTHbm, K::kTIci,
             K::kTLower, K::kTUpper, K::kDtype});
  j["bound"] = hlo_row_bound(p);
  if (const std::optional<HloCollective>& c = r.cost.collective)
    j["collective"] = Json::object({{"op", collective_name(c->kind)},
                                    {"array_bytes", c->array_bytes},
                                    {"group_size", c->group_size},
                                    {"num_groups", c->num_groups}});
  return j;
}

Json to_json(const HloPredictionRow& r, const Chip& chip, const ChipCalibration& cal) {
  Json j = to_json(r, chip);
  j["expected_s"] = expected_s(r, chip, cal);
  const std::string model = expected_model(r, chip, cal);
  j["expected_model"] = model.empty() ? Json() : Json(model);
  j["cost_class"] = cost_class_name(cost_class(r.cost));
  return j;
}

Json to_json(const CollectiveTime& t) {
  return Json::object({{key(PredictionKey::kTIci), t.t_ici_s},
                       {"t_bandwidth_s", t.t_bandwidth_s},
                       {"t_latency_s", t.t_latency_s},
                       {key(PredictionKey::kIciBytes), t.bytes_per_link},
                       {"hops", t.hops},
                       {"bound", bound_json(t.bound)}});
}

Json to_json(const ShardedMatmulStrategy& s) {
  using K = PredictionKey;
  Json local = Json::object({{"text", s.local_text},
                             {"batch", s.local.batch},
                             {"m", s.local.m},
                             {"k", s.local.k},
                             {"n", s.local.n}});
  put(local, s.local_prediction, {K::kFlops, K::kHbmBytes, K::kTMath, K::kTHbm, K::kBound});
  Json collectives = Json::array();
  for (const CollectiveStep& c : s.collectives) collectives.push_back(collective_step_json(c));
  Json j = Json::object({{"strategy", s.name},
                         {"local_matmul", std::move(local)},
                         {"collectives", std::move(collectives)},
                         {"result", s.result}});
  put(j, s.whole, {K::kTMath, K::kTHbm, K::kTIci, K::kTLower, K::kTUpper, K::kBound});
  return j;
}

Json to_json(const ShardedMatmulStrategy& s, const ShardedExpected& e) {
  Json j = to_json(s);
  j["expected_s"] = e.whole_s;
  j["local_matmul"]["expected_s"] = e.local_s;
  Json collectives = Json::array();
  for (std::size_t i = 0; i < s.collectives.size(); ++i) {
    Json c = collective_step_json(s.collectives[i]);
    c["expected_s"] = i < e.collectives_s.size() ? Json(e.collectives_s[i]) : Json();
    c["expected_model"] =
        i < e.collectives_model.size() && !e.collectives_model[i].empty() ? Json(e.collectives_model[i]) : Json();
    collectives.push_back(std::move(c));
  }
  j["collectives"] = std::move(collectives);
  return j;
}

}  // namespace roofline
