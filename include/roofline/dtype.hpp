// Element types and the peak-FLOP/s classes a chip spec is keyed by.
//
// One enum covers every element type an HLO shape can name, so the HLO
// reader, the trace readers and the op descriptions share it. A chip does not
// publish a peak for each of them: `peak_class(dtype)` says which row of the
// chip's peak table governs arithmetic in that type (f8e4m3fn -> "fp8",
// s8 -> "int8", ...).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace roofline {

enum class DType : std::uint8_t {
  kPred,
  kS2, kS4, kS8, kS16, kS32, kS64,
  kU2, kU4, kU8, kU16, kU32, kU64,
  kF16, kBF16, kF32, kF64,
  kF4E2M1FN, kF8E3M4, kF8E4M3, kF8E4M3FN, kF8E4M3B11FNUZ, kF8E4M3FNUZ,
  kF8E5M2, kF8E5M2FNUZ, kF8E8M0FNU,
  kC64, kC128,
  kToken,
};

// The rows of a chip's peak-FLOP/s table. JSON keys are the names returned by
// `peak_class_name`.
enum class PeakClass : std::uint8_t {
  kFp64, kFp32, kTf32, kBf16, kFp16, kFp8, kInt8, kInt4, kFp4,
};
inline constexpr int kPeakClassCount = 9;

// Storage size in bits (sub-byte types are 2 or 4; token and pred as XLA
// stores them: pred is one byte, token zero).
constexpr int bit_width(DType t) {
  switch (t) {
    case DType::kToken: return 0;
    case DType::kS2: case DType::kU2: return 2;
    case DType::kS4: case DType::kU4: case DType::kF4E2M1FN: return 4;
    case DType::kPred: case DType::kS8: case DType::kU8:
    case DType::kF8E3M4: case DType::kF8E4M3: case DType::kF8E4M3FN:
    case DType::kF8E4M3B11FNUZ: case DType::kF8E4M3FNUZ: case DType::kF8E5M2:
    case DType::kF8E5M2FNUZ: case DType::kF8E8M0FNU: return 8;
    case DType::kS16: case DType::kU16: case DType::kF16: case DType::kBF16: return 16;
    case DType::kS32: case DType::kU32: case DType::kF32: return 32;
    case DType::kS64: case DType::kU64: case DType::kF64: case DType::kC64: return 64;
    case DType::kC128: return 128;
  }
  return 0;
}

// Bytes per element for whole-byte types; sub-byte types report a fraction.
constexpr double bytes_per_element(DType t) { return bit_width(t) / 8.0; }

// Which peak governs arithmetic in `t`. Integer types wider than 8 bits and
// predicates run on the vector units; we charge them against the fp32 row,
// the closest published figure. Complex types use their component's row.
constexpr PeakClass peak_class(DType t) {
  switch (t) {
    case DType::kF64: case DType::kC128: return PeakClass::kFp64;
    case DType::kBF16: return PeakClass::kBf16;
    case DType::kF16: return PeakClass::kFp16;
    case DType::kF8E3M4: case DType::kF8E4M3: case DType::kF8E4M3FN:
    case DType::kF8E4M3B11FNUZ: case DType::kF8E4M3FNUZ: case DType::kF8E5M2:
    case DType::kF8E5M2FNUZ: case DType::kF8E8M0FNU: return PeakClass::kFp8;
    case DType::kS8: case DType::kU8: return PeakClass::kInt8;
    case DType::kS4: case DType::kU4: case DType::kS2: case DType::kU2: return PeakClass::kInt4;
    case DType::kF4E2M1FN: return PeakClass::kFp4;
    default: return PeakClass::kFp32;
  }
}

constexpr std::string_view peak_class_name(PeakClass c) {
  constexpr std::array<std::string_view, kPeakClassCount> names = {
      "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"};
  return names[static_cast<int>(c)];
}

// The class whose name peak_class_name() returns ("bf16", "fp32", ...).
constexpr std::optional<PeakClass> parse_peak_class(std::string_view name) {
  for (int i = 0; i < kPeakClassCount; ++i) {
    const auto c = static_cast<PeakClass>(i);
    if (peak_class_name(c) == name) return c;
  }
  return std::nullopt;
}

namespace detail {

struct DTypeSpelling {
  std::string_view name;
  DType type;
};

// HLO spellings first: dtype_name() returns the first entry for a type.
inline constexpr DTypeSpelling kDTypeSpellings[] = {
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

// ASCII case-insensitive equality, `lower` already lower case.
constexpr bool equals_ignoring_case(std::string_view s, std::string_view lower) {
  if (s.size() != lower.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i] >= 'A' && s[i] <= 'Z' ? static_cast<char>(s[i] - 'A' + 'a') : s[i];
    if (c != lower[i]) return false;
  }
  return true;
}

}  // namespace detail

// HLO spelling: "bf16", "f32", "s8", "f8e4m3fn", "pred", "token", ...
constexpr std::string_view dtype_name(DType t) {
  for (const detail::DTypeSpelling& s : detail::kDTypeSpellings)
    if (s.type == t) return s.name;
  return "?";
}

// Accepts the HLO spellings plus the common aliases users type on a command
// line ("fp32", "float32", "fp16", "int8", "fp8" = f8e4m3fn, "bfloat16"),
// in any letter case.
constexpr std::optional<DType> parse_dtype(std::string_view name) {
  for (const detail::DTypeSpelling& s : detail::kDTypeSpellings)
    if (detail::equals_ignoring_case(name, s.name)) return s.type;
  return std::nullopt;
}

// The wider-precision of two operand types, which decides the peak of a
// mixed-precision matmul (int8 weights with bf16 activations compute in bf16).
constexpr DType compute_dtype(DType a, DType b) {
  auto rank = [](DType t) {
    switch (peak_class(t)) {
      case PeakClass::kFp64: return 8;
      case PeakClass::kFp32: return 7;
      case PeakClass::kTf32: return 6;
      case PeakClass::kBf16: return 5;
      case PeakClass::kFp16: return 5;
      case PeakClass::kFp8: return 3;
      case PeakClass::kInt8: return 2;
      case PeakClass::kInt4: return 1;
      case PeakClass::kFp4: return 0;
    }
    return 0;
  };
  return rank(b) > rank(a) ? b : a;
}

}  // namespace roofline
