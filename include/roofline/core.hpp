// roofline::core, the header-only part of roofline: element types, chips
// (the specs of hardware/ compiled in), single-device ops and predict(),
// collectives on rings, tori and switches. It includes no abseil and needs
// no compiled library: link roofline::core (CMake) and include this.
//
//   const roofline::Chip& v5e = roofline::chip("tpu-v5e");
//   roofline::Matmul mm{.m = 32768, .k = 8192, .n = 32768};   // bf16 by default
//   roofline::Prediction p = roofline::predict(mm, v5e);      // p.t_math_s == 0.0893...
//
// predict() trusts its input (positive dims, a chip with the dtype); where
// input comes from outside the program, check it first with the compiled
// part's validate(op, chip) (roofline/ops/validate.hpp), or include
// roofline/roofline.hpp for everything: core plus the compiled readers,
// parsers and checked entry points.
#pragma once

#include "roofline/chip.hpp"
#include "roofline/collectives/collective.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/collectives/network_dim.hpp"
#include "roofline/dtype.hpp"
#include "roofline/ops/elementwise.hpp"
#include "roofline/ops/generic.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/predict.hpp"
