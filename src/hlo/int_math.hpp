// Overflow-safe integer arithmetic for sizes read from untrusted input: a
// shape like f32[9223372036854775807,4] must give a (saturated) answer, never
// undefined behaviour.
#pragma once

#include <cstdint>
#include <limits>

namespace roofline::detail {

inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// For products of two int64 values that must not overflow (GCC and clang
// both have it; __extension__ keeps -Wpedantic quiet).
__extension__ typedef __int128 int128;

// a * b for non-negative operands, saturating at INT64_MAX.
inline std::int64_t sat_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (a < 0 || b < 0) return 0;
  if (__builtin_mul_overflow(a, b, &r)) return kInt64Max;
  return r;
}

inline std::int64_t sat_add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return kInt64Max;
  return r;
}

// The smallest multiple of m that is >= v, for v >= 0, m >= 1; saturating.
inline std::int64_t round_up(std::int64_t v, std::int64_t m) {
  if (m <= 1 || v <= 0) return v < 0 ? 0 : v;
  const std::int64_t rem = v % m;
  return rem == 0 ? v : sat_add(v, m - rem);
}

// ceil(a / b) for a >= 0, b >= 1.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return a <= 0 ? 0 : a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace roofline::detail
