// The library's words for its options (ReportOptions::chip, ...) in the
// CLI's (--chip, --device N), for the errors and notes of report,
// calibrate and fidelity.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "roofline/match/identify.hpp"

namespace roofline::cli {

inline constexpr OptionWords kCliWords{.set_chip_advice = "pass --chip NAME",
                                       .given_chip_source = "--chip",
                                       .one_device_advice = "use --device N for one"};

inline std::string in_cli_words(std::string text) { return in_words(std::move(text), kCliWords); }

inline absl::Status in_cli_words(const absl::Status& status) {
  return absl::Status(status.code(), in_cli_words(std::string(status.message())));
}

}  // namespace roofline::cli
