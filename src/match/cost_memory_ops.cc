// Memory-bound PyTorch ops from Input Dims: the bytes each reads and writes,
// by the rules in docs/report.md ("Bytes an op moves"): each input read once
// at its own size and type (a broadcast operand at its own size, a scalar at
// one element), the result written once (an out= tensor is that result, not
// another read), an in-place op reads self and the others and writes self,
// a gather reads the rows it selects, not its table. One FLOP per result
// element for arithmetic, none for moves and norms (memory-bound by far).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"
#include "src/match/input_dims.hpp"
#include "src/match/torch_dtype.hpp"

namespace roofline::detail {
namespace {

// Bytes of argument i as read: each tensor (or each of a TensorList) at its
// own size and type; a [] argument whose type is an element type (a scalar
// or 0-d tensor) one element; anything else (a list of ints, None) none.
double arg_bytes(const Inputs& in, std::size_t i, DType dt) {
  if (i >= in.args.size()) return 0;
  const Arg& a = in.args[i];
  const DType t = in.dtype(i, dt);
  if (a.tensors.empty()) return torch_dtype(a.type) ? bytes_per_element(t) : 0;
  double b = 0;
  for (const Dims& d : a.tensors) b += static_cast<double>(numel(d)) * bytes_per_element(t);
  return b;
}

double tensor_bytes(const Dims& d, DType t) { return static_cast<double>(numel(d)) * bytes_per_element(t); }

// The broadcast of shapes, right-aligned (NumPy / PyTorch rules; a
// mismatch other than 1 takes the larger, as the kernel would fail anyway).
Dims broadcast(const std::vector<const Dims*>& shapes) {
  std::size_t rank = 0;
  for (const Dims* d : shapes) rank = std::max(rank, d->size());
  Dims out(rank, 1);
  for (const Dims* d : shapes)
    for (std::size_t i = 0; i < d->size(); ++i) {
      std::int64_t& o = out[rank - d->size() + i];
      const std::int64_t x = (*d)[i];
      o = o == 1 ? x : (x == 1 ? o : std::max(o, x));
    }
  return out;
}

struct Elementwise {
  const char* op;
  std::size_t arity;  // positional arguments of the functional schema; a tensor past them is out=
};

// Arithmetic ops and their schema's argument count (add(self, other, alpha),
// mul(self, other), where(condition, self, other) ...).
constexpr Elementwise kArithmetic[] = {
    {"aten::add", 3}, {"aten::add_", 3}, {"aten::sub", 3}, {"aten::sub_", 3}, {"aten::rsub", 3},
    {"aten::mul", 2}, {"aten::mul_", 2}, {"aten::div", 2}, {"aten::div_", 2}, {"aten::neg", 1},
    {"aten::pow", 2}, {"aten::rsqrt", 1}, {"aten::sqrt", 1}, {"aten::relu", 1}, {"aten::relu_", 1},
    {"aten::gelu", 2}, {"aten::silu", 1}, {"aten::silu_", 1}, {"aten::sigmoid", 1}, {"aten::tanh", 1},
    {"aten::exp", 1}, {"aten::where", 3}, {"aten::masked_fill", 3}, {"aten::masked_fill_", 3},
    {"aten::clamp", 3}, {"aten::clamp_", 3}, {"aten::clamp_min", 2}, {"aten::clamp_min_", 2},
    {"aten::clamp_max", 2}, {"aten::clamp_max_", 2}, {"aten::threshold_backward", 3},
    {"aten::gelu_backward", 3}, {"aten::silu_backward", 2}, {"aten::sigmoid_backward", 2},
    {"aten::tanh_backward", 2}, {"aten::eq", 2}, {"aten::ne", 2}, {"aten::lt", 2}, {"aten::gt", 2},
    {"aten::le", 2}, {"aten::ge", 2}, {"aten::addcmul_", 4}, {"aten::addcdiv_", 4}, {"aten::lerp_", 3},
    {"aten::hardtanh", 3}, {"aten::hardtanh_", 3}, {"aten::abs", 1}, {"aten::log", 1}, {"aten::sin", 1},
    {"aten::cos", 1}, {"aten::maximum", 2}, {"aten::minimum", 2}, {"aten::add_relu", 3},
    {"aten::reciprocal", 1}, {"aten::erf", 1},
};

bool comparison(std::string_view op) {
  return is_one_of(op, {"aten::eq", "aten::ne", "aten::lt", "aten::gt", "aten::le", "aten::ge"});
}

CostSource memory_cost(ElementwiseModel m, bool arithmetic, std::string note) {
  CostSource c;
  c.source = MatchSource::kInputDims;
  c.hlo_category = arithmetic ? "elementwise" : "data movement";
  c.note = cat(note, ": reads ", format_bytes(m.read_bytes), ", writes ", format_bytes(m.written_bytes),
               arithmetic ? "" : "; memory-bound, FLOPs not counted");
  c.model = m;
  return c;
}

std::optional<CostSource> arithmetic_op(const std::string& op, const Inputs& in, DType dt) {
  const auto* rule = std::find_if(std::begin(kArithmetic), std::end(kArithmetic),
                                  [&](const Elementwise& e) { return op == e.op; });
  if (rule == std::end(kArithmetic)) return std::nullopt;
  const bool in_place = op.back() == '_';
  ElementwiseModel m{.dtype = dt};
  std::vector<const Dims*> operands;
  DType widest = dt;
  for (std::size_t i = 0; i < rule->arity && i < in.args.size(); ++i) {
    m.read_bytes += arg_bytes(in, i, dt);
    if (const Dims* d = in.tensor(i)) {
      operands.push_back(d);
      const DType t = in.dtype(i, dt);
      if (bytes_per_element(t) > bytes_per_element(widest)) widest = t;
    }
  }
  if (operands.empty()) return std::nullopt;
  // The result: an out= tensor past the schema's arguments, self for an
  // in-place op, else the broadcast of the operands at the widest type
  // (PyTorch's promotion), bool for a comparison.
  const Dims* out = nullptr;
  DType out_type = comparison(op) ? DType::kPred : widest;
  for (std::size_t i = rule->arity; i < in.args.size() && !out; ++i)
    if ((out = in.tensor(i))) out_type = in.dtype(i, out_type);
  if (!out && in_place && in.tensor(0)) out = in.tensor(0), out_type = in.dtype(0, dt);
  const Dims result = out ? *out : broadcast(operands);
  m.written_bytes = tensor_bytes(result, out_type);
  m.flops = static_cast<double>(numel(result));
  const char* how = out && !in_place ? " (out=)" : in_place ? " (in place)" : "";
  return memory_cost(m, true, cat(op, " ", dims_text(result), how));
}

// Rows a gather reads from `table` along `dim` for `n` indices: n times the
// elements of one slice. With the dim unknown, the smallest slice, so that
// the bound stays a bound.
double gathered_elements(const Dims& table, std::optional<std::int64_t> dim, std::int64_t n) {
  if (table.empty()) return 0;
  const auto slice = [&](std::size_t d) {
    double s = 1;
    for (std::size_t i = 0; i < table.size(); ++i)
      if (i != d) s *= static_cast<double>(table[i]);
    return s;
  };
  const auto rank = static_cast<std::int64_t>(table.size());
  if (dim && *dim >= -rank && *dim < rank)
    return slice(static_cast<std::size_t>(*dim < 0 ? *dim + rank : *dim)) * static_cast<double>(n);
  double least = slice(0);
  for (std::size_t d = 1; d < table.size(); ++d) least = std::min(least, slice(d));
  return least * static_cast<double>(n);
}

std::optional<CostSource> gather_op(const std::string& op, const Inputs& in, DType dt) {
  ElementwiseModel m{.dtype = dt};
  if (op == "aten::embedding") {
    // embedding(weight[V, D], indices[...]): one row of D per index.
    const Dims* w = in.tensor(0);
    const Dims* idx = in.tensor(1);
    if (!w || !idx) return std::nullopt;
    const double rows = static_cast<double>(numel(*idx)) * static_cast<double>(w->back());
    m.read_bytes = rows * bytes_per_element(in.dtype(0, dt)) + arg_bytes(in, 1, DType::kS64);
    m.written_bytes = rows * bytes_per_element(in.dtype(0, dt));
    return memory_cost(m, false, cat(op, " ", numel(*idx), " rows of ", w->back()));
  }
  if (op == "aten::index_select") {
    // index_select(self, dim, index[n]): n slices of self along dim.
    const Dims* self = in.tensor(0);
    const Dims* idx = in.tensor(2);
    if (!self || !idx) return std::nullopt;
    const std::optional<std::int64_t> dim = in.integer(1);
    const double elements = gathered_elements(*self, dim, numel(*idx));
    m.read_bytes = elements * bytes_per_element(in.dtype(0, dt)) + arg_bytes(in, 2, DType::kS64);
    m.written_bytes = elements * bytes_per_element(in.dtype(0, dt));
    return memory_cost(m, false, cat(op, " ", numel(*idx), " slices of ", dims_text(*self),
                                     dim ? "" : " (dim unknown: the smallest slice)"));
  }
  if (op == "aten::gather") {
    // gather(self, dim, index): the result is shaped like index, one element of self each.
    const Dims* idx = in.tensor(2);
    if (!in.tensor(0) || !idx) return std::nullopt;
    const double elements = static_cast<double>(numel(*idx));
    m.read_bytes = elements * bytes_per_element(in.dtype(0, dt)) + arg_bytes(in, 2, DType::kS64);
    m.written_bytes = elements * bytes_per_element(in.dtype(0, dt));
    return memory_cost(m, false, cat(op, " ", dims_text(*idx)));
  }
  if (op == "aten::embedding_dense_backward") {
    // (grad_output[..., D], indices, num_weights, ...): reads the gradient
    // and the indices, writes the gradient table (zeroed whole when
    // num_weights is recorded, else at least the rows indexed).
    const Dims* g = in.tensor(0);
    const Dims* idx = in.tensor(1);
    if (!g || !idx || g->empty()) return std::nullopt;
    const DType t = in.dtype(0, dt);
    m.read_bytes = arg_bytes(in, 0, dt) + arg_bytes(in, 1, DType::kS64);
    const std::optional<std::int64_t> rows = in.integer(2);
    const double written_rows = rows && *rows > 0 ? static_cast<double>(*rows) : static_cast<double>(numel(*idx));
    m.written_bytes = written_rows * static_cast<double>(g->back()) * bytes_per_element(t);
    return memory_cost(m, false, cat(op, " ", numel(*idx), " rows of ", g->back(),
                                     rows ? "" : " (num_weights unknown: the rows indexed)"));
  }
  return std::nullopt;
}

// Whether a batch norm uses the batch's statistics (training), which it
// reduces per channel before it writes that channel's output. A forward says
// so in its `training` argument (the 6th of these ops; the no_stats overload
// of _native_batch_norm_legit has it 4th, so there the kernel decides) where
// the trace records Concrete Inputs, or in its kernels' names: cuDNN's
// training forward (bn_fw_tr_*), PyTorch's own statistics kernel
// (batch_norm_collect_statistics_kernel). cuDNN's and MIOpen's backward ops
// run after a training forward (PyTorch's derivatives send an eval mode's
// backward to native_batch_norm_backward, whose `train` is its 8th; an
// exported graph's batch_norm_backward may call cuDNN's without one).
bool batch_statistics(const std::string& op, const Inputs& in, std::string_view kernel) {
  if (is_one_of(op, {"aten::cudnn_batch_norm_backward", "aten::miopen_batch_norm_backward"})) return true;
  if (op == "aten::native_batch_norm_backward") return in.boolean(7).value_or(false);
  if (!is_one_of(op, {"aten::batch_norm", "aten::_batch_norm_impl_index", "aten::native_batch_norm",
                      "aten::cudnn_batch_norm", "aten::miopen_batch_norm", "aten::_native_batch_norm_legit"}))
    return false;
  if (const std::optional<bool> training = in.boolean(5)) return *training;
  return kernel.find("bn_fw_tr") != std::string_view::npos ||
         kernel.find("batch_norm_collect_statistics") != std::string_view::npos;
}

// Normalisations read every tensor argument once (the activations, the
// gradient, weight, bias, statistics) and write one activation-sized result
// (the largest tensor argument) and, backward, the weight's and bias's
// gradients. The saved statistics a forward also writes (a row or channel
// each) are not counted. That is the bound: a batch norm on the batch's
// statistics could normalise channel by channel, holding each channel's
// slice on chip (401 kB of a [32,256,56,56] fp32 input), in one pass. The
// library kernels do not: cuDNN's NCHW training kernels and PyTorch's
// statistics-then-transform pair read the input, and backward the gradient
// too, a second time where the tensor exceeds what the chip holds
// (ElementwiseModel::reread_bytes, charged in the expected time only): a
// V100's cuDNN forward of [32,256,56,56] fp32 (103 MB; its on-chip memories
// hold 37.4 MB) takes 402 us, where one pass needs 228 us at HBM's peak and
// the 65 MB beyond the chip another 73 us. Layer and RMS norms reduce over
// a row, which one kernel holds: one pass.
std::optional<CostSource> norm_op(const std::string& op, const Inputs& in, DType dt, std::string_view kernel) {
  const bool forward = is_one_of(
      op, {"aten::batch_norm", "aten::_batch_norm_impl_index", "aten::native_batch_norm", "aten::cudnn_batch_norm",
           "aten::miopen_batch_norm", "aten::_native_batch_norm_legit", "aten::_native_batch_norm_legit_no_training",
           "aten::layer_norm", "aten::native_layer_norm", "aten::group_norm", "aten::native_group_norm",
           "aten::rms_norm", "aten::_fused_rms_norm", "aten::instance_norm"});
  const bool backward =
      is_one_of(op, {"aten::native_batch_norm_backward", "aten::cudnn_batch_norm_backward",
                     "aten::miopen_batch_norm_backward", "aten::native_layer_norm_backward",
                     "aten::native_group_norm_backward", "aten::_fused_rms_norm_backward"});
  if (!forward && !backward) return std::nullopt;
  ElementwiseModel m{.dtype = dt};
  const Dims* activation = nullptr;
  std::size_t at = 0;
  for (std::size_t i = 0; i < in.args.size(); ++i) {
    m.read_bytes += in.tensor(i) ? arg_bytes(in, i, dt) : 0;
    if (const Dims* d = in.tensor(i); d && (!activation || numel(*d) > numel(*activation))) activation = d, at = i;
  }
  if (!activation) return std::nullopt;
  m.written_bytes = tensor_bytes(*activation, in.dtype(at, dt));
  // The input again, and backward the gradient too (an out= tensor of the
  // activation's size is written, not read).
  if (batch_statistics(op, in, kernel)) m.reread_bytes = (backward ? 2 : 1) * m.written_bytes;
  if (backward) {
    // grad weight and grad bias: the size of the weight (channel- or feature-sized).
    double weight = 0;
    for (std::size_t i = 0; i < in.args.size(); ++i)
      if (const Dims* d = in.tensor(i); d && d != activation && numel(*d) < numel(*activation))
        weight = std::max(weight, tensor_bytes(*d, in.dtype(i, dt)));
    m.written_bytes += 2 * weight;
  }
  return memory_cost(m, false,
                     cat(op, " ", dims_text(*activation),
                         m.reread_bytes > 0 ? " (batch statistics: expected to read its input twice where the chip "
                                                              "cannot hold it, as library kernels do)"
                                            : ""));
}

// Output extent of a window op along one spatial dim (PyTorch's formula,
// floor mode): (in + 2p - d(k - 1) - 1) / s + 1.
std::int64_t window_out(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p, std::int64_t d) {
  if (s <= 0) return 0;
  return std::max<std::int64_t>(0, (in + 2 * p - d * (k - 1) - 1) / s + 1);
}

// The i-th of an int list argument that PyTorch expands from one value.
std::int64_t nth(const std::vector<std::int64_t>& v, std::size_t i, std::int64_t none) {
  if (v.empty()) return none;
  return i < v.size() ? v[i] : v.back();
}

std::optional<CostSource> pool_op(const std::string& op, const Inputs& in, DType dt) {
  ElementwiseModel m{.dtype = dt};
  if (op == "aten::max_pool2d_with_indices" || op == "aten::max_pool3d_with_indices") {
    // (self, kernel_size, stride, padding, dilation, ceil_mode): reads self;
    // writes the result and its int64 indices, sized from the recorded
    // window, or not counted when the trace does not record it.
    const Dims* x = in.tensor(0);
    if (!x) return std::nullopt;
    m.read_bytes = arg_bytes(in, 0, dt);
    const std::size_t spatial = op == "aten::max_pool2d_with_indices" ? 2 : 3;
    const std::optional<std::vector<std::int64_t>> k = in.integers(1);
    if (!k || k->empty() || x->size() < spatial)
      return memory_cost(m, false, cat(op, " ", dims_text(*x), " (window not recorded: result not counted)"));
    const std::vector<std::int64_t> s = in.integers(2).value_or(std::vector<std::int64_t>{});
    const std::vector<std::int64_t> p = in.integers(3).value_or(std::vector<std::int64_t>{});
    const std::vector<std::int64_t> d = in.integers(4).value_or(std::vector<std::int64_t>{});
    Dims out(x->begin(), x->end());
    for (std::size_t i = 0; i < spatial; ++i) {
      const std::size_t at = x->size() - spatial + i;
      const std::int64_t kk = nth(*k, i, 1);
      out[at] = window_out((*x)[at], kk, s.empty() ? kk : nth(s, i, kk), nth(p, i, 0), nth(d, i, 1));
    }
    m.written_bytes = tensor_bytes(out, in.dtype(0, dt)) + tensor_bytes(out, DType::kS64);
    return memory_cost(m, false, cat(op, " ", dims_text(*x), " -> ", dims_text(out)));
  }
  if (op == "aten::max_pool2d_with_indices_backward" || op == "aten::max_pool3d_with_indices_backward") {
    // (grad_output, self, kernel_size, stride, padding, dilation, ceil_mode,
    // indices): reads the gradient and the indices, writes grad_input (self's size).
    const Dims* g = in.tensor(0);
    const Dims* self = in.tensor(1);
    if (!g || !self) return std::nullopt;
    m.read_bytes = arg_bytes(in, 0, dt) + arg_bytes(in, 7, DType::kS64);
    m.written_bytes = tensor_bytes(*self, in.dtype(1, dt));
    return memory_cost(m, false, cat(op, " ", dims_text(*g), " -> ", dims_text(*self)));
  }
  return std::nullopt;
}

// Copies, concatenation, fills, softmax, dropout, reductions.
std::optional<CostSource> move_op(const std::string& op, const Inputs& in, DType dt) {
  ElementwiseModel m{.dtype = dt};
  const Dims* self = in.tensor(0);
  if (op == "aten::copy_") {
    // copy_(self, src): reads src, writes self (its old contents are not read).
    if (!self || !in.tensor(1)) return std::nullopt;
    m.read_bytes = arg_bytes(in, 1, dt);
    m.written_bytes = arg_bytes(in, 0, dt);
    return memory_cost(m, false, cat(op, " ", dims_text(*self)));
  }
  if (is_one_of(op, {"aten::_to_copy", "aten::to", "aten::clone", "aten::contiguous"})) {
    // The result's type is not in Input Dims: taken as self's.
    if (!self) return std::nullopt;
    m.read_bytes = m.written_bytes = arg_bytes(in, 0, dt);
    return memory_cost(m, false, cat(op, " ", dims_text(*self)));
  }
  if (op == "aten::cat") {
    // cat(tensors, dim): reads each, writes their concatenation.
    if (in.args.empty() || in.args[0].tensors.empty()) return std::nullopt;
    m.read_bytes = m.written_bytes = arg_bytes(in, 0, dt);
    return memory_cost(m, false, cat(op, " of ", in.args[0].tensors.size(), " tensors"));
  }
  if (op == "aten::fill_" || op == "aten::zero_") {
    if (!self) return std::nullopt;
    m.written_bytes = arg_bytes(in, 0, dt);
    return memory_cost(m, false, cat(op, " ", dims_text(*self)));
  }
  if (is_one_of(op, {"aten::softmax", "aten::_softmax", "aten::log_softmax", "aten::_log_softmax"})) {
    if (!self) return std::nullopt;
    m.read_bytes = m.written_bytes = arg_bytes(in, 0, dt);
    return memory_cost(m, false, cat(op, " ", dims_text(*self)));
  }
  if (op == "aten::_softmax_backward_data" || op == "aten::_log_softmax_backward_data") {
    // (grad_output, output, dim, ...): reads both, writes grad_input.
    if (!self || !in.tensor(1)) return std::nullopt;
    m.read_bytes = arg_bytes(in, 0, dt) + arg_bytes(in, 1, dt);
    m.written_bytes = arg_bytes(in, 0, dt);
    return memory_cost(m, false, cat(op, " ", dims_text(*self)));
  }
  if (op == "aten::native_dropout" || op == "aten::dropout") {
    // Reads input, writes the result and a one-byte mask per element.
    if (!self) return std::nullopt;
    m.read_bytes = arg_bytes(in, 0, dt);
    m.written_bytes = m.read_bytes + static_cast<double>(numel(*self));
    return memory_cost(m, false, cat(op, " ", dims_text(*self)));
  }
  if (op == "aten::mean" || op == "aten::sum") {
    // Reads self; the reduced result is small and its size not in Input Dims.
    if (!self) return std::nullopt;
    m.read_bytes = arg_bytes(in, 0, dt);
    return memory_cost(m, false, cat(op, " ", dims_text(*self), " (result not counted)"));
  }
  return std::nullopt;
}

}  // namespace

std::optional<CostSource> memory_op(const std::string& op, const Inputs& in, DType dt, std::string_view kernel) {
  if (auto c = arithmetic_op(op, in, dt)) return c;
  if (auto c = gather_op(op, in, dt)) return c;
  if (auto c = norm_op(op, in, dt, kernel)) return c;
  if (auto c = pool_op(op, in, dt)) return c;
  return move_op(op, in, dt);
}

}  // namespace roofline::detail
