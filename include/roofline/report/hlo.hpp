// The renderers of `roofline hlo`: the text table with the module total and
// its caveats, the JSON document (docs/json.md) and the CSV (one row per
// instruction). The CLI prints exactly these; Python's HloResult.to_text(),
// to_json() and to_csv() return them.
//
//   const roofline::HloModule module = *roofline::read_hlo_file("step.hlo");
//   const roofline::HloModulePrediction mp = roofline::predict(module, v5e);
//   std::fputs(roofline::hlo_text(module, mp, v5e, roofline::default_calibration(v5e), {.top = 10}).c_str(), stdout);
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/format/json.hpp"
#include "roofline/hlo/module.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/sharding/mesh.hpp"

namespace roofline {

struct HloRenderOptions {
  std::size_t top = 0;         // the `top` slowest rows only; 0: every row
  const Mesh* mesh = nullptr;  // the mesh the module was predicted over (HloCollectiveOptions::mesh), if any
};

// The rows longest first by what each costs per run of the module
// (total_t_lower_s()), ties in execution order; the first `top` (0: all).
// They point into `mp`.
std::vector<const HloPredictionRow*> hlo_rows_slowest_first(const HloModulePrediction& mp, std::size_t top);

// The module line, one table row per instruction (the slowest first), the
// total of one run, the expected total through `cal`, the caveats (unknown
// costs and trip counts, a group timed as one ring where a mesh axis would
// be faster), and what the collective plan did. Names from the file go
// through for_terminal().
std::string hlo_text(const HloModule& module, const HloModulePrediction& mp, const Chip& chip,
                     const ChipCalibration& cal, const HloRenderOptions& options = {});

// {"module", "chip", "calibration", "instructions" (the rows, slowest
// first), "loop_warnings", "total" (every row, not only the `top` ones)}.
Json hlo_json(const HloModule& module, const HloModulePrediction& mp, const Chip& chip, const ChipCalibration& cal,
              const HloRenderOptions& options = {});

// One CSV row per instruction, the slowest first (to_csv of the rows).
std::string hlo_csv(const HloModulePrediction& mp, const Chip& chip, const ChipCalibration& cal,
                    const HloRenderOptions& options = {});

// "runs_overflow" or "trip_count_unknown": the JSON's "kind".
std::string_view hlo_loop_warning_kind(HloLoopWarning::Kind kind);

// One line per loop charged fewer times than it runs, naming `file`, the
// loop and its computation, safe for a terminal (the CLI prints each as
// "warning: LINE" on stderr, whatever the format).
std::vector<std::string> hlo_loop_warning_lines(std::string_view file, const HloModulePrediction& mp);

// The loop warnings as the JSON's "loop_warnings": name, computation, kind, reason.
Json hlo_loop_warnings_json(const HloModulePrediction& mp);

}  // namespace roofline
