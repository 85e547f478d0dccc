// The fidelity benchmark's figures: see roofline/calibrate/fidelity.hpp.
#include "roofline/calibrate/fidelity.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>

#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"

namespace roofline {
namespace {

// One compared op: its sample, the report row it came from, and the
// expectation of each of the three columns.
struct Compared {
  CalibrationSample sample;
  const OpReport* op = nullptr;
  const FidelityTrace* trace = nullptr;
  double builtin_s = 0;
  double calibrated_s = 0;
  int fold = -1;  // FidelityOp::fold
  // FidelityOp's wait: sample.measured_s is the transfer where a wait is
  // known; wait_total_s is the wait of every occurrence.
  std::optional<double> wait_s = {};
  double wait_total_s = 0;
  bool wait_separable = true;
};

// A collective's wait as its sample took it apart (calibration_samples:
// sample.measured_s is already the transfer), or not separable.
void separate_wait(Compared& c) {
  if (c.sample.cost_class != CostClass::kCollective) return;
  c.wait_separable = c.sample.wait_separable;
  if (!c.wait_separable) return;
  const double n = static_cast<double>(c.sample.count);
  c.wait_total_s = c.sample.wait_total_s;
  c.wait_s = n > 0 ? c.wait_total_s / n : 0;
}

// FNV-1a, 64 bits, then splitmix64's finaliser: a hash that is the same on
// every platform and build, so the two folds of a one-trace chip are too.
// The finaliser mixes every bit into the low one (FNV-1a's own low bit is
// the parity of the name's odd bytes; names that differ in a suffix, as
// gemm.1 and gemm.2, would otherwise fall in one fold).
std::uint64_t fold_hash(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

// What tells one op from another for the folds: its name, the shapes it
// ran on and the work it is charged (the roofline's terms of one
// occurrence). Report rows alike in all of these (one kernel launched by
// aten::add and by aten::add_ on the same tensors) are one op and fall on
// one side; one kernel at two sizes is two ops, as it is between traces.
std::string distinct_op_key(const Compared& c) {
  return detail::cat(c.sample.op, '\0', c.op->shapes, '\0', c.sample.t_math_s, '\0', c.sample.t_mem_cold_s, '\0',
                     c.sample.t_link_s);
}

// What can be said about a lower bound above measured: where its cost came
// from, its class, and whether its working set (the bytes it is charged,
// read and written once) fits in one of the chip's on-chip memories, where
// it need not touch HBM at all.
std::string bound_reason(const OpReport& o, const CalibrationSample& s, const Chip& chip) {
  const double n = static_cast<double>(o.count);
  const double bytes = o.prediction.hbm_bytes / n;
  std::string fits;
  for (const OnChipMemory& m : chip.on_chip)
    if (m.bytes >= bytes) fits += detail::cat(fits.empty() ? "" : ", ", m.name, " (", format_bytes(m.bytes), ")");
  std::string text = detail::cat(match_source_name(o.match), " cost, ", cost_class_name(s.cost_class), " class, ",
                                 o.hlo_category.empty() ? o.category : o.hlo_category, ", bound ",
                                 bound_name(o.prediction.bound),
                                 "; working set ", format_bytes(bytes));
  if (!fits.empty()) text += detail::cat(" fits in ", fits, ": HBM bandwidth need not bound it");
  else if (!chip.on_chip.empty()) text += " exceeds every on-chip memory";
  if (!o.reason.empty()) text += detail::cat("; ", o.reason);
  return text;
}

// The figures of one expectation over some ops: `errors` per op, and the
// ops' summed measured and expected time (totals over occurrences).
ErrorFigures figures(const std::vector<double>& errors, double measured_total_s, double expected_total_s) {
  double sum = 0;
  for (double e : errors) sum += e;
  return ErrorFigures{.median_abs_error = quantile(errors, 0.5),
                      .p90_abs_error = quantile(errors, 0.9),
                      .mean_abs_error = errors.empty() ? 0 : sum / static_cast<double>(errors.size()),
                      .whole_ratio = expected_total_s > 0 ? measured_total_s / expected_total_s : 0};
}

FidelityRow row_of(std::string name, std::string chip, const std::vector<const Compared*>& ops) {
  FidelityRow r{.name = std::move(name), .chip = std::move(chip), .ops = static_cast<std::int64_t>(ops.size())};
  std::vector<double> raw, builtin, calibrated;
  double measured_total = 0, raw_total = 0, builtin_total = 0, calibrated_total = 0;
  for (const Compared* c : ops) {
    const double measured = c->sample.measured_s;
    if (roofline_s(c->sample) > measured) ++r.bounds_above;
    raw.push_back(abs_error(measured, roofline_s(c->sample)));
    builtin.push_back(abs_error(measured, c->builtin_s));
    calibrated.push_back(abs_error(measured, c->calibrated_s));
    // The whole ratio sums what the trace spent: every occurrence's own
    // time against the expectation of one occurrence times their count.
    const double n = static_cast<double>(c->sample.count);
    measured_total += c->op->measured_s - c->wait_total_s;
    raw_total += roofline_s(c->sample) * n;
    builtin_total += c->builtin_s * n;
    calibrated_total += c->calibrated_s * n;
  }
  r.roofline = figures(raw, measured_total, raw_total);
  r.builtin = figures(builtin, measured_total, builtin_total);
  r.calibrated = figures(calibrated, measured_total, calibrated_total);
  return r;
}

// The calibrated expectation of every op of one chip under cross-validation.
// Classes the training part cannot fit take `same_die`'s (a fit to the
// traces of another part of the same die, never the one tested) where it
// has them.
void cross_validate(const Chip& chip, std::vector<Compared*>& ops, const FitOptions& fit,
                    const CalibrationFit* same_die, std::vector<std::string>& notes) {
  std::map<std::string, std::vector<Compared*>> by_trace;
  for (Compared* c : ops) by_trace[c->sample.trace].push_back(c);
  std::set<std::string> borrowed;  // classes taken from same_die in some fold
  const auto fit_and_test = [&](const std::vector<Compared*>& train, const std::vector<Compared*>& test) {
    std::vector<CalibrationSample> samples;
    for (const Compared* c : train)
      if (c->wait_separable) samples.push_back(c->sample);
    CalibrationFit f = fit_calibration(chip, samples, fit);
    if (same_die) {
      const auto before = f.classes;
      fill_from_same_die(f, *same_die);
      // Named where it times an op tested.
      for (int i = 0; i < kCostClassCount; ++i)
        if (f.classes[i].origin != before[i].origin &&
            std::any_of(test.begin(), test.end(), [&](const Compared* c) { return static_cast<int>(c->sample.cost_class) == i; }))
          borrowed.insert(std::string(cost_class_name(static_cast<CostClass>(i))));
    }
    // A class the training part could not fit keeps the built-in curve;
    // for collectives that is the built-in shape model, builtin_s.
    const bool collectives_fitted = f.classes[static_cast<int>(CostClass::kCollective)].origin == CurveOrigin::kFitted;
    for (Compared* c : test)
      c->calibrated_s = c->sample.cost_class == CostClass::kCollective && !collectives_fitted
                            ? c->builtin_s
                            : expected_s(c->sample, f.calibration);
  };
  const auto note_borrowed = [&] {
    if (borrowed.empty()) return;
    std::string classes;
    for (const std::string& c : borrowed) classes += detail::cat(classes.empty() ? "" : ", ", c);
    notes.push_back(detail::cat(chip.name, ": classes its own training traces cannot fit (", classes, ") take ",
                                same_die->calibration.chip, "'s fit to its own traces (the same ", chip.die, " die)"));
  };
  if (by_trace.size() >= 2) {
    for (const auto& [trace, test] : by_trace) {
      std::vector<Compared*> train;
      for (Compared* c : ops)
        if (c->sample.trace != trace) train.push_back(c);
      fit_and_test(train, test);
    }
    note_borrowed();
    return;
  }
  std::vector<Compared*> halves[2];
  for (Compared* c : ops) {
    c->fold = static_cast<int>(fold_hash(distinct_op_key(*c)) & 1);
    halves[c->fold].push_back(c);
  }
  fit_and_test(halves[0], halves[1]);
  fit_and_test(halves[1], halves[0]);
  notes.push_back(detail::cat(chip.name, ": one trace with compared ops (", by_trace.begin()->first,
                              "): calibrated figures from two folds of its ops (", halves[0].size(), " and ",
                              halves[1].size(), ", split by a hash of the op's name, shapes and work)"));
  note_borrowed();
}

}  // namespace

FidelityResult run_fidelity(std::span<const FidelityTrace> traces, const FidelityOptions& options) {
  FidelityResult out;
  out.calibrated = options.calibration
                       ? "the calibration given"
                       : "fit under cross-validation: leave one trace out per chip, two folds of the ops where "
                         "a chip has one trace";
  std::vector<Compared> all;
  for (const FidelityTrace& t : traces) {
    std::size_t k = 0;
    const std::vector<CalibrationSample> samples = calibration_samples(t.report, t.trace);
    for (const OpReport& o : t.report.ops) {
      if (!comparable(o)) continue;
      const CalibrationSample& s = samples[k++];
      // The whole median: a collective's wait is in what the op took.
      if (o.median_s < options.min_measured_s) continue;
      all.push_back(Compared{.sample = s, .op = &o, .trace = &t});
      separate_wait(all.back());
    }
  }
  std::map<std::string, std::vector<Compared*>> by_chip;
  std::map<std::string, const Chip*> chips;
  for (Compared& c : all) {
    by_chip[c.sample.chip].push_back(&c);
    chips[c.sample.chip] = &c.trace->chip;
  }
  for (auto& [name, ops] : by_chip) {
    const Chip& chip = *chips[name];
    const ChipCalibration builtin = default_calibration(chip);
    // A collective the built-in calibration timed by its own shape
    // (collectives/expected.hpp) keeps the report's expectation: the
    // sample's terms alone cannot say which algorithm ran.
    for (Compared* c : ops)
      c->builtin_s = c->sample.cost_class == CostClass::kCollective && c->op->expected_s > 0 && c->sample.count > 0
                         ? c->op->expected_s / static_cast<double>(c->sample.count)
                         : expected_s(c->sample, builtin);
    if (options.calibration == nullptr) {
      // The first other chip of the same die (by name) whose fit to all its
      // traces fits a class.
      std::optional<CalibrationFit> same_die;
      for (const auto& [other, other_ops] : by_chip) {
        if (other == name || chip.die.empty() || chips[other]->die != chip.die) continue;
        std::vector<CalibrationSample> samples;
        for (const Compared* c : other_ops)
          if (c->wait_separable) samples.push_back(c->sample);
        CalibrationFit f = fit_calibration(*chips[other], samples, options.fit);
        if (std::none_of(f.classes.begin(), f.classes.end(),
                         [](const ClassFit& k) { return k.origin == CurveOrigin::kFitted; }))
          continue;
        same_die = std::move(f);
        break;
      }
      cross_validate(chip, ops, options.fit, same_die ? &*same_die : nullptr, out.notes);
      continue;
    }
    const ChipCalibration* given = options.calibration->find(name);
    if (given == nullptr)
      out.notes.push_back(detail::cat("the calibration given has no entry for ", name, ": its built-in calibration is used"));
    else if (std::any_of(options.calibration->same_die.begin(), options.calibration->same_die.end(),
                         [&](const ChipCalibration& c) { return &c == given; }))
      out.notes.push_back(detail::cat("the calibration given has no entry for ", name, ": ", given->origin));
    for (Compared* c : ops) c->calibrated_s = expected_s(c->sample, given ? *given : builtin);
  }

  // A collective whose wait cannot be told apart counts in its own row
  // only: its measured time holds an unknown wait for a peer.
  std::vector<const Compared*> everything, not_separable;
  for (const Compared& c : all) (c.wait_separable ? everything : not_separable).push_back(&c);
  for (const FidelityTrace& t : traces) {
    std::vector<const Compared*> mine;
    for (const Compared* c : everything)
      if (c->trace == &t) mine.push_back(c);
    out.traces.push_back(row_of(t.trace, t.report.chip, mine));
  }
  for (const auto& [name, ops] : by_chip) {
    std::vector<const Compared*> mine;
    for (const Compared* c : ops)
      if (c->wait_separable) mine.push_back(c);
    out.chips.push_back(row_of(name, name, mine));
  }
  for (int i = 0; i < kCostClassCount; ++i) {
    std::vector<const Compared*> mine;
    for (const Compared* c : everything)
      if (static_cast<int>(c->sample.cost_class) == i) mine.push_back(c);
    if (!mine.empty()) out.classes.push_back(row_of(std::string(cost_class_name(static_cast<CostClass>(i))), "", mine));
  }
  if (!not_separable.empty()) {
    out.classes.push_back(row_of(std::string(kWaitNotSeparableRow), "", not_separable));
    out.notes.push_back(detail::cat(not_separable.size(), " collective op", not_separable.size() == 1 ? "" : "s",
                                    " read on one rank: an NCCL or XLA collective's time holds its wait for the "
                                    "slowest peer, which one rank cannot tell apart; counted in the row '",
                                    kWaitNotSeparableRow, "' only"));
  }
  out.overall = row_of("overall", "", everything);

  for (const Compared& c : all) {
    const double bound = roofline_s(c.sample);
    if (bound <= c.sample.measured_s) continue;
    out.bounds_above.push_back(BoundAbove{.trace = c.sample.trace,
                                          .op = c.sample.op,
                                          .chip = c.sample.chip,
                                          .bound_s = bound,
                                          .measured_s = c.sample.measured_s,
                                          .ratio = bound / c.sample.measured_s,
                                          .reason = bound_reason(*c.op, c.sample, c.trace->chip)});
  }
  std::stable_sort(out.bounds_above.begin(), out.bounds_above.end(),
                   [](const BoundAbove& a, const BoundAbove& b) { return a.ratio > b.ratio; });

  for (const Compared& c : all)
    out.ops.push_back(FidelityOp{.trace = c.sample.trace,
                                 .op = c.sample.op,
                                 .chip = c.sample.chip,
                                 .shapes = c.op->shapes,
                                 .cost_class = c.sample.cost_class,
                                 .count = c.sample.count,
                                 .measured_s = c.op->median_s,
                                 .bound_s = roofline_s(c.sample),
                                 .builtin_s = c.builtin_s,
                                 .calibrated_s = c.calibrated_s,
                                 .wait_s = c.wait_s,
                                 .transfer_s = c.sample.measured_s,
                                 .wait_separable = c.wait_separable,
                                 .fold = c.fold});
  std::stable_sort(out.ops.begin(), out.ops.end(), [](const FidelityOp& a, const FidelityOp& b) {
    return abs_error(a.transfer_s, a.calibrated_s) > abs_error(b.transfer_s, b.calibrated_s);
  });
  return out;
}

}  // namespace roofline
