// The checked entry points of the sharding models: each checks what the
// header-only model in roofline::core takes as a precondition, returns an
// absl::Status that says which is broken, and otherwise runs the model.
// Part of the compiled roofline::roofline.
//
//   absl::StatusOr<roofline::TrainingStep> s =
//       roofline::predict_training_step(model, chip, mesh, layout, config);
//
// A Mesh remembers the chip it was laid on (its dims carry that chip's link
// figures): predict_sharded_matmul and predict_training_step refuse a mesh
// laid on another chip.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "roofline/chip.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/sharding/matmul_expression.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/model_config.hpp"
#include "roofline/sharding/sharded_matmul.hpp"
#include "roofline/sharding/training_step.hpp"

namespace roofline {

// Lays `axes` on `chip` (lay_out_mesh). Errors (absl::InvalidArgumentError)
// say why: a duplicate axis, a size < 1, more ICI chips than the pod or
// NVLink domain holds, a shape no slice of the pod can take.
absl::StatusOr<Mesh> make_mesh(std::vector<MeshAxis> axes, const Chip& chip, std::span<const int> slice_shape = {});

// OK when `mesh` was laid on `chip`; else an error naming both.
absl::Status check_mesh_chip(const Mesh& mesh, const Chip& chip);

// collective_time (roofline/sharding/mesh_collective.hpp) with the axes by
// name ("Y", "X,Y" or "XY"; resolve_axes) and V checked (>= 0).
absl::StatusOr<CollectiveTime> collective_time(const Mesh& mesh, CollectiveKind kind, std::string_view axes,
                                               double v_bytes, int shift = 1);

// sharded_matmul() of an expression as parsed. `dims` gives the size of
// every dim the expression names. Errors: a mesh laid on another chip, a
// dtype the chip has no peak for, unknown mesh axes, an axis used twice in
// one operand, missing or unused dims, dims not divisible by their shards,
// a result that does not match the operands, no dim to contract, no valid
// way to multiply on this mesh.
absl::StatusOr<ShardedMatmul> predict_sharded_matmul(const MatmulExpression& expr, const Mesh& mesh,
                                                     const Chip& chip,
                                                     const std::map<std::string, std::int64_t>& dims,
                                                     DType dtype = DType::kBF16);

// Positive sizes, kv_heads dividing heads.
absl::Status validate(const ModelConfig& m);

// training_step()'s preconditions: a mesh laid on another chip, axes in two
// roles, a pipeline that does not divide the layers, a batch that does not
// divide over the data axes and microbatches, heads or d_ff not divisible
// by the tensor-parallel ways are refused.
absl::Status validate_training_step(const ModelConfig& model, const Chip& chip, const Mesh& mesh,
                                    const ParallelLayout& layout, const TrainingConfig& config);

// validate_training_step, then training_step(); the expected times from
// `calibration` (nullptr: the chip's built-in, default_calibration).
absl::StatusOr<TrainingStep> predict_training_step(const ModelConfig& model, const Chip& chip, const Mesh& mesh,
                                                   const ParallelLayout& layout, const TrainingConfig& config,
                                                   const ChipCalibration* calibration = nullptr);

}  // namespace roofline
