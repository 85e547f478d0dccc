// Memory per chip of a training step: the state kept between steps, the
// gathered weights, and the activations kept for the backward pass under
// the remat policy. Part of the training-step model
// (detail/training_step_parts.hpp); not a public header.
#pragma once

#include <algorithm>

#include "roofline/sharding/detail/training_remat.hpp"
#include "roofline/sharding/detail/training_step_parts.hpp"

namespace roofline::detail::step {

// The activations one stage holds for `in_flight` tokens over its layers
// under policy `r`, and those it keeps in host memory (offload,
// offload-qkv), and the layer whose backward runs, which holds its whole
// set for the t tokens of its microbatch: the kept part counted with the
// others, the rest rebuilt, brought back from the host or (none: its
// block inputs) gathered again.
struct StageActivations {
  double hbm_bytes = 0;
  double host_bytes = 0;
};

inline StageActivations stage_activations(const Context& c, Remat r, double in_flight) {
  const LayerActivations a = c.activations(r);
  // The layer whose backward runs holds its whole set: what the policy
  // keeps, counted with every layer's, and the rest, which it rebuilds,
  // brings back from the host or (none) gathers again.
  const double working = static_cast<double>(c.t) * (a.all_bytes - a.kept_bytes);
  return {.hbm_bytes = c.L_s * in_flight * a.kept_bytes + working,
          .host_bytes = c.L_s * in_flight * a.host_bytes};
}

// Parameters, gradients and optimizer state in their own dtypes, sharded
// over FSDP (and TP where sharded); two layers' weights in the compute dtype
// (FSDP's gathered copies, or the cast of master weights kept in another
// dtype; use + prefetch); the activations of stage_activations(); the
// last stage's logits (compute dtype + fp32 probabilities). Reports the
// fuller of the first and last pipeline stage, and the most host memory
// either holds (offload: the first stage keeps min(M, P) microbatches'
// activations there, the last one).
inline void memory_per_chip(const Context& c, TrainingStep& st) {
  const Shapes& s = c.s;
  const TrainingDTypes& dt = c.cfg.dtypes;
  MemoryPerChip& mem = st.memory;
  mem.hbm_bytes = c.chip.hbm_bytes;
  const double logits_bytes = static_cast<double>(c.t * s.Vl) * (c.bytes + 4.0);
  const bool cast_copies = c.Xf > 1 || dt.params != dt.compute;
  const double gathered = cast_copies ? 2 * c.layer_weight_bytes : 0;
  double host_bytes = 0;
  for (int stage : {0, c.P - 1}) {
    const bool first = stage == 0, last = stage == c.P - 1;
    double params = c.L_s * s.layer_params_local_tp / c.Xf + static_cast<double>(s.D);
    const int stage_tables = (first ? 1 : 0) + (last ? 1 : 0);
    params += s.embed_params_local_tp / c.Xf * ((c.model.tied_embeddings && first && last) ? 1 : stage_tables);
    // 1F1B: stage s holds the activations of min(M, P - s) microbatches.
    const double in_flight = static_cast<double>(std::min(c.M, c.P - stage)) * static_cast<double>(c.t);
    const double logits = last ? logits_bytes : 0;
    const StageActivations acts = stage_activations(c, c.cfg.remat, in_flight);
    host_bytes = std::max(host_bytes, acts.host_bytes);
    const double total = params * dt.state_bytes_per_param() + gathered + acts.hbm_bytes + logits;
    if (total >= mem.total_bytes) {
      mem.params_bytes = params * bytes_per_element(dt.params);
      mem.grads_bytes = params * bytes_per_element(dt.grads);
      mem.optimizer_bytes = params * dt.optimizer_bytes_per_param();
      mem.gathered_weights_bytes = gathered;
      mem.activations_bytes = acts.hbm_bytes + logits;
      mem.activations_no_remat_bytes = stage_activations(c, Remat::kNone, in_flight).hbm_bytes + logits;
      mem.activations_remat_bytes = stage_activations(c, Remat::kFull, in_flight).hbm_bytes + logits;
      mem.total_bytes = total;
    }
  }
  mem.host_activations_bytes = host_bytes;
  mem.fits = mem.total_bytes <= mem.hbm_bytes;
}

}  // namespace roofline::detail::step
