// The first step of the match: which devices of a trace to report on, and
// the one chip their ops are predicted on, decided here and nowhere else.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/chip.hpp"
#include "roofline/chip_identity.hpp"
#include "roofline/measure/measured.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

// What the profiler said about a device, looked up in the chip area's one
// identity table (roofline/chip_identity.hpp): the model to show (as
// reported, or inferred from its capabilities) and the embedded chip, if any.
IdentifiedChip identify_device(const Device& device);

// The chip a device says it is, or nullptr when it does not say or we do not
// know the name: identify_device(device).chip. Every use of a device's chip
// in the match stage goes through this one function.
const Chip* reported_chip(const Device& device);

// Indices into Trace::devices of the devices with op events, or of the one
// whose id is `device_id`. Fails (NotFound) when that device has no op
// events, (InvalidArgument) when no device has any.
absl::StatusOr<std::vector<std::size_t>> select_devices(const Trace& trace, std::optional<int> device_id);
// The same from a measurement of the trace (MeasuredDevice::op_events),
// for a trace read without its events (read_measured).
absl::StatusOr<std::vector<std::size_t>> select_devices(const Trace& trace, const MeasuredTrace& measured,
                                                        std::optional<int> device_id);

// How the match stage's errors, notes and Report::chip_source name the
// options of ReportOptions (roofline/match/match.hpp). A front end that
// calls them otherwise (the CLI: --chip, --device N) puts its own words in
// place of these phrases.
//
// The end of the error decide_chip returns when the trace does not name its chip.
inline constexpr std::string_view kSetChipAdvice = "set ReportOptions::chip";
// Report::chip_source when the chip was given rather than detected.
inline constexpr std::string_view kGivenChipSource = "ReportOptions::chip";
// The end of the note on a report that sums several devices.
inline constexpr std::string_view kOneDeviceAdvice = "set ReportOptions::device_id for one";

// A front end's own words for the three phrases above: the CLI's
// {"pass --chip NAME", "--chip", "use --device N for one"}, Python's
// {"pass chip=NAME", "chip argument", "pass device=N for one"}.
struct OptionWords {
  std::string_view set_chip_advice;
  std::string_view given_chip_source;
  std::string_view one_device_advice;
};

// `text` with every phrase above replaced by its word in `words`.
std::string in_words(std::string text, const OptionWords& words);

struct ChipChoice {
  const Chip* chip = nullptr;  // never null in a returned choice
  // How it was decided: kGivenChipSource, or "detected from device 'TPU v6 lite'".
  std::string source = {};
  // What the report should say about the choice: the chip given contradicts
  // the one the devices report; the device's name left its memory size, so
  // its part, open (IdentifiedChip::warning); the trace's own peak FLOP/s or
  // HBM bandwidth differ from the chip's by more than kPeakNoteTolerance.
  std::vector<std::string> notes = {};
};

// Relative difference between a peak the trace reports for a device and the
// chip table's beyond which the report says so (it predicts with the table's).
inline constexpr double kPeakNoteTolerance = 0.005;

// `given` when not null (with a note when the devices report another chip),
// else the chip the first of `devices` that reports one names. Fails
// (InvalidArgument, ending in kSetChipAdvice) when none does.
absl::StatusOr<ChipChoice> decide_chip(const Trace& trace, std::span<const std::size_t> devices,
                                       const Chip* given);

}  // namespace roofline
