// Model configs: the built-in shapes and the JSON reader.
#include "roofline/sharding/model_config.hpp"

#include <fstream>
#include <limits>
#include <sstream>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/detail/cat.hpp"

namespace roofline {
namespace {

// Meta's config.json for Meta-Llama-3-8B and -70B (hidden_size, intermediate_size,
// num_hidden_layers, num_attention_heads, num_key_value_heads, vocab_size,
// max_position_embeddings 8192; head_dim = hidden_size / num_attention_heads;
// tie_word_embeddings false).
const std::vector<ModelConfig>& builtins() {
  static const std::vector<ModelConfig> models = {
      {.name = "llama-3-8b", .layers = 32, .d_model = 4096, .d_ff = 14336, .heads = 32, .kv_heads = 8,
       .head_dim = 128, .vocab = 128256, .seq_len = 8192},
      {.name = "llama-3-70b", .layers = 80, .d_model = 8192, .d_ff = 28672, .heads = 64, .kv_heads = 8,
       .head_dim = 128, .vocab = 128256, .seq_len = 8192},
  };
  return models;
}

absl::Status positive(const nlohmann::json& j, const char* key, std::string_view origin, std::int64_t& out,
                      std::int64_t max = std::numeric_limits<std::int64_t>::max()) {
  if (!j.contains(key))
    return absl::InvalidArgumentError(detail::cat(origin, ": /", key, ": missing"));
  const nlohmann::json& v = j.at(key);
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0 || v.get<std::int64_t>() > max)
    return absl::InvalidArgumentError(detail::cat(origin, ": /", key, ": expected a positive integer"));
  out = v.get<std::int64_t>();
  return absl::OkStatus();
}

}  // namespace

absl::Status validate(const ModelConfig& m) {
  if (m.layers <= 0 || m.d_model <= 0 || m.d_ff <= 0 || m.heads <= 0 || m.kv_heads <= 0 || m.head_dim <= 0 ||
      m.vocab <= 0 || m.seq_len <= 0)
    return absl::InvalidArgumentError(detail::cat("model ", m.name, ": every size must be positive"));
  if (m.heads % m.kv_heads != 0)
    return absl::InvalidArgumentError(
        detail::cat("model ", m.name, ": kv_heads (", m.kv_heads, ") must divide heads (", m.heads, ")"));
  return absl::OkStatus();
}

std::span<const ModelConfig> builtin_models() { return builtins(); }

const ModelConfig* find_builtin_model(std::string_view name) {
  for (const ModelConfig& m : builtins())
    if (m.name == name) return &m;
  return nullptr;
}

absl::StatusOr<ModelConfig> parse_model_config(std::string_view json_text, std::string_view origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text.begin(), json_text.end());
  } catch (const nlohmann::json::parse_error& e) {
    return absl::InvalidArgumentError(detail::cat(origin, ": byte ", static_cast<long long>(e.byte),
                                                  ": invalid JSON"));
  } catch (const nlohmann::json::exception& e) {
    // e.g. a number too large for a double: nlohmann throws out_of_range.
    return absl::InvalidArgumentError(detail::cat(origin, ": invalid JSON: ", e.what()));
  }
  if (!j.is_object()) return absl::InvalidArgumentError(detail::cat(origin, ": expected a JSON object"));
  ModelConfig m;
  if (j.contains("name")) {
    if (!j["name"].is_string()) return absl::InvalidArgumentError(detail::cat(origin, ": /name: expected a string"));
    m.name = j["name"].get<std::string>();
  } else {
    m.name = std::string(origin);
  }
  std::int64_t layers = 0, heads = 0, kv_heads = 0;
  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  for (auto [key, out, max] : {std::tuple<const char*, std::int64_t*, std::int64_t>{"layers", &layers, kIntMax},
                               {"d_model", &m.d_model, std::numeric_limits<std::int64_t>::max()},
                               {"d_ff", &m.d_ff, std::numeric_limits<std::int64_t>::max()},
                               {"heads", &heads, kIntMax},
                               {"head_dim", &m.head_dim, std::numeric_limits<std::int64_t>::max()},
                               {"vocab", &m.vocab, std::numeric_limits<std::int64_t>::max()},
                               {"seq_len", &m.seq_len, std::numeric_limits<std::int64_t>::max()}}) {
    if (absl::Status s = positive(j, key, origin, *out, max); !s.ok()) return s;
  }
  if (j.contains("kv_heads")) {
    if (absl::Status s = positive(j, "kv_heads", origin, kv_heads, kIntMax); !s.ok()) return s;
  } else {
    kv_heads = heads;
  }
  m.layers = static_cast<int>(layers);
  m.heads = static_cast<int>(heads);
  m.kv_heads = static_cast<int>(kv_heads);
  if (j.contains("mlp")) {
    const nlohmann::json& v = j["mlp"];
    if (v == "gated") m.mlp = MlpKind::kGated;
    else if (v == "plain") m.mlp = MlpKind::kPlain;
    else return absl::InvalidArgumentError(detail::cat(origin, ": /mlp: expected \"gated\" or \"plain\""));
  }
  if (j.contains("tied_embeddings")) {
    if (!j["tied_embeddings"].is_boolean())
      return absl::InvalidArgumentError(detail::cat(origin, ": /tied_embeddings: expected true or false"));
    m.tied_embeddings = j["tied_embeddings"].get<bool>();
  }
  for (const auto& item : j.items()) {
    static constexpr std::string_view kKnown[] = {"name", "layers", "d_model", "d_ff", "heads", "kv_heads",
                                                  "head_dim", "vocab", "seq_len", "mlp", "tied_embeddings"};
    bool known = false;
    for (std::string_view k : kKnown) known = known || item.key() == k;
    if (!known) return absl::InvalidArgumentError(detail::cat(origin, ": /", item.key(), ": unknown field"));
  }
  if (m.heads % m.kv_heads != 0)
    return absl::InvalidArgumentError(detail::cat(origin, ": /kv_heads: ", m.kv_heads, " must divide heads (",
                                                  m.heads, ")"));
  return m;
}

absl::StatusOr<ModelConfig> load_model_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(detail::cat(path, ": cannot open"));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_model_config(ss.str(), path);
}

absl::StatusOr<ModelConfig> resolve_model(const std::string& name_or_path) {
  if (const ModelConfig* m = find_builtin_model(name_or_path)) return *m;
  if (name_or_path.find('/') == std::string::npos && name_or_path.find(".json") == std::string::npos) {
    std::string known;
    for (const ModelConfig& m : builtins()) known += detail::cat(known.empty() ? "" : ", ", m.name);
    return absl::NotFoundError(detail::cat("unknown model '", name_or_path, "' (built in: ", known,
                                           "; or give a path to a JSON config)"));
  }
  return load_model_config(name_or_path);
}

}  // namespace roofline
