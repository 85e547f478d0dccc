// The per-step breakdown (roofline/measure/steps.hpp) as text and JSON:
// roofline stats --by step (docs/traces.md, "By step").
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "roofline/format/json.hpp"
#include "roofline/measure/steps.hpp"
#include "roofline/match/report.hpp"

namespace roofline {

// Per device: the variance line, then one row per step (at most `rows`;
// the rest are counted) and its largest gaps with their host activity.
std::string render_steps_text(const StepBreakdown& b, std::size_t rows);

// {"devices": [{"device", "name", "from_host", "variance": {...}, "steps": [...]}]};
// keys in docs/json.md terms: seconds in *_s. `extra(device, step, row)`,
// when given, adds keys to each step's row (indices into b.devices and its
// steps).
Json steps_json(const StepBreakdown& b,
                const std::function<void(std::size_t, std::size_t, Json&)>& extra = {});

// roofline report --by step: the same beside the report's roofline of each
// step (ReportSummary::steps, joined by device id and step name in order):
// columns roofline and MFU; JSON keys predicted_s, model_flops, mfu per step
// and the report's chip.
std::string render_report_steps_text(const Report& r, const StepBreakdown& b, std::size_t rows);
Json report_steps_json(const Report& r, const StepBreakdown& b);

}  // namespace roofline
