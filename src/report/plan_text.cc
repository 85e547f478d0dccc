// The text of a plan and of one evaluated layout (roofline/report/plan.hpp).
#include <algorithm>

#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "roofline/report/plan.hpp"
#include "roofline/sharding/layers.hpp"

namespace roofline {
namespace {

using detail::cat;

std::string memory_text(const MemoryPerChip& m) {
  return cat(format_bytes(m.total_bytes), " / ", format_bytes(m.hbm_bytes));
}

// "-" where the expected time is not modelled (expected_s == 0).
std::string expected_text(const TrainingStep& s) { return s.expected_s > 0 ? format_seconds(s.expected_s) : "-"; }
std::string mfu_expected_text(const TrainingStep& s) {
  return s.expected_s > 0 ? format_percent(s.mfu_expected) : "-";
}

// "-" where the model has not filled it (0).
std::string mfu_no_overlap_text(const TrainingStep& s) {
  return s.mfu_no_overlap > 0 ? format_percent(s.mfu_no_overlap) : "-";
}

// The model's and chip's names and the calibration's origin come from
// files the user gave: escaped (roofline/format/terminal.hpp).
std::string request_line(const PlanRequest& req) {
  const std::int64_t seq = plan_seq_len(req);
  return cat(for_terminal(req.model.name), " (", format_si(total_params(req.model), ""), " params) on ", req.chips,
             " x ", for_terminal(req.chip.name), ", batch ", req.batch_tokens, " tokens (", req.batch_tokens / seq, " x ", seq, "), ",
             dtype_name(req.dtypes.compute), "\n");
}

std::string calibration_line(const PlanRequest& req) {
  return cat("Expected times: ",
             for_terminal(req.calibration ? req.calibration->origin : default_calibration(req.chip).origin), "\n");
}

std::string rejected_line(const RejectedCandidate& r) {
  std::string what = mesh_text(r.axes);
  if (const std::string l = layout_text(r.axes, r.layout); !l.empty()) what += cat(" (", l, ")");
  if (r.remat) what += cat(", remat ", remat_name(*r.remat));
  if (r.microbatches > 1) what += cat(", ", r.microbatches, " microbatches");
  return cat("  ", what, ": ", r.reason, "\n");
}

}  // namespace

std::string plan_ranking_rule() {
  return "ranked by expected step time (the overlap model of docs/layers.md; the lower bound where it is "
         "not modelled), then the lower bound, then the upper bound, then HBM per chip, then fewer slices, "
         "then fewer pipeline stages, then the mesh text";
}

std::string plan_text(const PlanRequest& req, const Plan& plan, const PlanTextOptions& options) {
  std::string out = request_line(req);
  out += calibration_line(req);
  const char* unit = req.chip.ici.topology == Topology::kSwitch ? "node" : "slice";
  out += cat(plan.slices == 1 ? cat("one ", unit, " (no DCN)") : cat(plan.slices, " ", unit, "s across DCN"), "; ",
             plan.considered,
             " combinations: ", plan.evaluated, " predicted, ", plan.ranked.size(), " fit; rejected ",
             plan.rejected_memory, " over HBM, ", plan.rejected_constraint, " by constraints, ", plan.rejected_shape,
             " shapes that do not divide; searched in ", format_seconds(plan.search_seconds), "\n");
  if (plan.ranked.empty()) {
    // Over HBM when some layout could be predicted; else nothing could be laid at all.
    out += plan.rejected_memory > 0
               ? cat("\nDOES NOT FIT: no layout fits in ", format_bytes(req.chip.hbm_bytes), " of HBM per chip.\n")
               : std::string("\nNO LAYOUT: every combination breaks a constraint or does not divide.\n");
  } else {
    TextTable table({{"#", TextTable::Align::kRight},
                     {"mesh"},
                     {"layout"},
                     {"strategy"},
                     {"remat"},
                     {"expected", TextTable::Align::kRight},
                     {"lower", TextTable::Align::kRight},
                     {"MFU lower", TextTable::Align::kRight},
                     {"MFU exp", TextTable::Align::kRight},
                     {"MFU no-ovl", TextTable::Align::kRight},
                     {"bound"},
                     {"HBM / chip", TextTable::Align::kRight}});
    const std::size_t shown = std::min(plan.ranked.size(), options.top);
    bool any_unmodelled = false;
    for (std::size_t i = 0; i < shown; ++i) {
      const PlanCandidate& c = plan.ranked[i];
      const TrainingStep& s = c.step;
      any_unmodelled = any_unmodelled || !(s.expected_s > 0);
      table.add_row({std::to_string(i + 1), mesh_text(c.mesh), layout_text(c.mesh, c.layout), strategy_name(c),
                     std::string(remat_name(c.remat)), expected_text(s), format_seconds(s.step_time_s),
                     format_percent(s.mfu), mfu_expected_text(s), mfu_no_overlap_text(s),
                     std::string(bound_name(s.roofline.bound)), memory_text(s.memory)});
    }
    out += cat("\n", table.render());
    out += cat("\nRanking: ", plan_ranking_rule(), ".\n");
    if (any_unmodelled) out += "'-': not modelled for this step; ranked by the lower bound.\n";
    out += cat("MFU at the lower bound (communication hidden under compute: the most the layout can reach), "
               "at the expected time, and with nothing overlapped (the upper bound); ",
               kMfuConvention, ".\n");
  }
  if (!plan.rejected.empty()) {
    const std::size_t shown = std::min(plan.rejected.size(), options.rejected_shown);
    out += cat("\nRejected, closest to fitting first (", shown, " of ", plan.rejected.size(),
               "; --format json lists all with their reasons):\n");
    for (std::size_t i = 0; i < shown; ++i) out += rejected_line(plan.rejected[i]);
  }
  return out;
}

std::string evaluation_text(const PlanRequest& req, const LayoutEvaluation& ev) {
  const PlanCandidate& c = ev.candidate;
  const TrainingStep& s = c.step;
  const MemoryPerChip& m = s.memory;
  std::string out = request_line(req);
  out += calibration_line(req);
  out += cat("mesh ", mesh_text(c.mesh), ", layout ", layout_text(c.mesh, c.layout), ", remat ",
             remat_name(c.remat), ", ", c.microbatches, c.microbatches == 1 ? " microbatch" : " microbatches", "\n");
  out += cat("strategy: ", strategy_name(c), "\nplacement: ", describe_layout(c.mesh), "\n\n");
  out += ev.fits ? std::string("FITS\n") : cat("DOES NOT FIT: ", ev.reason, "\n");
  out += cat("step time: expected ", expected_text(s), ", lower bound ", format_seconds(s.step_time_s),
             ", no overlap ", format_seconds(s.roofline.t_upper_s), "; ", bound_name(s.roofline.bound), "-bound\n");
  out += cat("MFU: at the lower bound ", format_percent(s.mfu), ", expected ", mfu_expected_text(s),
             ", with no overlap ", mfu_no_overlap_text(s), " (", kMfuConvention, ")\n");
  out += cat("HBM per chip: ", memory_text(m), ": params ", format_bytes(m.params_bytes), ", grads ",
             format_bytes(m.grads_bytes), ", optimizer ", format_bytes(m.optimizer_bytes), ", gathered weights ",
             format_bytes(m.gathered_weights_bytes), ", activations ", format_bytes(m.activations_bytes), "\n");
  return out;
}

}  // namespace roofline
