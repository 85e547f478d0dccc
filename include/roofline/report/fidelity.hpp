// The fidelity benchmark's renderers (roofline fidelity; the benchmark
// itself is roofline/calibrate/fidelity.hpp, docs/fidelity.md).
#pragma once

#include <cstddef>
#include <string>

#include "roofline/calibrate/fidelity.hpp"

namespace roofline {

enum class FidelityFormat : unsigned char { kText, kMarkdown, kJson };

// Text and Markdown: one table of the rows, then the bounds above measured
// with their reasons, the ops furthest from their calibrated expectation
// (kFidelityOpsShown of them), then the notes. JSON: the same fields, every
// op compared in `ops` (docs/fidelity.md).
inline constexpr std::size_t kFidelityOpsShown = 15;
std::string render_fidelity(const FidelityResult& result, FidelityFormat format);

}  // namespace roofline
