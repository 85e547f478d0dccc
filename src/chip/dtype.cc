#include "roofline/dtype.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>

namespace roofline {
namespace {

struct Spelling {
  std::string_view name;
  DType type;
};

// HLO spellings first: dtype_name() returns the first entry for a type.
constexpr Spelling kSpellings[] = {
    {"pred", DType::kPred},   {"s2", DType::kS2},       {"s4", DType::kS4},
    {"s8", DType::kS8},       {"s16", DType::kS16},     {"s32", DType::kS32},
    {"s64", DType::kS64},     {"u2", DType::kU2},       {"u4", DType::kU4},
    {"u8", DType::kU8},       {"u16", DType::kU16},     {"u32", DType::kU32},
    {"u64", DType::kU64},     {"f16", DType::kF16},     {"bf16", DType::kBF16},
    {"f32", DType::kF32},     {"f64", DType::kF64},     {"f4e2m1fn", DType::kF4E2M1FN},
    {"f8e3m4", DType::kF8E3M4}, {"f8e4m3", DType::kF8E4M3},
    {"f8e4m3fn", DType::kF8E4M3FN}, {"f8e4m3b11fnuz", DType::kF8E4M3B11FNUZ},
    {"f8e4m3fnuz", DType::kF8E4M3FNUZ}, {"f8e5m2", DType::kF8E5M2},
    {"f8e5m2fnuz", DType::kF8E5M2FNUZ}, {"f8e8m0fnu", DType::kF8E8M0FNU},
    {"c64", DType::kC64},     {"c128", DType::kC128},   {"token", DType::kToken},
    // What people type.
    {"fp32", DType::kF32},    {"float32", DType::kF32}, {"float", DType::kF32},
    {"fp16", DType::kF16},    {"float16", DType::kF16}, {"half", DType::kF16},
    {"bfloat16", DType::kBF16}, {"fp64", DType::kF64},  {"float64", DType::kF64},
    {"double", DType::kF64},  {"int8", DType::kS8},     {"uint8", DType::kU8},
    {"int4", DType::kS4},     {"int16", DType::kS16},   {"int32", DType::kS32},
    {"int64", DType::kS64},   {"fp8", DType::kF8E4M3FN}, {"e4m3", DType::kF8E4M3FN},
    {"e5m2", DType::kF8E5M2}, {"fp4", DType::kF4E2M1FN}, {"bool", DType::kPred},
};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::string_view dtype_name(DType t) {
  for (const Spelling& s : kSpellings)
    if (s.type == t) return s.name;
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  const std::string key = lower(name);
  for (const Spelling& s : kSpellings)
    if (s.name == key) return s.type;
  return std::nullopt;
}

std::optional<PeakClass> parse_peak_class(std::string_view name) {
  for (int i = 0; i < kPeakClassCount; ++i) {
    auto c = static_cast<PeakClass>(i);
    if (peak_class_name(c) == name) return c;
  }
  return std::nullopt;
}

}  // namespace roofline
