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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/predict.hpp"
#include "roofline/sharding/layers.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/model_config.hpp"
#include "roofline/sharding/remat.hpp"

namespace roofline {

// Which mesh axes do what. Axes in no set replicate everything (wasteful but valid).
struct ParallelLayout {
  AxisMask data = 0;        // the batch is sharded over these (ICI or DCN axes)
  AxisMask fsdp = 0;        // subset of `data`: parameters, gradients and optimizer sharded too
  AxisMask model = 0;       // tensor parallel: heads, d_ff and vocab sharded
  int pipeline_axis = -1;   // layers split into stages along this axis; -1 for none
};

// The dtypes of what a step computes with and keeps. The defaults are the
// common trainer's (MaxText's dtype=bfloat16 with weight_dtype=float32,
// PyTorch AMP): bf16 matmuls and activations over fp32 master weights, fp32
// gradients and two fp32 Adam moments, 4 + 4 + 8 = 16 bytes of state per
// parameter. Where each dtype applies (docs/layers.md): matmuls,
// activations, tensor-parallel and pipeline transfers and FSDP weight
// gathers in `compute` (each chip casts its shard before the gather, where
// XLA's partitioner puts the convert); gradient reduce-scatters and
// all-reduces in `grads`.
struct TrainingDTypes {
  DType compute = DType::kBF16;   // activations, matmul inputs, activation collectives, weight gathers
  DType params = DType::kF32;     // the weights kept between steps (the master copy)
  DType grads = DType::kF32;      // gradients as kept, reduced and applied
  DType optimizer = DType::kF32;  // each optimizer state
  int optimizer_states = 2;       // Adam: first and second moments

  double optimizer_bytes_per_param() const { return optimizer_states * bytes_per_element(optimizer); }
  // Parameters, gradients and optimizer state: 16 with the defaults.
  double state_bytes_per_param() const {
    return bytes_per_element(params) + bytes_per_element(grads) + optimizer_bytes_per_param();
  }
};

// How the attention core runs. It changes the step's work and memory, not
// the model's FLOPs (kMfuConvention counts the useful FLOPs whatever the
// kernel computes). docs/layers.md, "Attention kernels", counts each one's
// passes.
//   kFlash             a fused kernel (FlashAttention; Pallas/splash on TPU):
//                      Q, K, V, O cross HBM once; with a causal mask it skips
//                      the blocks above the diagonal, half the T x T product
//   kFlashFullProduct  a fused kernel computing the whole T x T product:
//                      MaxText of 2023-10 called the Pallas kernel with
//                      causal=False (tests/data/published_runs.json)
//   kMaterialized      "dot_product": QK^T writes the scores [t, N_l, T] to
//                      HBM, softmax reads them and writes the probabilities,
//                      PV reads those; the whole T x T product is computed
//                      and the mask applied after it (MaxText before 2023-10)
enum class AttentionKernel : unsigned char { kFlash, kFlashFullProduct, kMaterialized };

inline constexpr std::string_view attention_kernel_name(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::kFlash: return "flash";
    case AttentionKernel::kFlashFullProduct: return "flash-full-product";
    case AttentionKernel::kMaterialized: return "dot_product";
  }
  return "?";
}

inline std::optional<AttentionKernel> parse_attention_kernel(std::string_view name) {
  for (AttentionKernel k : {AttentionKernel::kFlash, AttentionKernel::kFlashFullProduct,
                            AttentionKernel::kMaterialized})
    if (attention_kernel_name(k) == name) return k;
  return std::nullopt;
}

struct TrainingConfig {
  std::int64_t batch_tokens = 0;  // global tokens per step
  std::int64_t seq_len = 0;       // 0: the model's
  TrainingDTypes dtypes = {};
  Remat remat = Remat::kNone;
  AttentionMask mask = AttentionMask::kCausal;
  AttentionKernel attention = AttentionKernel::kFlash;
  int microbatches = 1;           // pipeline microbatches; must be 1 without a pipeline
};

// One part of the step, per chip, summed over the layers of its stage and
// over the forward and backward passes. `roofline` is the sum of its ops
// (accumulate()): t_lower_s is the sum over its compute ops of
// max(T_math, T_hbm), t_upper_s the sum of T_math + T_hbm; its collectives
// add only t_ici_s and ici_bytes, because the step overlaps them with the
// compute of the whole step, not op by op. The host-offload part counts its
// host-link copies the same way, in t_host_s and host_bytes.
// `expected_s` sums each op's calibrated expected time
// (roofline::expected_s with the op's CostClass), before the pipeline
// bubble and before any overlap; `expected_forward_s` is the share of it
// that runs in the forward pass (the rest runs in the backward, with the
// forward work a remat policy runs again there), which the overlap model
// needs: a transfer of one pass hides only under that pass's compute.
struct StepPart {
  std::string_view name;
  Prediction roofline;
  double expected_s = 0;
  double expected_forward_s = 0;
};

struct MemoryPerChip {
  double params_bytes = 0;     // in TrainingDTypes::params
  double grads_bytes = 0;      // in TrainingDTypes::grads
  double optimizer_bytes = 0;  // optimizer_states x TrainingDTypes::optimizer
  // Two layers' weights in the compute dtype (use + prefetch): FSDP's
  // gathered copies, or the cast copies of master weights kept in another
  // dtype.
  double gathered_weights_bytes = 0;
  double activations_bytes = 0;           // with the configured remat
  double activations_no_remat_bytes = 0;  // with Remat::kNone
  double activations_remat_bytes = 0;     // with Remat::kFull
  // offloads_to_host(remat): activations held in host memory, by the
  // pipeline stage that holds most there.
  double host_activations_bytes = 0;
  double total_bytes = 0;
  double hbm_bytes = 0;  // the chip's capacity
  bool fits = false;
};

struct TrainingStep {
  std::vector<StepPart> parts;
  // The step's bounds: t_math_s and t_hbm_s sum the parts (times the
  // pipeline bubble), t_ici_s the interconnect's transfers (collectives,
  // pipeline shifts), t_host_s the host link's (the host-offload copies of
  // an offloads_to_host(remat) policy). Every transfer off the chip runs one
  // after another: t_lower_s = max(t_compute_s, t_ici_s + t_host_s)
  // (communication hidden under compute), t_upper_s = t_compute_s + t_ici_s
  // + t_host_s (nothing overlaps); the bound is bound_of() the four times.
  Prediction roofline;
  double t_compute_s = 0;    // sum of per-op rooflines, times the bubble factor
  double bubble_factor = 1;  // (microbatches + stages - 1) / microbatches
  double step_time_s = 0;    // the lower bound: roofline.t_lower_s, as the book's analysis assumes
  // The calibrated expected step time, between the bounds' assumptions
  // (docs/layers.md, "Expected step time"): compute at its calibrated
  // times stretched by the bubble; tensor-parallel and pipeline transfers
  // exposed; FSDP, gradient and host-offload traffic hidden under the
  // compute of its own pass (forward or backward; with a pipeline, all of it)
  // up to the compute time. Never below step_time_s.
  double expected_s = 0;
  double expected_compute_s = 0;  // the calibrated compute, times the bubble
  double expected_exposed_s = 0;  // communication on the critical path (TP, pipeline, excess of the rest)
  double model_flops = 0;    // per step, all chips (kMfuConvention)
  double mfu = 0;            // at step_time_s: the most MFU the layout can reach
  double mfu_expected = 0;   // at expected_s
  double mfu_no_overlap = 0; // at roofline.t_upper_s: nothing overlaps
  double tokens_per_chip = 0;
  MemoryPerChip memory;
  int chips = 0;
};

// One chip's share of a training step. Preconditions (validate_training_step
// checks them): a valid model; `mesh` laid on `chip`, which has a peak for
// the compute dtype; floating-point state dtypes and optimizer_states >= 0;
// the layout's axes on the mesh, no axis both data and tensor parallel,
// FSDP axes among the data axes, the pipeline axis in no other role; the
// stages divide the layers; the sequences divide over the data shards and
// microbatches (1 without a pipeline); heads, d_ff and d_model divide over
// the tensor-parallel ways, which divide or are divided by the kv heads;
// a remat policy that offloads_to_host on a chip with a host link
// (pcie_bytes_per_s > 0). Cheap enough for the planner's inner loop.
// `calibration` gives the expected times (nullptr: default_calibration(chip)).
inline TrainingStep training_step(const ModelConfig& model, const Chip& chip, const Mesh& mesh,
                                  const ParallelLayout& layout, const TrainingConfig& config,
                                  const ChipCalibration* calibration = nullptr);

// "FSDP(data=16) + TP(model=4) + PP(stage=2, 8 microbatches) + DP over DCN(slice=2)".
inline std::string strategy_name(const Mesh& mesh, const ParallelLayout& layout, int microbatches = 1);

}  // namespace roofline

// The model, part by part.
#include "roofline/sharding/detail/training_step_parts.hpp"
