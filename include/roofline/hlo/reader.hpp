// Reading HLO modules the way users have them:
//   * HLO text, as `jax.jit(f).lower(...).compile().as_text()` returns it and
//     as --xla_dump_to writes it (module_NNNN.<name>.<stage>.txt), long or
//     short style (with or without '%', metadata, operand shapes);
//   * binary HloProto (xla.HloProto, e.g. what the profiler embeds in an
//     .xplane.pb) or a bare xla.HloModuleProto (--xla_dump_hlo_as_proto,
//     `as_serialized_hlo_module_proto()`).
// Both give the same HloModule. Errors name the input and the place:
//   "model.hlo:12:40: expected '}' to close the layout, found ')'"
//   "step.pb: byte 4012: truncated length-delimited field"
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "roofline/hlo/module.hpp"

namespace roofline {

enum class HloFormat : unsigned char { kText, kProto };

// HLO text starts (after blanks and comments) with "HloModule"; anything else
// is taken for a binary proto.
HloFormat detect_hlo_format(std::string_view content);

// `origin` names the input in error messages (usually the file name).
absl::StatusOr<HloModule> parse_hlo_text(std::string_view text, std::string_view origin = "<hlo text>");
absl::StatusOr<HloModule> parse_hlo_proto(std::string_view bytes, std::string_view origin = "<hlo proto>");
// Either of the two, by detect_hlo_format.
absl::StatusOr<HloModule> parse_hlo(std::string_view content, std::string_view origin);

// Reads a file of either format.
absl::StatusOr<HloModule> read_hlo_file(const std::string& path);

}  // namespace roofline
