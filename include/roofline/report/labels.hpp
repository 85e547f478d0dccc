// Words every renderer of a report shares (text, Markdown, HTML, JSON,
// CSV): how an op's bound, its cost source and a long kernel name are
// shown, and the headline of a report in which nothing was predicted.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/match/report.hpp"

namespace roofline {

// The op's bound as shown: bound_name() of its prediction ("compute",
// "memory", "communication", "host link": a transfer whose PCIe time is the
// largest term), "-" for a predicted op that takes no time, "unknown" when
// not predicted.
std::string op_bound_label(const OpReport& op);

// A short tag for the text and Markdown tables ("hlo", "file", "dims",
// "args", "bytes", "xla", "-"); kCostSourceLegend says what each means.
std::string_view cost_source_tag(MatchSource m);
inline constexpr std::string_view kCostSourceLegend =
    "src: hlo = HLO embedded in the profile, file = an HLO module given with --hlo, dims = the launching "
    "op's Input Dims, args = collective args, bytes = a copy's own bytes, xla = XLA's recorded flops/bytes, "
    "- = not predicted";

// A kernel name fit for a table cell of at most `max` characters: long C++
// names lose their "void " and parameter list, then their template
// arguments ("ns::kernel<...>"), then are clipped with "...". Unchanged when
// it already fits.
std::string short_op_name(std::string_view name, std::size_t max);

// measured / calibrated expected (>= 1: slower than a kernel as good as the
// calibration's), 0 when the op has no expected time (not predicted, or no
// work): shown as "-".
double expected_ratio(const OpReport& op);

// Where a report's expected times came from, as one phrase for a headline
// or an HTML caption: "calibration: built-in: published measurements (...)";
// "calibration not recorded" for a Report built by hand without one.
std::string calibration_label(const std::string& origin);

// The predicted ops' totals on the what-if chip (--target-chip): roofline
// and time on the target (OpReport::target_expected_s), summed over the ops
// that have them, and that time split by the method that found it
// (TargetMethod: modelled, scaled, measured), with its ops counted.
struct TargetTotals {
  double predicted_s = 0;
  double expected_s = 0;
  double measured_s = 0;  // the same ops' measured time on the report's chip
  std::array<double, 3> method_s{};
  std::array<int, 3> method_ops{};
};
TargetTotals target_totals(const Report& report);

// "120 ops scaled from their measured time (Habitat wave scaling) 41.2 ms,
// 117 modelled by the target's expected time 250 ms": the methods of the
// what-if's time, those with ops.
std::string target_methods_text(const TargetTotals& t);

// When no op of the report has a prediction: the headline that says so and
// why ("nothing could be predicted: 12 ops, 3.2 ms; main reasons: ..."),
// the reasons ranked by the measured time they cover. Empty otherwise.
std::optional<std::string> nothing_predicted_headline(const Report& report);

// Across devices (Report::across_devices), one line for the headline: the
// device most often the slowest in a step and the largest skew of those
// steps, and the collective wait summed over devices with the device the
// others most often waited for ("slowest device per step: rank3 @ h in 4 of
// 5 steps (up to +12.0 ms); collective waits: 35.0 ms over 64 devices, most
// often waiting for rank3 @ h (60 of 64 calls)"). Only the parts that have a
// straggler (a skew > 0); empty when neither has, or with no such figures.
// Device names pass through for_terminal(): safe on a terminal, and the HTML
// escapes the line as a whole.
std::optional<std::string> across_devices_headline(const Report& report);

// The steps with the largest skew, at most `top`, largest first (on a tie,
// step order).
std::vector<const StepStraggler*> steps_by_skew(const AcrossDevices& across, std::size_t top);

// The devices a table shows: every one when there are at most `max`, else
// the `max` with the most collective wait (on a tie, in device order).
std::vector<const DeviceWait*> devices_shown(const AcrossDevices& across, std::size_t max);
inline constexpr std::size_t kAcrossDevicesShown = 8;

}  // namespace roofline
