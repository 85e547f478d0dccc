// The renderers of `roofline predict`: one matmul on one chip, one
// collective over mesh axes, a sharded matmul's strategies, each as text
// and as JSON (docs/json.md lists every key). The CLI prints exactly these;
// Python's roofline.render_prediction(op, chip, format=...) returns them.
//
//   const roofline::Matmul mm{.m = 8192, .k = 8192, .n = 8192};
//   const roofline::ChipCalibration cal = roofline::default_calibration(v5e);
//   std::fputs(roofline::matmul_text(mm, roofline::predict(mm, v5e), v5e, cal).c_str(), stdout);
#pragma once

#include <string>
#include <vector>

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/dtype.hpp"
#include "roofline/format/json.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/predict.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/sharded_matmul.hpp"

namespace roofline {

// `roofline predict matmul`: the shapes and chip, the roofline (counts, the
// three times, both bounds, bound and intensity), and the expected time on
// the matmul curve of `cal`. `p` is predict(mm, chip).
std::string matmul_text(const Matmul& mm, const Prediction& p, const Chip& chip, const ChipCalibration& cal);
// to_json(p) with "chip" and the expectation ("expected_s", "cost_class", "calibration").
Json matmul_json(const Prediction& p, const Chip& chip, const ChipCalibration& cal);

// A collective as asked: the words the outputs echo beside what they mean.
struct CollectiveQuery {
  std::string op;         // the kind as written ("all-gather")
  CollectiveKind kind = CollectiveKind::kAllGather;
  std::string mesh_spec;  // the mesh as written ("X=8,Y=4")
  const Mesh* mesh = nullptr;  // mesh_spec laid on the chip; not null
  std::vector<int> axes;  // the axes it runs over (indices into mesh->axes)
  double array_bytes = 0;  // V: the whole (gathered / unreduced) array over those axes
  int shift = 1;           // permute only: positions each shard moves
};

// `roofline predict collective`: the collective and its group, the layout,
// T_ici, the expected time on the collective curve, the bandwidth term and
// latency floor, the busiest link. `t` is collective_time of the query.
std::string collective_text(const CollectiveQuery& q, const CollectiveTime& t, const Chip& chip,
                            const ChipCalibration& cal);
// to_json(t) with the expectation and the query: "op", "chip", "mesh",
// "layout", "axes", "group_size", "array_bytes", and "shift" for a permute.
Json collective_json(const CollectiveQuery& q, const CollectiveTime& t, const Chip& chip, const ChipCalibration& cal);

// A sharded matmul as asked.
struct ShardedMatmulQuery {
  std::string expression;  // "x[B_X, D] @ w[D, F_Y]" as written
  std::string mesh_spec;   // the mesh as written
  const Mesh* mesh = nullptr;  // not null
  DType dtype = DType::kBF16;
};

// `roofline predict EXPR`: the expression, layout, the book's cases, then
// the chosen strategy and each alternative with their collectives and
// expected times. `r` is predict_sharded_matmul of the query.
std::string sharded_matmul_text(const ShardedMatmulQuery& q, const ShardedMatmul& r, const Chip& chip,
                                const ChipCalibration& cal);
// The chosen strategy's JSON with "calibration", the query, "cases" and
// every strategy under "strategies", each with its expected times.
Json sharded_matmul_json(const ShardedMatmulQuery& q, const ShardedMatmul& r, const Chip& chip,
                         const ChipCalibration& cal);

}  // namespace roofline
