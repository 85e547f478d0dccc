// roofline hlo FILE --chip NAME: the roofline of every instruction of an HLO
// module (HLO text or HloProto), sorted by predicted time, with the module total.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/match/op_model.hpp"
#include "roofline/report/csv.hpp"
#include "roofline/report/expected.hpp"
#include "roofline/report/hlo_rows.hpp"
#include "roofline/report/json.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/parse.hpp"
#include "src/cli/calibration_arg.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {
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
void print_ring_versus_axis(const std::vector<const HloPredictionRow*>& rows, const Chip& chip) {
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
    std::printf("  T_ici: a group of %d is timed as one ring (replica groups do not say how devices sit on the "
                "torus); `predict collective --mesh X=%d --axes X` lays it out on the slice [%s] and times %s at %s "
                "(%s here)\n",
                group, group, describe_layout(*mesh).c_str(), std::string(r->instruction->name).c_str(),
                format_seconds(axis_s).c_str(), format_seconds(r->prediction.t_ici_s).c_str());
  }
}

std::string_view loop_warning_kind(HloLoopWarning::Kind k) {
  return k == HloLoopWarning::Kind::kRunsOverflow ? "runs_overflow" : "trip_count_unknown";
}

// One line on stderr per loop charged fewer times than it runs, naming it
// (whatever the format: JSON on stdout stays one document).
void print_loop_warnings(const std::string& file, const HloModulePrediction& mp) {
  for (const HloLoopWarning& w : mp.loop_warnings) {
    const bool overflow = w.kind == HloLoopWarning::Kind::kRunsOverflow;
    std::fprintf(stderr, "warning: %s\n",
                 for_terminal(detail::cat(file, ": while ", w.instruction->name, " in computation ",
                                          w.instruction->parent->name,
                                          overflow ? ": " : ": trip count unknown (", w.reason,
                                          overflow ? "" : "): its body and condition are counted once per run")).c_str());
  }
}

Json loop_warnings_json(const HloModulePrediction& mp) {
  Json out = Json::array();
  for (const HloLoopWarning& w : mp.loop_warnings)
    out.push_back(Json::object({{"name", w.instruction->name},
                                {"computation", w.instruction->parent->name},
                                {"kind", loop_warning_kind(w.kind)},
                                {"reason", w.reason}}));
  return out;
}

// The text output: one table row per instruction, the module total, the
// expected total beside it, and the caveats.
void print_text(const HloModule& module, const HloModulePrediction& mp, const std::vector<const HloPredictionRow*>& rows,
                const Chip& chip, const ChipCalibration& cal, double expected_total) {
  // Names come from the file and the spec: shown through for_terminal.
  std::printf("module %s (%zu instructions, entry %s) on %s\n", for_terminal(module.name()).c_str(),
              module.instruction_count(), for_terminal(module.entry().name).c_str(), for_terminal(chip.name).c_str());
  using A = TextTable::Align;
  TextTable t({{"instruction"}, {"opcode"}, {"category"}, {"shape"}, {"runs", A::kRight}, {"FLOPs", A::kRight},
               {"HBM bytes", A::kRight}, {"T_math", A::kRight}, {"T_hbm", A::kRight}, {"T_ici", A::kRight},
               {"expected", A::kRight}, {"bound"}, {"group", A::kRight}, {"notes"}});
  for (const HloPredictionRow* r : rows) {
    const Prediction& p = r->prediction;
    const std::optional<double> expected = expected_s(*r, cal);
    std::string shape = to_string_no_layout(r->instruction->shape);
    if (shape.size() > 48) shape = shape.substr(0, 45) + "...";
    t.add_row({std::string(r->instruction->name), std::string(r->instruction->opcode_name),
               std::string(category_name(r->cost.category)), shape,
               runs_text(r->executions),
               format_si(p.flops, "FLOP"), format_bytes(p.hbm_bytes), format_seconds(p.t_math_s),
               format_seconds(p.t_hbm_s), format_seconds(p.t_ici_s), expected ? format_seconds(*expected) : "-",
               hlo_row_bound(p),
               group_text(*r), join(hlo_row_notes(*r, chip), "; ")});
  }
  std::printf("%s", t.render().c_str());
  std::printf("total (one run; loop rows are not added again): %s, %s HBM",
              format_si(mp.total.flops, "FLOP").c_str(), format_bytes(mp.total.hbm_bytes).c_str());
  if (mp.total.host_bytes > 0) std::printf(", %s to/from host", format_bytes(mp.total.host_bytes).c_str());
  std::printf("\n  T_math %s  T_hbm %s  T_ici %s  lower bound %s (sum of per-kernel max)  upper bound %s (sum of sums)\n",
              format_seconds(mp.total.t_math_s).c_str(), format_seconds(mp.total.t_hbm_s).c_str(),
              format_seconds(mp.total.t_ici_s).c_str(), format_seconds(mp.total.t_lower_s).c_str(),
              format_seconds(mp.total.t_upper_s).c_str());
  if (mp.fusion_groups > 0)
    std::printf("  fused as an accelerator fuses (%d group(s); HBM bytes charged at group boundaries). Unfused, every "
                "op its own HBM traffic: %s HBM, T_hbm %s, lower bound %s\n",
                mp.fusion_groups, format_bytes(mp.unfused.hbm_bytes).c_str(), format_seconds(mp.unfused.t_hbm_s).c_str(),
                format_seconds(mp.unfused.t_lower_s).c_str());
  std::printf("  expected %s (each row through its class's curve; calibration: %s)\n",
              format_seconds(expected_total).c_str(), for_terminal(cal.origin).c_str());
  if (mp.unknown_cost_instructions > 0)
    std::printf("  %d instruction(s) without a cost model (FLOPs unknown; see notes)\n", mp.unknown_cost_instructions);
  if (mp.unknown_trip_count_loops > 0)
    std::printf("  %d while loop(s) without a known trip count: their bodies are counted once (warnings on stderr)\n",
                mp.unknown_trip_count_loops);
  if (mp.collective_rewrites.mesh_timed == 0) print_ring_versus_axis(rows, chip);
}

// --mesh X=2,Y=4 [--slice 2x4]: the module's devices laid on the chip's
// torus (partition ids row-major over the axes); nullopt without --mesh.
absl::StatusOr<std::optional<Mesh>> mesh_arg(const Args& args, const Chip& chip) {
  const std::optional<std::string> spec = args.get("mesh");
  const std::optional<std::string> slice = args.get("slice");
  if (!spec) {
    if (slice) return absl::InvalidArgumentError("--slice needs --mesh (the axes to lay on the slice)");
    return std::optional<Mesh>{};
  }
  auto axes = parse_mesh_axes(*spec);
  if (!axes.ok()) return axes.status();
  std::vector<int> shape;
  if (slice) {
    auto s = parse_slice_shape(*slice);
    if (!s.ok()) return s.status();
    shape = *s;
  }
  auto mesh = make_mesh(*axes, chip, shape);
  if (!mesh.ok()) return mesh.status();
  return std::optional<Mesh>(*std::move(mesh));
}

absl::StatusOr<HloCollectiveRewrites> rewrites_arg(const Args& args) {
  const std::string v = args.get("collective-rewrites").value_or("auto");
  if (v == "auto") return HloCollectiveRewrites::kAuto;
  if (v == "accelerator") return HloCollectiveRewrites::kAccelerator;
  if (v == "none") return HloCollectiveRewrites::kNone;
  return absl::InvalidArgumentError("--collective-rewrites: expected auto, accelerator or none");
}

// One line on what the collective plan did, when it did anything.
void print_rewrites(const HloCollectiveRewriteCounts& c, const std::optional<Mesh>& mesh) {
  if (mesh) std::printf("  mesh: %s; %d collective(s) timed over its axes\n", describe_layout(*mesh).c_str(), c.mesh_timed);
  if (c.reduce_scatters > 0)
    std::printf("  %d all-reduce(s) + dynamic-slice of this device's shard costed as reduce-scatter (as XLA's "
                "ReduceScatterCreator rewrites them)\n", c.reduce_scatters);
  if (c.all_reduce_combines > 0)
    std::printf("  %d all-reduces combined into %d (XLA's AllReduceCombiner, threshold %.0f bytes / %d ops); each "
                "row carries its share of its combined op's time\n",
                c.combined_all_reduces, c.all_reduce_combines, kXlaAllReduceCombineThresholdBytes,
                kXlaAllReduceCombineThresholdCount);
}

int run(const Args& args) {
  auto fmt = args.format({"text", "json", "csv"});
  if (!fmt.ok()) return fail(fmt.status());
  if (args.positional().size() != 1) return fail_usage("hlo: expected exactly one HLO file (text or HloProto)");
  auto chip_name = args.require("chip");
  if (!chip_name.ok()) return fail(chip_name.status());
  auto chip = resolve_chip(*chip_name);
  if (!chip.ok()) return fail(chip.status());
  auto top = args.get_int("top", 0, kIntRange);
  if (!top.ok()) return fail(top.status());
  if (*top < 0) return fail_usage("--top must be a non-negative number of rows (0: all)");
  auto module = read_hlo_file(args.positional()[0]);
  if (!module.ok()) return fail(module.status());

  auto mesh = mesh_arg(args, *chip);
  if (!mesh.ok()) return fail(mesh.status());
  auto rewrites = rewrites_arg(args);
  if (!rewrites.ok()) return fail(rewrites.status());
  const HloCollectiveOptions options{.mesh = *mesh ? &**mesh : nullptr, .rewrites = *rewrites};
  auto mp_or = predict(*module, *chip, options);
  if (!mp_or.ok()) return fail(mp_or.status());
  const HloModulePrediction& mp = *mp_or;
  print_loop_warnings(args.positional()[0], mp);
  auto cal_or = calibration_arg(args, *chip);
  if (!cal_or.ok()) return fail(cal_or.status());
  const ChipCalibration& cal = *cal_or;
  const double expected_total = expected_total_s(mp, cal);
  std::vector<const HloPredictionRow*> rows;
  for (const HloPredictionRow& r : mp.rows) rows.push_back(&r);
  // Longest first by what the row costs per run of the module; ties keep
  // execution order.
  std::stable_sort(rows.begin(), rows.end(), [](const HloPredictionRow* a, const HloPredictionRow* b) {
    return a->total_t_lower_s() > b->total_t_lower_s();
  });
  if (*top > 0 && rows.size() > static_cast<std::size_t>(*top)) rows.resize(static_cast<std::size_t>(*top));

  if (*fmt == "json") {
    Json instructions = Json::array();
    for (const HloPredictionRow* r : rows) {
      Json j = to_json(*r, *chip, cal);
      j["hbm_bytes_unfused"] = r->hbm_bytes_unfused;
      j["fusion_group"] = r->fusion_group;
      instructions.push_back(std::move(j));
    }
    // The module total of one run, as the text's "total" line: every row
    // (not only the --top ones), loop rows not added again.
    Json total = to_json(mp.total);
    total["host_bytes"] = mp.total.host_bytes;
    total["unknown_cost_instructions"] = mp.unknown_cost_instructions;
    total["unknown_trip_count_loops"] = mp.unknown_trip_count_loops;
    total["expected_s"] = expected_total;
    total["fusion_groups"] = mp.fusion_groups;
    total["unfused"] = to_json(mp.unfused);
    const HloCollectiveRewriteCounts& rc = mp.collective_rewrites;
    total["collective_rewrites"] = Json::object({{"applied", rc.applied},
                                                 {"reduce_scatters", rc.reduce_scatters},
                                                 {"combined_all_reduces", rc.combined_all_reduces},
                                                 {"all_reduce_combines", rc.all_reduce_combines},
                                                 {"mesh_timed", rc.mesh_timed}});
    const Json out = Json::object({{"module", std::string(module->name())},
                                   {"chip", chip->name},
                                   {"calibration", calibration_json(cal)},
                                   {"instructions", std::move(instructions)},
                                   {"loop_warnings", loop_warnings_json(mp)},
                                   {"total", std::move(total)}});
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  if (*fmt == "csv") {
    const std::string csv = to_csv(rows, *chip, cal);
    std::fwrite(csv.data(), 1, csv.size(), stdout);
    return 0;
  }

  print_text(*module, mp, rows, *chip, cal, expected_total);
  print_rewrites(mp.collective_rewrites, *mesh);
  return 0;
}

ROOFLINE_CLI_COMMAND({
    .name = "hlo",
    .usage = "roofline hlo FILE --chip NAME|PATH [--mesh X=2,Y=4 [--slice 2x4]] "
             "[--collective-rewrites auto|accelerator|none] [--calibration FILE] [--format text|json|csv] [--top N]",
    .summary = "Roofline of every instruction of an HLO module (text or HloProto), sorted by predicted time.",
    .options = {{"chip", "NAME|PATH", "embedded chip name or a chip spec JSON file"},
                kCalibrationOption,
                {"format", "text|json|csv", "output format (default text)"},
                {"top", "N", "only the N slowest instructions (default: all)"},
                {"mesh", "X=2,Y=4", "the module's devices as a mesh laid on the chip's torus (partition ids "
                                    "row-major); each replica group is timed over the axes it spans"},
                {"slice", "2x4", "the physical slice shape to lay the mesh on (default: the chip's choice)"},
                {"collective-rewrites", "auto|accelerator|none",
                 "all-reduce + dynamic-slice as reduce-scatter and XLA's all-reduce combining: auto (default) "
                 "applies them to a module not yet scheduled (pre-optimisation), none never"}},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
