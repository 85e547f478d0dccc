// PyTorch kernels costed from the aten op that launched them and its Input
// Dims / Input type. Each recognised op becomes one of the library's models
// (MatmulModel, AttentionModel, ElementwiseModel), so the formulas live in
// one place; docs/report.md lists the ops and what each assumes.
#include <algorithm>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/detail/cat.hpp"
#include "roofline/match/cost_source.hpp"
#include "src/match/torch_dtype.hpp"

namespace roofline {
namespace {

using detail::cat;
using detail::torch_dtype;
using Dims = std::vector<std::int64_t>;

// No real tensor dimension comes near 2^40; larger ones are corrupt input.
constexpr std::int64_t kMaxDim = std::int64_t{1} << 40;

struct Inputs {
  std::vector<std::optional<Dims>> dims;  // nullopt: not a tensor ([] or a scalar)
  std::vector<std::string> types;
};

std::optional<Dims> parse_dims(const nlohmann::json& shape) {
  Dims dims;
  for (const auto& x : shape) {
    if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::int64_t>() > kMaxDim)
      return std::nullopt;
    dims.push_back(x.get<std::int64_t>());
  }
  return dims;
}

std::optional<Inputs> parse_inputs_or_throw(const CallInfo& call) {
  nlohmann::json d = nlohmann::json::parse(call.input_dims, nullptr, false);
  if (!d.is_array()) return std::nullopt;
  Inputs in;
  for (const auto& e : d) {
    if (!e.is_array() || e.empty()) {
      in.dims.emplace_back();
      continue;
    }
    // A TensorList argument (aten::cat) is a list of shapes: each is a tensor.
    if (e.front().is_array()) {
      for (const auto& t : e) {
        if (!t.is_array()) return std::nullopt;
        std::optional<Dims> dims = parse_dims(t);
        if (!dims) return std::nullopt;
        in.dims.emplace_back(std::move(dims));
      }
      continue;
    }
    std::optional<Dims> dims = parse_dims(e);
    if (!dims) return std::nullopt;
    in.dims.emplace_back(std::move(dims));
  }
  nlohmann::json t = nlohmann::json::parse(call.input_types, nullptr, false);
  if (t.is_array())
    for (const auto& e : t) in.types.push_back(e.is_string() ? e.get<std::string>() : "");
  return in;
}

// nlohmann throws on some malformed numbers even when asked not to: the
// Input Dims of a hostile trace must not escape as an exception.
std::optional<Inputs> parse_inputs(const CallInfo& call) {
  try {
    return parse_inputs_or_throw(call);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

// Saturates instead of overflowing on hostile shapes.
std::int64_t numel(const Dims& d) {
  std::int64_t n = 1;
  for (std::int64_t x : d)
    if (__builtin_mul_overflow(n, x, &n)) return std::numeric_limits<std::int64_t>::max();
  return n;
}

// The product of d[first, last): nullopt when it does not fit in int64 (a
// hostile shape), so no matmul is costed from a wrapped or saturated size.
// Products, never quotients: a zero-size dimension (an MoE expert that got
// no tokens) is an ordinary empty matmul, not a division by zero.
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

CostSource unmatched(std::string why) {
  CostSource c;
  c.note = std::move(why);
  return c;
}

bool is_one_of(const std::string& op, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return op == n; });
}

// cuBLAS/CUTLASS kernels that run fp32 GEMMs on TF32 tensor cores.
bool tf32_kernel(std::string_view kernel) {
  return kernel.find("tf32") != std::string_view::npos || kernel.find("s1688") != std::string_view::npos ||
         kernel.find("s16816") != std::string_view::npos;
}

CostSource matmul_cost(const Matmul& mm, std::string_view kernel, std::string note) {
  CostSource c;
  c.source = MatchSource::kInputDims;
  c.hlo_category = "matmul";
  const bool tf32 = mm.compute() == DType::kF32 && tf32_kernel(kernel);
  c.note = tf32 ? note + "; fp32 GEMM on TF32 tensor cores (kernel name)" : std::move(note);
  c.model = MatmulModel{.matmul = mm,
                        .peak = tf32 ? MatmulPeak::kTf32TensorCores : MatmulPeak::kComputeDtype};
  return c;
}

// Matmul-like aten ops: mm, addmm, bmm, baddbmm, matmul, linear, _scaled_mm.
std::optional<CostSource> matmul_op(const std::string& op, const Inputs& in, DType dt,
                                    std::string_view kernel) {
  auto tensor = [&](std::size_t i) -> const Dims* {
    return i < in.dims.size() && in.dims[i] ? &*in.dims[i] : nullptr;
  };
  auto type_at = [&](std::size_t i) {
    auto t = i < in.types.size() ? torch_dtype(in.types[i]) : std::nullopt;
    return t.value_or(dt);
  };
  const Dims* a = nullptr;
  const Dims* b = nullptr;
  std::size_t ai = 0;
  if (is_one_of(op, {"aten::mm", "aten::bmm", "aten::matmul", "aten::_scaled_mm"})) {
    a = tensor(0), b = tensor(1);
  } else if (is_one_of(op, {"aten::addmm", "aten::baddbmm"})) {
    a = tensor(1), b = tensor(2), ai = 1;
  } else if (op == "aten::linear") {
    // x[..., K] @ w[N, K]^T
    a = tensor(0), b = tensor(1);
    if (!a || !b || b->size() != 2 || a->empty() || a->back() != (*b)[1]) return std::nullopt;
    const std::optional<std::int64_t> m = product(*a, 0, a->size() - 1);
    if (!m) return std::nullopt;
    Matmul mm{.m = *m, .k = a->back(), .n = (*b)[0], .dtype = type_at(0), .rhs_dtype = type_at(1)};
    return matmul_cost(mm, kernel, cat(op, " ", dims_text(*a), " x ", dims_text(*b), "^T"));
  } else {
    return std::nullopt;
  }
  if (!a || !b || a->size() < 2 || b->size() < 2) return std::nullopt;
  const std::int64_t k = a->back();
  if ((*b)[b->size() - 2] != k) return std::nullopt;
  Matmul mm{.m = (*a)[a->size() - 2], .k = k, .n = b->back(), .dtype = type_at(ai),
            .rhs_dtype = type_at(ai + 1)};
  if (b->size() == 2) {
    // x[..., K] @ w[K, N]: leading dims fold into M
    const std::optional<std::int64_t> m = product(*a, 0, a->size() - 1);
    if (!m) return std::nullopt;
    mm.m = *m;
  } else {
    const std::optional<std::int64_t> batch_a = product(*a, 0, a->size() - 2);
    const std::optional<std::int64_t> batch_b = product(*b, 0, b->size() - 2);
    if (!batch_a || !batch_b || *batch_a != *batch_b) return std::nullopt;
    mm.batch = *batch_a;
  }
  if (op == "aten::_scaled_mm") mm.out_dtype = DType::kBF16;
  return matmul_cost(mm, kernel, cat(op, " ", dims_text(*a), " @ ", dims_text(*b)));
}

// Attention kernels (AttentionModel says what is counted). SDPA-style ops
// take [B, H, T, D] tensors, the flash / efficient internals [B, T, H, D];
// backward ops take the output gradient first.
std::optional<CostSource> attention_op(const std::string& op, const Inputs& in, DType dt) {
  const bool bhsd = is_one_of(op, {"aten::_scaled_dot_product_flash_attention",
                                   "aten::_scaled_dot_product_efficient_attention",
                                   "aten::_scaled_dot_product_cudnn_attention",
                                   "aten::scaled_dot_product_attention",
                                   "aten::_scaled_dot_product_flash_attention_backward",
                                   "aten::_scaled_dot_product_efficient_attention_backward"});
  const bool bshd = is_one_of(op, {"aten::_flash_attention_forward", "aten::_flash_attention_backward",
                                   "aten::_efficient_attention_forward", "aten::_efficient_attention_backward"});
  if (!bhsd && !bshd) return std::nullopt;
  const bool backward = op.find("backward") != std::string::npos;
  const std::size_t q_at = backward ? 1 : 0;
  if (in.dims.size() < q_at + 3 || !in.dims[q_at] || !in.dims[q_at + 1] || !in.dims[q_at + 2])
    return std::nullopt;
  const Dims& q = *in.dims[q_at];
  const Dims& k = *in.dims[q_at + 1];
  if (q.size() != 4 || k.size() != 4) return std::nullopt;
  const AttentionModel m{.batch = q[0], .heads = bhsd ? q[1] : q[2], .q_len = bhsd ? q[2] : q[1],
                         .kv_len = bhsd ? k[2] : k[1], .head_dim = q[3], .q_elements = numel(q),
                         .kv_elements = numel(k),
                         .pass = backward ? AttentionPass::kBackward : AttentionPass::kForward, .dtype = dt};
  CostSource c;
  c.source = MatchSource::kInputDims;
  c.hlo_category = "attention";
  c.note = cat(op, " B=", m.batch, " H=", m.heads, " T=", m.q_len, " S=", m.kv_len, " D=", m.head_dim,
               "; full T x S scores counted (a causal kernel does about half)");
  c.model = m;
  return c;
}

bool arithmetic_op(const std::string& op) {
  return is_one_of(
      op, {"aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::mul", "aten::mul_",
           "aten::div", "aten::div_", "aten::neg", "aten::pow", "aten::rsqrt", "aten::sqrt",
           "aten::relu", "aten::relu_", "aten::gelu", "aten::silu", "aten::silu_", "aten::sigmoid",
           "aten::tanh", "aten::exp", "aten::where", "aten::masked_fill", "aten::masked_fill_",
           "aten::clamp", "aten::clamp_", "aten::threshold_backward", "aten::gelu_backward",
           "aten::silu_backward", "aten::eq", "aten::ne", "aten::lt", "aten::gt", "aten::addcmul_",
           "aten::addcdiv_", "aten::lerp_", "aten::hardtanh", "aten::hardtanh_", "aten::abs",
           "aten::log", "aten::sin", "aten::cos", "aten::maximum", "aten::minimum"});
}

bool data_movement_op(const std::string& op) {
  return is_one_of(
      op, {"aten::copy_", "aten::_to_copy", "aten::to", "aten::clone", "aten::contiguous",
           "aten::cat", "aten::index_select", "aten::embedding", "aten::layer_norm",
           "aten::native_layer_norm", "aten::rms_norm", "aten::_fused_rms_norm", "aten::softmax",
           "aten::_softmax", "aten::log_softmax", "aten::_log_softmax", "aten::mean", "aten::sum",
           "aten::native_layer_norm_backward", "aten::_softmax_backward_data", "aten::fill_",
           "aten::zero_", "aten::native_dropout", "aten::dropout", "aten::max_pool2d_with_indices",
           "aten::native_batch_norm", "aten::cudnn_batch_norm", "aten::add_relu"});
}

// Element-wise and memory-bound ops: bytes = the tensors read + the result
// written (the result shaped like the largest input); FLOPs one per element
// for arithmetic, none for copies and norms, which are memory-bound by far.
std::optional<CostSource> memory_op(const std::string& op, const Inputs& in, DType dt) {
  const bool arith = arithmetic_op(op);
  if (!arith && !data_movement_op(op)) return std::nullopt;
  std::int64_t largest = 0;
  ElementwiseModel m{.dtype = dt};
  int tensors = 0;
  for (std::size_t i = 0; i < in.dims.size(); ++i) {
    if (!in.dims[i]) continue;
    const std::int64_t n = numel(*in.dims[i]);
    auto t = i < in.types.size() ? torch_dtype(in.types[i]) : std::nullopt;
    m.read_bytes += static_cast<double>(n) * bytes_per_element(t.value_or(dt));
    largest = std::max(largest, n);
    ++tensors;
  }
  if (tensors == 0 || largest == 0) return std::nullopt;
  m.written_bytes = static_cast<double>(largest) * bytes_per_element(dt);
  // The reduced result is small; its size is not in Input Dims.
  if (is_one_of(op, {"aten::mean", "aten::sum"})) m.written_bytes = 0;
  const bool gathers = is_one_of(op, {"aten::embedding", "aten::index_select"});
  if (gathers && in.dims.size() >= 2 && in.dims[0] && in.dims[1] && !in.dims[0]->empty()) {
    // embedding(weight[V, D], indices[...]): reads and writes one row per index.
    const double rows = static_cast<double>(numel(*in.dims[1]));
    m.read_bytes = rows * static_cast<double>(in.dims[0]->back()) * bytes_per_element(dt);
    m.written_bytes = m.read_bytes;
  }
  if (op == "aten::fill_" || op == "aten::zero_") m.read_bytes = 0;
  m.flops = arith ? static_cast<double>(largest) : 0;
  CostSource c;
  c.source = MatchSource::kInputDims;
  c.hlo_category = arith ? "elementwise" : "data movement";
  c.note = cat(op, " on ", tensors, " tensor(s), largest ", largest, " elements",
               arith ? "" : "; memory-bound, FLOPs not counted");
  c.model = m;
  return c;
}

// The element type of the op: that of its first tensor input with a known
// type, fp32 when none says.
DType first_tensor_dtype(const Inputs& in) {
  for (std::size_t i = 0; i < in.types.size() && i < in.dims.size(); ++i)
    if (in.dims[i])
      if (auto t = torch_dtype(in.types[i])) return *t;
  return DType::kF32;
}

}  // namespace

CostSource cost_from_input_dims(const CallInfo& call, std::string_view kernel) {
  if (call.launcher.empty()) return unmatched("no launching framework op recorded for this kernel");
  if (call.input_dims.empty())
    return unmatched(cat(call.launcher, ": the trace has no Input Dims (record_shapes=False)"));
  std::optional<Inputs> in = parse_inputs(call);
  if (!in) return unmatched(cat(call.launcher, ": unreadable Input Dims ", call.input_dims));
  const DType dt = first_tensor_dtype(*in);
  if (auto c = matmul_op(call.launcher, *in, dt, kernel)) return *std::move(c);
  if (auto c = attention_op(call.launcher, *in, dt)) return *std::move(c);
  if (auto c = memory_op(call.launcher, *in, dt)) return *std::move(c);
  return unmatched(cat("no cost model for ", call.launcher, " ", call.input_dims));
}

}  // namespace roofline
