// Fitting a chip's calibration (roofline/calibration.hpp) to measured ops.
// Per cost class, the model of one occurrence is
//
//   T = floor_s + max(T_math / e_math, T_mem / e_mem, T_link / e_link)
//
// (matmul: one e_math per peak class with enough samples of its own, the
// class's for the rest). The fit is robust least squares on the relative
// error |measured / expected - 1|, the figure the fidelity benchmark reports:
// iteratively reweighted (Huber weights, then Tukey's biweight, so a handful
// of ops far off the curve, a cache-resident kernel or a mis-costed one,
// carry no weight), alternating with the assignment of which term is each
// op's maximum, under floor_s >= 0 and efficiencies > 0. An efficiency above
// 1 is kept and named in the notes: the roofline was beaten there. A class
// with fewer than FitOptions::min_samples samples keeps the chip's built-in
// curve (default_calibration), and a note says so. Where the built-in
// calibration has size curves (a GPU's; calibration.hpp), the whole fit is
// made twice, under them and without them, and the one that predicts its
// own samples better is kept (a note says which). A collective whose wait
// for its slowest peer could not be told apart (one rank read:
// CalibrationSample::wait_separable) is left out, and a note says so; one
// read on several ranks is fitted by its transfer (its time less that
// wait). Deterministic: the
// samples are sorted first, and nothing is random.
//
//   std::vector<roofline::CalibrationSample> s = roofline::calibration_samples(report, path);
//   roofline::CalibrationFit fit = roofline::fit_calibration(roofline::chip("h100-sxm"), s);
//   double t = roofline::expected_s(s[0], fit.calibration);
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "roofline/calibrate/sample.hpp"
#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"

namespace roofline {

struct FitOptions {
  // Fewer samples than this in a class (or assigned to one term of it, or of
  // one peak class) keep the built-in value for that class (or parameter).
  int min_samples = 3;
  // A kernel family (kernel_family) with this many ops or more, beside other
  // ops of its class, is fitted on its own; its curve is kept where it cuts
  // the family's median |error| against the class's curve by at least
  // kFamilyGain and leaves its 90th percentile no worse. Two launch-bound
  // ops tell a family's launch floor; its efficiencies, like a class's,
  // need min_samples ops each and stay the class's until then. Chosen by
  // the cross-validated benchmark on the real traces (docs/calibration.md,
  // "Kernel families", has the figures of each choice).
  int min_family_samples = 2;
};

// 2 points of median |error|: a smaller gain is within what refitting the
// same ops from another start moves (and the 1 us timers of many traces).
inline constexpr double kFamilyGain = 0.02;

// Where one class's curve came from.
enum class CurveOrigin : unsigned char { kBuiltIn, kFitted };
std::string_view curve_origin_name(CurveOrigin o);  // "built-in", "fit"

struct ClassFit {
  CurveOrigin origin = CurveOrigin::kBuiltIn;
  FitQuality quality;  // on this class's own samples (the other part's, when taken by fill_from_same_die)
};

// A fitted calibration with what it came from.
struct CalibrationFit {
  ChipCalibration calibration;
  std::array<ClassFit, kCostClassCount> classes{};
  std::vector<CalibrationSample> samples;  // sorted by trace, then op
  std::vector<std::string> notes;          // classes kept built-in, efficiencies above 1
};

// Fits `chip`'s calibration to `samples` (those of other chips are left
// out, with a note). With no sample at all, the built-in calibration.
CalibrationFit fit_calibration(const Chip& chip, std::vector<CalibrationSample> samples, const FitOptions& options = {});

// Classes `own` keeps built-in and `other` (a fit of another part built on
// the same die, Chip::die) fitted take `other`'s curve (for matmuls, its
// efficiency per peak class too), with a note naming `other`'s chip. An
// efficiency is a fraction of each part's own peaks and a floor a launch,
// so one part's fit times the other with its own peaks and launches.
void fill_from_same_die(CalibrationFit& own, const CalibrationFit& other);

// |measured / expected - 1| of `calibration` over `samples`: their count,
// median and 90th percentile.
FitQuality fit_quality(const ChipCalibration& calibration, std::span<const CalibrationSample> samples);

}  // namespace roofline
