// The match stage: where a measured op meets its prediction. A trace's op
// events are joined with the roofline of every op in them, in steps that
// each have their own header:
//
//   1. identify  (match/identify.hpp)    the devices to report on and their one chip;
//      measure  (measure/measured.hpp)  each device's op events, reduced to what
//                                        the report needs (per file, for many files);
//   2. group     (match/group.hpp)       the measured op events into ops;
//   3. find      (find_cost_source)      each op's cost source (match/cost_source.hpp):
//                                        its HLO instruction, PyTorch Input Dims, NCCL
//                                        args or XLA's recorded figures, as an OpModel;
//   4. attribute (match/attribute.hpp)   async transfers to their -done, loop caveats;
//   5. cost      (predict(OpModel, Chip), match/op_model.hpp) on the chip and the
//                                        what-if chip;
//   6. aggregate (aggregate)             per op, per module, per step and the whole run,
//                                        into the Report that report/render.hpp renders.
//
//   auto trace = roofline::read_trace("profile/");
//   roofline::ReportOptions o;                        // chip detected from the trace
//   absl::StatusOr<roofline::Report> r = roofline::make_report(*trace, o);
//   std::cout << roofline::render_text(*r);
//
// docs/report.md says which source each op gets and what every figure means.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/hlo/module.hpp"
#include "roofline/match/cost_source.hpp"
#include "roofline/match/group.hpp"
#include "roofline/match/hlo_index.hpp"
#include "roofline/match/identify.hpp"
#include "roofline/measure/measured.hpp"
#include "roofline/predict.hpp"
#include "roofline/match/report.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

struct CalibrationFile;  // roofline/calibrate/io.hpp

struct ReportOptions {
  // The chip to predict on; nullptr: the chip the devices report.
  const Chip* chip = nullptr;
  // What-if: the same ops predicted on another chip.
  const Chip* target_chip = nullptr;
  // Only devices with this id; all devices with op events otherwise.
  std::optional<int> device_id;
  // Extra HLO modules, matched by module name, or by instruction name when
  // the trace does not name modules. Must outlive the Match.
  const std::vector<HloModule>* hlo_modules = nullptr;
  // The calibration of the expected times: for the chip and for the what-if
  // chip. nullptr: the chip's built-in default_calibration(). A calibration
  // whose `chip` names another chip is not used (a note says so).
  const ChipCalibration* calibration = nullptr;
  const ChipCalibration* target_calibration = nullptr;
};

// Step 3: the cost source of one op, the first that applies of its HLO
// instruction, its launching op's Input Dims or its collective args, and
// XLA's recorded figures.
CostSource find_cost_source(const Trace& trace, const OpGroup& group, HloModuleIndex& modules);

// One op of the trace met with its prediction.
struct MatchedOp {
  OpGroup group = {};    // what was measured
  CostSource cost = {};  // how it is costed, or why it is not
  // One occurrence on the chip and on the what-if chip; empty without a
  // model (or without a what-if chip).
  std::optional<Prediction> prediction = {};
  std::optional<Prediction> target_prediction = {};
  // The curve that times the expectation, and one occurrence's calibrated
  // expected time on each chip (roofline/calibration.hpp); empty without a
  // prediction.
  CostClass cost_class = CostClass::kMemory;
  std::optional<double> expected_s = {};
  // On the what-if chip: the time of one occurrence by the method the
  // evidence supports (roofline/match/target.hpp), and that method.
  std::optional<double> target_expected_s = {};
  TargetMethod target_method = TargetMethod::kModelled;
  // The GEMM the op runs on the chip, where its dimensions are known
  // (gemm_shape, roofline/match/op_model.hpp): what its expected time
  // quantizes.
  std::optional<GemmShape> gemm = {};
};

// Steps 1 to 5 on one trace. Holds pointers into the trace, the chips and
// the HLO modules of the options: they must outlive it.
struct Match {
  const Trace* trace = nullptr;
  ChipChoice chip;
  const Chip* target_chip = nullptr;
  std::optional<int> device_id;      // ReportOptions::device_id
  std::vector<std::size_t> devices;  // indices into Trace::devices
  std::vector<MatchedOp> ops;        // in order of first occurrence
  // What was measured on the devices, and occurrence_op[device][i]: the
  // index into `ops` of the selected device's measured.devices[..].ops[i].
  MeasuredTrace measured;
  std::vector<std::vector<std::uint32_t>> occurrence_op;
  HloModuleIndex modules;  // owns the embedded HLO the ops' models point into
  // The calibrations the expected times came from (ReportOptions, or the
  // chips' built-in ones).
  ChipCalibration calibration;
  std::optional<ChipCalibration> target_calibration;
  std::vector<std::string> notes;

  Match(const Trace& t, const std::vector<HloModule>* extra) : trace(&t), modules(t, extra) {}
};

// Fails when the device asked for has no op events, when no device has
// any, or when no chip is given and the devices do not report one (the
// message then ends in kSetChipAdvice).
absl::StatusOr<Match> match(const Trace& trace, const ReportOptions& options);

// The same from a measurement of the trace's devices (measure(), or
// read_measured() of many files; roofline/measure/measured.hpp) instead of
// its events, which `trace` need not hold. `measured` must be for
// options.device_id.
absl::StatusOr<Match> match(const Trace& trace, MeasuredTrace measured, const ReportOptions& options);

// Step 6: totals per op, module, step and run, with the notes a reader needs.
Report aggregate(const Match& match);

// aggregate(match(trace, options)).
absl::StatusOr<Report> make_report(const Trace& trace, const ReportOptions& options);

// aggregate(match(trace, measured, options)).
absl::StatusOr<Report> make_report(const Trace& trace, MeasuredTrace measured, const ReportOptions& options);

// The same, with the error message, Report::chip_source and the notes in a
// front end's words for the options (identify.hpp: OptionWords).
absl::StatusOr<Report> make_report(const Trace& trace, const ReportOptions& options, const OptionWords& words);
absl::StatusOr<Report> make_report(const Trace& trace, MeasuredTrace measured, const ReportOptions& options,
                                   const OptionWords& words);

// Points options.calibration at `file`'s entry for the chip the report will
// predict on (options.chip, else the chip the trace's selected devices name)
// and options.target_calibration at its entry for the what-if chip
// (CalibrationFile::find: a same-die entry where the file has none of its
// own); a chip with neither keeps its built-in calibration (nullptr), as
// does a trace whose chip cannot be decided (make_report then says why).
// Call it after setting chip, target_chip and device_id; `file` must
// outlive `options`.
//
//   roofline::CalibrationFile cal = *roofline::read_calibration_file("cal.json");
//   roofline::use_calibration_file(*trace, cal, options);
void use_calibration_file(const Trace& trace, const CalibrationFile& file, ReportOptions& options);
// The same for a trace measured (read_measured: without its events).
void use_calibration_file(const Trace& trace, const MeasuredTrace& measured, const CalibrationFile& file,
                          ReportOptions& options);

}  // namespace roofline
