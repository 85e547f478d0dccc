// The scaling book's notation for a sharded matmul, as text:
//
//   x[B_X, D] @ w[D, F_Y]                 dims named, mesh axes as subscripts
//   A[I, J_X] @ B[J_X, K]
//   A[I_XY, J] @ B[J, K] -> C[I_XY, K]    optional result sharding
//   x[B_{data,fsdp}, D] @ w[D, F_{model}] braces for multi-letter axis names
//
// Dims named in both operands are contracted, unless the result names them
// too (then they are batch dims). A subscript is kept as written; the mesh
// resolves it (roofline/sharding/mesh.hpp resolve_axes: "XY" is X then Y
// unless an axis is called "XY").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace roofline {

struct ShardedDim {
  std::string name;       // "B"
  std::string subscript;  // "X", "XY", "data,fsdp"; empty when unsharded
  int column = 0;         // 1-based column of the dim in the text, for errors
};

struct ShardedOperand {
  std::string name;  // "x"
  std::vector<ShardedDim> dims;
  int column = 0;
};

struct MatmulExpression {
  std::string text;
  ShardedOperand lhs;
  ShardedOperand rhs;
  std::optional<ShardedOperand> out;
};

// Errors carry the column: "expression:1:15: expected ',' or ']' after dim 'D'".
absl::StatusOr<MatmulExpression> parse_matmul_expression(std::string_view text);

// "B=1024,D=8192,F=32768": the size of every dim, for --dims. Exponent forms
// that are exact integers ("8.192e3") are accepted.
absl::StatusOr<std::map<std::string, std::int64_t>> parse_dim_sizes(std::string_view text);

// "x[B_X, D]": an operand written back in the same notation.
std::string to_string(const ShardedOperand& op);

}  // namespace roofline
