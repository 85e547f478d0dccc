// The shape of a decoder-only transformer, as the training-step model and
// the planner need it. JSON form (docs/planner.md):
//
//   {"name": "llama-3-8b", "layers": 32, "d_model": 4096, "d_ff": 14336,
//    "heads": 32, "kv_heads": 8, "head_dim": 128, "vocab": 128256,
//    "seq_len": 8192, "mlp": "gated", "tied_embeddings": false}
//
// "mlp" ("gated": SwiGLU-style, three D x F matrices; "plain": two) and
// "tied_embeddings" are optional.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

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

// Positive sizes, kv_heads dividing heads.
absl::Status validate(const ModelConfig& m);

// LLaMA-3-8B and -70B shapes (Meta's published config.json).
std::span<const ModelConfig> builtin_models();
const ModelConfig* find_builtin_model(std::string_view name);

// Reads the JSON above; errors name the origin and the JSON path
// ("my.json: /d_ff: expected a positive integer").
absl::StatusOr<ModelConfig> parse_model_config(std::string_view json_text, std::string_view origin);
absl::StatusOr<ModelConfig> load_model_config(const std::string& path);
// A built-in name, else a path to a JSON file.
absl::StatusOr<ModelConfig> resolve_model(const std::string& name_or_path);

}  // namespace roofline
