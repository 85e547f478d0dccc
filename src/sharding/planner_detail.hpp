// What the planner's search and evaluate_layout share: the request's
// checks, the calibration in force, and the words of a rejection.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "roofline/sharding/planner.hpp"

namespace roofline::detail {

// The model, chips, batch and dtype of the request, and the caps of its
// constraints (not the slices: evaluate_layout takes the mesh it is given).
absl::Status check_request(const PlanRequest& req);

// The request's calibration, else the chip's built-in one.
ChipCalibration calibration_for(const PlanRequest& req);

// "needs 41.2 GB of 34.4 GB HBM: weights, gradients and optimizer 11.1 GB,
// activations 30.1 GB (remat none)".
std::string memory_reason(const MemoryPerChip& m, Remat remat);

// "8 pipeline stages > the cap of 4 (--max-pp)", or "" within the caps.
std::string stages_reason(int stages, const PlanConstraints& c);
std::string microbatches_reason(int microbatches, const PlanConstraints& c);

// The critical batch sizes of the data, model and DCN axes of a layout.
CriticalBatch critical_of(const PlanRequest& req, const Mesh& mesh, const ParallelLayout& layout);

}  // namespace roofline::detail
