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
             // but the QKV projection runs twice
  kFull,     // keep each layer's input; the layer's whole forward runs twice
  kOffload,  // keep what kNone keeps, in host memory: nothing runs twice; the bytes cross the
             // host link (Chip::pcie_bytes_per_s) out in the forward and back in the backward
};

inline constexpr Remat kAllRemats[] = {Remat::kNone, Remat::kMinimal, Remat::kSaveQkv, Remat::kFull,
                                       Remat::kOffload};

constexpr std::string_view remat_name(Remat r) {
  switch (r) {
    case Remat::kNone: return "none";
    case Remat::kMinimal: return "minimal";
    case Remat::kSaveQkv: return "save-qkv";
    case Remat::kFull: return "full";
    case Remat::kOffload: return "offload";
  }
  return "none";
}

// "none", "minimal" (also "save-dots"), "save-qkv", "full", "offload".
constexpr std::optional<Remat> parse_remat(std::string_view text) {
  for (Remat r : kAllRemats)
    if (remat_name(r) == text) return r;
  if (text == "save-dots" || text == "save_dots") return Remat::kMinimal;
  if (text == "save_qkv" || text == "save-qkv-proj" || text == "save_qkv_proj") return Remat::kSaveQkv;
  return std::nullopt;
}

}  // namespace roofline
