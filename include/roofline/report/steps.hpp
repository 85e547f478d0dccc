// The per-step breakdown (roofline/measure/steps.hpp) as text and JSON:
// roofline stats --by step (docs/traces.md, "By step").
#pragma once

#include <cstddef>
#include <string>

#include "roofline/format/json.hpp"
#include "roofline/measure/steps.hpp"

namespace roofline {

// Per device: the variance line, then one row per step (at most `rows`;
// the rest are counted) and its largest gaps with their host activity.
std::string render_steps_text(const StepBreakdown& b, std::size_t rows);

// {"devices": [{"device", "name", "from_host", "variance": {...}, "steps": [...]}]};
// keys in docs/json.md terms: seconds in *_s.
Json steps_json(const StepBreakdown& b);

}  // namespace roofline
