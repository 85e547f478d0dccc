// Reading the sharding models' input from text a user typed: meshes, mesh
// axis names, sharded matmuls in the scaling book's notation, dim sizes and
// model configs. Errors name the place: a column, or a file and a JSON path.
// Part of the compiled roofline::roofline; the models themselves are
// header-only (roofline/sharding.hpp).
//
//   absl::StatusOr<roofline::Mesh> mesh = roofline::parse_mesh("X=8,Y=4", roofline::chip("tpu-v5e"));
//   absl::StatusOr<roofline::MatmulExpression> e = roofline::parse_matmul_expression("x[B_X, D] @ w[D, F_Y]");
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/chip.hpp"
#include "roofline/sharding/matmul_expression.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/model_config.hpp"
#include "roofline/sharding/training_step.hpp"

namespace roofline {

// "X=8,Y=4" or "data=16,model=4,slice=2:dcn". Errors name the column:
// "mesh 'X=8,Y': column 5: expected '=' after axis name 'Y'".
absl::StatusOr<std::vector<MeshAxis>> parse_mesh_axes(std::string_view spec);

// parse_mesh_axes then make_mesh (roofline/sharding/checked.hpp).
absl::StatusOr<Mesh> parse_mesh(std::string_view spec, const Chip& chip);

// A physical slice shape, "4x4x12" (or "16x16" on a 2-D torus), for
// --slice: 1 to 3 positive integers joined by 'x'. Errors carry the column:
// "slice '4x4x': column 5: expected a dimension". Whether the chip can
// provision the shape is checked by make_mesh.
absl::StatusOr<std::vector<int>> parse_slice_shape(std::string_view text);

// Mesh axes named by `text`: "X,Y", "X" or, when no axis is called that,
// the book's run-together subscripts "XY" read as X then Y (longest axis
// names first). The order is returned as written. Errors name unknown or
// repeated axes.
absl::StatusOr<std::vector<int>> resolve_axes(const Mesh& mesh, std::string_view text);

// A parallel layout on `mesh`: whitespace-separated ROLE=AXIS[,AXIS...]
// with roles dp (data parallel), fsdp (data parallel with parameters,
// gradients and optimizer state sharded: its axes are data axes too), tp
// (tensor parallel) and pp (pipeline stages, one axis). Axes in no role
// replicate. "fsdp=data tp=model"; layout_text (roofline/sharding/planner.hpp)
// writes what this reads. Errors name the column: "layout 'fsdp=data
// tp=modl': column 14: unknown mesh axis 'modl'; the mesh has data, model".
absl::StatusOr<ParallelLayout> parse_layout(std::string_view text, const Mesh& mesh);

// Errors carry the column: "expression:1:15: expected ',' or ']' after dim 'D'".
absl::StatusOr<MatmulExpression> parse_matmul_expression(std::string_view text);

// "B=1024,D=8192,F=32768": the size of every dim, for --dims. Exponent forms
// that are exact integers ("8.192e3") are accepted.
absl::StatusOr<std::map<std::string, std::int64_t>> parse_dim_sizes(std::string_view text);

// Reads the JSON of roofline/sharding/model_config.hpp; errors name the
// origin and the JSON path ("my.json: /d_ff: expected a positive integer").
absl::StatusOr<ModelConfig> parse_model_config(std::string_view json_text, std::string_view origin);
absl::StatusOr<ModelConfig> load_model_config(const std::string& path);
// A built-in name, else a path to a JSON file.
absl::StatusOr<ModelConfig> resolve_model(const std::string& name_or_path);

}  // namespace roofline
