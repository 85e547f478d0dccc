// What each rematerialisation policy (Remat, remat.hpp) runs twice
// and keeps, for one decoder layer. Part of the training-step model
// (detail/training_step_parts.hpp); not a public header.
//
// A layer's forward, in order, on one chip (Y tensor-parallel ways):
//   norm 1 on the residual [t, D/Y]; AllGather_Y -> [t, D]; x @ [Wq Wk Wv];
//   attention core (QK^T, softmax, PV); @ Wo -> [t, D] partial sums;
//   ReduceScatter_Y -> [t, D/Y]; residual add; norm 2; AllGather_Y;
//   x @ [W_gate W_up]; silu(g) * u; @ W_down; ReduceScatter_Y; residual add.
// What its backward reads, per token (elements of the compute dtype; D,
// D_l = D/Y, F_l = F/Y, q = N_l H query width, kv = K_l H, N_l = N/Y):
//   the two norm inputs 2 D_l, the two gathered block inputs 2 D, Q K V
//   q + 2 kv, the attention output q, the softmax statistics N_l (fp32;
//   with a materialised attention core, AttentionKernel::kMaterialized, the
//   probabilities N_l T instead, T the sequence length), the MLP's gate, up and product 3 F_l (plain MLP: pre-activation and
//   activation, 2 F_l).
// A policy keeps some of these and rebuilds the rest by running forward
// work again; what it rebuilds follows from what it keeps:
//
//   policy    kept per token per layer                     runs twice
//   none      all of the above, the gathered block inputs   nothing
//             as their shards 2 D_l
//   minimal-  minimal's + q + N_l (the attention output     norms, residual adds, SiLU product
//   with-     and its softmax statistics; with a
//   context   materialised core the policy is minimal's:
//             remat_with_kernel)
//   minimal   D_l + (q + 2 kv) + D_l + 2 F_l                attention core, norms, residual adds,
//             (layer input, Q K V, Wo's output,             SiLU product
//             gate and up; plain MLP: F_l)
//   save-dot- D_l + (q + 2 kv) + D_l                        minimal's, and x @ [W_gate W_up]
//   except-   (minimal's but gate and up)
//   mlpwi
//   save-qkv  D_l + (q + 2 kv) (layer input, Q K V)         all but x @ [Wq Wk Wv] and h @ W_down;
//                                                           Wo's ReduceScatter
//   full      D_l (layer input)                             all but h @ W_down; Wo's ReduceScatter
//   offload   D_l in HBM; the rest of none's set in host    nothing; none's set less D_l crosses the
//             memory                                        host link out and back in
//   offload-  D_l in HBM; Q K V (q + 2 kv) in host memory   save-qkv's; Q K V cross the host link
//   qkv                                                     out and back in
//
// (No policy adds a TP AllGather or an FSDP weight gather: the recomputed
// forward's gathers are the ones the backward makes anyway; tp_collectives
// below, scripts/remat_collectives.py.)
//
// The names are MaxText's (its Decoder maps remat_policy to a jax policy
// and wraps each decoder layer in nn.remat; the logits stay outside).
// "minimal-with-context" is MaxText's minimal_with_context: until 2025
// minimal_flash, save_from_both_policies(checkpoint_dots_with_no_batch_dims,
// save_only_these_names('context')); since, save_only_these_names of the
// projections (q, k, v, qkv, out, mlpwi, mlpwo) and 'context', which keeps
// the same set of these layers. MaxText's splash kernel names its residuals
// 'context' inside its forward (residual_checkpoint_name), and so does
// Transformer Engine's fused attention (transformer_engine/jax/fused_attn.py
// from v1.5: output, softmax statistics, RNG state): what the core's
// backward reads is kept and the core does not run again. jax's cuDNN
// attention (MaxText's cudnn_flash_jax) is named outside its custom_vjp,
// so there the core does run again; the model does not tell fused kernels
// apart and takes the first. A materialised core names nothing so: there
// the policy is minimal's (remat_with_kernel, training_step_parts.hpp).
// "minimal" is jax's checkpoint_dots_with_no_batch_dims: the weight
// matmuls have no batch dimension and their outputs are saved; QK^T and PV
// have one (batch and heads), so the attention core runs again, and with it
// the attention output the Wo gradient needs. W_down's output is saveable
// but the backward never reads it, so it is not kept. Wo's output is kept
// as the value the program names, the [t, D/Y] shard after its
// ReduceScatter (the residual stream's sharding; MaxText constrains layer
// activations to it), not the [t, D] partial sums, which are a temporary of
// the partitioned dot; so the ReduceScatter does not run again. "save-qkv" is
// save_qkv_proj: save_only_these_names(query_proj, key_proj, value_proj).
// "save-dot-except-mlpwi" is save_only_these_names(query_proj, key_proj,
// value_proj, qkv_proj, out_proj, mlpwo): no MLP input matmul's output, so
// gate and up are rebuilt for the SiLU product W_down's weight gradient
// reads, from the norm-2 output gathered again (as save-qkv's MLP block);
// mlpwo, like minimal's W_down output, is never read. "offload-qkv" is
// qkv_proj_offloaded: save_and_offload_only_these_names with Q, K and V
// offloaded to pinned host memory and nothing saved in HBM; XLA's program
// has save_qkv_proj's matmuls and collectives
// (scripts/remat_collectives.py), and the layer input, which the policy
// does not name, stays in HBM as the scan's carry. The layer input is
// kept by every policy: it is the carry of the scan over layers. While a
// layer's backward runs it holds its full set, the part not kept rebuilt,
// brought back or gathered again (the working set, memory_per_chip). The forward's
// AllGathers before each block are not re-run by minimal: the backward
// gathers each block input again for its weight gradient already (4
// AllGathers per layer backward, layer_collectives).
#pragma once

#include "roofline/sharding/model_config.hpp"
#include "roofline/sharding/remat.hpp"

namespace roofline::detail::step {

// How many times each piece of a layer's forward runs per step (1 without
// recompute, 2 when the backward pass runs it again). h @ W_down never runs
// again: its output, the layer's, is read by no backward (jax drops it from
// the recomputed forward; XLA's program for `full` has 3 matmuls more than
// `none`'s per layer, not 4: scripts/remat_collectives.py, docs/layers.md).
struct RematRuns {
  double qkv_proj = 1;     // x @ [Wq Wk Wv]
  double out_proj = 1;     // attn @ Wo
  double attn_core = 1;    // QK^T, softmax, PV
  double mlp_in = 1;       // x @ [W_gate W_up] (plain MLP: x @ W_in)
  double elementwise = 1;  // norms, residual adds, the SiLU product
};

constexpr RematRuns remat_runs(Remat r) {
  switch (r) {
    case Remat::kNone:
    case Remat::kOffload: return {};
    case Remat::kMinimal:
      return {.attn_core = 2, .elementwise = 2};
    case Remat::kMinimalWithContext:
      return {.elementwise = 2};
    case Remat::kSaveDotExceptMlpwi:
      return {.attn_core = 2, .mlp_in = 2, .elementwise = 2};
    case Remat::kSaveQkv:
    case Remat::kOffloadQkv:
      return {.out_proj = 2, .attn_core = 2, .mlp_in = 2, .elementwise = 2};
    case Remat::kFull:
      return {.qkv_proj = 2, .out_proj = 2, .attn_core = 2, .mlp_in = 2, .elementwise = 2};
  }
  return {};
}

// Tensor-parallel collectives of one layer (two blocks) per microbatch, as
// XLA's SPMD partitioner emits them for a scanned stack of layers
// (scripts/remat_collectives.py, which counts each value gathered once).
// AllGathers: 6 under every policy, each block's input in the forward, then
// in the backward dOut and the block input again for the weight gradients;
// where the policy reruns a block its recomputed gather is that second one,
// and where it keeps everything the scan still carries the input to the
// backward sharded, so `none` gathers it again too. ReduceScatters: each
// block's output in the forward and dIn in the backward, 4, and Wo's output
// again where the policy reruns Wo (the MLP block's input is rebuilt from
// it); W_down's output is never rebuilt.
// Of them the forward pass makes each block's input gather and output
// reduce-scatter (2 + 2); the backward, with its recompute, the rest.
struct TpCollectives {
  double all_gathers;
  double reduce_scatters;
  double forward_all_gathers;
  double forward_reduce_scatters;
};

constexpr TpCollectives tp_collectives(const RematRuns& runs) {
  return {.all_gathers = 6, .reduce_scatters = 4 + (runs.out_proj - 1), .forward_all_gathers = 2,
          .forward_reduce_scatters = 2};
}

// A layer's activations per token, in bytes of the compute dtype (the fp32
// softmax statistics converted): what the backward reads (`all`, the
// working set of the layer whose backward runs), what kNone keeps of it
// between the forward and the backward (`saved`: the two gathered block
// inputs as their [t, D/Y] shards, which is how the scan over layers
// carries them: its forward loop stacks [t, D/Y] block inputs, and the
// backward gathers them again, scripts/remat_collectives.py), what the
// policy keeps in HBM (`kept`) and what it keeps in host memory (`host`:
// offload's saved - kept, offload-qkv's Q, K, V).
// `probabilities`: the attention probabilities a materialised attention
// core saves per token (N_l T elements), 0 for a fused kernel, which saves
// the softmax statistics instead; every policy but none recomputes them.
struct LayerActivations {
  double all_bytes = 0;
  double saved_bytes = 0;
  double kept_bytes = 0;
  double host_bytes = 0;
};

inline LayerActivations layer_activations(Remat r, MlpKind mlp, double D, double Dl, double Fl, double q,
                                          double kv, double heads_local, double bytes,
                                          double probabilities = 0) {
  const bool gated = mlp == MlpKind::kGated;
  const double mlp_all = gated ? 3 * Fl : 2 * Fl;  // gate, up, product | pre-activation, activation
  const double mlp_dots = gated ? 2 * Fl : Fl;     // gate, up | pre-activation
  const double all = 2 * Dl + 2 * D + (q + 2 * kv) + q +
                     (probabilities > 0 ? probabilities : heads_local * 4.0 / bytes) + mlp_all;
  const double saved = all - 2 * (D - Dl);
  double kept = saved, host = 0;
  switch (r) {
    case Remat::kNone: kept = saved; break;
    case Remat::kMinimal: kept = Dl + (q + 2 * kv) + Dl + mlp_dots; break;
    case Remat::kMinimalWithContext:  // with a fused core (remat_with_kernel): its fp32 statistics
      kept = Dl + (q + 2 * kv) + Dl + mlp_dots + q + heads_local * 4.0 / bytes;
      break;
    case Remat::kSaveDotExceptMlpwi: kept = Dl + (q + 2 * kv) + Dl; break;
    case Remat::kSaveQkv: kept = Dl + (q + 2 * kv); break;
    case Remat::kFull: kept = Dl; break;
    case Remat::kOffload: kept = Dl, host = saved - Dl; break;
    case Remat::kOffloadQkv: kept = Dl, host = q + 2 * kv; break;
  }
  return {.all_bytes = all * bytes, .saved_bytes = saved * bytes, .kept_bytes = kept * bytes,
          .host_bytes = host * bytes};
}

}  // namespace roofline::detail::step
