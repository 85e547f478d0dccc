// The CSV of a plan and of one evaluated layout (roofline/report/plan.hpp):
// one row per candidate, the columns named as the JSON keys, nine
// significant digits, empty where a figure is not modelled.
#include <cstdio>

#include "roofline/format/csv.hpp"
#include "roofline/report/plan.hpp"

namespace roofline {
namespace {

std::string num9(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

const std::vector<std::string> kColumns = {
    "rank",          "mesh",      "layout",    "strategy",  "remat",          "microbatches",
    "slices",        "pipeline_stages", "expected_s", "t_lower_s", "t_upper_s", "mfu",
    "mfu_expected",  "mfu_no_overlap",  "bound",     "total_bytes", "hbm_bytes"};

std::vector<std::string> row(const PlanCandidate& c, std::string rank) {
  const TrainingStep& s = c.step;
  const bool expected = s.expected_s > 0;
  return {std::move(rank),
          mesh_text(c.mesh),
          layout_text(c.mesh, c.layout),
          strategy_name(c),
          std::string(remat_name(c.remat)),
          std::to_string(c.microbatches),
          std::to_string(slice_count(c.mesh)),
          std::to_string(pipeline_stages(c.mesh, c.layout)),
          expected ? num9(s.expected_s) : "",
          num9(s.roofline.t_lower_s),
          num9(s.roofline.t_upper_s),
          num9(s.mfu),
          expected ? num9(s.mfu_expected) : "",
          s.mfu_no_overlap > 0 ? num9(s.mfu_no_overlap) : "",
          std::string(bound_name(s.roofline.bound)),
          num9(s.memory.total_bytes),
          num9(s.memory.hbm_bytes)};
}

}  // namespace

std::string plan_csv(const Plan& plan, std::size_t top) {
  CsvWriter csv(kColumns);
  for (std::size_t i = 0; i < plan.ranked.size() && i < top; ++i) csv.add_row(row(plan.ranked[i], std::to_string(i + 1)));
  return csv.str();
}

std::string evaluation_csv(const LayoutEvaluation& ev) {
  std::vector<std::string> header = kColumns;
  header.push_back("fits");
  header.push_back("reason");
  CsvWriter csv(header);
  std::vector<std::string> cells = row(ev.candidate, "");
  cells.push_back(ev.fits ? "true" : "false");
  cells.push_back(ev.reason);
  csv.add_row(cells);
  return csv.str();
}

}  // namespace roofline
