// Reading the sharding models' input from text: meshes ("X=8,Y=4"), axis
// names ("XY"), sharded matmuls in the scaling book's notation, dim sizes
// and model configs (JSON).
#include "roofline/sharding/parse.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <tuple>

#include <nlohmann/json.hpp>

#include "roofline/detail/cat.hpp"
#include "roofline/sharding/checked.hpp"
#include "src/wire/bounded_input.hpp"

namespace roofline {
namespace {

// The parser of "x[B_X, D] @ w[D, F_Y] -> out[B_X, F_Y]".
class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  absl::StatusOr<MatmulExpression> parse() {
    MatmulExpression e;
    e.text = std::string(s_);
    absl::StatusOr<ShardedOperand> lhs = operand("the left operand");
    if (!lhs.ok()) return lhs.status();
    e.lhs = *std::move(lhs);
    ws();
    if (!eat('@')) return error(detail::cat("expected '@' after ", to_string(e.lhs)));
    absl::StatusOr<ShardedOperand> rhs = operand("the right operand");
    if (!rhs.ok()) return rhs.status();
    e.rhs = *std::move(rhs);
    ws();
    if (p_ < s_.size()) {
      if (!(eat('-') && eat('>'))) return error("expected '->' or the end of the expression");
      absl::StatusOr<ShardedOperand> out = operand("the result after '->'");
      if (!out.ok()) return out.status();
      e.out = *std::move(out);
      ws();
      if (p_ < s_.size()) return error("expected the end of the expression");
    }
    return e;
  }

 private:
  absl::Status error(std::string_view what) const {
    return absl::InvalidArgumentError(detail::cat("expression:1:", p_ + 1, ": ", what));
  }
  void ws() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  bool eat(char c) {
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  // Letters and digits; '_' ends a dim name (it starts the subscript).
  std::string word(bool allow_underscore) {
    const std::size_t start = p_;
    while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) ||
                              (allow_underscore && s_[p_] == '_')))
      ++p_;
    return std::string(s_.substr(start, p_ - start));
  }

  absl::StatusOr<ShardedOperand> operand(std::string_view role) {
    ws();
    ShardedOperand op;
    op.column = static_cast<int>(p_) + 1;
    if (p_ >= s_.size() || !std::isalpha(static_cast<unsigned char>(s_[p_])))
      return error(detail::cat("expected ", role, ", an array name like x[B_X, D]"));
    op.name = word(true);
    ws();
    if (!eat('[')) return error(detail::cat("expected '[' after array name '", op.name, "'"));
    while (true) {
      ws();
      ShardedDim d;
      d.column = static_cast<int>(p_) + 1;
      if (p_ >= s_.size() || !std::isalpha(static_cast<unsigned char>(s_[p_])))
        return error(detail::cat("expected a dim name in ", op.name, "[...]"));
      d.name = word(false);
      if (eat('_')) {
        if (eat('{')) {
          const std::size_t start = p_;
          while (p_ < s_.size() && s_[p_] != '}') ++p_;
          if (p_ >= s_.size()) return error(detail::cat("expected '}' closing the subscript of '", d.name, "'"));
          d.subscript = std::string(s_.substr(start, p_ - start));
          ++p_;
        } else {
          d.subscript = word(true);
        }
        if (d.subscript.find_first_not_of(" \t,") == std::string::npos)
          return error(detail::cat("expected mesh axes after '", d.name, "_'"));
      }
      for (const ShardedDim& prev : op.dims)
        if (prev.name == d.name)
          return absl::InvalidArgumentError(detail::cat("expression:1:", d.column, ": dim '", d.name,
                                                        "' appears twice in ", op.name));
      op.dims.push_back(std::move(d));
      ws();
      if (eat(']')) break;
      if (!eat(',')) return error(detail::cat("expected ',' or ']' after dim '", op.dims.back().name, "'"));
    }
    return op;
  }

  std::string_view s_;
  std::size_t p_ = 0;
};

// Model config field `key`: a positive JSON integer up to `max`.
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

absl::StatusOr<std::vector<MeshAxis>> parse_mesh_axes(std::string_view spec) {
  std::vector<MeshAxis> axes;
  std::size_t p = 0;
  auto err = [&](std::size_t col, const std::string& what) {
    return absl::InvalidArgumentError(detail::cat("mesh '", spec, "': column ", col + 1, ": ", what));
  };
  auto skip_ws = [&] {
    while (p < spec.size() && std::isspace(static_cast<unsigned char>(spec[p]))) ++p;
  };
  skip_ws();
  if (p == spec.size()) return err(p, "expected axes like X=8,Y=4");
  while (true) {
    skip_ws();
    const std::size_t name_start = p;
    while (p < spec.size() && (std::isalnum(static_cast<unsigned char>(spec[p])) || spec[p] == '_')) ++p;
    const std::string name(spec.substr(name_start, p - name_start));
    if (name.empty()) return err(p, "expected an axis name");
    if (!detail::layout::valid_axis_name(name)) return err(name_start, detail::cat("axis name '", name, "' must start with a letter or '_'"));
    skip_ws();
    if (p >= spec.size() || spec[p] != '=') return err(p, detail::cat("expected '=' after axis name '", name, "'"));
    ++p;
    skip_ws();
    const std::size_t num_start = p;
    long long size = 0;
    auto [ptr, ec] = std::from_chars(spec.data() + p, spec.data() + spec.size(), size);
    if (ec != std::errc() || ptr == spec.data() + p)
      return err(num_start, detail::cat("expected the size of axis '", name, "'"));
    p = static_cast<std::size_t>(ptr - spec.data());
    if (size < 1 || size > std::numeric_limits<int>::max())
      return err(num_start, detail::cat("axis '", name, "' has size ", size, "; sizes are >= 1"));
    MeshAxis axis{.name = name, .size = static_cast<int>(size)};
    skip_ws();
    if (p < spec.size() && spec[p] == ':') {
      ++p;
      const std::size_t net_start = p;
      while (p < spec.size() && std::isalpha(static_cast<unsigned char>(spec[p]))) ++p;
      const std::string_view net = spec.substr(net_start, p - net_start);
      if (net == "dcn") axis.network = AxisNetwork::kDcn;
      else if (net == "ici") axis.network = AxisNetwork::kIci;
      else return err(net_start, detail::cat("expected 'ici' or 'dcn' after ':', got '", net, "'"));
      skip_ws();
    }
    axes.push_back(std::move(axis));
    if (p == spec.size()) break;
    if (spec[p] != ',') return err(p, detail::cat("expected ',' between axes, got '", spec.substr(p, 1), "'"));
    ++p;
  }
  return axes;
}

absl::StatusOr<Mesh> parse_mesh(std::string_view spec, const Chip& chip) {
  absl::StatusOr<std::vector<MeshAxis>> axes = parse_mesh_axes(spec);
  if (!axes.ok()) return axes.status();
  return make_mesh(*std::move(axes), chip);
}

absl::StatusOr<std::vector<int>> parse_slice_shape(std::string_view text) {
  auto err = [&](std::size_t col, const std::string& what) {
    return absl::InvalidArgumentError(detail::cat("slice '", text, "': column ", col + 1, ": ", what));
  };
  std::vector<int> shape;
  std::size_t p = 0;
  while (true) {
    const std::size_t start = p;
    long long d = 0;
    auto [ptr, ec] = std::from_chars(text.data() + p, text.data() + text.size(), d);
    if (ec == std::errc::result_out_of_range) return err(start, "dimension is too large");
    if (ec != std::errc() || ptr == text.data() + p) return err(start, "expected a dimension (e.g. 4x4x12)");
    p = static_cast<std::size_t>(ptr - text.data());
    if (d < 1) return err(start, detail::cat("dimension ", d, " must be >= 1"));
    if (d > std::numeric_limits<int>::max()) return err(start, detail::cat("dimension ", d, " is too large"));
    shape.push_back(static_cast<int>(d));
    if (p == text.size()) break;
    if (text[p] != 'x' && text[p] != 'X') return err(p, "expected 'x' between dimensions");
    ++p;
  }
  if (shape.size() > 3) return err(0, detail::cat("a slice has at most 3 dimensions, got ", shape.size()));
  return shape;
}

absl::StatusOr<std::vector<int>> resolve_axes(const Mesh& mesh, std::string_view text) {
  auto known = [&] {
    std::string s;
    for (std::size_t i = 0; i < mesh.axes.size(); ++i) s += detail::cat(i ? ", " : "", mesh.axes[i].name);
    return s;
  };
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  if (text.empty()) return absl::InvalidArgumentError("no mesh axes given");
  std::vector<int> out;
  auto add = [&](int i) -> absl::Status {
    if (std::find(out.begin(), out.end(), i) != out.end())
      return absl::InvalidArgumentError(
          detail::cat("mesh axis ", mesh.axes[static_cast<std::size_t>(i)].name, " named twice in '", text, "'"));
    out.push_back(i);
    return absl::OkStatus();
  };
  if (text.find(',') != std::string_view::npos) {
    std::size_t s = 0;
    while (s <= text.size()) {
      std::size_t e = text.find(',', s);
      if (e == std::string_view::npos) e = text.size();
      const std::string_view name = trim(text.substr(s, e - s));
      std::optional<int> i = mesh.index(name);
      if (!i) return absl::InvalidArgumentError(detail::cat("unknown mesh axis '", name, "' (mesh axes: ", known(), ")"));
      if (absl::Status st = add(*i); !st.ok()) return st;
      s = e + 1;
    }
    return out;
  }
  if (std::optional<int> i = mesh.index(text)) return std::vector<int>{*i};
  // Run-together subscripts: longest axis name at each position.
  std::size_t p = 0;
  while (p < text.size()) {
    int best = -1;
    std::size_t best_len = 0;
    for (std::size_t i = 0; i < mesh.axes.size(); ++i) {
      const std::string& n = mesh.axes[i].name;
      if (n.size() > best_len && text.substr(p, n.size()) == n) {
        best = static_cast<int>(i);
        best_len = n.size();
      }
    }
    if (best < 0)
      return absl::InvalidArgumentError(detail::cat("unknown mesh axis '", text.substr(p), "' in '", text,
                                                    "' (mesh axes: ", known(), ")"));
    if (absl::Status st = add(best); !st.ok()) return st;
    p += best_len;
  }
  return out;
}

absl::StatusOr<MatmulExpression> parse_matmul_expression(std::string_view text) {
  return Parser(text).parse();
}

absl::StatusOr<std::map<std::string, std::int64_t>> parse_dim_sizes(std::string_view text) {
  std::map<std::string, std::int64_t> out;
  std::size_t s = 0;
  if (text.find_first_not_of(" \t") == std::string_view::npos)
    return absl::InvalidArgumentError("dims: expected sizes like B=1024,D=8192");
  while (s <= text.size()) {
    std::size_t e = text.find(',', s);
    if (e == std::string_view::npos) e = text.size();
    std::string item(text.substr(s, e - s));
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return absl::InvalidArgumentError(detail::cat("dims: column ", s + 1, ": expected NAME=SIZE, got '", item, "'"));
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
    value.erase(0, value.find_first_not_of(" \t"));
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(v >= 1) || v > 9.0e18 || v != static_cast<double>(static_cast<std::int64_t>(v)))
      return absl::InvalidArgumentError(
          detail::cat("dims: column ", s + 1, ": size of '", name, "' must be a positive integer, got '", value, "'"));
    if (out.count(name)) return absl::InvalidArgumentError(detail::cat("dims: '", name, "' given twice"));
    out[name] = static_cast<std::int64_t>(v);
    s = e + 1;
  }
  return out;
}

absl::StatusOr<ModelConfig> parse_model_config(std::string_view json_text, std::string_view origin) {
  // A config is one flat object: nesting is bounded before nlohmann builds
  // a document of it.
  if (const std::size_t at = detail::json_too_deep_at(json_text); at != std::string_view::npos)
    return absl::InvalidArgumentError(
        detail::cat(origin, ": byte ", at, ": JSON nested deeper than ", detail::kMaxInputJsonDepth, " levels"));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text.begin(), json_text.end());
  } catch (const nlohmann::json::parse_error& e) {
    return absl::InvalidArgumentError(detail::cat(origin, ": byte ", static_cast<long long>(e.byte),
                                                  ": invalid JSON"));
  } catch (const nlohmann::json::exception& e) {
    // e.g. a number too large for a double: nlohmann throws out_of_range.
    return absl::InvalidArgumentError(detail::cat(origin, ": invalid JSON: ", e.what()));
  } catch (const std::exception& e) {
    return absl::ResourceExhaustedError(detail::cat(origin, ": cannot read the model config: ", e.what()));
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
  // A config is a dozen fields (about 300 bytes); 1 MiB is no config.
  constexpr std::uint64_t kMaxModelConfigBytes = std::uint64_t{1} << 20;
  absl::StatusOr<std::string> text =
      detail::read_bounded_file(path, kMaxModelConfigBytes, "model config", detail::json_object_head);
  if (!text.ok()) return text.status();
  return parse_model_config(*text, path);
}

absl::StatusOr<ModelConfig> resolve_model(const std::string& name_or_path) {
  if (const ModelConfig* m = find_builtin_model(name_or_path)) return *m;
  if (name_or_path.find('/') == std::string::npos && name_or_path.find(".json") == std::string::npos) {
    std::string known;
    for (const ModelConfig& m : builtin_models()) known += detail::cat(known.empty() ? "" : ", ", m.name);
    return absl::NotFoundError(detail::cat("unknown model '", name_or_path, "' (built in: ", known,
                                           "; or give a path to a JSON config)"));
  }
  return load_model_config(name_or_path);
}

}  // namespace roofline
