// Umbrella header: the chip specs and the single-device rooflines.
#pragma once

#include "roofline/chip.hpp"
#include "roofline/dtype.hpp"
#include "roofline/ops/elementwise.hpp"
#include "roofline/ops/generic.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/predict.hpp"
