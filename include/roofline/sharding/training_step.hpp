// One training step of a decoder-only transformer on a mesh: what each chip
// computes, reads from HBM and sends, per part, and the memory it holds.
// The strategies are the scaling book's (training.md), per layer:
//   data parallel   In[B_X, D] . W_in[D, F] . W_out[F, D]; gradients all-reduced over X
//   FSDP            weights [D_X, F]: all-gathered before use (forward and backward),
//                   gradients reduce-scattered; optimizer state sharded
//   tensor parallel In[B, D_Y] . W_in[D, F_Y] . W_out[F_Y, D]: activations
//                   all-gathered over Y before each block, reduce-scattered after
//   FSDP + TP       both; pipeline stages split the layers; DCN axes in the
//                   data set do data parallelism across slices (nodes).
// Every matmul is a roofline (roofline/ops/matmul.hpp) at its local shape;
// every collective runs on the mesh (roofline/sharding/mesh_collective.hpp).
// See docs/layers.md for the full list of assumptions.
//
// Part of roofline::core: training_step() on input that meets its
// preconditions. predict_training_step and validate_training_step
// (roofline/sharding/checked.hpp, compiled) check them and say which is
// broken.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/chip.hpp"
#include "roofline/predict.hpp"
#include "roofline/sharding/layers.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/model_config.hpp"

namespace roofline {

enum class Remat : unsigned char {
  kNone,  // keep every activation the backward pass needs
  kFull,  // keep each layer's input; recompute the layer's forward in the backward pass
};

constexpr std::string_view remat_name(Remat r) { return r == Remat::kFull ? "full" : "none"; }

// Which mesh axes do what. Axes in no set replicate everything (wasteful but valid).
struct ParallelLayout {
  AxisMask data = 0;        // the batch is sharded over these (ICI or DCN axes)
  AxisMask fsdp = 0;        // subset of `data`: parameters, gradients and optimizer sharded too
  AxisMask model = 0;       // tensor parallel: heads, d_ff and vocab sharded
  int pipeline_axis = -1;   // layers split into stages along this axis; -1 for none
};

struct TrainingConfig {
  std::int64_t batch_tokens = 0;  // global tokens per step
  std::int64_t seq_len = 0;       // 0: the model's
  DType dtype = DType::kBF16;     // parameters, activations, gradients and matmul inputs
  double optimizer_bytes_per_param = 8;  // Adam: two fp32 moments
  Remat remat = Remat::kNone;
  AttentionMask mask = AttentionMask::kCausal;
  int microbatches = 1;           // pipeline microbatches; must be 1 without a pipeline
};

// One part of the step, per chip, summed over the layers of its stage and
// over the forward and backward passes. `roofline` is the sum of its ops
// (accumulate()): t_lower_s is the sum over its compute ops of
// max(T_math, T_hbm), t_upper_s the sum of T_math + T_hbm; its collectives
// add only t_ici_s and ici_bytes, because the step overlaps them with the
// compute of the whole step, not op by op.
struct StepPart {
  std::string_view name;
  Prediction roofline;
};

struct MemoryPerChip {
  double params_bytes = 0;
  double grads_bytes = 0;
  double optimizer_bytes = 0;
  double gathered_weights_bytes = 0;   // FSDP: two layers' weights gathered at once (use + prefetch)
  double activations_bytes = 0;        // with the configured remat
  double activations_no_remat_bytes = 0;
  double activations_remat_bytes = 0;
  double total_bytes = 0;
  double hbm_bytes = 0;  // the chip's capacity
  bool fits = false;
};

struct TrainingStep {
  std::vector<StepPart> parts;
  // The step: t_math_s and t_hbm_s sum the parts (times the pipeline
  // bubble), t_ici_s puts every collective one after another on the
  // network. t_lower_s = max(t_compute_s, t_ici_s) (communication hidden
  // under compute), t_upper_s = t_compute_s + t_ici_s (nothing overlaps);
  // the bound is bound_of() the three times.
  Prediction roofline;
  double t_compute_s = 0;    // sum of per-op rooflines, times the bubble factor
  double bubble_factor = 1;  // (microbatches + stages - 1) / microbatches
  double step_time_s = 0;    // the prediction: roofline.t_lower_s, as the book's analysis assumes
  double model_flops = 0;    // per step, all chips (kMfuConvention)
  double mfu = 0;            // at step_time_s
  double tokens_per_chip = 0;
  MemoryPerChip memory;
  int chips = 0;
};

// One chip's share of a training step. Preconditions (validate_training_step
// checks them): a valid model; `mesh` laid on `chip`, which has a peak for
// the dtype; the layout's axes on the mesh, no axis both data and tensor
// parallel, FSDP axes among the data axes, the pipeline axis in no other
// role; the stages divide the layers; the sequences divide over the data
// shards and microbatches (1 without a pipeline); heads, d_ff and d_model
// divide over the tensor-parallel ways, which divide or are divided by the
// kv heads. Cheap enough for the planner's inner loop.
inline TrainingStep training_step(const ModelConfig& model, const Chip& chip, const Mesh& mesh,
                                  const ParallelLayout& layout, const TrainingConfig& config);

// "FSDP(data=16) + TP(model=4) + PP(stage=2, 8 microbatches) + DP over DCN(slice=2)".
inline std::string strategy_name(const Mesh& mesh, const ParallelLayout& layout, int microbatches = 1);

}  // namespace roofline

// The model, part by part.
#include "roofline/sharding/detail/training_step_parts.hpp"
