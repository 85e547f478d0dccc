// The JSON and CSV of `roofline hlo`, its row order and its loop warnings
// (roofline/report/hlo.hpp).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/report/hlo.hpp"
#include "roofline/report/json.hpp"

namespace roofline {

std::vector<const HloPredictionRow*> hlo_rows_slowest_first(const HloModulePrediction& mp, std::size_t top) {
  std::vector<const HloPredictionRow*> rows;
  rows.reserve(mp.rows.size());
  for (const HloPredictionRow& r : mp.rows) rows.push_back(&r);
  // Longest first by what the row costs per run of the module; ties keep
  // execution order.
  std::stable_sort(rows.begin(), rows.end(), [](const HloPredictionRow* a, const HloPredictionRow* b) {
    return a->total_t_lower_s() > b->total_t_lower_s();
  });
  if (top > 0 && rows.size() > top) rows.resize(top);
  return rows;
}

std::string_view hlo_loop_warning_kind(HloLoopWarning::Kind k) {
  return k == HloLoopWarning::Kind::kRunsOverflow ? "runs_overflow" : "trip_count_unknown";
}

std::vector<std::string> hlo_loop_warning_lines(std::string_view file, const HloModulePrediction& mp) {
  std::vector<std::string> lines;
  for (const HloLoopWarning& w : mp.loop_warnings) {
    const bool overflow = w.kind == HloLoopWarning::Kind::kRunsOverflow;
    lines.push_back(for_terminal(detail::cat(file, ": while ", w.instruction->name, " in computation ",
                                             w.instruction->parent->name, overflow ? ": " : ": trip count unknown (",
                                             w.reason,
                                             overflow ? "" : "): its body and condition are counted once per run")));
  }
  return lines;
}

Json hlo_loop_warnings_json(const HloModulePrediction& mp) {
  Json out = Json::array();
  for (const HloLoopWarning& w : mp.loop_warnings)
    out.push_back(Json::object({{"name", w.instruction->name},
                                {"computation", w.instruction->parent->name},
                                {"kind", hlo_loop_warning_kind(w.kind)},
                                {"reason", w.reason}}));
  return out;
}

Json hlo_json(const HloModule& module, const HloModulePrediction& mp, const Chip& chip, const ChipCalibration& cal,
              const HloRenderOptions& options) {
  Json instructions = Json::array();
  for (const HloPredictionRow* r : hlo_rows_slowest_first(mp, options.top)) {
    Json j = to_json(*r, chip, cal);
    j["hbm_bytes_unfused"] = r->hbm_bytes_unfused;
    j["fusion_group"] = r->fusion_group;
    instructions.push_back(std::move(j));
  }
  // The module total of one run, as the text's "total" line: every row
  // (not only the `top` ones), loop rows not added again.
  Json total = to_json(mp.total);
  total["host_bytes"] = mp.total.host_bytes;
  total["unknown_cost_instructions"] = mp.unknown_cost_instructions;
  total["unknown_trip_count_loops"] = mp.unknown_trip_count_loops;
  total["expected_s"] = expected_total_s(mp, chip, cal);
  total["fusion_groups"] = mp.fusion_groups;
  total["unfused"] = to_json(mp.unfused);
  const HloCollectiveRewriteCounts& rc = mp.collective_rewrites;
  total["collective_rewrites"] = Json::object({{"applied", rc.applied},
                                               {"reduce_scatters", rc.reduce_scatters},
                                               {"combined_all_reduces", rc.combined_all_reduces},
                                               {"all_reduce_combines", rc.all_reduce_combines},
                                               {"mesh_timed", rc.mesh_timed}});
  return Json::object({{"module", std::string(module.name())},
                       {"chip", chip.name},
                       {"calibration", calibration_json(cal)},
                       {"instructions", std::move(instructions)},
                       {"loop_warnings", hlo_loop_warnings_json(mp)},
                       {"total", std::move(total)}});
}

std::string hlo_csv(const HloModulePrediction& mp, const Chip& chip, const ChipCalibration& cal,
                    const HloRenderOptions& options) {
  return to_csv(hlo_rows_slowest_first(mp, options.top), chip, cal);
}

}  // namespace roofline
