// Kineto's record of an op's arguments, read into positions
// (src/match/input_dims.hpp).
#include "src/match/input_dims.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include <nlohmann/json.hpp>

#include "roofline/detail/cat.hpp"
#include "src/match/torch_dtype.hpp"

namespace roofline::detail {
namespace {

// No real tensor dimension comes near 2^40; larger ones are corrupt input.
constexpr std::int64_t kMaxDim = std::int64_t{1} << 40;

std::optional<Dims> parse_dims(const nlohmann::json& shape) {
  Dims dims;
  for (const auto& x : shape) {
    if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::int64_t>() > kMaxDim) return std::nullopt;
    dims.push_back(x.get<std::int64_t>());
  }
  return dims;
}

std::vector<std::string> strings(const std::string& text) {
  std::vector<std::string> out;
  nlohmann::json t = nlohmann::json::parse(text, nullptr, false);
  if (t.is_array())
    for (const auto& e : t) out.push_back(e.is_string() ? e.get<std::string>() : "");
  return out;
}

std::optional<Inputs> parse_inputs_or_throw(const CallInfo& call) {
  nlohmann::json d = nlohmann::json::parse(call.input_dims, nullptr, false);
  if (!d.is_array()) return std::nullopt;
  Inputs in;
  for (const auto& e : d) {
    Arg a;
    if (e.is_array() && !e.empty() && e.front().is_array()) {
      // A TensorList argument (aten::cat) is a list of shapes.
      a.list = true;
      for (const auto& t : e) {
        if (!t.is_array()) return std::nullopt;
        std::optional<Dims> dims = parse_dims(t);
        if (!dims) return std::nullopt;
        a.tensors.push_back(*std::move(dims));
      }
    } else if (e.is_array() && !e.empty()) {
      std::optional<Dims> dims = parse_dims(e);
      if (!dims) return std::nullopt;
      a.tensors.push_back(*std::move(dims));
    }
    in.args.push_back(std::move(a));
  }
  const std::vector<std::string> types = strings(call.input_types);
  const std::vector<std::string> values = strings(call.concrete_inputs);
  for (std::size_t i = 0; i < in.args.size(); ++i) {
    if (i < types.size()) in.args[i].type = types[i];
    if (i < values.size()) in.args[i].value = values[i];
  }
  return in;
}

}  // namespace

// nlohmann throws on some malformed numbers even when asked not to: the
// Input Dims of a hostile trace must not escape as an exception.
std::optional<Inputs> parse_inputs(const CallInfo& call) {
  try {
    return parse_inputs_or_throw(call);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

DType Inputs::dtype(std::size_t i, DType fallback) const {
  if (i >= args.size()) return fallback;
  return torch_dtype(args[i].type).value_or(fallback);
}

std::optional<std::string_view> Inputs::value(std::size_t i) const {
  if (i >= args.size() || args[i].value.empty()) return std::nullopt;
  return std::string_view(args[i].value);
}

std::optional<bool> Inputs::boolean(std::size_t i) const {
  const std::optional<std::string_view> v = value(i);
  if (v == "True") return true;
  if (v == "False") return false;
  return std::nullopt;
}

std::optional<std::int64_t> Inputs::integer(std::size_t i) const {
  const std::optional<std::string_view> v = value(i);
  if (!v) return std::nullopt;
  std::int64_t x = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
  if (ec != std::errc() || end != v->data() + v->size()) return std::nullopt;
  return x;
}

std::optional<std::vector<std::int64_t>> Inputs::integers(std::size_t i) const {
  const std::optional<std::string_view> v = value(i);
  if (!v) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(std::string(*v), nullptr, false);
  if (!j.is_array()) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const auto& x : j) {
    if (!x.is_number_integer()) return std::nullopt;
    const std::int64_t n = x.get<std::int64_t>();
    if (n < -kMaxDim || n > kMaxDim) return std::nullopt;
    out.push_back(n);
  }
  return out;
}

std::int64_t numel(const Dims& d) {
  std::int64_t n = 1;
  for (std::int64_t x : d)
    if (__builtin_mul_overflow(n, x, &n)) return std::numeric_limits<std::int64_t>::max();
  return n;
}

// Products, never quotients: a zero-size dimension (an MoE expert that got
// no tokens) is an ordinary empty tensor, not a division by zero.
std::optional<std::int64_t> product(const Dims& d, std::size_t first, std::size_t last) {
  std::int64_t n = 1;
  for (std::size_t i = first; i < last; ++i)
    if (__builtin_mul_overflow(n, d[i], &n)) return std::nullopt;
  return n;
}

std::string dims_text(const Dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += cat(i ? "," : "", d[i]);
  return s + "]";
}

bool is_one_of(std::string_view op, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return op == n; });
}

bool tf32_kernel(std::string_view kernel) {
  return kernel.find("tf32") != std::string_view::npos || kernel.find("s1688") != std::string_view::npos ||
         kernel.find("s16816") != std::string_view::npos;
}

DType first_tensor_dtype(const Inputs& in) {
  for (std::size_t i = 0; i < in.args.size(); ++i)
    if (!in.args[i].tensors.empty())
      if (auto t = torch_dtype(in.args[i].type)) return *t;
  return DType::kF32;
}

}  // namespace roofline::detail
