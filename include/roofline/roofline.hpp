// Umbrella header: chip specs, single-device rooflines, collectives, meshes,
// sharded matmuls, training steps and the planner, HLO modules and their
// cost. The readers of traces and the report have their own headers:
// roofline/trace/read.hpp, roofline/match/match.hpp, roofline/report/render.hpp.
#pragma once

#include "roofline/chip.hpp"
#include "roofline/dtype.hpp"
#include "roofline/ops/elementwise.hpp"
#include "roofline/ops/generic.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/predict.hpp"
#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/collectives/collective.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/sharded_matmul.hpp"
#include "roofline/sharding/training_step.hpp"
#include "roofline/sharding/planner.hpp"
