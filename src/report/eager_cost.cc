// Costs of PyTorch kernels, from the aten op that launched them and its
// Input Dims / Input type, and of NCCL/RCCL kernels from their collective
// args. Each recognised op maps to the library's own op descriptions
// (Matmul, Elementwise, the collective model) so the formulas live in one
// place; docs/report.md lists the ops and what each assumes.
#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/collectives/collective.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/ops/elementwise.hpp"
#include "roofline/ops/generic.hpp"
#include "roofline/ops/matmul.hpp"
#include "src/report/op_cost.hpp"

namespace roofline::detail {
namespace {

using Dims = std::vector<std::int64_t>;

// No real tensor dimension comes near 2^40; larger ones are corrupt input.
constexpr std::int64_t kMaxDim = std::int64_t{1} << 40;

struct Inputs {
  std::vector<std::optional<Dims>> dims;  // nullopt: not a tensor ([] or a scalar)
  std::vector<std::string> types;
};

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
        Dims dims;
        for (const auto& x : t) {
          if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::int64_t>() > kMaxDim)
            return std::nullopt;
          dims.push_back(x.get<std::int64_t>());
        }
        in.dims.emplace_back(std::move(dims));
      }
      continue;
    }
    Dims dims;
    for (const auto& x : e) {
      if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::int64_t>() > kMaxDim)
        return std::nullopt;
      dims.push_back(x.get<std::int64_t>());
    }
    in.dims.emplace_back(std::move(dims));
  }
  nlohmann::json t = nlohmann::json::parse(call.input_types, nullptr, false);
  if (t.is_array())
    for (const auto& e : t) in.types.push_back(e.is_string() ? e.get<std::string>() : "");
  return in;
}

std::optional<DType> torch_dtype(const std::string& t) {
  if (t == "c10::BFloat16" || t == "BFloat16") return DType::kBF16;
  if (t == "c10::Half" || t == "Half") return DType::kF16;
  if (t == "float" || t == "Float") return DType::kF32;
  if (t == "double" || t == "Double") return DType::kF64;
  if (t == "c10::Float8_e4m3fn" || t == "Float8_e4m3fn") return DType::kF8E4M3FN;
  if (t == "c10::Float8_e5m2" || t == "Float8_e5m2") return DType::kF8E5M2;
  if (t == "signed char" || t == "Char") return DType::kS8;
  if (t == "unsigned char" || t == "Byte") return DType::kU8;
  if (t == "int" || t == "Int") return DType::kS32;
  if (t == "long int" || t == "long" || t == "Long") return DType::kS64;
  if (t == "bool" || t == "Bool") return DType::kPred;
  return std::nullopt;
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

std::string dims_text(const Dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += cat(i ? "," : "", d[i]);
  return s + "]";
}

OpCost unmatched(std::string why) {
  OpCost c;
  c.note = std::move(why);
  return c;
}

// cuBLAS/CUTLASS kernels that run fp32 GEMMs on TF32 tensor cores.
bool tf32_kernel(const std::string& kernel) {
  return kernel.find("tf32") != std::string::npos || kernel.find("s1688") != std::string::npos ||
         kernel.find("s16816") != std::string::npos;
}

OpCost matmul_cost(const Matmul& mm, const std::string& kernel, std::string note) {
  OpCost c;
  c.source = MatchSource::kInputDims;
  c.hlo_category = "matmul";
  const bool tf32 = mm.compute() == DType::kF32 && tf32_kernel(kernel);
  c.note = tf32 ? note + "; fp32 GEMM on TF32 tensor cores (kernel name)" : std::move(note);
  c.predict = [mm, tf32](const Chip& chip) {
    Prediction p = predict(mm, chip);
    if (tf32 && chip.has(PeakClass::kTf32))
      p = with_peak(p, chip.peak_flops_per_s[static_cast<int>(PeakClass::kTf32)], chip);
    return p;
  };
  return c;
}

// Matmul-like aten ops: mm, addmm, bmm, baddbmm, matmul, linear, _scaled_mm.
std::optional<OpCost> matmul_op(const std::string& op, const Inputs& in, DType dt,
                                const std::string& kernel) {
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
  if (op == "aten::mm" || op == "aten::bmm" || op == "aten::matmul" || op == "aten::_scaled_mm") {
    a = tensor(0), b = tensor(1);
  } else if (op == "aten::addmm" || op == "aten::baddbmm") {
    a = tensor(1), b = tensor(2), ai = 1;
  } else if (op == "aten::linear") {
    a = tensor(0), b = tensor(1);
    if (!a || !b || b->size() != 2 || a->empty() || a->back() != (*b)[1]) return std::nullopt;
    Matmul mm{.m = numel(*a) / a->back(), .k = a->back(), .n = (*b)[0], .dtype = type_at(0),
              .rhs_dtype = type_at(1)};
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
    mm.m = numel(*a) / k;  // x[..., K] @ w[K, N]: leading dims fold into M
  } else {
    const std::int64_t batch_a = numel(*a) / (mm.m * k), batch_b = numel(*b) / (k * mm.n);
    if (batch_a != batch_b) return std::nullopt;
    mm.batch = batch_a;
  }
  if (op == "aten::_scaled_mm") mm.out_dtype = DType::kBF16;
  return matmul_cost(mm, kernel, cat(op, " ", dims_text(*a), " @ ", dims_text(*b)));
}

// Attention kernels: FLOPs of the two matmuls, QK^T and PV, over the full
// T x S score matrix (4*B*H*T*S*D forward); backward is 2x forward, the
// scaling book's convention (FlashAttention's recompute adds a fifth matmul,
// hardware FLOPs we do not count). Bytes: Q, K, V read and O written once
// (forward), plus dO read and dQ, dK, dV written (backward).
std::optional<OpCost> attention_op(const std::string& op, const Inputs& in, DType dt) {
  const bool bhsd = op == "aten::_scaled_dot_product_flash_attention" ||
                    op == "aten::_scaled_dot_product_efficient_attention" ||
                    op == "aten::_scaled_dot_product_cudnn_attention" ||
                    op == "aten::scaled_dot_product_attention" ||
                    op == "aten::_scaled_dot_product_flash_attention_backward" ||
                    op == "aten::_scaled_dot_product_efficient_attention_backward";
  const bool bshd = op == "aten::_flash_attention_forward" || op == "aten::_flash_attention_backward" ||
                    op == "aten::_efficient_attention_forward" || op == "aten::_efficient_attention_backward";
  if (!bhsd && !bshd) return std::nullopt;
  const bool backward = op.find("backward") != std::string::npos;
  // Backward ops take the output gradient first.
  const std::size_t q_at = backward ? 1 : 0;
  if (in.dims.size() < q_at + 3 || !in.dims[q_at] || !in.dims[q_at + 1] || !in.dims[q_at + 2])
    return std::nullopt;
  const Dims& q = *in.dims[q_at];
  const Dims& k = *in.dims[q_at + 1];
  if (q.size() != 4 || k.size() != 4) return std::nullopt;
  const std::int64_t b = q[0], h = bhsd ? q[1] : q[2], t = bhsd ? q[2] : q[1], d = q[3];
  const std::int64_t s = bhsd ? k[2] : k[1];
  const double fwd = 4.0 * b * h * t * s * d;
  const double flops = backward ? 2 * fwd : fwd;
  const double qkv = static_cast<double>(numel(q) + 2 * numel(k)) * bytes_per_element(dt);
  const double o = static_cast<double>(numel(q)) * bytes_per_element(dt);
  const double bytes = backward ? 2 * (qkv + o) : qkv + o;
  OpCost c;
  c.source = MatchSource::kInputDims;
  c.hlo_category = "attention";
  c.note = cat(op, " B=", b, " H=", h, " T=", t, " S=", s, " D=", d,
               "; full T x S scores counted (a causal kernel does about half)");
  c.predict = [flops, bytes, dt](const Chip& chip) {
    return predict(CostedOp{.flops = flops, .hbm_bytes = bytes, .dtype = dt}, chip);
  };
  return c;
}

bool is_one_of(const std::string& op, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return op == n; });
}

// Element-wise and memory-bound ops: bytes = the tensors read + the result
// written (the result shaped like the largest input); FLOPs one per element
// for arithmetic, none for copies and norms, which are memory-bound by far.
std::optional<OpCost> memory_op(const std::string& op, const Inputs& in, DType dt) {
  const bool arith = is_one_of(
      op, {"aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::mul", "aten::mul_",
           "aten::div", "aten::div_", "aten::neg", "aten::pow", "aten::rsqrt", "aten::sqrt",
           "aten::relu", "aten::relu_", "aten::gelu", "aten::silu", "aten::silu_", "aten::sigmoid",
           "aten::tanh", "aten::exp", "aten::where", "aten::masked_fill", "aten::masked_fill_",
           "aten::clamp", "aten::clamp_", "aten::threshold_backward", "aten::gelu_backward",
           "aten::silu_backward", "aten::eq", "aten::ne", "aten::lt", "aten::gt", "aten::addcmul_",
           "aten::addcdiv_", "aten::lerp_", "aten::hardtanh", "aten::hardtanh_", "aten::abs",
           "aten::log", "aten::sin", "aten::cos", "aten::maximum", "aten::minimum"});
  const bool moves = is_one_of(
      op, {"aten::copy_", "aten::_to_copy", "aten::to", "aten::clone", "aten::contiguous",
           "aten::cat", "aten::index_select", "aten::embedding", "aten::layer_norm",
           "aten::native_layer_norm", "aten::rms_norm", "aten::_fused_rms_norm", "aten::softmax",
           "aten::_softmax", "aten::log_softmax", "aten::_log_softmax", "aten::mean", "aten::sum",
           "aten::native_layer_norm_backward", "aten::_softmax_backward_data", "aten::fill_",
           "aten::zero_", "aten::native_dropout", "aten::dropout", "aten::max_pool2d_with_indices",
           "aten::native_batch_norm", "aten::cudnn_batch_norm", "aten::add_relu"});
  if (!arith && !moves) return std::nullopt;
  std::int64_t largest = 0;
  double read = 0;
  int tensors = 0;
  for (std::size_t i = 0; i < in.dims.size(); ++i) {
    if (!in.dims[i]) continue;
    const std::int64_t n = numel(*in.dims[i]);
    auto t = i < in.types.size() ? torch_dtype(in.types[i]) : std::nullopt;
    read += static_cast<double>(n) * bytes_per_element(t.value_or(dt));
    largest = std::max(largest, n);
    ++tensors;
  }
  if (tensors == 0 || largest == 0) return std::nullopt;
  bool reduces = is_one_of(op, {"aten::mean", "aten::sum"});
  bool gathers = is_one_of(op, {"aten::embedding", "aten::index_select"});
  double written = static_cast<double>(largest) * bytes_per_element(dt);
  if (reduces) written = 0;  // the reduced result is small; its size is not in Input Dims
  if (gathers && in.dims.size() >= 2 && in.dims[0] && in.dims[1] && !in.dims[0]->empty()) {
    // embedding(weight[V, D], indices[...]): reads and writes one row per index.
    const double rows = static_cast<double>(numel(*in.dims[1]));
    read = rows * static_cast<double>(in.dims[0]->back()) * bytes_per_element(dt);
    written = read;
  }
  if (op == "aten::fill_" || op == "aten::zero_") read = 0;
  const double flops = arith ? static_cast<double>(largest) : 0;
  const double bytes = read + written;
  OpCost c;
  c.source = MatchSource::kInputDims;
  c.hlo_category = arith ? "elementwise" : "data movement";
  c.note = cat(op, " on ", tensors, " tensor(s), largest ", largest, " elements",
               arith ? "" : "; memory-bound, FLOPs not counted");
  c.predict = [flops, bytes, dt](const Chip& chip) {
    return predict(CostedOp{.flops = flops, .hbm_bytes = bytes, .dtype = dt}, chip);
  };
  return c;
}

}  // namespace

Prediction with_peak(Prediction p, double peak_flops_per_s, const Chip& chip) {
  p.t_math_s = p.flops > 0 ? p.flops / peak_flops_per_s : 0;
  settle_bounds(p);
  p.ridge_flops_per_byte = peak_flops_per_s / chip.hbm_bytes_per_s;
  return p;
}

OpCost cost_from_input_dims(const CallInfo& call, const std::string& kernel) {
  if (call.launcher.empty())
    return unmatched("no launching framework op recorded for this kernel");
  if (call.input_dims.empty())
    return unmatched(cat(call.launcher, ": the trace has no Input Dims (record_shapes=False)"));
  std::optional<Inputs> in = parse_inputs(call);
  if (!in) return unmatched(cat(call.launcher, ": unreadable Input Dims ", call.input_dims));
  DType dt = DType::kF32;
  for (std::size_t i = 0; i < in->types.size() && i < in->dims.size(); ++i)
    if (in->dims[i]) {
      if (auto t = torch_dtype(in->types[i])) {
        dt = *t;
        break;
      }
    }
  if (auto c = matmul_op(call.launcher, *in, dt, kernel)) return *c;
  if (auto c = attention_op(call.launcher, *in, dt)) return *c;
  if (auto c = memory_op(call.launcher, *in, dt)) return *c;
  return unmatched(cat("no cost model for ", call.launcher, " ", call.input_dims));
}

OpCost cost_from_collective_args(const CallInfo& call) {
  std::string name = call.collective;
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::optional<CollectiveKind> kind;
  if (name.find("allreduce") != std::string::npos || name.find("all_reduce") != std::string::npos)
    kind = CollectiveKind::kAllReduce;
  else if (name.find("allgather") != std::string::npos || name.find("all_gather") != std::string::npos)
    kind = CollectiveKind::kAllGather;
  else if (name.find("reduce_scatter") != std::string::npos || name.find("reducescatter") != std::string::npos)
    kind = CollectiveKind::kReduceScatter;
  else if (name.find("all_to_all") != std::string::npos || name.find("alltoall") != std::string::npos)
    kind = CollectiveKind::kAllToAll;
  else if (name == "send" || name == "recv" || name.find("sendrecv") != std::string::npos)
    kind = CollectiveKind::kPermute;
  if (!kind) return unmatched(cat("no collective model for '", call.collective, "'"));
  if (!call.in_msg_nelems || !call.group_size || *call.group_size < 1)
    return unmatched(cat(call.collective, ": message size or group size missing in the kernel args"));
  std::optional<DType> dt = torch_dtype(call.dtype);
  if (!dt) return unmatched(cat(call.collective, ": unknown message dtype '", call.dtype, "'"));
  const double elem = bytes_per_element(*dt);
  const int n = static_cast<int>(*call.group_size);
  // V is the whole array: an all-gather's output, the input of the others.
  double v = static_cast<double>(*call.in_msg_nelems) * elem;
  if (*kind == CollectiveKind::kAllGather)
    v = call.out_msg_nelems ? static_cast<double>(*call.out_msg_nelems) * elem : v * n;
  OpCost c;
  c.source = MatchSource::kCollectiveArgs;
  c.hlo_category = "collective";
  c.note = cat(collective_name(*kind), " of ", v, " bytes over ", n, " devices");
  if (n == 1) {
    c.note += "; a group of one moves nothing";
  }
  const CollectiveKind k = *kind;
  c.predict = [k, v, n](const Chip& chip) {
    const CollectiveTime t = n > 1 ? collective_time_on_group(k, v, n, chip) : CollectiveTime{};
    return predict(CostedOp{.ici_bytes = t.bytes_per_link, .t_ici_s = t.t_ici_s}, chip);
  };
  return c;
}

}  // namespace roofline::detail
