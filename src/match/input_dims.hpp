// A PyTorch op's arguments as Kineto records them: "Input Dims" (a shape
// per argument, [] for a scalar, a list or None, a list of shapes for a
// TensorList), "Input type" and, in newer PyTorch, "Concrete Inputs" (the
// value of each scalar argument as a string). Positions follow the op's
// schema, so a handler can ask for "argument 4" and find is_causal there.
// The cost handlers (cost_input_dims.cc, cost_memory_ops.cc,
// cost_convolution.cc) share these helpers. Internal.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/match/cost_source.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline::detail {

using Dims = std::vector<std::int64_t>;

struct Arg {
  // One shape for a tensor, one per tensor for a TensorList; none for [].
  std::vector<Dims> tensors;
  bool list = false;  // a TensorList (aten::cat's tensors)
  std::string type;   // "Input type": "float", "c10::BFloat16", "Scalar", ""
  std::string value;  // "Concrete Inputs": "True", "[2, 2]", "0"; "" when not recorded

  // The argument's shape when it is one tensor with at least one dimension.
  const Dims* tensor() const { return !list && tensors.size() == 1 && !tensors[0].empty() ? &tensors[0] : nullptr; }
};

struct Inputs {
  std::vector<Arg> args;

  const Dims* tensor(std::size_t i) const { return i < args.size() ? args[i].tensor() : nullptr; }
  // The element type of argument i, `fallback` when its type is not a dtype.
  DType dtype(std::size_t i, DType fallback) const;
  // Argument i's recorded value; nullopt when the trace has none.
  std::optional<std::string_view> value(std::size_t i) const;
  std::optional<bool> boolean(std::size_t i) const;           // "True" / "False"
  std::optional<std::int64_t> integer(std::size_t i) const;   // "0", "-1"
  std::optional<std::vector<std::int64_t>> integers(std::size_t i) const;  // "[2, 2]"
};

// Nullopt when Input Dims is not an array of shapes or a dimension is
// negative or beyond any real tensor (2^40): corrupt input is not costed.
std::optional<Inputs> parse_inputs(const CallInfo& call);

// Elements of a shape, saturating instead of overflowing on hostile shapes.
std::int64_t numel(const Dims& d);
// The product of d[first, last); nullopt when it overflows int64.
std::optional<std::int64_t> product(const Dims& d, std::size_t first, std::size_t last);
std::string dims_text(const Dims& d);

bool is_one_of(std::string_view op, std::initializer_list<const char*> names);

// cuBLAS / cuDNN / CUTLASS kernels that run fp32 work on TF32 tensor cores.
bool tf32_kernel(std::string_view kernel);

// The element type of the op: that of its first tensor argument with a
// known type, fp32 when none says.
DType first_tensor_dtype(const Inputs& in);

// The cost handlers, each for one family of ops; nullopt: not this family.
std::optional<CostSource> memory_op(const std::string& op, const Inputs& in, DType dt, std::string_view kernel);
std::optional<CostSource> convolution_op(const std::string& op, const Inputs& in, DType dt, std::string_view kernel,
                                         std::span<const CallInfo> trace_calls);

}  // namespace roofline::detail
