// Joins a measured trace with the roofline of every op in it.
//
//   auto trace = roofline::read_trace("profile/");
//   roofline::ReportOptions o;                       // chip detected from the trace
//   absl::StatusOr<roofline::Report> r = roofline::make_report(*trace, o);
//   std::cout << roofline::render_text(*r);
//
// How each op finds its cost, first that applies (docs/report.md):
//   1. its HLO instruction, from the HloProtos the profiler embedded in an
//      .xplane.pb or from modules given in `hlo_modules` (--hlo): our cost
//      model (roofline/hlo/cost.hpp) on the chip;
//   2. a PyTorch kernel: the aten op that launched it and its Input Dims
//      (matmuls, attention, element-wise, norms, copies);
//   3. an NCCL/RCCL kernel: its message size and group size, timed by the
//      collective model;
//   4. XLA's own flops / bytes_accessed recorded for the op;
//   otherwise the op is listed as unmatched, with its time and the reason.
#pragma once

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/chip.hpp"
#include "roofline/hlo/module.hpp"
#include "roofline/report/report.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

struct ReportOptions {
  // The chip to predict on; nullptr: detect it from the trace's device names.
  const Chip* chip = nullptr;
  // What-if: the same ops predicted on another chip.
  const Chip* target_chip = nullptr;
  // Only devices with this id; all accelerator devices otherwise.
  std::optional<int> device_id;
  // Extra HLO modules (--hlo), matched by module name, or by instruction
  // name when the trace does not name modules.
  const std::vector<HloModule>* hlo_modules = nullptr;
};

// Fails when no chip is given and none can be detected, or when the device
// asked for is not in the trace.
absl::StatusOr<Report> make_report(const Trace& trace, const ReportOptions& options);

}  // namespace roofline
