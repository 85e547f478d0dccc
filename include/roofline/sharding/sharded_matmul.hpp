// A sharded matmul on a mesh, the scaling book's four cases (sharding.md):
//   1. no contracting dim sharded (A[I_X, J] . B[J, K_Y] -> C[I_X, K_Y]):
//      local matmul, no communication;
//   2. one operand sharded on the contracting dim (A[I, J_X] . B[J, K]):
//      all-gather it first, or multiply the local shards (the replicated
//      operand is sliced in place) and all-reduce the partial sums after;
//   3. both sharded alike on the contracting dim (A[I, J_X] . B[J_X, K]):
//      local matmul -> C[I, K]{U_X}, then all-reduce (or reduce-scatter when
//      the result asks to stay sharded);
//   4. a mesh axis shards a free dim of both operands (A[I_X, J] . B[J, K_X]):
//      invalid as is; one operand must be all-gathered first.
// Every way of all-gathering mesh axes off the operands that leaves a valid
// local matmul is a strategy; each is predicted (local matmul roofline +
// collectives on the mesh) and the fastest by t_lower_s (communication
// overlapping compute), then t_upper_s, is chosen.
//
//   auto e = *roofline::parse_matmul_expression("x[B_X, D] @ w[D, F_Y]");
//   auto r = roofline::predict_sharded_matmul(e, mesh, chip, {{"B", 8192}, {"D", 8192}, {"F", 32768}});
//   r->chosen().whole.t_lower_s;
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/chip.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/predict.hpp"
#include "roofline/sharding/matmul_expression.hpp"
#include "roofline/sharding/mesh.hpp"

namespace roofline {

struct CollectiveStep {
  CollectiveKind kind = CollectiveKind::kAllGather;
  std::vector<std::string> axes;  // mesh axes, as the mesh names them
  std::string what;               // "AllGather_X w[D_X, F_Y] -> w[D, F_Y]"
  double array_bytes = 0;         // V: the whole array over the collective's devices
  CollectiveTime time;
};

struct ShardedMatmulStrategy {
  std::string name;  // the steps in the book's notation, joined by "; "
  std::vector<CollectiveStep> collectives;  // in order: gathers, then reductions / reshards
  Matmul local;                             // what one device multiplies
  std::string local_text;                   // "x[B_X, D] @ w[D, F_Y] -> [B_X, F_Y]"
  std::string result;                       // sharding of the result, e.g. "[B_X, F_Y]"
  Prediction local_prediction;              // the local matmul alone
  Prediction whole;  // local matmul + every collective (t_ici_s is their sum)
};

struct ShardedMatmul {
  std::vector<int> cases;  // the book's cases present in the expression as written
  std::vector<ShardedMatmulStrategy> strategies;  // fastest first
  const ShardedMatmulStrategy& chosen() const { return strategies.front(); }
};

std::string case_description(int book_case);

// `dims` gives the size of every dim the expression names. Errors: unknown
// mesh axes, an axis used twice in one operand, missing or unused dims, dims
// not divisible by their shards, a result that does not match the operands.
absl::StatusOr<ShardedMatmul> predict_sharded_matmul(const MatmulExpression& expr, const Mesh& mesh,
                                                     const Chip& chip,
                                                     const std::map<std::string, std::int64_t>& dims,
                                                     DType dtype = DType::kBF16);

}  // namespace roofline
