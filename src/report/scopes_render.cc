// The scope tree in every report format (roofline/report/scopes.hpp).
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/format/csv.hpp"
#include "roofline/format/json.hpp"
#include "roofline/format/markdown.hpp"
#include "roofline/format/html.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "roofline/report/scopes.hpp"

namespace roofline {
namespace {

using detail::cat;

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// measured / roofline, "-" without a roofline.
std::string x_roofline(const ScopeNode& n) {
  if (n.predicted_s <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", n.measured_s / n.predicted_s);
  return buf;
}

std::string num9(double v) {
  if (!std::isfinite(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Every node but the root, depth first, with its level (1 = top).
void walk(const ScopeNode& n, int level, const std::function<void(const ScopeNode&, int)>& f) {
  for (const ScopeNode& c : n.children) {
    f(c, level);
    walk(c, level + 1, f);
  }
}

std::vector<std::string> cells(const ScopeNode& n, std::string label) {
  return {std::move(label),
          cat(n.ops),
          format_seconds(n.measured_s),
          format_percent(n.share),
          n.predicted_s > 0 ? format_seconds(n.predicted_s) : "-",
          n.expected_s > 0 ? format_seconds(n.expected_s) : "-",
          x_roofline(n),
          format_percent(n.mfu),
          n.sources.empty() ? "-" : joined(n.sources)};
}

const std::vector<std::string> kHeader = {"scope", "ops", "measured", "share", "roofline", "expected",
                                          "x roofline", "MFU", "scope from"};

std::string headline(const Report& r, const ScopeTree& t) {
  return cat("By scope: ", r.trace_path, " on ", r.chip, ", scopes to depth ", t.depth, " (--depth N folds deeper ones)\n",
             "MFU: the scope's FLOPs over the report's wall span ", format_seconds(r.summary.wall_s), " x ",
             r.peak_label(), "\n");
}

std::string text(const Report& r, const ScopeTree& t) {
  using A = TextTable::Align;
  TextTable table({{"scope"}, {"ops", A::kRight}, {"measured", A::kRight}, {"share", A::kRight},
                   {"roofline", A::kRight}, {"expected", A::kRight}, {"x roofline", A::kRight}, {"MFU", A::kRight},
                   {"scope from"}});
  walk(t.root, 1, [&](const ScopeNode& n, int level) {
    table.add_row(cells(n, std::string(2 * static_cast<std::size_t>(level - 1), ' ') + n.name));
  });
  table.add_row(cells(t.root, "total"));
  std::string notes;
  for (const std::string& n : t.notes) notes += "note: " + for_terminal(n) + "\n";
  return headline(r, t) + "\n" + table.render() + (notes.empty() ? "" : "\n" + notes);
}

std::string markdown(const Report& r, const ScopeTree& t) {
  std::vector<std::vector<std::string>> rows;
  // Markdown trims a cell's leading spaces: the full path shows the nesting.
  walk(t.root, 1, [&](const ScopeNode& n, int) { rows.push_back(cells(n, n.unscoped ? n.name : n.path)); });
  rows.push_back(cells(t.root, "**total**"));
  std::string notes;
  for (const std::string& n : t.notes) notes += "\n> note: " + markdown_cell(n) + "\n";
  return "## " + headline(r, t) + "\n" +
         markdown_table(kHeader, rows, {false, true, true, true, true, true, true, true, false}) + notes;
}

Json node_json(const ScopeNode& n) {
  Json children = Json::array();
  for (const ScopeNode& c : n.children) children.push_back(node_json(c));
  return Json::object({{"name", n.name},
                       {"path", n.path},
                       {"unscoped", n.unscoped},
                       {"ops", n.ops},
                       {"measured_s", n.measured_s},
                       {"predicted_s", n.predicted_s},
                       {"expected_s", n.expected_s},
                       {"flops", n.flops},
                       {"mfu", n.mfu},
                       {"share", n.share},
                       {"sources", n.sources},
                       {"children", children}});
}

std::string json(const Report& r, const ScopeTree& t) {
  Json out = Json::object({{"trace", r.trace_path},
                           {"chip", r.chip},
                           {"depth", t.depth},
                           {"wall_s", r.summary.wall_s},
                           {"peak_flops_per_s", r.peak_flops_per_s},
                           {"dominant_dtype", r.dominant_dtype},
                           {"notes", t.notes},
                           {"scopes", node_json(t.root)}});
  return out.dump() + "\n";
}

std::string csv(const ScopeTree& t) {
  CsvWriter w({"path", "name", "level", "unscoped", "ops", "measured_s", "share", "predicted_s", "expected_s", "flops",
               "mfu", "sources"});
  walk(t.root, 1, [&](const ScopeNode& n, int level) {
    w.add_row({n.path, n.name, cat(level), n.unscoped ? "true" : "false", cat(n.ops), num9(n.measured_s),
               num9(n.share), num9(n.predicted_s), num9(n.expected_s), num9(n.flops), num9(n.mfu), joined(n.sources)});
  });
  return w.str();
}

std::string esc(const std::string& raw) { return html_escape(raw); }

std::string html_figures(const ScopeNode& n) {
  const std::vector<std::string> c = cells(n, "");
  std::string out = "<span class=\"f\">";
  for (std::size_t i = 1; i < c.size(); ++i) out += "<span>" + esc(kHeader[i]) + " " + esc(c[i]) + "</span>";
  return out + "</span>";
}

void html_node(const ScopeNode& n, std::string& out) {
  const std::string title = "<b title=\"" + esc(n.path) + "\">" + esc(n.name) + "</b> " + html_figures(n);
  if (n.children.empty()) {
    out += "<div class=\"leaf\">" + title + "</div>\n";
    return;
  }
  out += "<details open><summary>" + title + "</summary>\n";
  for (const ScopeNode& c : n.children) html_node(c, out);
  out += "</details>\n";
}

std::string html(const Report& r, const ScopeTree& t) {
  std::string out =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>roofline: by scope</title><style>"
      "body{font:14px system-ui,sans-serif;margin:2em}details,.leaf{margin-left:1.2em}"
      "summary{cursor:pointer}.f span{margin-left:1em;color:#555}</style></head><body>\n";
  // Line by line: esc shows a newline as \x0a.
  const std::string head = headline(r, t);
  for (std::size_t at = 0, nl; at < head.size(); at = nl + 1) {
    nl = head.find('\n', at);
    if (nl == std::string::npos) nl = head.size();
    out += "<p>" + esc(head.substr(at, nl - at)) + "</p>\n";
  }
  ScopeNode root = t.root;
  root.name = "total";
  html_node(root, out);
  for (const std::string& n : t.notes) out += "<p>note: " + esc(n) + "</p>\n";
  return out + "</body></html>\n";
}

}  // namespace

std::string render_scopes(const Report& report, ReportFormat format, int depth) {
  const ScopeTree t = scope_tree(report, depth);
  switch (format) {
    case ReportFormat::kText: return text(report, t);
    case ReportFormat::kMarkdown: return markdown(report, t);
    case ReportFormat::kJson: return json(report, t);
    case ReportFormat::kCsv: return csv(t);
    case ReportFormat::kHtml: return html(report, t);
  }
  return text(report, t);
}

}  // namespace roofline
