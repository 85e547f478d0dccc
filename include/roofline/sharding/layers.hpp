// Parameter and FLOP counts of a decoder layer and a model, the scaling
// book's transformer math (transformers.md). B = sequences, T = sequence
// length, D = d_model, F = d_ff, N = query heads, K = kv heads, H = head dim,
// V = vocab, L = layers. Training FLOPs of a matmul are 3x its forward
// FLOPs (2 for the forward, 4 for the two backward matmuls).
//
//   part                     params          training FLOPs (B x T tokens)
//   gated MLP (3 matrices)   3DF             18 BTDF      (plain, 2 matrices: 2DF, 12 BTDF)
//   attention projections    2D(N+K)H        12 BTD(N+K)H (MHA, K = N: 4DNH, 24 BTDNH)
//   dot-product attention    0               12 B T^2 N H (causal: half is useful)
//   two norms                2D              negligible; counted in bytes, not here
//   unembedding              DV              6 BTDV
//   embedding                DV (0 if tied)  0: a lookup, not a matmul
//
// Part of roofline::core.
#pragma once

#include "roofline/sharding/model_config.hpp"

namespace roofline {

inline double mlp_params(const ModelConfig& m) {
  const double matrices = m.mlp == MlpKind::kGated ? 3 : 2;
  return matrices * static_cast<double>(m.d_model) * static_cast<double>(m.d_ff);
}

// Q and O are D x NH, K and V are D x KH.
inline double attention_params(const ModelConfig& m) {
  return 2.0 * static_cast<double>(m.d_model) * (m.heads + m.kv_heads) * static_cast<double>(m.head_dim);
}

inline double norm_params(const ModelConfig& m) { return 2.0 * static_cast<double>(m.d_model); }

inline double layer_params(const ModelConfig& m) { return mlp_params(m) + attention_params(m) + norm_params(m); }

inline double embedding_params(const ModelConfig& m) {
  return static_cast<double>(m.vocab) * static_cast<double>(m.d_model);
}

// Every parameter: layers, embedding, unembedding (shared when tied) and the final norm.
inline double total_params(const ModelConfig& m) {
  return m.layers * layer_params(m) + embedding_params(m) * (m.tied_embeddings ? 1 : 2) +
         static_cast<double>(m.d_model);
}

// Parameters that take part in a matmul: layer projections and the
// unembedding. The embedding lookup and norm scales do no matmul FLOPs.
inline double matmul_params(const ModelConfig& m) {
  return m.layers * (mlp_params(m) + attention_params(m)) + embedding_params(m);
}

enum class AttentionMask : unsigned char { kFull, kCausal };

// Training FLOPs of the T^2 attention of one layer for `tokens` tokens of
// sequences `seq_len` long: 12 x tokens x T x N x H, halved when causal
// (only the lower triangle is computed).
inline double attention_training_flops(const ModelConfig& m, double tokens, double seq_len, AttentionMask mask) {
  const double full = 12.0 * tokens * seq_len * m.heads * static_cast<double>(m.head_dim);
  return mask == AttentionMask::kCausal ? full / 2 : full;
}

// The MFU numerator ("model FLOPs"): 6 x matmul params x tokens plus the
// attention FLOPs of every layer. Rematerialised recompute is not counted.
inline double model_training_flops(const ModelConfig& m, double tokens, double seq_len, AttentionMask mask) {
  return 6.0 * matmul_params(m) * tokens + m.layers * attention_training_flops(m, tokens, seq_len, mask);
}

inline constexpr const char* kMfuConvention =
    "model FLOPs = 6 x matmul params (layers + unembedding; not the embedding lookup) x tokens "
    "+ 12 x layers x tokens x seq_len x heads x head_dim (x1/2 causal), no remat recompute; "
    "over step time x chips x the chip's dense peak for the training dtype";

}  // namespace roofline
