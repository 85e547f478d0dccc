// PyTorch's names for element types, as Kineto writes them in "Input type"
// and in NCCL kernels' "dtype" arg.
#pragma once

#include <optional>
#include <string_view>

#include "roofline/dtype.hpp"

namespace roofline::detail {

inline std::optional<DType> torch_dtype(std::string_view t) {
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

}  // namespace roofline::detail
