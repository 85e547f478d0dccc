// Custom calls: library GEMMs and convolutions are costed as the dot or
// convolution they compute; annotations are free; anything else is flagged
// "unknown custom call", never silently free.
#include <cmath>

#include "src/hlo/cost/handlers.hpp"

namespace roofline::detail {
namespace {

// The library call's real result: element 0 of its tuple, without the
// trailing s8/u8 workspace buffer (scratch the library may not even touch).
double library_written_bytes(const Shape& s) {
  if (!s.is_tuple()) return hbm_bytes_of(s);
  double b = 0;
  for (std::size_t k = 0; k < s.tuple_shapes.size(); ++k) {
    const Shape& e = s.tuple_shapes[k];
    const bool workspace = k + 1 == s.tuple_shapes.size() && k > 0 && e.is_array() && e.rank() == 1 &&
                           (e.element_type == DType::kS8 || e.element_type == DType::kU8);
    if (!workspace) b += hbm_bytes_of(e);
  }
  return b;
}

bool is_convolution(CustomCallKind kind) {
  return kind == CustomCallKind::kConvolutionForward || kind == CustomCallKind::kConvolutionBackwardInput ||
         kind == CustomCallKind::kConvolutionBackwardFilter;
}

// A library GEMM (cuBLAS, cuBLASLt, rocBLAS, hipBLASLt)
//              FLOPs = 2 x elements(result) x prod(lhs contracting dims), the
//              dimension numbers from backend_config (typed by the reader).
//              Bytes: operands read, the result written without the workspace.
void gemm(const OpView& v, HloCost* c) {
  c->category = HloCategory::kMatmul;
  for (const Shape* s : v.in) c->bytes_read += hbm_bytes_of(*s);
  c->bytes_written += library_written_bytes(*v.out);
  const DotDimensionNumbers* dims = v.attrs().dot_dimensions;
  if (dims == nullptr) {
    c->flags.unknown_custom_call = true;
    return;
  }
  double reduction = 1;
  for (std::int64_t k : dims->lhs_contracting)
    if (k >= 0 && k < v.in[0]->rank()) reduction *= static_cast<double>(v.in[0]->dims[static_cast<std::size_t>(k)]);
  c->flops = 2 * elements(first_array(*v.out)) * reduction;
  c->dtype = compute_dtype(v.in[0]->element_type, v.in[1]->element_type);
}

// A cuDNN / MIOpen convolution
//              The convolution formula (conv_flops) with the call's window and
//              dim_labels, which describe the forward convolution: the
//              backward-input kind takes the result as the input and operand 0
//              as the output, the backward-filter kind the result as the
//              kernel and operand 1 as the output.
//              Bytes: operands read, the result written without the workspace.
void library_convolution(const OpView& v, HloCost* c) {
  c->category = HloCategory::kConvolution;
  for (const Shape* s : v.in) c->bytes_read += hbm_bytes_of(*s);
  c->bytes_written += library_written_bytes(*v.out);
  const Shape& result = first_array(*v.out);
  const Shape *lhs = v.in[0], *rhs = v.in[1], *out = &result;
  if (v.attrs().custom_call_kind == CustomCallKind::kConvolutionBackwardInput) {
    lhs = &result;
    out = v.in[0];
  } else if (v.attrs().custom_call_kind == CustomCallKind::kConvolutionBackwardFilter) {
    rhs = &result;
    out = v.in[1];
  }
  double f = 0;
  if (!conv_flops(v.attrs().convolution, *lhs, *rhs, *out, &f)) {
    c->flags.unknown_custom_call = true;
    return;
  }
  c->flops = f;
  c->dtype = compute_dtype(v.in[0]->element_type, v.in[1]->element_type);
}

}  // namespace

// custom-call  By target (HloTypedAttributes::custom_call_kind):
//              annotations (Sharding, MoveToHost, ...)  nothing, category control;
//              GEMMs and convolutions with two operands  gemm / library_convolution above;
//              __cub$DeviceRadixSort  FLOPs = n x ceil(log2 n), operands / result;
//              anything else  FLOPs unknown (flagged), bytes = operands + result
//              (a lower bound).
void custom_call(const OpView& v, Costing&, Arith*, HloCost* c) {
  const CustomCallKind kind = v.attrs().custom_call_kind;
  if (kind == CustomCallKind::kAnnotation) {
    c->category = HloCategory::kControl;
    return;
  }
  c->dtype = array_type(*v.out);
  if (kind == CustomCallKind::kGemm && v.in.size() >= 2) return gemm(v, c);
  if (is_convolution(kind) && v.in.size() >= 2) return library_convolution(v, c);
  c->category = HloCategory::kCustomCall;
  default_bytes(v, c);
  if (kind == CustomCallKind::kRadixSort) {
    const double n = v.in.empty() ? 0 : elements(*v.in[0]);
    c->flops = n > 1 ? n * std::ceil(std::log2(n)) : 0;
    return;
  }
  // Pallas/Mosaic, Triton custom calls, user FFI: it reads its operands and
  // writes its results at least; its FLOPs are unknown.
  c->flags.unknown_custom_call = true;
}

}  // namespace roofline::detail
