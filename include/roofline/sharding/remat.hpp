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
};

// In the order of how much they keep (offload last: it keeps none's set,
// off the chip).
inline constexpr Remat kAllRemats[] = {Remat::kNone, Remat::kMinimal, Remat::kSaveDotExceptMlpwi,
                                       Remat::kSaveQkv, Remat::kFull, Remat::kOffload};

// The policies as the CLI and the Python package list them.
inline constexpr std::string_view kRematPolicyNames =
    "none, minimal (save-dots), save-dot-except-mlpwi, save-qkv, full, offload";

constexpr std::string_view remat_name(Remat r) {
  switch (r) {
    case Remat::kNone: return "none";
    case Remat::kMinimal: return "minimal";
    case Remat::kSaveQkv: return "save-qkv";
    case Remat::kFull: return "full";
    case Remat::kOffload: return "offload";
    case Remat::kSaveDotExceptMlpwi: return "save-dot-except-mlpwi";
  }
  return "none";
}

// A policy by its name (kRematPolicyNames), or by MaxText's where it differs
// ("save_qkv_proj", "save_dot_except_mlpwi").
constexpr std::optional<Remat> parse_remat(std::string_view text) {
  for (Remat r : kAllRemats)
    if (remat_name(r) == text) return r;
  if (text == "save-dots" || text == "save_dots") return Remat::kMinimal;
  if (text == "save_qkv" || text == "save-qkv-proj" || text == "save_qkv_proj") return Remat::kSaveQkv;
  if (text == "save_dot_except_mlpwi") return Remat::kSaveDotExceptMlpwi;
  return std::nullopt;
}

}  // namespace roofline
