// The planner: every way to lay a model's training over `chips` chips that
// the training-step model can express, predicted and ranked.
//
// Enumerated: slices (or nodes) S across DCN with the rest on ICI; on ICI a
// mesh data=X x model=Y x stage=P (X Y P = chips / S); the DCN axis doing
// data parallelism, FSDP or pipeline stages; the ICI data axis doing data
// parallelism or FSDP; rematerialisation off or full; 1, 2, 4 or 8
// microbatches per stage with a pipeline. Candidates whose batch, heads or
// layers do not divide are skipped; those that do not fit in HBM are dropped;
// the rest are ranked by predicted step time (t_lower_s), then t_upper_s.
//
// Part of the compiled roofline::roofline (it checks its request and
// returns an absl::Status); each candidate is the header-only
// training_step() of roofline::core.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/chip.hpp"
#include "roofline/sharding/critical_batch.hpp"
#include "roofline/sharding/model_config.hpp"
#include "roofline/sharding/training_step.hpp"

namespace roofline {

struct PlanRequest {
  ModelConfig model;
  Chip chip;
  int chips = 0;
  std::int64_t batch_tokens = 0;
  std::int64_t seq_len = 0;  // 0: the model's
  TrainingDTypes dtypes = {};
  AttentionMask mask = AttentionMask::kCausal;
};

struct PlanCandidate {
  std::string mesh;      // "data=16,model=4,slice=2:dcn"
  std::string layout;    // how the mesh sits on the interconnect
  std::string strategy;  // strategy_name()
  Remat remat = Remat::kNone;
  int microbatches = 1;
  TrainingStep step;
  CriticalBatch critical;  // for the data / model / DCN axes of this mesh
};

struct Plan {
  std::vector<PlanCandidate> ranked;  // fit in HBM, fastest first
  std::optional<PlanCandidate> smallest_that_does_not_fit;  // when nothing fits: the closest miss
  int considered = 0;      // every enumerated combination
  int evaluated = 0;       // predicted (valid shapes)
  int dropped_memory = 0;  // predicted but over HBM
  int skipped = 0;         // shapes that do not divide, or meshes the pod cannot hold
  double search_seconds = 0;
};

absl::StatusOr<Plan> plan_training(const PlanRequest& request);

}  // namespace roofline
