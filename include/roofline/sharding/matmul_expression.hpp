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
//
// Part of roofline::core: the parsed form. Reading the text, with errors
// that carry the column, is parse_matmul_expression and parse_dim_sizes in
// roofline/sharding/parse.hpp (compiled).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/detail/cat.hpp"

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

// "x[B_X, D]": an operand written back in the same notation.
inline std::string to_string(const ShardedOperand& op) {
  std::string s = op.name + "[";
  for (std::size_t i = 0; i < op.dims.size(); ++i) {
    const ShardedDim& d = op.dims[i];
    s += detail::cat(i ? ", " : "", d.name);
    if (d.subscript.empty()) continue;
    const bool plain = d.subscript.find_first_of(", ") == std::string::npos;
    s += plain ? detail::cat("_", d.subscript) : detail::cat("_{", d.subscript, "}");
  }
  return s + "]";
}

}  // namespace roofline
