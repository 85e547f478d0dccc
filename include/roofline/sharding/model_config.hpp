// The shape of a decoder-only transformer, as the training-step model and
// the planner need it. JSON form (docs/planner.md):
//
//   {"name": "llama-3-8b", "layers": 32, "d_model": 4096, "d_ff": 14336,
//    "heads": 32, "kv_heads": 8, "head_dim": 128, "vocab": 128256,
//    "seq_len": 8192, "mlp": "gated", "tied_embeddings": false}
//
// "mlp" ("gated": SwiGLU-style, three D x F matrices; "plain": two) and
// "tied_embeddings" are optional.
//
// Part of roofline::core. Reading a config (JSON text, a file, a built-in
// name) and validate(model) are in roofline/sharding/parse.hpp and
// checked.hpp (compiled).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace roofline {

enum class MlpKind : unsigned char { kGated, kPlain };

struct ModelConfig {
  std::string name;
  int layers = 0;
  std::int64_t d_model = 0;   // D
  std::int64_t d_ff = 0;      // F
  int heads = 0;              // N, query heads
  int kv_heads = 0;           // K (= N for multi-head attention, < N for GQA)
  std::int64_t head_dim = 0;  // H
  std::int64_t vocab = 0;     // V
  std::int64_t seq_len = 0;   // T
  MlpKind mlp = MlpKind::kGated;
  bool tied_embeddings = false;
};

// LLaMA-3-8B and -70B shapes (Meta's published config.json: hidden_size,
// intermediate_size, num_hidden_layers, num_attention_heads,
// num_key_value_heads, vocab_size, max_position_embeddings 8192; head_dim =
// hidden_size / num_attention_heads; tie_word_embeddings false).
inline std::span<const ModelConfig> builtin_models() {
  static const std::vector<ModelConfig> models = {
      {.name = "llama-3-8b", .layers = 32, .d_model = 4096, .d_ff = 14336, .heads = 32, .kv_heads = 8,
       .head_dim = 128, .vocab = 128256, .seq_len = 8192},
      {.name = "llama-3-70b", .layers = 80, .d_model = 8192, .d_ff = 28672, .heads = 64, .kv_heads = 8,
       .head_dim = 128, .vocab = 128256, .seq_len = 8192},
  };
  return models;
}

inline const ModelConfig* find_builtin_model(std::string_view name) {
  for (const ModelConfig& m : builtin_models())
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace roofline
