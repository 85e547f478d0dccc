// How the CLI prints a Prediction; the JSON keys are part of the CLI's
// documented interface (docs/cli.md).
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/predict.hpp"
#include "roofline/format/units.hpp"

namespace roofline::cli {

inline nlohmann::json prediction_json(const Prediction& p, const std::string& chip_name) {
  return {{"chip", chip_name},
          {"dtype", std::string(dtype_name(p.dtype))},
          {"flops", p.flops},
          {"hbm_bytes", p.hbm_bytes},
          {"ici_bytes", p.ici_bytes},
          {"t_math_s", p.t_math_s},
          {"t_hbm_s", p.t_hbm_s},
          {"t_ici_s", p.t_ici_s},
          {"t_lower_s", p.t_lower_s},
          {"t_upper_s", p.t_upper_s},
          {"bound", std::string(bound_name(p.bound))},
          {"intensity", p.intensity_flops_per_byte},
          {"ridge_intensity", p.ridge_flops_per_byte}};
}

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

}  // namespace roofline::cli
