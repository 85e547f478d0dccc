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
// Part of roofline::core: sharded_matmul() on operands whose subscripts are
// resolved to mesh axes. From the book's notation as text, checked, with
// errors that point at the column: predict_sharded_matmul in
// roofline/sharding/checked.hpp (compiled).
//
//   auto e = *roofline::parse_matmul_expression("x[B_X, D] @ w[D, F_Y]");
//   auto r = roofline::predict_sharded_matmul(e, mesh, chip, {{"B", 8192}, {"D", 8192}, {"F", 32768}});
//   r->chosen().whole.t_lower_s;
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

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
  int group_size = 1;             // the collective's devices: the product of its axes' sizes
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

// An operand with its subscripts resolved on a mesh: its dims by name and,
// per dim, the mesh axes sharding it (indices into Mesh::axes, major first).
struct ShardedArray {
  std::string name;
  std::vector<std::string> dims;
  std::vector<std::vector<int>> axes;
};

// A sharded matmul ready to predict: lhs @ rhs, optionally the sharding the
// result must end in, the size of every dim, and the element type.
struct ShardedMatmulSpec {
  ShardedArray lhs;
  ShardedArray rhs;
  std::optional<ShardedArray> out;
  std::map<std::string, std::int64_t> sizes;
  DType dtype = DType::kBF16;
};

// Every strategy for `spec` on `mesh`, predicted on `chip`, fastest first;
// no strategies when no way of gathering leaves a valid local matmul.
// Preconditions (predict_sharded_matmul checks each and names the broken
// one): `mesh` was laid on `chip`, which has a peak for the dtype; every dim
// is sized, positive and divides over its shards, and has at most 2^53
// elements per operand; a mesh axis shards one dim of an operand; the dims
// share at least one to contract; `out` has the dims the contraction
// leaves; at most 8 mesh axes shard contracting or shared dims.
inline ShardedMatmul sharded_matmul(const ShardedMatmulSpec& spec, const Mesh& mesh, const Chip& chip);

// "case 3: both operands sharded alike on the contracting dim; ...".
inline std::string case_description(int book_case) {
  switch (book_case) {
    case 1: return "case 1: no contracting dim sharded; local matmul, no communication";
    case 2: return "case 2: one operand sharded on the contracting dim; all-gather it first, or reduce the partial sums after";
    case 3: return "case 3: both operands sharded alike on the contracting dim; local matmul then all-reduce / reduce-scatter";
    case 4: return "case 4: a mesh axis shards a free dim of both operands; invalid until one is all-gathered";
  }
  return "?";
}

}  // namespace roofline

// The strategy search.
#include "roofline/sharding/detail/sharded_matmul_search.hpp"
