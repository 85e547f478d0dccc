// PyTorch kernels costed from the aten op that launched them and its Input
// Dims / Input type / Concrete Inputs. Each recognised op becomes one of the
// library's models (MatmulModel, AttentionModel, ConvolutionModel,
// ElementwiseModel), so the formulas live in one place; docs/report.md
// lists the ops and what each assumes. This file: the dispatch, matmuls and
// attention; cost_memory_ops.cc the memory-bound ops, cost_convolution.cc
// convolutions.
#include <optional>
#include <string>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/match/cost_source.hpp"
#include "src/match/input_dims.hpp"

namespace roofline {
namespace {

using detail::cat;
using detail::Dims;
using detail::dims_text;
using detail::Inputs;
using detail::is_one_of;
using detail::numel;
using detail::product;
using detail::tf32_kernel;

CostSource unmatched(std::string why) {
  CostSource c;
  c.note = std::move(why);
  return c;
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
  auto tensor = [&](std::size_t i) { return in.tensor(i); };
  auto type_at = [&](std::size_t i) { return in.dtype(i, dt); };
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

// Where each attention op records its masking, by schema position:
// is_causal (a bool) or custom_mask_type (an int: 0 none, 1 causal from the
// top left, 2 from the bottom right).
struct MaskArg {
  const char* op;
  std::size_t at;
  bool mask_type;  // custom_mask_type rather than is_causal
};

constexpr MaskArg kMaskArgs[] = {
    {"aten::scaled_dot_product_attention", 5, false},
    {"aten::_scaled_dot_product_flash_attention", 4, false},
    {"aten::_scaled_dot_product_efficient_attention", 6, false},
    {"aten::_scaled_dot_product_cudnn_attention", 6, false},
    {"aten::_flash_attention_forward", 8, false},
    {"aten::_efficient_attention_forward", 9, true},
    {"aten::_scaled_dot_product_flash_attention_backward", 11, false},
    {"aten::_scaled_dot_product_efficient_attention_backward", 11, false},
    {"aten::_flash_attention_backward", 11, false},
    {"aten::_efficient_attention_backward", 14, true},
};

struct Masking {
  AttentionKernelMask mask = AttentionKernelMask::kFull;
  std::string note;
};

// The mask the trace records; full T x S, said so, when it records none.
// PyTorch's is_causal is aligned top left (its documentation); its flash
// kernels align bottom right when T != S: the fewer pairs of the two is
// counted, the same when T == S.
Masking masking(const std::string& op, const Inputs& in) {
  // SDPA with an explicit attn_mask (argument 3) scores what the mask says.
  if (op == "aten::scaled_dot_product_attention" && in.tensor(3))
    return {AttentionKernelMask::kFull, "an explicit attn_mask: full T×S counted"};
  for (const MaskArg& m : kMaskArgs) {
    if (op != m.op) continue;
    if (m.mask_type) {
      const std::optional<std::int64_t> t = in.integer(m.at);
      if (t == 0) return {AttentionKernelMask::kFull, "no mask (trace): full T×S counted"};
      if (t == 1) return {AttentionKernelMask::kCausalTopLeft, "causal (trace): lower triangle counted"};
      if (t == 2) return {AttentionKernelMask::kCausalBottomRight, "causal (trace): lower triangle counted"};
    } else if (const std::optional<bool> causal = in.boolean(m.at)) {
      if (*causal) return {AttentionKernelMask::kCausalEither, "causal (trace): lower triangle counted"};
      return {AttentionKernelMask::kFull, "not causal (trace): full T×S counted"};
    }
  }
  return {AttentionKernelMask::kFull, "masking unknown: full T×S counted"};
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
  const Dims* qp = in.tensor(q_at);
  const Dims* kp = in.tensor(q_at + 1);
  if (!qp || !kp || !in.tensor(q_at + 2)) return std::nullopt;
  const Dims& q = *qp;
  const Dims& k = *kp;
  if (q.size() != 4 || k.size() != 4) return std::nullopt;
  const Masking mask = masking(op, in);
  const AttentionModel m{.batch = q[0], .heads = bhsd ? q[1] : q[2], .q_len = bhsd ? q[2] : q[1],
                         .kv_len = bhsd ? k[2] : k[1], .head_dim = q[3], .q_elements = numel(q),
                         .kv_elements = numel(k),
                         .pass = backward ? AttentionPass::kBackward : AttentionPass::kForward, .dtype = dt,
                         .mask = mask.mask};
  CostSource c;
  c.source = MatchSource::kInputDims;
  c.hlo_category = "attention";
  c.note = cat(op, " B=", m.batch, " H=", m.heads, " T=", m.q_len, " S=", m.kv_len, " D=", m.head_dim, "; ",
               mask.note);
  c.model = m;
  return c;
}

}  // namespace

CostSource cost_from_input_dims(const CallInfo& call, std::string_view kernel, std::span<const CallInfo> trace_calls) {
  if (call.launcher.empty()) return unmatched("no launching framework op recorded for this kernel");
  if (call.input_dims.empty())
    return unmatched(cat(call.launcher, ": the trace has no Input Dims (record_shapes=False)"));
  std::optional<Inputs> in = detail::parse_inputs(call);
  if (!in) return unmatched(cat(call.launcher, ": unreadable Input Dims ", call.input_dims));
  const DType dt = detail::first_tensor_dtype(*in);
  if (auto c = matmul_op(call.launcher, *in, dt, kernel)) return *std::move(c);
  if (auto c = attention_op(call.launcher, *in, dt)) return *std::move(c);
  if (auto c = detail::convolution_op(call.launcher, *in, dt, kernel, trace_calls)) return *std::move(c);
  if (auto c = detail::memory_op(call.launcher, *in, dt, kernel)) return *std::move(c);
  return unmatched(cat("no cost model for ", call.launcher, " ", call.input_dims));
}

}  // namespace roofline
