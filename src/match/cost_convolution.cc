// Convolutions (1-, 2- and 3-D; forward and backward) from Input Dims:
// 2 * N * Cout * (output positions) * Cin/groups * (kernel positions) FLOPs
// a pass, the weight's shape [Cout, Cin/groups, k...] carrying the groups,
// and the tensors a pass reads and writes, each once.
//
// The output's extent needs stride, padding and dilation, which only newer
// traces record (Concrete Inputs). Without them, a training trace still has
// it: the backward of the same input and weight takes the output's gradient,
// shaped like the output. Only when neither says is stride 1 without
// padding assumed, and the op's reason says so.
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "src/match/input_dims.hpp"

namespace roofline::detail {
namespace {

// Schema positions of stride, padding and dilation (none: not recorded by
// this op), and of the input and weight.
struct ForwardSchema {
  const char* op;
  std::size_t stride, padding, dilation;
  std::optional<std::size_t> transposed;
};

constexpr ForwardSchema kForward[] = {
    {"aten::conv1d", 3, 4, 5, std::nullopt},
    {"aten::conv2d", 3, 4, 5, std::nullopt},
    {"aten::conv3d", 3, 4, 5, std::nullopt},
    {"aten::convolution", 3, 4, 5, 6},
    {"aten::_convolution", 3, 4, 5, 6},
    {"aten::cudnn_convolution", 3, 2, 4, std::nullopt},
    {"aten::miopen_convolution", 4, 3, 5, std::nullopt},
    {"aten::mkldnn_convolution", 4, 3, 5, std::nullopt},
};

// A backward op that records all three shapes, and where.
struct FullBackward {
  const char* op;
  std::size_t input, grad_output, weight;
};

constexpr FullBackward kFullBackward[] = {
    {"aten::convolution_backward", 1, 0, 2},
    {"aten::cudnn_convolution_backward", 0, 1, 2},
    {"aten::miopen_convolution_backward", 0, 1, 2},
};

struct Shapes {
  Dims input, weight, output;
};

// Every convolution of the trace whose call records input, output gradient
// and weight: where a forward finds its output, a backward its missing shape.
std::vector<Shapes> known_shapes(std::span<const CallInfo> calls) {
  std::vector<Shapes> out;
  for (const CallInfo& c : calls) {
    const auto* rule = std::find_if(std::begin(kFullBackward), std::end(kFullBackward),
                                    [&](const FullBackward& b) { return c.launcher == b.op; });
    if (rule == std::end(kFullBackward)) continue;
    const std::optional<Inputs> in = parse_inputs(c);
    if (!in) continue;
    const Dims* x = in->tensor(rule->input);
    const Dims* g = in->tensor(rule->grad_output);
    const Dims* w = in->tensor(rule->weight);
    if (x && g && w) out.push_back({*x, *w, *g});
  }
  return out;
}

// The one shape `pick` gives among the known convolutions `match` accepts;
// with several, the smallest (the bound stays a bound) and `ambiguous` set.
template <typename Match, typename Pick>
std::optional<Dims> look_up(std::span<const CallInfo> calls, Match match, Pick pick, bool& ambiguous) {
  std::optional<Dims> found;
  ambiguous = false;
  for (const Shapes& s : known_shapes(calls)) {
    if (!match(s)) continue;
    const Dims& d = pick(s);
    if (found && *found != d) ambiguous = true;
    if (!found || numel(d) < numel(*found)) found = d;
  }
  return found;
}

// The i-th of an int list argument that PyTorch expands from one value.
std::int64_t nth(const std::vector<std::int64_t>& v, std::size_t i, std::int64_t none) {
  if (v.empty()) return none;
  return i < v.size() ? v[i] : v.back();
}

// Flops of one pass: 2 * N * Cout * out positions * Cin/groups * kernel positions.
double pass_flops(const Dims& output, const Dims& weight) {
  double f = 2.0 * static_cast<double>(output[0]) * static_cast<double>(weight[0]);
  for (std::size_t i = 2; i < output.size(); ++i) f *= static_cast<double>(output[i]);
  for (std::size_t i = 1; i < weight.size(); ++i) f *= static_cast<double>(weight[i]);
  return f;
}

double bytes(const Dims& d, DType t) { return static_cast<double>(numel(d)) * bytes_per_element(t); }

// Input [N, C, spatial...] and weight [Cout, C/groups, kernel...] of the same rank, 3 to 5.
bool conv_shapes(const Dims* x, const Dims* w) {
  return x && w && x->size() == w->size() && x->size() >= 3 && x->size() <= 5;
}

// The arithmetic a fast algorithm leaves of a direct convolution with
// kernel `weight`, from the kernels' names: Winograd F(m x m, r x r) does
// (m + r - 1)^2 multiplies for m^2 outputs where direct does m^2 r^2, per
// spatial dim (m + r - 1) / (m r); cuDNN's tiles are m = 2 or 4 ("4x4" in
// its non-fused kernels' names), so m = 4, the fewer, is counted: 1/4 for
// 3x3. An FFT convolution's work depends on transform sizes the trace does
// not give: none is counted (its bytes still bound it).
struct Algorithm {
  double flops_fraction = 1;
  const char* note = "";
};

Algorithm algorithm(std::string_view kernels, const Dims& weight) {
  if (kernels.find("fft") != std::string_view::npos || kernels.find("FFT") != std::string_view::npos)
    return {0, "; FFT convolution (kernel names): arithmetic not counted"};
  if (kernels.find("winograd") == std::string_view::npos && kernels.find("Winograd") == std::string_view::npos)
    return {};
  double f = 1;
  constexpr double m = 4;
  for (std::size_t i = 2; i < weight.size(); ++i) {
    const auto r = static_cast<double>(weight[i]);
    if (r > 1) f *= (m + r - 1) / (m * r);
  }
  return {f, "; Winograd (kernel names): the multiplies of F(4x4, r x r), not direct"};
}

// Product of dims[from..], nullopt on overflow or a dim below 1.
std::optional<std::int64_t> positions(const Dims& d, std::size_t from) {
  std::int64_t p = 1;
  for (std::size_t i = from; i < d.size(); ++i)
    if (d[i] < 1 || __builtin_mul_overflow(p, d[i], &p)) return std::nullopt;
  return p;
}

// Which implicit GEMM a pass runs (NVIDIA Deep Learning Performance
// documentation, "Convolutional Layers User's Guide", "Convolution
// Algorithms": the GEMM dimensions of each pass): per group, forward
// M = N x output positions, N = Cout/groups, K = Cin/groups x kernel
// positions; the input gradient M = N x input positions, N = Cin/groups,
// K = Cout/groups x kernel positions; the weight gradient M = Cin/groups x
// kernel positions, N = Cout/groups, K = N x output positions.
enum class ConvPass : unsigned char { kForward, kInputGradient, kWeightGradient };

std::optional<GemmDims> implicit_gemm(ConvPass pass, const Dims& x, const Dims& w, const Dims& y) {
  if (x.size() != w.size() || y.size() != w.size() || w[1] < 1 || x[1] % w[1] != 0 || x[1] < 1) return std::nullopt;
  const std::int64_t groups = x[1] / w[1];
  if (w[0] % groups != 0) return std::nullopt;
  const std::int64_t cout = w[0] / groups;
  const std::optional<std::int64_t> kernel = positions(w, 2), in_pos = positions(x, 2), out_pos = positions(y, 2);
  std::int64_t k = 0, n = 0, m = 0;
  if (!kernel || !in_pos || !out_pos) return std::nullopt;
  bool overflow = false;
  switch (pass) {
    case ConvPass::kForward:
      overflow = __builtin_mul_overflow(x[0], *out_pos, &m) || __builtin_mul_overflow(w[1], *kernel, &k);
      n = cout;
      break;
    case ConvPass::kInputGradient:
      overflow = __builtin_mul_overflow(x[0], *in_pos, &m) || __builtin_mul_overflow(cout, *kernel, &k);
      n = w[1];
      break;
    case ConvPass::kWeightGradient:
      overflow = __builtin_mul_overflow(w[1], *kernel, &m) || __builtin_mul_overflow(x[0], *out_pos, &k);
      n = cout;
      break;
  }
  if (overflow || m < 1 || n < 1 || k < 1) return std::nullopt;
  return GemmDims{.m = m, .n = n, .k = k, .batch = groups};
}

CostSource conv_cost(double flops, double read, double written, DType dt, std::string_view kernel, const Dims& weight,
                     std::string note, std::optional<GemmDims> gemm = std::nullopt) {
  const Algorithm a = algorithm(kernel, weight);
  if (a.flops_fraction != 1) gemm.reset();  // Winograd or FFT: not one GEMM
  flops *= a.flops_fraction;
  note += a.note;
  CostSource c;
  c.source = MatchSource::kInputDims;
  c.hlo_category = "convolution";
  const bool tf32 = dt == DType::kF32 && tf32_kernel(kernel);
  if (tf32) note += "; fp32 on TF32 tensor cores (kernel name)";
  c.note = std::move(note);
  c.model = ConvolutionModel{.flops = flops, .read_bytes = read, .written_bytes = written, .dtype = dt,
                             .peak = tf32 ? MatmulPeak::kTf32TensorCores : MatmulPeak::kComputeDtype,
                             .gemm = gemm};
  return c;
}

std::optional<CostSource> forward(const ForwardSchema& rule, const std::string& op, const Inputs& in, DType dt,
                                  std::string_view kernel, std::span<const CallInfo> calls) {
  const Dims* x = in.tensor(0);
  const Dims* w = in.tensor(1);
  if (!conv_shapes(x, w)) return std::nullopt;
  if (rule.transposed && in.boolean(*rule.transposed) == true) {
    CostSource c;
    c.note = cat(op, ": transposed convolution, not modelled");
    return c;
  }
  const std::size_t spatial = x->size() - 2;
  Dims out = {(*x)[0], (*w)[0]};
  std::string how;
  const std::optional<std::vector<std::int64_t>> stride = in.integers(rule.stride);
  const std::optional<std::vector<std::int64_t>> padding = in.integers(rule.padding);
  if (stride && padding) {
    const std::vector<std::int64_t> dilation = in.integers(rule.dilation).value_or(std::vector<std::int64_t>{});
    for (std::size_t i = 0; i < spatial; ++i) {
      const std::int64_t s = nth(*stride, i, 1);
      const std::int64_t extent = (*x)[2 + i] + 2 * nth(*padding, i, 0) - nth(dilation, i, 1) * ((*w)[2 + i] - 1) - 1;
      out.push_back(s > 0 && extent >= 0 ? extent / s + 1 : 0);
    }
    how = "stride, padding from the trace";
  } else {
    bool ambiguous = false;
    const std::optional<Dims> g = look_up(
        calls, [&](const Shapes& s) { return s.input == *x && s.weight == *w; },
        [](const Shapes& s) -> const Dims& { return s.output; }, ambiguous);
    if (g && g->size() == x->size()) {
      out = *g;
      how = ambiguous ? "output from its backward's gradient (several: the smallest)" : "output from its backward's gradient";
    } else {
      for (std::size_t i = 0; i < spatial; ++i) out.push_back(std::max<std::int64_t>(0, (*x)[2 + i] - (*w)[2 + i] + 1));
      how = "stride and padding not recorded: stride 1, no padding assumed";
    }
  }
  const DType tw = in.dtype(1, dt);
  return conv_cost(pass_flops(out, *w), bytes(*x, in.dtype(0, dt)) + bytes(*w, tw), bytes(out, in.dtype(0, dt)), dt,
                   kernel, *w, cat(op, " ", dims_text(*x), " * ", dims_text(*w), " -> ", dims_text(out), "; ", how),
                   implicit_gemm(ConvPass::kForward, *x, *w, out));
}

// Which gradients a backward computes: output_mask when recorded ("[True,
// True, False]"), else both the input's and the weight's.
std::pair<bool, bool> wanted(const Inputs& in, std::size_t at) {
  const std::optional<std::string_view> v = in.value(at);
  if (!v) return {true, true};
  std::vector<bool> mask;
  for (std::size_t i = 0; i < v->size(); ++i) {
    if (v->substr(i, 4) == "True") mask.push_back(true);
    if (v->substr(i, 5) == "False") mask.push_back(false);
  }
  if (mask.size() < 2) return {true, true};
  return {mask[0], mask[1]};
}

std::optional<CostSource> backward(const std::string& op, const Inputs& in, DType dt, std::string_view kernel,
                                   std::span<const CallInfo> calls) {
  const bool input_only = op == "aten::cudnn_convolution_backward_input";
  const bool weight_only = op == "aten::cudnn_convolution_backward_weight";
  const auto* full = std::find_if(std::begin(kFullBackward), std::end(kFullBackward),
                                  [&](const FullBackward& b) { return op == b.op; });
  if (!input_only && !weight_only && full == std::end(kFullBackward)) return std::nullopt;
  std::optional<Dims> x, w, g;
  std::string how;
  if (full != std::end(kFullBackward)) {
    if (in.tensor(full->input)) x = *in.tensor(full->input);
    if (in.tensor(full->weight)) w = *in.tensor(full->weight);
    if (in.tensor(full->grad_output)) g = *in.tensor(full->grad_output);
  } else {
    // (input_size or weight_size, grad_output, weight or input, ...): the
    // missing shape from Concrete Inputs, else from the full backward.
    if (in.tensor(1)) g = *in.tensor(1);
    if (in.tensor(2)) (input_only ? w : x) = *in.tensor(2);
    std::optional<Dims>& missing = input_only ? x : w;
    if (const auto sizes = in.integers(0); sizes && !sizes->empty()) {
      missing = Dims(sizes->begin(), sizes->end());
    } else if (g && (w || x)) {
      bool ambiguous = false;
      missing = look_up(
          calls,
          [&](const Shapes& s) { return s.output == *g && (input_only ? s.weight == *w : s.input == *x); },
          [&](const Shapes& s) -> const Dims& { return input_only ? s.input : s.weight; }, ambiguous);
      if (missing && ambiguous) how = "; shapes from its full backward (several: the smallest)";
    }
  }
  if (!g || (!x && !w) || g->size() < 3) return std::nullopt;
  if (!w) {
    CostSource c;
    c.note = cat(op, ": the weight's shape is not in the trace (kernel size unknown): not costed");
    return c;
  }
  if (!conv_shapes(&*g, &*w)) return std::nullopt;
  auto [grad_input, grad_weight] = full != std::end(kFullBackward) ? wanted(in, 10) : std::pair{input_only, weight_only};
  const DType t = dt;
  const double pass = pass_flops(*g, *w);
  double read = bytes(*g, t);
  double written = 0;
  if (grad_input) {
    read += bytes(*w, t);
    // dX is the input's size; unknown, at least N x Cin/groups x the output's positions.
    if (x) {
      written += bytes(*x, t);
    } else {
      Dims least = *g;
      least[1] = (*w)[1];
      written += bytes(least, t);
      how += "; input shape unknown: its gradient counted at the output's extent";
    }
  }
  if (grad_weight) {
    if (x) read += bytes(*x, t);
    written += bytes(*w, t);
  }
  const double flops = pass * ((grad_input ? 1 : 0) + (grad_weight ? 1 : 0));
  const char* which = grad_input && grad_weight ? "input and weight gradients" : grad_input ? "input gradient" : "weight gradient";
  // One gradient is one GEMM; both in one op are two, not one shape.
  std::optional<GemmDims> gemm;
  if (x && grad_input != grad_weight)
    gemm = implicit_gemm(grad_input ? ConvPass::kInputGradient : ConvPass::kWeightGradient, *x, *w, *g);
  return conv_cost(flops, read, written, t, kernel, *w,
                   cat(op, " dY ", dims_text(*g), " weight ", dims_text(*w), "; ", which, how), gemm);
}

}  // namespace

std::optional<CostSource> convolution_op(const std::string& op, const Inputs& in, DType dt, std::string_view kernel,
                                         std::span<const CallInfo> trace_calls) {
  for (const ForwardSchema& rule : kForward)
    if (op == rule.op) return forward(rule, op, in, dt, kernel, trace_calls);
  return backward(op, in, dt, kernel, trace_calls);
}

}  // namespace roofline::detail
