// roofline::core, the header-only part of roofline. This umbrella is its
// light half: element types, chips (the specs of hardware/ compiled in),
// single-device ops and predict(), collectives on rings, tori and switches.
// The other half, meshes, sharded matmuls, layer and model counts, training
// steps and critical batch sizes, is roofline/sharding.hpp (also core, also
// header-only), kept apart because it costs about as much to compile as
// this whole header (docs/architecture.md), as {fmt} keeps core.h light.
// It includes no abseil and needs no compiled library: link roofline::core
// (CMake) and include this.
//
//   const roofline::Chip& v5e = roofline::chip("tpu-v5e");
//   roofline::Matmul mm{.m = 32768, .k = 8192, .n = 32768};   // bf16 by default
//   roofline::Prediction p = roofline::predict(mm, v5e);      // p.t_math_s == 0.0893...
//
// The models trust their input (positive dims, a chip with the dtype, a
// layout that divides); each header states its preconditions. Where input
// comes from outside the program, the compiled roofline::roofline checks it
// and says what is wrong: validate(op, chip) (roofline/ops/validate.hpp),
// make_mesh, predict_sharded_matmul, predict_training_step
// (roofline/sharding/checked.hpp), the text parsers
// (roofline/sharding/parse.hpp). roofline/roofline.hpp includes everything.
#pragma once

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/collectives/collective.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/collectives/expected.hpp"
#include "roofline/collectives/nccl.hpp"
#include "roofline/collectives/network_dim.hpp"
#include "roofline/dtype.hpp"
#include "roofline/expected/gemm.hpp"
#include "roofline/expected/memory.hpp"
#include "roofline/expected/size_curve.hpp"
#include "roofline/ops/elementwise.hpp"
#include "roofline/ops/generic.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/predict.hpp"
