// roofline hlo FILE --chip NAME: the roofline of every instruction of an HLO
// module (HLO text or HloProto), sorted by predicted time, with the module total.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/report/units.hpp"
#include "src/cli/command.hpp"
#include "src/cli/text_table.hpp"

namespace roofline::cli {
namespace {

// Short words for what a row's numbers leave out or add up.
std::vector<std::string> notes(const HloPredictionRow& r, const Chip& chip) {
  std::vector<std::string> n;
  const HloCostFlags& f = r.cost.flags;
  if (r.aggregate) {
    if (r.instruction->opcode == HloOpcode::kWhile)
      n.push_back(f.trip_count_unknown ? "loop total, trip count unknown (counted once)"
                                       : detail::cat("loop total, ", r.cost.trip_count, " trips"));
    else
      n.push_back("total of the called computation");
  } else {
    if (f.unknown_custom_call) n.push_back("unknown custom call: FLOPs unknown, bytes = operands + results");
    if (f.unknown_opcode) n.push_back("no FLOP model for this op");
    if (f.trip_count_unknown) n.push_back("inner loop trip count unknown");
  }
  if (f.unbounded_dynamic_shape) n.push_back("unbounded dynamic shape counted as 0");
  if (f.collective_not_timed) n.push_back("collective not timed");
  if (f.conditional_max) n.push_back("max over branches");
  if (r.cost.host_bytes > 0) n.push_back("host transfer over PCIe");
  // The chip has no unit for the type (bf16 on a V100, fp32 on a TPU):
  // select_peak timed the arithmetic at another peak; say which.
  if (r.cost.flops > 0 && r.prediction.peak.fallback()) n.push_back("timed at the " + peak_label(r.prediction.peak, chip));
  return n;
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

std::string num(double v) { return detail::cat(v); }

// An instruction that takes no time (parameter, tuple, bitcast) has no bound.
std::string bound_text(const Prediction& p) { return p.t_upper_s > 0 ? std::string(bound_name(p.bound)) : "none"; }

nlohmann::json row_json(const HloPredictionRow& r, const Chip& chip) {
  const Prediction& p = r.prediction;
  nlohmann::json flags = nlohmann::json::array();
  for (const std::string& s : notes(r, chip)) flags.push_back(s);
  nlohmann::json j = {{"name", std::string(r.instruction->name)},
                      {"opcode", std::string(r.instruction->opcode_name)},
                      {"category", std::string(category_name(r.cost.category))},
                      {"shape", to_string(r.instruction->shape)},
                      {"computation", std::string(r.instruction->parent->name)},
                      {"executions", r.executions},
                      {"aggregate", r.aggregate},
                      {"flops", p.flops},
                      {"transcendentals", p.transcendentals},
                      {"bytes", p.hbm_bytes},
                      {"host_bytes", r.cost.host_bytes},
                      {"ici_bytes", p.ici_bytes},
                      {"t_math_s", p.t_math_s},
                      {"t_hbm_s", p.t_hbm_s},
                      {"t_ici_s", p.t_ici_s},
                      {"t_lower_s", p.t_lower_s},
                      {"t_upper_s", p.t_upper_s},
                      {"bound", bound_text(p)},
                      {"dtype", std::string(dtype_name(p.dtype))},
                      {"notes", flags}};
  if (r.cost.collective) {
    j["collective"] = {{"kind", std::string(collective_name(r.cost.collective->kind))},
                       {"array_bytes", r.cost.collective->array_bytes},
                       {"group_size", r.cost.collective->group_size},
                       {"num_groups", r.cost.collective->num_groups}};
  }
  return j;
}

std::string csv_field(std::string s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
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

  const HloModulePrediction mp = predict(*module, *chip);
  std::vector<const HloPredictionRow*> rows;
  for (const HloPredictionRow& r : mp.rows) rows.push_back(&r);
  // Longest first by what the row costs per run of the module; ties keep
  // execution order.
  std::stable_sort(rows.begin(), rows.end(), [](const HloPredictionRow* a, const HloPredictionRow* b) {
    return a->total_t_lower_s() > b->total_t_lower_s();
  });
  if (*top > 0 && rows.size() > static_cast<std::size_t>(*top)) rows.resize(static_cast<std::size_t>(*top));

  if (*fmt == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const HloPredictionRow* r : rows) out.push_back(row_json(*r, *chip));
    std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return 0;
  }
  if (*fmt == "csv") {
    std::printf("name,opcode,category,shape,computation,executions,aggregate,flops,transcendentals,bytes,"
                "host_bytes,t_math_s,t_hbm_s,t_ici_s,t_lower_s,t_upper_s,bound,notes\n");
    for (const HloPredictionRow* r : rows) {
      const Prediction& p = r->prediction;
      std::printf("%s\n",
                  join({csv_field(std::string(r->instruction->name)), csv_field(std::string(r->instruction->opcode_name)),
                        csv_field(std::string(category_name(r->cost.category))), csv_field(to_string(r->instruction->shape)),
                        csv_field(std::string(r->instruction->parent->name)), num(r->executions),
                        r->aggregate ? "true" : "false", num(p.flops), num(p.transcendentals), num(p.hbm_bytes),
                        num(r->cost.host_bytes), num(p.t_math_s), num(p.t_hbm_s), num(p.t_ici_s), num(p.t_lower_s),
                        num(p.t_upper_s), bound_text(p), csv_field(join(notes(*r, *chip), "; "))},
                       ",")
                      .c_str());
    }
    return 0;
  }

  std::printf("module %s (%zu instructions, entry %s) on %s\n", std::string(module->name()).c_str(),
              module->instruction_count(), std::string(module->entry().name).c_str(), chip->name.c_str());
  using A = TextTable::Align;
  TextTable t({{"instruction"}, {"opcode"}, {"category"}, {"shape"}, {"runs", A::kRight}, {"FLOPs", A::kRight},
               {"HBM bytes", A::kRight}, {"T_math", A::kRight}, {"T_hbm", A::kRight}, {"T_ici", A::kRight},
               {"bound"}, {"group", A::kRight}, {"notes"}});
  for (const HloPredictionRow* r : rows) {
    const Prediction& p = r->prediction;
    std::string shape = to_string_no_layout(r->instruction->shape);
    if (shape.size() > 48) shape = shape.substr(0, 45) + "...";
    t.add_row({std::string(r->instruction->name), std::string(r->instruction->opcode_name),
               std::string(category_name(r->cost.category)), shape,
               r->executions == 1 ? std::string("1") : detail::cat(static_cast<long long>(r->executions)),
               format_si(p.flops, "FLOP"), format_bytes(p.hbm_bytes), format_seconds(p.t_math_s),
               format_seconds(p.t_hbm_s), format_seconds(p.t_ici_s), bound_text(p),
               group_text(*r), join(notes(*r, *chip), "; ")});
  }
  std::printf("%s", t.render().c_str());
  std::printf("total (one run; loop rows are not added again): %s, %s HBM",
              format_si(mp.total.flops, "FLOP").c_str(), format_bytes(mp.total.hbm_bytes).c_str());
  if (mp.host_bytes > 0) std::printf(", %s to/from host", format_bytes(mp.host_bytes).c_str());
  std::printf("\n  T_math %s  T_hbm %s  T_ici %s  lower bound %s (sum of per-op max)  upper bound %s (sum of sums)\n",
              format_seconds(mp.total.t_math_s).c_str(), format_seconds(mp.total.t_hbm_s).c_str(),
              format_seconds(mp.total.t_ici_s).c_str(), format_seconds(mp.total.t_lower_s).c_str(),
              format_seconds(mp.total.t_upper_s).c_str());
  if (mp.unknown_cost_instructions > 0)
    std::printf("  %d instruction(s) without a cost model (FLOPs unknown; see notes)\n", mp.unknown_cost_instructions);
  if (mp.unknown_trip_count_loops > 0)
    std::printf("  %d while loop(s) without a known trip count: their bodies are counted once\n",
                mp.unknown_trip_count_loops);
  return 0;
}

ROOFLINE_CLI_COMMAND({
    .name = "hlo",
    .usage = "roofline hlo FILE --chip NAME|PATH [--format text|json|csv] [--top N]",
    .summary = "Roofline of every instruction of an HLO module (text or HloProto), sorted by predicted time.",
    .options = {{"chip", "NAME|PATH", "embedded chip name or a chip spec JSON file"},
                {"format", "text|json|csv", "output format (default text)"},
                {"top", "N", "only the N slowest instructions (default: all)"}},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
