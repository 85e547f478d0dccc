// Rematerialisation policies by name: what a trainer's remat_policy says,
// for the training-step model (training_step.hpp) and anything that parses
// or prints a policy. Part of roofline::core (header-only).
#pragma once

#include <optional>
#include <string_view>

namespace roofline {

// Rematerialisation policies, as trainers name them (MaxText's remat_policy,
// jax.checkpoint_policies). Per policy, which forward work of a decoder
// layer runs again in the backward pass and which activations stay in HBM
// (elements per token per layer): detail/training_remat.hpp and
// docs/layers.md. The unembedding and loss sit outside the rematerialised
// layers (as in MaxText) and never run twice.
enum class Remat : unsigned char {
  kNone,     // keep every activation the backward pass needs; nothing runs twice
  kMinimal,  // "minimal" (checkpoint_dots_with_no_batch_dims): keep the weight matmuls' outputs;
             // the attention core and the element-wise work run twice
  kSaveQkv,  // "save_qkv_proj": keep the Q, K, V projections and the layer input; everything
             // but the QKV projection and W_down (whose output no backward reads) runs twice
  kFull,     // keep each layer's input; the layer's forward runs twice, but W_down
  kOffload,  // keep what kNone keeps, in host memory: nothing runs twice; the bytes cross the
             // host link (Chip::pcie_bytes_per_s) out in the forward and back in the backward
  kSaveDotExceptMlpwi,  // "save_dot_except_mlpwi": keep what kMinimal keeps but the MLP's gate
                        // and up outputs, which run twice with the attention core and the
                        // element-wise work
  kOffloadQkv,  // "qkv_proj_offloaded": kSaveQkv's recompute, its Q, K, V in host memory (the
                // layer input stays in HBM); they cross the host link out in the forward and
                // back in the backward
  kMinimalWithContext,  // "minimal_with_context" (MaxText's "minimal_flash" until 2025): keep what
                        // kMinimal keeps and what a fused attention core's backward reads of its
                        // forward (its output and softmax statistics, which it names 'context');
                        // only the element-wise work runs twice. A materialised core names
                        // nothing so: with it the policy is kMinimal
};

// In the order of how much they keep in HBM (the two that offload last:
// offload keeps none's set off the chip, offload-qkv save-qkv's Q, K, V).
inline constexpr Remat kAllRemats[] = {Remat::kNone,    Remat::kMinimalWithContext, Remat::kMinimal,
                                       Remat::kSaveDotExceptMlpwi, Remat::kSaveQkv, Remat::kFull,
                                       Remat::kOffload, Remat::kOffloadQkv};

// The policies as the CLI and the Python package list them.
inline constexpr std::string_view kRematPolicyNames =
    "none, minimal-with-context, minimal (save-dots), save-dot-except-mlpwi, save-qkv, full, offload, offload-qkv";

constexpr std::string_view remat_name(Remat r) {
  switch (r) {
    case Remat::kNone: return "none";
    case Remat::kMinimal: return "minimal";
    case Remat::kSaveQkv: return "save-qkv";
    case Remat::kFull: return "full";
    case Remat::kOffload: return "offload";
    case Remat::kSaveDotExceptMlpwi: return "save-dot-except-mlpwi";
    case Remat::kOffloadQkv: return "offload-qkv";
    case Remat::kMinimalWithContext: return "minimal-with-context";
  }
  return "none";
}

// Whether the policy keeps activations in host memory (and so needs a
// host link, Chip::pcie_bytes_per_s).
constexpr bool offloads_to_host(Remat r) { return r == Remat::kOffload || r == Remat::kOffloadQkv; }

// A policy by its name (kRematPolicyNames), or by MaxText's where it differs
// ("save_qkv_proj", "save_dot_except_mlpwi", "qkv_proj_offloaded",
// "minimal_with_context" and its older name "minimal_flash").
constexpr std::optional<Remat> parse_remat(std::string_view text) {
  for (Remat r : kAllRemats)
    if (remat_name(r) == text) return r;
  if (text == "save-dots" || text == "save_dots") return Remat::kMinimal;
  if (text == "save_qkv" || text == "save-qkv-proj" || text == "save_qkv_proj") return Remat::kSaveQkv;
  if (text == "save_dot_except_mlpwi") return Remat::kSaveDotExceptMlpwi;
  if (text == "qkv_proj_offloaded" || text == "qkv-proj-offloaded" || text == "offload_qkv") return Remat::kOffloadQkv;
  if (text == "minimal_with_context" || text == "minimal_flash" || text == "minimal-flash")
    return Remat::kMinimalWithContext;
  return std::nullopt;
}

}  // namespace roofline
