// The built-in expectation of a collective op by its shape
// (roofline/collectives/expected.hpp), from the model that costs it.
#pragma once

#include <optional>
#include <string_view>

#include "roofline/chip.hpp"
#include "roofline/collectives/expected.hpp"
#include "roofline/match/op_model.hpp"
#include "roofline/predict.hpp"

namespace roofline {

// The collective `model` costs (an NCCL kernel's args, XLA's recorded
// figures with replica groups, an HLO collective), or nullopt.
std::optional<CollectiveShape> collective_shape(const OpModel& model);

// expected_collective() of the op named `name` (its kernel or HLO op name)
// costed by `model`, whose roofline on `chip` is `p`; nullopt where the op
// is no collective or no published model applies.
std::optional<CollectiveExpectation> expected_collective(const OpModel& model, std::string_view name,
                                                         const Prediction& p, const Chip& chip);

}  // namespace roofline
