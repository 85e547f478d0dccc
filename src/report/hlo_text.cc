// The text of `roofline hlo` (roofline/report/hlo.hpp): one table row per
// instruction, the module total, the expected total beside it, the caveats.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "roofline/format/appendf.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "roofline/hlo/collective_rewrites.hpp"
#include "roofline/hlo/shape.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/report/hlo.hpp"
#include "roofline/report/hlo_rows.hpp"
#include "roofline/sharding/mesh_collective.hpp"

namespace roofline {
namespace {

// How many times a row runs: exact up to 2^53 (every count a double holds
// exactly), scientific beyond (nested loops with huge trip counts), never a
// cast that wraps.
std::string runs_text(double executions) {
  if (executions >= 0 && executions <= 9007199254740992.0) return detail::cat(static_cast<long long>(executions));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", executions);
  return buf;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string group_text(const HloPredictionRow& r) {
  if (!r.cost.collective) return "";
  return detail::cat(r.cost.collective->group_size);
}

// A replica group says which devices talk, not where they sit on the
// torus: `hlo` (like `report`) times a group of G as one ring of the
// interconnect (collective_time_on_group). `predict collective --mesh X=G
// --axes X` lays X=G out on the chip's slice, where a long axis spans several
// torus dimensions and runs faster (8 devices of a v6e: a 2x4 slice). Where
// the two differ, one line per group size says by how much, so the two
// commands' figures for the same collective are not a puzzle.
void ring_versus_axis(std::string& out, const std::vector<const HloPredictionRow*>& rows, const Chip& chip) {
  std::vector<std::int64_t> done;
  for (const HloPredictionRow* r : rows) {  // slowest first
    const std::optional<HloCollective>& c = r->cost.collective;
    if (!c || c->group_size < 2 || c->group_size > (1 << 20) || r->prediction.t_ici_s <= 0) continue;
    if (std::find(done.begin(), done.end(), c->group_size) != done.end()) continue;
    done.push_back(c->group_size);
    const int group = static_cast<int>(c->group_size);
    const std::optional<Mesh> mesh = lay_out_mesh({MeshAxis{.name = "X", .size = group}}, chip);
    if (!mesh) continue;
    const double axis_s =
        collective_time(*mesh, c->kind, AxisMask{1}, c->array_bytes, std::max(c->permute_shift, 1)).t_ici_s;
    if (!(axis_s < 0.99 * r->prediction.t_ici_s)) continue;
    appendf(out,
            "  T_ici: a group of %d is timed as one ring (replica groups do not say how devices sit on the "
            "torus); `predict collective --mesh X=%d --axes X` lays it out on the slice [%s] and times %s at %s "
            "(%s here)\n",
            group, group, describe_layout(*mesh).c_str(), std::string(r->instruction->name).c_str(),
            format_seconds(axis_s).c_str(), format_seconds(r->prediction.t_ici_s).c_str());
  }
}

// One line on what the collective plan did, when it did anything.
void rewrites_text(std::string& out, const HloCollectiveRewriteCounts& c, const Mesh* mesh) {
  if (mesh) appendf(out, "  mesh: %s; %d collective(s) timed over its axes\n", describe_layout(*mesh).c_str(), c.mesh_timed);
  if (c.reduce_scatters > 0)
    appendf(out,
            "  %d all-reduce(s) + dynamic-slice of this device's shard costed as reduce-scatter (as XLA's "
            "ReduceScatterCreator rewrites them)\n",
            c.reduce_scatters);
  if (c.all_reduce_combines > 0)
    appendf(out,
            "  %d all-reduces combined into %d (XLA's AllReduceCombiner, threshold %.0f bytes / %d ops); each "
            "row carries its share of its combined op's time\n",
            c.combined_all_reduces, c.all_reduce_combines, kXlaAllReduceCombineThresholdBytes,
            kXlaAllReduceCombineThresholdCount);
}

}  // namespace

std::string hlo_text(const HloModule& module, const HloModulePrediction& mp, const Chip& chip,
                     const ChipCalibration& cal, const HloRenderOptions& options) {
  const std::vector<const HloPredictionRow*> rows = hlo_rows_slowest_first(mp, options.top);
  std::string out;
  // Names come from the file and the spec: shown through for_terminal.
  appendf(out, "module %s (%zu instructions, entry %s) on %s\n", for_terminal(module.name()).c_str(),
          module.instruction_count(), for_terminal(module.entry().name).c_str(), for_terminal(chip.name).c_str());
  using A = TextTable::Align;
  TextTable t({{"instruction"}, {"opcode"}, {"category"}, {"shape"}, {"runs", A::kRight}, {"FLOPs", A::kRight},
               {"HBM bytes", A::kRight}, {"T_math", A::kRight}, {"T_hbm", A::kRight}, {"T_ici", A::kRight},
               {"expected", A::kRight}, {"bound"}, {"group", A::kRight}, {"notes"}});
  for (const HloPredictionRow* r : rows) {
    const Prediction& p = r->prediction;
    const std::optional<double> expected = expected_s(*r, chip, cal);
    std::vector<std::string> notes = hlo_row_notes(*r, chip);
    if (std::string model = expected_model(*r, chip, cal); !model.empty()) notes.push_back("expected by " + model);
    std::string shape = to_string_no_layout(r->instruction->shape);
    if (shape.size() > 48) shape = shape.substr(0, 45) + "...";
    t.add_row({std::string(r->instruction->name), std::string(r->instruction->opcode_name),
               std::string(category_name(r->cost.category)), shape,
               runs_text(r->executions),
               format_si(p.flops, "FLOP"), format_bytes(p.hbm_bytes), format_seconds(p.t_math_s),
               format_seconds(p.t_hbm_s), format_seconds(p.t_ici_s), expected ? format_seconds(*expected) : "-",
               hlo_row_bound(p),
               group_text(*r), join(notes, "; ")});
  }
  out += t.render();
  appendf(out, "total (one run; loop rows are not added again): %s, %s HBM",
          format_si(mp.total.flops, "FLOP").c_str(), format_bytes(mp.total.hbm_bytes).c_str());
  if (mp.total.host_bytes > 0) appendf(out, ", %s to/from host", format_bytes(mp.total.host_bytes).c_str());
  appendf(out, "\n  T_math %s  T_hbm %s  T_ici %s  lower bound %s (sum of per-kernel max)  upper bound %s (sum of sums)\n",
          format_seconds(mp.total.t_math_s).c_str(), format_seconds(mp.total.t_hbm_s).c_str(),
          format_seconds(mp.total.t_ici_s).c_str(), format_seconds(mp.total.t_lower_s).c_str(),
          format_seconds(mp.total.t_upper_s).c_str());
  if (mp.fusion_groups > 0)
    appendf(out,
            "  fused as an accelerator fuses (%d group(s); HBM bytes charged at group boundaries). Unfused, every "
            "op its own HBM traffic: %s HBM, T_hbm %s, lower bound %s\n",
            mp.fusion_groups, format_bytes(mp.unfused.hbm_bytes).c_str(), format_seconds(mp.unfused.t_hbm_s).c_str(),
            format_seconds(mp.unfused.t_lower_s).c_str());
  appendf(out, "  expected %s (each row through its class's curve or model; calibration: %s)\n",
          format_seconds(expected_total_s(mp, chip, cal)).c_str(), for_terminal(cal.origin).c_str());
  if (mp.unknown_cost_instructions > 0)
    appendf(out, "  %d instruction(s) without a cost model (FLOPs unknown; see notes)\n", mp.unknown_cost_instructions);
  if (mp.unknown_trip_count_loops > 0)
    appendf(out, "  %d while loop(s) without a known trip count: their bodies are counted once (warnings on stderr)\n",
            mp.unknown_trip_count_loops);
  if (mp.collective_rewrites.mesh_timed == 0) ring_versus_axis(out, rows, chip);
  rewrites_text(out, mp.collective_rewrites, options.mesh);
  return out;
}

}  // namespace roofline
