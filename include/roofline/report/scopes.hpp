// The report by scope: the ops of a Report totalled per name scope
// (OpReport::scope, roofline/match/scope.hpp) as a tree, in every report
// format (`roofline report TRACE --by scope [--depth N]`; docs/report.md,
// "By scope").
//
//   roofline::ScopeTree t = roofline::scope_tree(report, 3);
//   t.root.children[0].path;   // "block"
//   std::string html = roofline::render_scopes(report, roofline::ReportFormat::kHtml, 3);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "roofline/report/render.hpp"
#include "roofline/match/report.hpp"

namespace roofline {

inline constexpr int kDefaultScopeDepth = 3;
inline constexpr std::string_view kNoScope = "(no scope)";

// One scope, totalled over its ops and the ops of the scopes inside it.
// Times as the summary counts them: measured over every op; roofline,
// expected and FLOPs over the predicted ops that are neither async waits
// nor below their roofline (ReportSummary::predicted_s).
struct ScopeNode {
  std::string name;  // the last component ("mlp"), kNoScope for ops without a scope
  std::string path;  // "block/mlp"; empty for the root and for kNoScope
  bool unscoped = false;   // the node of the ops without a scope
  std::int64_t ops = 0;    // op rows of the report
  double measured_s = 0;
  double predicted_s = 0;
  double expected_s = 0;
  double flops = 0;        // our FLOPs (rematerialised ones included, as ModuleSummary::model_flops)
  double mfu = 0;          // flops / (ReportSummary::wall_s x Report::peak_flops_per_s); NaN above 1
  double share = 0;        // measured_s / the root's measured_s
  std::vector<std::string> sources;  // the ops' OpReport::scope_source values, distinct, sorted
  std::vector<ScopeNode> children;   // by measured time, largest first; kNoScope last among the root's
};

struct ScopeTree {
  int depth = kDefaultScopeDepth;  // scopes deeper than this are folded into their ancestor at this depth
  ScopeNode root;                  // every op of the report
  // Caveats: when no op has a scope, why that may be.
  std::vector<std::string> notes;
};

// `depth` >= 1.
ScopeTree scope_tree(const Report& report, int depth = kDefaultScopeDepth);

// The tree in `format`: text and Markdown as an indented table, JSON as a
// nested tree, CSV one row per scope with its path, HTML a collapsible tree.
std::string render_scopes(const Report& report, ReportFormat format, int depth = kDefaultScopeDepth);

}  // namespace roofline
