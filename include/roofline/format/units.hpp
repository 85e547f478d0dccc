// Human-readable figures for tables and messages: SI prefixes with three
// significant digits ("89.3 ms", "17.6 TFLOP", "3.22 GB"). Used by the
// report's renderers and the CLI alike; machine formats (JSON, CSV:
// roofline/format/json.hpp, csv.hpp) print raw SI numbers instead.
//
//   roofline::format_seconds(0.0893);        // "89.3 ms"
//   roofline::format_si(1.97e14, "FLOP/s");  // "197 TFLOP/s"

#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace roofline {

inline std::string format_si(double value, const char* unit, int significant = 3) {
  if (value == 0) return std::string("0 ") + unit;
  if (!std::isfinite(value)) return std::isnan(value) ? "-" : "inf";
  static constexpr struct { double scale; const char* prefix; } kPrefixes[] = {
      {1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"},
      {1, ""},     {1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}, {1e-12, "p"}};
  const double mag = std::fabs(value);
  char buf[64];
  if (mag >= 999.5e18) {
    // Past the largest prefix a fixed-point figure would run to dozens of
    // digits (and overflow the buffer): "2.00e+27 FLOP".
    std::snprintf(buf, sizeof buf, "%.*e %s", significant > 1 ? significant - 1 : 0, value, unit);
    return buf;
  }
  double scale = 1e-12;
  const char* prefix = "p";
  for (const auto& p : kPrefixes)
    if (mag >= p.scale * 0.9995) {
      scale = p.scale;
      prefix = p.prefix;
      break;
    }
  const double scaled = value / scale;
  const int int_digits = std::fabs(scaled) >= 100 ? 3 : std::fabs(scaled) >= 10 ? 2 : 1;
  const int decimals = significant > int_digits ? significant - int_digits : 0;
  std::snprintf(buf, sizeof buf, "%.*f %s%s", decimals, scaled, prefix, unit);
  return buf;
}

inline std::string format_seconds(double s) { return format_si(s, "s"); }
inline std::string format_bytes(double b) { return format_si(b, "B"); }
inline std::string format_percent(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  char buf[32];
  // Small shares keep two significant digits so 0.04% does not read as 0.
  if (fraction != 0 && std::fabs(fraction) < 0.001)
    std::snprintf(buf, sizeof buf, "%.2g%%", 100 * fraction);
  else
    std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

}  // namespace roofline
