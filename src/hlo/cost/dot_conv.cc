// dot and convolution: the two ops whose FLOPs grow faster than their bytes.
#include "src/hlo/cost/handlers.hpp"
#include "src/hlo/int_math.hpp"

namespace roofline::detail {

// dot          FLOPs = 2 x elements(result) x prod(lhs contracting dims)
//              (nothing, and "no FLOP model", when the dimension numbers
//              could not be read or name no dimension of the operands).
//              Bytes: operands read, result written. Category matmul.
//              Compute type: the wider operand type (compute_dtype).
void dot(const OpView& v, Costing&, Arith* a, HloCost* c) {
  DType t = a->dtype;
  const DotDimensionNumbers* dims = v.attrs().dot_dimensions;
  if (v.in.size() >= 2 && dims != nullptr) {
    const Shape& lhs = *v.in[0];
    const Shape& rhs = *v.in[1];
    // Dimension numbers that name no dimension of the operand, or contract
    // dimensions of different sizes, are an HLO XLA's verifier refuses: no
    // FLOPs are guessed for it (once it counted as if K were 1).
    bool valid = dims->lhs_contracting.size() == dims->rhs_contracting.size();
    double reduction = 1;
    for (std::size_t i = 0; valid && i < dims->lhs_contracting.size(); ++i) {
      const std::int64_t k = dims->lhs_contracting[i], r = dims->rhs_contracting[i];
      valid = k >= 0 && k < lhs.rank() && r >= 0 && r < rhs.rank() &&
              lhs.dims[static_cast<std::size_t>(k)] == rhs.dims[static_cast<std::size_t>(r)];
      if (valid) reduction *= static_cast<double>(lhs.dims[static_cast<std::size_t>(k)]);
    }
    t = compute_dtype(lhs.element_type, rhs.element_type);
    if (valid) a->flops += 2 * elements(first_array(*v.out)) * reduction;
    else a->flags.unknown_opcode = true;
  }
  // The first dot decides the type unless a convolution already did.
  if (!a->has_dot && !a->has_conv) a->dtype = t;
  a->has_dot = true;
  if (c == nullptr) return;
  c->category = HloCategory::kMatmul;
  default_bytes(v, c);
}

// convolution  FLOPs = 2 x (input features / feature groups) x output features
//              x (batch / batch groups) x valid positions (conv_flops);
//              flagged "no FLOP model" when its attributes could not be read.
//              Bytes: operands read, result written. Category convolution.
//              Compute type: the wider operand type; a convolution outranks dots.
void convolution(const OpView& v, Costing&, Arith* a, HloCost* c) {
  double f = 0;
  if (v.in.size() >= 2 && conv_flops(v.attrs().convolution, *v.in[0], *v.in[1], first_array(*v.out), &f)) {
    a->flops += f;
  } else {
    a->flags.unknown_opcode = true;  // dimension numbers we could not read
  }
  if (!a->has_conv && v.in.size() >= 2) a->dtype = compute_dtype(v.in[0]->element_type, v.in[1]->element_type);
  a->has_conv = true;
  if (c == nullptr) return;
  c->category = HloCategory::kConvolution;
  default_bytes(v, c);
}

// XLA's GetConvolutionFlops: 2 x (input features / feature groups) x output
// features x (batch / batch groups) x the number of (kernel, output) position
// pairs that land inside the (dilated, padded) input, per spatial dimension.
bool conv_flops(const ConvolutionAttributes* conv, const Shape& lhs, const Shape& rhs,
                const Shape& out, double* flops) {
  if (conv == nullptr) return false;
  const ConvolutionDimensionNumbers& d = conv->dims;
  auto dim = [](const Shape& s, std::int64_t i) -> std::int64_t {
    return i >= 0 && i < s.rank() ? s.dims[static_cast<std::size_t>(i)] : 0;
  };
  double positions = 1;
  double budget = 1e7;  // pair checks; beyond it (absurd windows) count every pair
  for (std::size_t s = 0; s < d.input_spatial.size(); ++s) {
    const std::int64_t in = dim(lhs, d.input_spatial[s]);
    const std::int64_t k = dim(rhs, d.kernel_spatial[s]);
    const std::int64_t o = dim(out, d.output_spatial[s]);
    const WindowDimension& w = conv->window[s];
    // Count (kernel, output) index pairs whose input index is real (not a
    // dilation hole, not padding). O(k * o) per dimension, like XLA.
    double valid = 0;
    const double pairs = static_cast<double>(k) * static_cast<double>(o);
    if (pairs > budget) {
      valid = pairs;
    } else {
      budget -= pairs;
      for (std::int64_t ki = 0; ki < k; ++ki)
        for (std::int64_t oi = 0; oi < o; ++oi) {
          // 128-bit: strides and pads are whatever the module says.
          const int128 undilated = static_cast<int128>(oi) * w.stride - w.pad_low +
                                   static_cast<int128>(ki) * w.window_dilation;
          if (undilated % w.base_dilation != 0) continue;
          const int128 idx = undilated / w.base_dilation;
          if (undilated >= 0 && idx < in) valid += 1;
        }
    }
    positions *= valid;
  }
  const double in_features = static_cast<double>(dim(lhs, d.input_feature) / conv->feature_group_count);
  const double out_features = static_cast<double>(dim(out, d.output_feature));
  const double batch = static_cast<double>(dim(lhs, d.input_batch) / conv->batch_group_count);
  *flops = 2 * in_features * out_features * batch * positions;
  return true;
}

}  // namespace roofline::detail
