// The sharding half of roofline::core, header-only like the rest of it:
// meshes laid on a chip's interconnect, collectives over mesh axes, the
// scaling book's sharded-matmul notation, layer and model counts, training
// steps and critical batch sizes. roofline/core.hpp holds the single-chip
// half; this includes it.
//
//   const roofline::Chip& v5e = roofline::chip("tpu-v5e");
//   // make_mesh / predict_training_step (roofline/sharding/checked.hpp,
//   // compiled) check input from outside the program first.
#pragma once

#include "roofline/core.hpp"
#include "roofline/sharding/critical_batch.hpp"
#include "roofline/sharding/layers.hpp"
#include "roofline/sharding/matmul_expression.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/model_config.hpp"
#include "roofline/sharding/remat.hpp"
#include "roofline/sharding/sharded_matmul.hpp"
#include "roofline/sharding/training_step.hpp"
