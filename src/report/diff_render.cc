// A diff as text, Markdown, JSON, CSV and HTML (roofline/report/diff.hpp;
// the JSON keys and CSV columns are in docs/diff.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "roofline/format/csv.hpp"
#include "roofline/format/json.hpp"
#include "roofline/format/markdown.hpp"
#include "roofline/format/html.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "roofline/report/diff.hpp"

namespace roofline {
namespace {

std::string seconds(double s) { return std::isfinite(s) ? format_seconds(s) : "-"; }

std::string change_of(double before, double after) {
  if (!std::isfinite(before) || !std::isfinite(after)) return "-";
  char buf[48];
  if (before > 0) std::snprintf(buf, sizeof buf, "%+.1f%%", (after - before) / before * 100);
  else if (after == before) return "0";
  else return "new";
  return buf;
}

std::string percent_or_unknown(double f) { return std::isfinite(f) ? format_percent(f) : "unknown"; }

std::string points(double before, double after) {
  if (!std::isfinite(before) || !std::isfinite(after)) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%+.3g pp", (after - before) * 100);
  return buf;
}

std::string signed_seconds(double s) { return (s >= 0 ? "+" : "-") + format_seconds(std::abs(s)); }

std::string name_of(const OpDiff& op) {
  const std::string& example = op.example_after.empty() ? op.example_before : op.example_after;
  return example == op.kind ? op.kind : op.kind + " (" + example + ")";
}

// The headline rows: name, before, after, change.
std::vector<std::vector<std::string>> headline_rows(const ReportDiff& d) {
  const DiffHeadline &b = d.before, &a = d.after;
  return {
      {"step time", seconds(b.step_time_s), seconds(a.step_time_s), change_of(b.step_time_s, a.step_time_s)},
      {"MFU", percent_or_unknown(b.mfu), percent_or_unknown(a.mfu), points(b.mfu, a.mfu)},
      {"busy", seconds(b.busy_s), seconds(a.busy_s), change_of(b.busy_s, a.busy_s)},
      {"idle", seconds(b.idle_s), seconds(a.idle_s), change_of(b.idle_s, a.idle_s)},
      {"expected", seconds(b.expected_s), seconds(a.expected_s), change_of(b.expected_s, a.expected_s)},
      {"duty cycle", percent_or_unknown(b.duty_cycle), percent_or_unknown(a.duty_cycle), points(b.duty_cycle, a.duty_cycle)},
  };
}

std::vector<std::string> op_cells(const OpDiff& op) {
  return {name_of(op),
          op.scope.empty() ? op.module : op.module + " " + op.scope,
          op.category,
          op.change == DiffChange::kResized ? op.shapes_before + " -> " + op.shapes : op.shapes,
          std::string(diff_change_name(op.change)),
          op.before.ops ? seconds(op.before.measured_s) : "-",
          op.after.ops ? seconds(op.after.measured_s) : "-",
          signed_seconds(op.delta_measured_s()),
          change_of(op.before.measured_s, op.after.measured_s),
          op.after.expected_s > 0 ? seconds(op.after.expected_s) : "-",
          std::to_string(op.before.count) + " -> " + std::to_string(op.after.count)};
}
const std::vector<std::string> kOpHeader = {"op", "module and scope", "category", "shapes", "change", "before", "after",
                                            "delta", "delta %", "expected after", "count"};

std::vector<std::string> group_cells(const GroupDiff& g) {
  return {g.name, seconds(g.before.measured_s), seconds(g.after.measured_s), signed_seconds(g.delta_measured_s()),
          change_of(g.before.measured_s, g.after.measured_s)};
}

std::string unit_words(const ReportDiff& d) { return d.per_step ? "per step" : "whole profile"; }

std::string gate_line(const GateResult& g, const char* bullet) {
  std::string s = g.failed ? "fail-if: FAILED\n" : "fail-if: passed\n";
  for (const std::string& r : g.reasons) s += std::string(bullet) + r + "\n";
  return s;
}

std::string text(const ReportDiff& d, const DiffRenderOptions& o, const GateResult* gate) {
  std::string out = "roofline diff: " + for_terminal(d.before_path) + " -> " + for_terminal(d.after_path) + "\n\n";
  TextTable h({{""}, {"before", TextTable::Align::kRight}, {"after", TextTable::Align::kRight},
               {"change", TextTable::Align::kRight}}, 2);
  for (auto& row : headline_rows(d)) h.add_row(row);
  out += h.render();
  for (const std::string& n : d.notes) out += "  note: " + for_terminal(n) + "\n";
  if (gate) out += "\n" + gate_line(*gate, "  ");
  const auto groups = [&](const char* title, const std::vector<GroupDiff>& rows) {
    out += "\n" + std::string(title) + " (measured, " + unit_words(d) + ")\n";
    TextTable t({{"name"}, {"before", TextTable::Align::kRight}, {"after", TextTable::Align::kRight},
                 {"delta", TextTable::Align::kRight}, {"delta %", TextTable::Align::kRight}}, 2);
    for (std::size_t i = 0; i < rows.size() && i < static_cast<std::size_t>(o.top); ++i) t.add_row(group_cells(rows[i]));
    out += t.render();
  };
  groups("By category", d.categories);
  groups("By module", d.modules);
  out += "\nOps that changed most (matched by kind, module, shapes and cost, not by name; measured, " +
         unit_words(d) + ")\n";
  std::vector<TextTable::Column> cols;
  for (std::size_t i = 0; i < kOpHeader.size(); ++i)
    cols.push_back({kOpHeader[i], i >= 5 ? TextTable::Align::kRight : TextTable::Align::kLeft});
  TextTable t(cols, 2);
  for (std::size_t i = 0; i < d.ops.size() && i < static_cast<std::size_t>(o.top); ++i) t.add_row(op_cells(d.ops[i]));
  out += t.render();
  if (d.ops.size() > static_cast<std::size_t>(o.top))
    out += "  ... " + std::to_string(d.ops.size() - static_cast<std::size_t>(o.top)) + " more (--top N, or --format json)\n";
  return out;
}

std::string markdown(const ReportDiff& d, const DiffRenderOptions& o, const GateResult* gate) {
  std::string out = "# roofline diff\n\n`" + markdown_cell(d.before_path) + "` -> `" + markdown_cell(d.after_path) + "`\n\n";
  out += markdown_table({"", "before", "after", "change"}, headline_rows(d), {false, true, true, true});
  for (const std::string& n : d.notes) out += "\n> " + markdown_cell(n) + "\n";
  if (gate) out += "\n" + gate_line(*gate, "- ");
  const auto groups = [&](const char* title, const std::vector<GroupDiff>& rows) {
    std::vector<std::vector<std::string>> cells;
    for (std::size_t i = 0; i < rows.size() && i < static_cast<std::size_t>(o.top); ++i) cells.push_back(group_cells(rows[i]));
    out += "\n## " + std::string(title) + " (" + unit_words(d) + ")\n\n" +
           markdown_table({"name", "before", "after", "delta", "delta %"}, cells, {false, true, true, true, true});
  };
  groups("By category", d.categories);
  groups("By module", d.modules);
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < d.ops.size() && i < static_cast<std::size_t>(o.top); ++i) cells.push_back(op_cells(d.ops[i]));
  out += "\n## Ops that changed most (" + unit_words(d) + ")\n\n" +
         markdown_table(kOpHeader, cells, {false, false, false, false, false, true, true, true, true, true, true});
  return out;
}

Json side_json(const DiffSide& s) {
  return Json::object({{"ops", s.ops}, {"count", s.count}, {"measured_s", s.measured_s},
                       {"expected_s", s.expected_s}, {"roofline_s", s.roofline_s}});
}

Json headline_json(const DiffHeadline& h) {
  const auto or_null = [](double v) { return std::isfinite(v) ? Json(v) : Json(); };
  return Json::object({{"steps", h.steps}, {"step_time_s", or_null(h.step_time_s)}, {"busy_s", or_null(h.busy_s)},
                       {"idle_s", or_null(h.idle_s)}, {"expected_s", or_null(h.expected_s)}, {"mfu", or_null(h.mfu)},
                       {"duty_cycle", or_null(h.duty_cycle)}});
}

std::string json(const ReportDiff& d, const GateResult* gate) {
  Json out = Json::object({{"before", Json::object({{"path", d.before_path}, {"chip", d.before_chip}})},
                           {"after", Json::object({{"path", d.after_path}, {"chip", d.after_chip}})},
                           {"per_step", d.per_step},
                           {"headline", Json::object({{"before", headline_json(d.before)},
                                                      {"after", headline_json(d.after)}})},
                           {"notes", d.notes}});
  Json ops = Json::array();
  for (const OpDiff& op : d.ops)
    ops.push_back(Json::object({{"kind", op.kind}, {"module", op.module}, {"scope", op.scope}, {"category", op.category},
                                {"shapes", op.shapes}, {"shapes_before", op.shapes_before},
                                {"change", diff_change_name(op.change)},
                                {"name_before", op.example_before}, {"name_after", op.example_after},
                                {"before", side_json(op.before)}, {"after", side_json(op.after)},
                                {"delta_measured_s", op.delta_measured_s()}}));
  out["ops"] = ops;
  for (const auto& [key, rows] : {std::pair{"categories", &d.categories}, std::pair{"modules", &d.modules}}) {
    Json list = Json::array();
    for (const GroupDiff& g : *rows)
      list.push_back(Json::object({{"name", g.name}, {"before", side_json(g.before)}, {"after", side_json(g.after)},
                                   {"delta_measured_s", g.delta_measured_s()}}));
    out[key] = list;
  }
  if (gate) out["fail_if"] = Json::object({{"failed", gate->failed}, {"reasons", gate->reasons}});
  return out.dump() + "\n";
}

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string csv(const ReportDiff& d) {
  CsvWriter w({"kind", "module", "scope", "category", "shapes", "shapes_before", "change", "name_before", "name_after", "count_before",
               "count_after", "measured_before_s", "measured_after_s", "delta_measured_s", "expected_before_s",
               "expected_after_s", "per_step"});
  for (const OpDiff& op : d.ops)
    w.add_row({op.kind, op.module, op.scope, op.category, op.shapes, op.shapes_before, std::string(diff_change_name(op.change)),
               op.example_before, op.example_after, std::to_string(op.before.count), std::to_string(op.after.count),
               num(op.before.measured_s), num(op.after.measured_s), num(op.delta_measured_s()),
               num(op.before.expected_s), num(op.after.expected_s), d.per_step ? "true" : "false"});
  return w.str();
}

std::string esc(const std::string& raw) { return html_escape(raw); }

std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string s = "<table><tr>";
  for (const std::string& h : header) s += "<th>" + esc(h) + "</th>";
  s += "</tr>\n";
  for (const auto& row : rows) {
    s += "<tr>";
    for (const std::string& c : row) s += "<td>" + esc(c) + "</td>";
    s += "</tr>\n";
  }
  return s + "</table>\n";
}

std::string html(const ReportDiff& d, const DiffRenderOptions& o, const GateResult* gate) {
  std::string out =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>roofline diff</title>\n"
      "<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
      "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}"
      ".fail{color:#c53030}.pass{color:#2f855a}</style></head><body>\n";
  out += "<h1>roofline diff</h1>\n<p>" + esc(d.before_path) + " &rarr; " + esc(d.after_path) + "</p>\n";
  out += html_table({"", "before", "after", "change"}, headline_rows(d));
  for (const std::string& n : d.notes) out += "<p>note: " + esc(n) + "</p>\n";
  if (gate) {
    out += std::string("<p class=\"") + (gate->failed ? "fail\">fail-if: FAILED" : "pass\">fail-if: passed") + "</p>\n<ul>";
    for (const std::string& r : gate->reasons) out += "<li>" + esc(r) + "</li>";
    out += "</ul>\n";
  }
  const auto groups = [&](const char* title, const std::vector<GroupDiff>& rows) {
    std::vector<std::vector<std::string>> cells;
    for (std::size_t i = 0; i < rows.size() && i < static_cast<std::size_t>(o.top); ++i) cells.push_back(group_cells(rows[i]));
    out += "<h2>" + std::string(title) + " (" + unit_words(d) + ")</h2>\n" +
           html_table({"name", "before", "after", "delta", "delta %"}, cells);
  };
  groups("By category", d.categories);
  groups("By module", d.modules);
  std::vector<std::vector<std::string>> cells;
  for (std::size_t i = 0; i < d.ops.size() && i < static_cast<std::size_t>(o.top); ++i) cells.push_back(op_cells(d.ops[i]));
  out += "<h2>Ops that changed most (" + unit_words(d) + ")</h2>\n" + html_table(kOpHeader, cells);
  return out + "</body></html>\n";
}

}  // namespace

std::string render_diff(const ReportDiff& d, ReportFormat format, DiffRenderOptions options, const GateResult* gate) {
  switch (format) {
    case ReportFormat::kText: return text(d, options, gate);
    case ReportFormat::kMarkdown: return markdown(d, options, gate);
    case ReportFormat::kJson: return json(d, gate);
    case ReportFormat::kCsv: return csv(d);
    case ReportFormat::kHtml: return html(d, options, gate);
  }
  return {};
}

}  // namespace roofline
