// How the CLI prints a Prediction and its calibrated expectation as text;
// their JSON is the library's (roofline/report/json.hpp,
// roofline/expected/expected.hpp, docs/json.md).
#pragma once

#include <cstdio>
#include <string>

#include "roofline/format/terminal.hpp"
#include "roofline/calibration.hpp"
#include "roofline/format/units.hpp"
#include "roofline/predict.hpp"

namespace roofline::cli {

inline std::string prediction_text(const Prediction& p) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "  FLOPs       %s\n  HBM bytes   %s\n  T_math      %s\n  T_hbm       %s\n"
                "  T_ici       %s\n  lower bound %s (max)   upper bound %s (sum)\n"
                "  bound       %s   intensity %.1f FLOP/B vs ridge %.1f FLOP/B\n",
                format_si(p.flops, "FLOP", 4).c_str(), format_bytes(p.hbm_bytes).c_str(),
                format_seconds(p.t_math_s).c_str(), format_seconds(p.t_hbm_s).c_str(),
                format_seconds(p.t_ici_s).c_str(), format_seconds(p.t_lower_s).c_str(),
                format_seconds(p.t_upper_s).c_str(), std::string(bound_name(p.bound)).c_str(),
                p.intensity_flops_per_byte, p.ridge_flops_per_byte);
  return buf;
}

// The line under a roofline that gives the expected time beside it:
// "  expected    96.2 ms (matmul curve; calibration: built-in: ...)", with
// `label` padded as the lines above it.
inline std::string expected_text(const char* label, double expected_s, CostClass c, const ChipCalibration& cal) {
  return std::string("  ") + label + format_seconds(expected_s) + " (" + std::string(cost_class_name(c)) +
         " curve; calibration: " + for_terminal(cal.origin) + ")\n";
}

}  // namespace roofline::cli
