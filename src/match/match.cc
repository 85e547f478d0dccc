// match(): steps 1 to 5 in order (roofline/match/match.hpp).
#include "roofline/match/match.hpp"

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "roofline/calibrate/io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/match/target.hpp"
#include "src/match/expected_collective.hpp"

namespace roofline {
namespace {

bool is_container(const HloInstruction& i) {
  return i.opcode == HloOpcode::kWhile || i.opcode == HloOpcode::kCall || i.opcode == HloOpcode::kConditional;
}

// Every computation `loop` runs, directly or through nested calls.
std::set<const HloComputation*> computations_run_by(const HloInstruction& loop) {
  std::set<const HloComputation*> seen;
  std::vector<const HloComputation*> todo;
  for (const CalledComputation& c : loop.called_computations) todo.push_back(c.computation);
  while (!todo.empty()) {
    const HloComputation* c = todo.back();
    todo.pop_back();
    if (!c || !seen.insert(c).second) continue;
    for (const HloInstruction& i : c->instructions)
      for (const CalledComputation& cc : i.called_computations) todo.push_back(cc.computation);
  }
  return seen;
}

// Step 4, loops: a while (call, conditional) whose body ops have rows of
// their own is a container; its row keeps only the loop's own time, so the
// body's work is not charged twice (docs/report.md, "Loops").
void charge_loops_once(std::vector<MatchedOp>& ops) {
  std::set<const HloComputation*> timed;  // computations with an op of the trace in them
  for (const MatchedOp& op : ops)
    if (op.cost.instruction && op.cost.instruction->parent) timed.insert(op.cost.instruction->parent);
  for (MatchedOp& op : ops) {
    const HloInstruction* loop = op.cost.instruction;
    if (!loop || !op.cost.model || !std::holds_alternative<HloModel>(*op.cost.model) || !is_container(*loop))
      continue;
    int body_ops = 0;
    for (const HloComputation* c : computations_run_by(*loop)) body_ops += static_cast<int>(timed.count(c));
    if (body_ops == 0) continue;
    op.cost.model = LoopContainerModel{.instruction = loop};
    op.cost.rematerialised = false;
    op.cost.note = detail::cat(loop->opcode_name,
                               ": its body's ops are costed on their own rows; this row is the time it "
                               "spends outside them (condition, bookkeeping)");
  }
}

// A profile measured on XLA:CPU predicted on a TPU or GPU: the ops are what
// XLA:CPU compiled, not what the chip would run.
std::optional<std::string> cpu_profile_caveat(const Trace& trace, const Match& m) {
  bool cpu = false;
  for (std::size_t i : m.devices) cpu = cpu || trace.devices[i].kind == DeviceKind::kCpu;
  if (!cpu) return std::nullopt;
  std::string chips = m.chip.chip->name;
  if (m.target_chip) chips += " and " + m.target_chip->name;
  return detail::cat("the profile was measured on a CPU (XLA:CPU): its ops are what XLA:CPU compiled, not what ",
                     chips, " would run (XLA:CPU compiles a bf16 dot as convert, f32 dot, convert; it fuses "
                     "and lays out differently), so these predictions cost the CPU's program on that chip");
}

// The calibration given for `chip`, or its built-in one when none is given
// or the one given is another chip's (a note says so).
ChipCalibration calibration_for(const Chip& chip, const ChipCalibration* given, std::vector<std::string>& notes) {
  if (given == nullptr) return default_calibration(chip);
  if (given->chip == chip.name) return *given;
  notes.push_back(detail::cat("the calibration given is for ", given->chip, ", not ", chip.name,
                              ": expected times on ", chip.name, " use its built-in calibration"));
  return default_calibration(chip);
}

absl::Status not_its_measurement(const Trace& trace, const ReportOptions& options, const std::string& why) {
  return absl::InvalidArgumentError(
      detail::cat(trace.source, ": the measurement is not this trace's for ",
                  options.device_id ? detail::cat("device ", *options.device_id) : "all devices", ": ", why));
}

// What would index past the trace or leave a figure out, in the measurement
// of a selected device (one made by measure() has none); empty if nothing.
std::string inconsistency(const Trace& trace, std::size_t di, const MeasuredDevice& md) {
  const Device& d = trace.devices[di];
  const std::string device = detail::cat("device ", d.name, d.host.empty() ? "" : " @ " + d.host);
  if (!md.stats || !md.skew) return device + " has no statistics";
  if (md.steps.size() > d.steps.size()) return device + " has more steps measured than it has";
  for (const MeasuredStep& st : md.steps)
    if (st.mix >= md.step_mixes.size()) return device + ": a step's mix is missing";
  for (const StepMix& mix : md.step_mixes)
    for (const auto& [k, n] : mix)
      if (k >= md.ops.size()) return device + ": a step names an op it does not have";
  if (md.timeline)
    for (const TimedOccurrence& o : *md.timeline)
      if (o.occurrences >= md.ops.size()) return device + ": its timeline names an op it does not have";
  for (const OpOccurrences& o : md.ops)
    if (o.op >= trace.ops.size() || (o.call != kNoCall && o.call >= trace.calls.size()))
      return device + ": an op or call outside the trace's";
  for (const CollectiveCalls& c : md.skew->collectives)
    if (c.op >= trace.ops.size()) return device + ": a collective outside the trace's ops";
  return "";
}

}  // namespace

absl::StatusOr<Match> match(const Trace& trace, const ReportOptions& options) {
  return match(trace, measure(trace, options.device_id), options);
}

absl::StatusOr<Match> match(const Trace& trace, MeasuredTrace measured, const ReportOptions& options) {
  if (measured.device_id != options.device_id || measured.devices.size() != trace.devices.size())
    return not_its_measurement(trace, options, "another selection or another trace's devices");
  Match m(trace, options.hlo_modules);
  m.measured = std::move(measured);
  // 1. identify
  absl::StatusOr<std::vector<std::size_t>> devices = select_devices(trace, m.measured, options.device_id);
  if (!devices.ok()) return devices.status();
  for (std::size_t di : *devices)
    if (std::string why = inconsistency(trace, di, m.measured.devices[di]); !why.empty())
      return not_its_measurement(trace, options, why);
  m.device_id = options.device_id;
  m.devices = *std::move(devices);
  absl::StatusOr<ChipChoice> chip = decide_chip(trace, m.devices, options.chip);
  if (!chip.ok()) return chip.status();
  m.chip = *std::move(chip);
  for (const std::string& n : m.chip.notes) m.notes.push_back(n);
  m.target_chip = options.target_chip;
  if (std::optional<std::string> caveat = cpu_profile_caveat(trace, m)) m.notes.push_back(*std::move(caveat));
  // 2. group
  OpGroups groups = group_ops(trace, m.measured, m.devices);
  m.occurrence_op = std::move(groups.occurrence_group);
  // 3-5. find each op's cost source (attributing async pairs), cost it on
  // the chip and, with the same model, on the what-if chip, where its time
  // is measured, scaled or modelled (roofline/match/target.hpp).
  m.ops.reserve(groups.groups.size());
  for (OpGroup& g : groups.groups) {
    MatchedOp op{.group = std::move(g)};
    op.cost = find_cost_source(trace, op.group, m.modules);
    m.ops.push_back(std::move(op));
  }
  charge_loops_once(m.ops);
  m.calibration = calibration_for(*m.chip.chip, options.calibration, m.notes);
  if (m.target_chip) m.target_calibration = calibration_for(*m.target_chip, options.target_calibration, m.notes);
  for (MatchedOp& op : m.ops)
    if (op.cost.model) {
      op.cost_class = cost_class(*op.cost.model);
      op.prediction = predict(*op.cost.model, *m.chip.chip);
      // A fitted calibration may time the kernel's family on its own curve.
      const std::string& kernel = trace.ops[op.group.op].name;
      const std::string family = kernel_family(kernel);
      // The GEMM's tile is the kernel's (its name) on either chip.
      op.gemm = gemm_shape(*op.cost.model, kernel, *m.chip.chip);
      op.expected_s = expected_s(*op.prediction, op.cost_class, m.calibration, family, op.gemm);
      // Fewer output tiles than SMs: the waves leave most SMs idle unless
      // the kernel splits K, which not every name says (the V100's
      // volta_sgemm_128x32_nt does and ran 5.6x faster than its waves) and
      // the kernel's grid, which would tell, is not read. Say so.
      if (op.gemm && op.gemm->schedule == GemmSchedule::kTileWaves &&
          m.calibration.matmul_shape_model == MatmulShapeModel::kTileAndWave)
        if (const std::int64_t tiles = tile_count(op.gemm->dims, op.gemm->tile); tiles > 0 && tiles < op.gemm->units)
          op.cost.note += detail::cat(op.cost.note.empty() ? "" : "; ", "expected with ", tiles, " output tile",
                                      tiles == 1 ? "" : "s", " on ", op.gemm->units,
                                      " SMs in one wave: a kernel that splits K runs faster (its grid is not read)");
      if (m.calibration.collective_shape_model)
        if (std::optional<CollectiveExpectation> e =
                expected_collective(*op.cost.model, kernel, *op.prediction, *m.chip.chip)) {
          op.expected_s = e->total_s();
          op.cost.note += detail::cat(op.cost.note.empty() ? "" : "; ", "expected by ", e->basis);
        }
      // A collective's call holds its wait for the slowest peer; the skew
      // across ranks tells it apart (the report's "Across devices"), one
      // rank cannot.
      if (const std::optional<CollectiveShape> c = collective_shape(*op.cost.model);
          c && c->group_size > 1 && m.devices.size() < 2)
        op.cost.note += detail::cat(op.cost.note.empty() ? "" : "; ",
                                    "measured time holds the wait for the slowest peer: not separable with one "
                                    "rank read");
      if (m.target_chip) {
        op.target_prediction = predict(*op.cost.model, *m.target_chip);
        // The target's library picks its own kernel: the name's tile is the
        // measured chip's, so the target's GEMM is timed as one whose
        // kernel is not known (the usual tile, no waves).
        const std::string_view target_kernel = m.target_chip == m.chip.chip ? std::string_view(kernel) : std::string_view();
        double modelled_s = expected_s(*op.target_prediction, op.cost_class, *m.target_calibration, family,
                                       gemm_shape(*op.cost.model, target_kernel, *m.target_chip));
        if (m.target_calibration->collective_shape_model)
          if (std::optional<CollectiveExpectation> e =
                  expected_collective(*op.cost.model, kernel, *op.target_prediction, *m.target_chip))
            modelled_s = e->total_s();
        const TargetTime t = target_time(op, *m.chip.chip, *m.target_chip, modelled_s);
        op.target_expected_s = t.t_s;
        op.target_method = t.method;
      }
    }
  for (const std::string& n : m.modules.notes()) m.notes.push_back(n);
  for (std::string& n : m.modules.unused_given_notes()) m.notes.push_back(std::move(n));
  return m;
}

absl::StatusOr<Report> make_report(const Trace& trace, const ReportOptions& options) {
  absl::StatusOr<Match> m = match(trace, options);
  if (!m.ok()) return m.status();
  return aggregate(*m);
}

absl::StatusOr<Report> make_report(const Trace& trace, MeasuredTrace measured, const ReportOptions& options) {
  absl::StatusOr<Match> m = match(trace, std::move(measured), options);
  if (!m.ok()) return m.status();
  return aggregate(*m);
}

absl::StatusOr<Report> make_report(const Trace& trace, const ReportOptions& options, const OptionWords& words) {
  return make_report(trace, measure(trace, options.device_id), options, words);
}

absl::StatusOr<Report> make_report(const Trace& trace, MeasuredTrace measured, const ReportOptions& options,
                                   const OptionWords& words) {
  absl::StatusOr<Report> report = make_report(trace, std::move(measured), options);
  if (!report.ok()) return absl::Status(report.status().code(), in_words(std::string(report.status().message()), words));
  report->chip_source = in_words(std::move(report->chip_source), words);
  for (std::string& note : report->notes) note = in_words(std::move(note), words);
  return report;
}

namespace {

// use_calibration_file once the devices are selected (or not).
void use_calibration(const Trace& trace, const absl::StatusOr<std::vector<std::size_t>>& devices,
                     const CalibrationFile& file, ReportOptions& options) {
  const Chip* on = options.chip;
  if (on == nullptr && devices.ok())
    if (auto c = decide_chip(trace, *devices, nullptr); c.ok()) on = c->chip;
  if (on) options.calibration = file.find(on->name);
  if (options.target_chip) options.target_calibration = file.find(options.target_chip->name);
}

}  // namespace

void use_calibration_file(const Trace& trace, const CalibrationFile& file, ReportOptions& options) {
  use_calibration(trace, select_devices(trace, options.device_id), file, options);
}

void use_calibration_file(const Trace& trace, const MeasuredTrace& measured, const CalibrationFile& file,
                          ReportOptions& options) {
  use_calibration(trace, select_devices(trace, measured, options.device_id), file, options);
}

}  // namespace roofline
