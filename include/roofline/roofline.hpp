// Everything: roofline::core (roofline/core.hpp: chips, ops, collectives,
// predict; roofline/sharding.hpp: meshes, sharded matmuls, training steps) and the compiled
// roofline::roofline on top of it: chip spec files and names users type
// (chip_io.hpp), validate(op, chip), calibrations fitted to measured ops,
// their file and the fidelity benchmark (calibrate/), the sharding parsers and checked entry
// points, the planner, HLO modules and their cost. Link roofline::roofline.
// The readers of traces and the report have their own headers:
// roofline/trace/read.hpp, roofline/match/match.hpp, roofline/report/render.hpp.
#pragma once

#include "roofline/core.hpp"
#include "roofline/sharding.hpp"

#include "roofline/calibrate/fidelity.hpp"
#include "roofline/calibrate/fit.hpp"
#include "roofline/calibrate/io.hpp"
#include "roofline/chip_io.hpp"
#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/ops/validate.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/planner.hpp"
