// The fidelity benchmark: how well the roofline and the calibrated
// expectation predict measured ops. Over every comparable op (calibrate/
// sample.hpp: predicted, synchronous, measured) of a set of traces it
// counts the lower bounds above the measured median, each named with what
// can be said about it, and gives the median and 90th percentile of
// |measured / expected - 1| for three expectations:
//   roofline    expected = the roofline's lower bound itself;
//   built-in    the chip's default_calibration();
//   calibrated  a fit under cross-validation: leave one trace out (fit on
//               the chip's other traces, test on the one left out); where a
//               chip has one trace with samples, two folds of its distinct
//               ops split by a hash of the op name (fit on one half, test on
//               the other, and back). Or, with FidelityOptions::calibration,
//               that calibration as given.
// docs/fidelity.md shows the run on the real traces and explains each figure.
//
//   std::vector<roofline::FidelityTrace> t = ...;  // a Report per trace, with its chip
//   roofline::FidelityResult r = roofline::run_fidelity(t, {});
//   std::cout << roofline::render_fidelity(r, roofline::FidelityFormat::kText);  // roofline/report/fidelity.hpp
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/calibrate/fit.hpp"
#include "roofline/calibrate/io.hpp"
#include "roofline/chip.hpp"
#include "roofline/match/report.hpp"

namespace roofline {

struct FidelityTrace {
  std::string trace = {};  // the path, as given
  Report report = {};
  Chip chip = {};  // the chip report.chip names (its on-chip memories, its built-in calibration)
};

struct FidelityOptions {
  // A calibration to judge instead of the cross-validated fit; a chip it
  // lacks uses a same-die entry (CalibrationFile::find) or else its
  // built-in calibration (a note says which).
  const CalibrationFile* calibration = nullptr;
  FitOptions fit = {};
  // Ops whose measured median is below this are left out of the figures
  // (and of the fits that make the calibrated column): 0 compares every op.
  // The per-op targets are on ops of 20 us or more, where a launch
  // floor no longer dominates the time.
  double min_measured_s = 0;
};

// How far an expectation is from the measured ops: the median, 90th
// percentile and mean of |measured / expected - 1| over the ops (the mean
// is the figure NeuSight and LLMCompass publish), and the whole ratio,
// the ops' summed measured time over their summed expected time (each op's
// total over its occurrences): what a user reads as "measured is N x the
// expected" for the whole trace.
struct ErrorFigures {
  double median_abs_error = 0;
  double p90_abs_error = 0;
  double mean_abs_error = 0;
  double whole_ratio = 0;  // sum measured / sum expected; 0 for no ops
};

// A lower bound above the measured median of one occurrence.
struct BoundAbove {
  std::string trace;
  std::string op;
  std::string chip;
  double bound_s = 0;     // the roofline of one occurrence
  double measured_s = 0;  // the measured median of one occurrence
  double ratio = 0;       // bound / measured, > 1
  std::string reason;     // cost source, class, working set against the on-chip memories, match notes
};

// Figures over one trace, one chip or everything.
struct FidelityRow {
  std::string name;  // the trace, the chip, or "overall"
  std::string chip;  // empty for the overall row
  std::int64_t ops = 0;           // ops compared
  std::int64_t bounds_above = 0;  // lower bounds above the measured median
  ErrorFigures roofline = {}, builtin = {}, calibrated = {};
};

// One compared op and its three expectations (calibrated: the cross-validated
// fit that did not see the op, or the calibration given). Times are of one
// occurrence.
struct FidelityOp {
  std::string trace;
  std::string op;
  std::string chip;
  std::string shapes;  // OpReport::shapes: which of the rows of one name it is
  CostClass cost_class = CostClass::kMemory;
  std::int64_t count = 0;  // occurrences in the trace
  double measured_s = 0;   // the measured median
  double bound_s = 0;      // the roofline
  double builtin_s = 0;
  double calibrated_s = 0;
  // A collective's wait for its slowest peer in one occurrence: its calls'
  // total wait over the ranks read (roofline/measure/skew.hpp: each call's
  // time less the shortest call's) over its occurrences. Set where two or
  // more ranks were read; the expectations are then compared with
  // transfer_s, not the whole call. Unset for other ops, and for a
  // collective read on one rank, whose wait cannot be told apart
  // (wait_separable false): such an op counts only in its own class row,
  // kWaitNotSeparableRow (docs/fidelity.md says why).
  std::optional<double> wait_s = {};
  double transfer_s = 0;  // measured_s - wait_s; measured_s where no wait is known
  bool wait_separable = true;
  // Where a chip has one trace, the half of its ops this op fell in (0 or
  // 1: calibrated_s is the other half's fit); -1 where its trace was left
  // out whole or a calibration was given.
  int fold = -1;
};

// The class row of the collectives read on one rank (FidelityOp::wait_separable).
inline constexpr std::string_view kWaitNotSeparableRow = "collective, wait not separable";

struct FidelityResult {
  std::string calibrated;  // how the calibrated column was made
  std::vector<FidelityRow> traces;  // in the order given
  std::vector<FidelityRow> chips;   // by chip name
  std::vector<FidelityRow> classes; // by cost class (name: "matmul", ...), over every trace
  FidelityRow overall;
  std::vector<BoundAbove> bounds_above;  // largest ratio first
  std::vector<FidelityOp> ops;  // every op compared, furthest from its calibrated expectation first
  std::vector<std::string> notes;
};

FidelityResult run_fidelity(std::span<const FidelityTrace> traces, const FidelityOptions& options = {});


}  // namespace roofline
