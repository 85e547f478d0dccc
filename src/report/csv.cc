// The CSV tables (roofline/report/csv.hpp), all on CsvWriter's one quoting
// rule. Numbers keep the precision each table has always had: nine
// significant digits in the report, the shortest exact text in hlo and stats.
#include "roofline/report/csv.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/format/csv.hpp"
#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/shape.hpp"
#include "roofline/match/op_model.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/report/hlo_rows.hpp"
#include "roofline/report/labels.hpp"
#include "roofline/report/render.hpp"

namespace roofline {
namespace {

using detail::cat;

// An unknown figure (NaN: a utilisation of an op measured below its
// roofline) is an empty field, as every unknown.
std::string num9(double v) {
  if (!std::isfinite(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string opt9(const std::optional<double>& v) { return v ? num9(*v) : ""; }

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::vector<std::string> report_row(const OpReport& op) {
  const bool p = op.predicted;
  const Prediction& t = op.prediction;
  auto if_predicted = [p](double v) { return p ? num9(v) : std::string(); };
  return {op.name, op.module, op.category, op.hlo_category, cat(op.count), num9(op.measured_s),
          if_predicted(t.t_lower_s), if_predicted(t.t_math_s), if_predicted(t.t_hbm_s),
          if_predicted(t.t_ici_s), p ? std::string(bound_name(t.bound)) : std::string(), if_predicted(op.ratio),
          if_predicted(op.flop_util), if_predicted(op.bw_util), op.below_roofline ? "" : if_predicted(op.lost_s),
          if_predicted(t.flops), if_predicted(t.hbm_bytes), opt9(op.xla_flops), opt9(op.xla_bytes),
          std::string(match_source_name(op.match)), op.reason, opt9(op.target_predicted_s), op.shapes,
          if_predicted(t.host_bytes), if_predicted(t.t_host_s),
          // Added with the calibrated expectation: at the end, so that the
          // columns before keep their places.
          if_predicted(op.expected_s), p && op.expected_s > 0 ? num9(expected_ratio(op)) : "",
          if_predicted(op.lost_expected_s), p ? std::string(cost_class_name(op.cost_class)) : "",
          opt9(op.target_expected_s), op.scope, op.scope_source};
}

}  // namespace

std::string to_csv(const Report& r) {
  // With --target-chip only, a last column: how target_expected_s was found.
  const bool with_target = !r.target_chip.empty();
  std::vector<std::string> header = {"name", "module", "category", "hlo_category", "count", "measured_s",
                                     "predicted_s", "t_math_s", "t_hbm_s", "t_ici_s", "bound", "ratio",
                                     "flop_util", "bw_util", "lost_s", "flops", "hbm_bytes", "xla_flops",
                                     "xla_bytes", "match", "reason", "target_predicted_s", "shapes", "host_bytes",
                                     "t_host_s", "expected_s", "expected_ratio", "lost_expected_s", "cost_class",
                                     "target_expected_s", "scope", "scope_source"};
  if (with_target) header.push_back("target_method");
  CsvWriter csv(header);
  for (const OpReport& op : r.ops) {
    std::vector<std::string> row = report_row(op);
    if (with_target) row.push_back(op.target_method ? std::string(target_method_name(*op.target_method)) : "");
    csv.add_row(row);
  }
  return csv.str();
}

std::string render_csv(const Report& r) { return to_csv(r); }

std::string to_csv(std::span<const HloPredictionRow* const> rows, const Chip& chip) {
  return to_csv(rows, chip, default_calibration(chip));
}

std::string to_csv(std::span<const HloPredictionRow* const> rows, const Chip& chip, const ChipCalibration& cal) {
  CsvWriter csv({"name", "opcode", "category", "shape", "computation", "executions", "aggregate", "flops",
                 "transcendentals", "hbm_bytes", "host_bytes", "t_math_s", "t_hbm_s", "t_ici_s", "t_lower_s",
                 "t_upper_s", "bound", "notes", "expected_s", "cost_class"});
  for (const HloPredictionRow* r : rows) {
    const Prediction& p = r->prediction;
    const std::optional<double> expected = expected_s(*r, chip, cal);
    std::vector<std::string> notes = hlo_row_notes(*r, chip);
    if (std::string model = expected_model(*r, chip, cal); !model.empty()) notes.push_back("expected by " + model);
    csv.add_row({std::string(r->instruction->name), std::string(r->instruction->opcode_name),
                 std::string(category_name(r->cost.category)), to_string(r->instruction->shape),
                 std::string(r->instruction->parent->name), cat(r->executions), r->aggregate ? "true" : "false",
                 cat(p.flops), cat(p.transcendentals), cat(p.hbm_bytes), cat(p.host_bytes), cat(p.t_math_s),
                 cat(p.t_hbm_s), cat(p.t_ici_s), cat(p.t_lower_s), cat(p.t_upper_s), hlo_row_bound(p),
                 joined(notes, "; "), expected ? cat(*expected) : "",
                 std::string(cost_class_name(cost_class(r->cost)))});
  }
  return csv.str();
}

std::string to_csv(const TraceStats& s, std::size_t max_ops) {
  CsvWriter csv({"module", "program_id", "name", "kernel", "category", "class", "async", "count", "total_s",
                 "mean_s", "median_s", "min_s", "max_s", "share", "xla_flops", "xla_bytes"});
  for (std::size_t i = 0; i < s.ops.size() && i < max_ops; ++i) {
    const OpStat& o = s.ops[i];
    csv.add_row({o.module, o.program_id ? cat(*o.program_id) : "", o.name, o.kernel, o.category,
                 std::string(op_class_name(o.op_class)), o.async ? "true" : "false", cat(o.count), cat(o.total_s),
                 cat(o.mean_s), cat(o.median_s), cat(o.min_s), cat(o.max_s), cat(o.share),
                 o.flops ? cat(*o.flops) : "", o.bytes_accessed ? cat(*o.bytes_accessed) : ""});
  }
  return csv.str();
}

}  // namespace roofline
