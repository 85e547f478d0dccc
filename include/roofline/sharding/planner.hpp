// The planner: every way to lay a model's training over `chips` chips that
// the training-step model can express, within the request's constraints,
// predicted and ranked by the step time to expect; and the evaluation of
// one given layout.
//
//   roofline::PlanRequest req{.model = *roofline::find_builtin_model("llama-3-70b"),
//                             .chip = roofline::chip("tpu-v5p"), .chips = 256,
//                             .batch_tokens = 512 * 8192,
//                             .constraints = {.remat = {roofline::Remat::kFull}, .max_pipeline_stages = 1}};
//   absl::StatusOr<roofline::Plan> plan = roofline::plan_training(req);
//
// Enumerated (docs/planner.md): S slices (or nodes) across DCN, S fixed by
// the constraints or by default one slice up to the pod size
// (chip.ici.domain_chips()) and beyond it the fewest slices that hold the
// chips; on ICI a mesh stage=P x data=X x model=Y (X Y P = chips / S); the
// DCN axis doing data parallelism, FSDP or pipeline stages; the ICI data
// axis doing data parallelism or FSDP; every allowed remat policy; 1, 2, 4
// or 8 microbatches per stage with a pipeline. Combinations that cannot be
// predicted (shapes that do not divide), that break a constraint or that do
// not fit in HBM are kept in Plan::rejected with the reason.
//
// Ranking (plan_order): expected step time (TrainingStep::expected_s; the
// lower bound where it is not modelled), then the lower bound, then the upper
// bound, then HBM per chip, then fewer slices, then fewer pipeline stages,
// then the mesh text, then the layout text, remat and microbatches.
//
// Part of the compiled roofline::roofline (it checks its request and
// returns an absl::Status); each candidate is the header-only
// training_step() of roofline::core.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/sharding/critical_batch.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/model_config.hpp"
#include "roofline/sharding/training_step.hpp"

namespace roofline {

// What the user fixes. Zero or empty: the planner chooses.
struct PlanConstraints {
  // Slices (TPU) or nodes (GPU) across DCN. 0: one slice up to the pod size,
  // beyond it the fewest that hold the chips. It must divide the chips, and
  // chips / slices must fit one pod.
  int slices = 0;
  std::vector<Remat> remat = {}; // the policies to try; empty: kAllRemats
  int max_pipeline_stages = 0;   // 0: no cap; 1: no pipeline
  std::vector<int> slice_shape = {};  // physical shape of each slice (4x4x12); empty: chosen (make_mesh)
  int max_microbatches = 0;      // 0: no cap (8 x the stages at most)
};

struct PlanRequest {
  ModelConfig model;
  Chip chip;
  int chips = 0;
  std::int64_t batch_tokens = 0;
  std::int64_t seq_len = 0;  // 0: the model's
  TrainingDTypes dtypes = {};
  AttentionMask mask = AttentionMask::kCausal;
  AttentionKernel attention = AttentionKernel::kFlash;  // how the attention core runs (TrainingConfig)
  // The expected times come from this calibration (none: default_calibration(chip)).
  std::optional<ChipCalibration> calibration = std::nullopt;
  PlanConstraints constraints = {};
};

// The sequence length a request plans for: its own, else the model's.
inline std::int64_t plan_seq_len(const PlanRequest& r) { return r.seq_len > 0 ? r.seq_len : r.model.seq_len; }

struct PlanCandidate {
  Mesh mesh = {};
  ParallelLayout layout = {};
  Remat remat = Remat::kNone;
  int microbatches = 1;
  TrainingStep step = {};
  CriticalBatch critical = {};  // for the data / model / DCN axes of this mesh
};

// "data=16,model=4,slice=2:dcn": what parse_mesh reads back.
std::string mesh_text(std::span<const MeshAxis> axes);
std::string mesh_text(const Mesh& mesh);

// "fsdp=data tp=model pp=stage": the roles in the order fsdp, dp (data axes
// that are not FSDP), tp, pp, each axis in mesh order; parse_layout
// (roofline/sharding/parse.hpp) reads it back to the same layout. An empty
// layout (every axis replicates) is "".
std::string layout_text(std::span<const MeshAxis> axes, const ParallelLayout& layout);
std::string layout_text(const Mesh& mesh, const ParallelLayout& layout);

// "FSDP(data=16) + TP(model=4)" (strategy_name of training_step.hpp).
std::string strategy_name(const PlanCandidate& c);

// Chips along the DCN axes (1: one slice), and the pipeline stages (1: none).
int slice_count(const Mesh& mesh);
int pipeline_stages(const Mesh& mesh, const ParallelLayout& layout);

// The time a candidate is ranked by: the expected step time, or the lower
// bound while the expected time is not modelled (expected_s == 0).
inline double ranking_time_s(const TrainingStep& s) { return s.expected_s > 0 ? s.expected_s : s.step_time_s; }

// The ranking rule of the header comment: true when `a` goes before `b`.
bool plan_order(const PlanCandidate& a, const PlanCandidate& b);

// Why a combination is not among the ranked.
enum class RejectKind : unsigned char {
  kMemory,      // predicted, over HBM
  kConstraint,  // breaks a constraint of the request (pipeline stages, microbatches, slices)
  kShape,       // cannot be predicted: sizes that do not divide, a mesh the pod cannot lay
};
std::string_view reject_kind_name(RejectKind k);  // "memory", "constraint", "shape"

struct RejectedCandidate {
  std::vector<MeshAxis> axes = {};  // the mesh asked for
  ParallelLayout layout = {};   // as far as it was chosen
  std::optional<Remat> remat = std::nullopt;  // none: rejected for every policy (a shape)
  int microbatches = 0;         // 0: rejected for every count
  RejectKind kind = RejectKind::kShape;
  MemoryPerChip memory = {};    // filled for kMemory
  // "needs 41.2 GB of 34.4 GB HBM: activations 30.1 GB (remat none)".
  std::string reason = {};
};

struct Plan {
  std::vector<PlanCandidate> ranked;  // fit in HBM and meet the constraints, in plan_order
  // Every combination not ranked, closest to fitting first: memory misses by
  // total / HBM, then constraint breaks, then shapes; each group by mesh text.
  std::vector<RejectedCandidate> rejected;
  int slices = 1;          // across DCN, as asked or chosen
  int considered = 0;      // ranked + rejected
  int evaluated = 0;       // predicted: ranked + rejected for memory
  int rejected_memory = 0;
  int rejected_constraint = 0;
  int rejected_shape = 0;
  double search_seconds = 0;
};

// Errors: an invalid model, chips < 1, an empty batch or one that is not
// whole sequences, a dtype the chip has no peak for, slices that do not
// divide the chips or leave more chips per slice than a pod holds, a slice
// shape that does not hold chips / slices, negative caps.
absl::StatusOr<Plan> plan_training(const PlanRequest& request);

// One given layout: predicted, and whether it is one the planner would rank.
struct LayoutEvaluation {
  PlanCandidate candidate = {};
  bool fits = false;   // in HBM and within the request's constraints
  std::string reason = {};  // why not ("" when it fits)
};

// Evaluates exactly `layout` on `mesh` with `remat` and `microbatches`.
// Errors: the request's (plan_training), a mesh laid on another chip, and
// every broken precondition of validate_training_step (axes in two roles,
// sizes that do not divide) with its reason.
absl::StatusOr<LayoutEvaluation> evaluate_layout(const PlanRequest& request, const Mesh& mesh,
                                                 const ParallelLayout& layout, Remat remat, int microbatches);

}  // namespace roofline
