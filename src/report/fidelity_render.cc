// The fidelity benchmark rendered: text and Markdown tables, and JSON.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "roofline/calibrate/fidelity.hpp"
#include "roofline/report/fidelity.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/format/json.hpp"
#include "roofline/format/markdown.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"

namespace roofline {
namespace {

constexpr std::size_t kNameWidth = 72;  // an op or trace name in a table, trimmed in the middle

// Names, paths and reasons come from traces (and a chip's name from its
// spec file): every one is shown through for_terminal(), in Markdown too,
// where markdown_table escapes '|' after it.
std::string shown(std::string_view s) { return for_terminal(s); }

// Trimmed in the middle to kNameWidth, then shown.
std::string trimmed(const std::string& s) {
  if (s.size() <= kNameWidth) return shown(s);
  return shown(s.substr(0, kNameWidth / 2 - 1) + "..." + s.substr(s.size() - (kNameWidth / 2 - 2)));
}

std::string ratio(double r) {
  if (!(r > 0) || !std::isfinite(r)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", r);
  return buf;
}

// Four cells per expectation: median, p90, mean and the whole ratio.
void add_figures(std::vector<std::string>& cells, const ErrorFigures& e) {
  cells.push_back(format_percent(e.median_abs_error));
  cells.push_back(format_percent(e.p90_abs_error));
  cells.push_back(format_percent(e.mean_abs_error));
  cells.push_back(ratio(e.whole_ratio));
}

std::vector<std::string> row_cells(const FidelityRow& r) {
  std::vector<std::string> cells = {trimmed(r.name), shown(r.chip), detail::cat(r.ops), detail::cat(r.bounds_above)};
  add_figures(cells, r.roofline);
  add_figures(cells, r.builtin);
  add_figures(cells, r.calibrated);
  return cells;
}

const std::vector<std::string> kRowTitles = {
    "trace", "chip", "ops", "bound > measured",
    "roofline median", "roofline p90", "roofline mean", "roofline measured / expected",
    "built-in median", "built-in p90", "built-in mean", "built-in measured / expected",
    "calibrated median", "calibrated p90", "calibrated mean", "calibrated measured / expected"};

std::vector<std::vector<std::string>> all_rows(const FidelityResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const FidelityRow& t : r.traces) rows.push_back(row_cells(t));
  for (const FidelityRow& c : r.chips) {
    auto cells = row_cells(c);
    cells[0] = "chip " + shown(c.name);
    rows.push_back(cells);
  }
  for (const FidelityRow& c : r.classes) {
    auto cells = row_cells(c);
    cells[0] = "class " + shown(c.name);
    rows.push_back(cells);
  }
  rows.push_back(row_cells(r.overall));
  return rows;
}

std::vector<std::string> bound_cells(const BoundAbove& b) {
  return {trimmed(b.trace), trimmed(b.op), shown(b.chip), format_seconds(b.bound_s), format_seconds(b.measured_s),
          ratio(b.ratio), shown(b.reason)};
}

const std::vector<std::string> kBoundTitles = {"trace", "op", "chip", "bound", "measured", "bound / measured", "reason"};

// The first kFidelityOpsShown ops, as rows.
std::vector<std::vector<std::string>> furthest_rows(const FidelityResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < r.ops.size() && i < kFidelityOpsShown; ++i) {
    const FidelityOp& o = r.ops[i];
    rows.push_back({trimmed(o.trace), trimmed(o.op), shown(o.chip), std::string(cost_class_name(o.cost_class)), detail::cat(o.count),
                    format_seconds(o.measured_s), format_seconds(o.calibrated_s), ratio(o.measured_s / o.calibrated_s),
                    format_seconds(o.builtin_s), format_seconds(o.bound_s)});
  }
  return rows;
}

const std::vector<std::string> kOpTitles = {"trace", "op", "chip", "class", "count", "measured", "calibrated",
                                            "measured / calibrated", "built-in", "bound"};

// Every collective op: its call, the wait for its slowest peer where
// several ranks were read, and the transfer its expectations are held to.
std::vector<std::vector<std::string>> wait_rows(const FidelityResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const FidelityOp& o : r.ops) {
    if (o.cost_class != CostClass::kCollective) continue;
    rows.push_back({trimmed(o.trace), trimmed(o.op), shown(o.chip), format_seconds(o.measured_s),
                    o.wait_s ? format_seconds(*o.wait_s) : "not separable (one rank read)",
                    o.wait_s ? format_seconds(o.transfer_s) : "-", format_seconds(o.builtin_s),
                    ratio(o.transfer_s / o.builtin_s)});
  }
  return rows;
}

const std::vector<std::string> kWaitTitles = {"trace", "op", "chip", "measured call", "wait for peers", "transfer",
                                              "built-in", "measured / built-in"};
constexpr std::string_view kWaitTitle =
    "Collectives: each call's wait for its slowest peer (from the skew across the ranks read) apart from the "
    "transfer the expectations are held to; medians of one occurrence:";

std::string furthest_title(const FidelityResult& r) {
  return detail::cat("Furthest from the calibrated expectation (", std::min(r.ops.size(), kFidelityOpsShown), " of ",
                     r.ops.size(), "; every op in --format json):");
}

std::string overall_figures(std::string_view name, const ErrorFigures& e) {
  return detail::cat(name, " ", format_percent(e.median_abs_error), ", ", format_percent(e.p90_abs_error), ", ",
                     format_percent(e.mean_abs_error), ", ", ratio(e.whole_ratio));
}

// Three lines, each ended by `end` ("\n" for text, "\n\n" for Markdown paragraphs).
std::string header(const FidelityResult& r, std::string_view end = "\n") {
  const double share = r.overall.ops > 0 ? static_cast<double>(r.overall.bounds_above) / static_cast<double>(r.overall.ops) : 0;
  return detail::cat(r.overall.ops, " ops compared; ", r.overall.bounds_above, " lower bounds above the measured median (",
                     format_percent(share), ").", end,
                     "Median, p90 and mean of |measured / expected - 1|, and sum measured / sum expected: ",
                     overall_figures("roofline", r.overall.roofline), "; ", overall_figures("built-in", r.overall.builtin),
                     "; ", overall_figures("calibrated", r.overall.calibrated), ".", end, "calibrated: ", r.calibrated, ".",
                     end);
}

std::string text(const FidelityResult& r) {
  std::string out = header(r) + "\n";
  std::vector<TextTable::Column> cols;
  for (std::size_t i = 0; i < kRowTitles.size(); ++i)
    cols.push_back({kRowTitles[i], i >= 2 ? TextTable::Align::kRight : TextTable::Align::kLeft});
  TextTable t(cols);
  for (auto& row : all_rows(r)) t.add_row(row);
  out += t.render();
  if (!r.bounds_above.empty()) {
    out += "\nLower bounds above the measured median:\n";
    for (const BoundAbove& b : r.bounds_above)
      out += detail::cat("  ", ratio(b.ratio), "  ", shown(b.chip), "  ", trimmed(b.op), "  (", shown(b.trace), ")\n      ",
                         format_seconds(b.bound_s), " bound, ", format_seconds(b.measured_s), " measured: ", shown(b.reason),
                         "\n");
  }
  if (!r.ops.empty()) {
    out += "\n" + furthest_title(r) + "\n";
    for (const auto& row : furthest_rows(r))
      out += detail::cat("  ", row[7], "  ", row[2], "  ", row[1], "  (", row[0], ")\n      ", row[5], " measured, ", row[6],
                         " calibrated, ", row[8], " built-in, ", row[9], " bound; ", row[3], ", ", row[4],
                         row[4] == "1" ? " occurrence\n" : " occurrences\n");
  }
  if (const auto waits = wait_rows(r); !waits.empty()) {
    out += detail::cat("\n", kWaitTitle, "\n");
    for (const auto& row : waits)
      out += detail::cat("  ", row[1], "  ", row[2], "  (", row[0], ")\n      ", row[3], " call, wait ", row[4],
                         ", transfer ", row[5], ", built-in ", row[6], " (", row[7], ")\n");
  }
  if (!r.notes.empty()) {
    out += "\nNotes:\n";
    for (const std::string& n : r.notes) out += "  " + shown(n) + "\n";
  }
  return out;
}

std::string markdown(const FidelityResult& r) {
  std::string out = header(r, "\n\n");
  out += markdown_table(kRowTitles, all_rows(r));
  if (!r.bounds_above.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const BoundAbove& b : r.bounds_above) rows.push_back(bound_cells(b));
    out += "\nLower bounds above the measured median:\n\n" + markdown_table(kBoundTitles, rows);
  }
  if (!r.ops.empty()) out += "\n" + furthest_title(r) + "\n\n" + markdown_table(kOpTitles, furthest_rows(r));
  if (const auto waits = wait_rows(r); !waits.empty())
    out += detail::cat("\n", kWaitTitle, "\n\n", markdown_table(kWaitTitles, waits));
  if (!r.notes.empty()) {
    out += "\nNotes:\n\n";
    for (const std::string& n : r.notes) out += "- " + markdown_cell(shown(n)) + "\n";
  }
  return out;
}

Json errors_json(const ErrorFigures& e) {
  return Json::object({{"median_abs_error", e.median_abs_error},
                       {"p90_abs_error", e.p90_abs_error},
                       {"mean_abs_error", e.mean_abs_error},
                       {"whole_ratio", e.whole_ratio}});
}

Json row_json(const FidelityRow& r) {
  return Json::object({{"name", r.name},
                       {"chip", r.chip},
                       {"ops", r.ops},
                       {"bounds_above", r.bounds_above},
                       {"roofline", errors_json(r.roofline)},
                       {"builtin", errors_json(r.builtin)},
                       {"calibrated", errors_json(r.calibrated)}});
}

std::string json(const FidelityResult& r) {
  Json traces = Json::array(), chips = Json::array(), classes = Json::array(), bounds = Json::array();
  for (const FidelityRow& t : r.traces) traces.push_back(row_json(t));
  for (const FidelityRow& c : r.chips) chips.push_back(row_json(c));
  for (const FidelityRow& c : r.classes) classes.push_back(row_json(c));
  for (const BoundAbove& b : r.bounds_above)
    bounds.push_back(Json::object({{"trace", b.trace},
                                   {"op", b.op},
                                   {"chip", b.chip},
                                   {"bound_s", b.bound_s},
                                   {"measured_s", b.measured_s},
                                   {"ratio", b.ratio},
                                   {"reason", b.reason}}));
  Json ops = Json::array();
  for (const FidelityOp& o : r.ops) {
    Json op = Json::object({{"trace", o.trace},
                            {"op", o.op},
                            {"chip", o.chip},
                            {"cost_class", std::string(cost_class_name(o.cost_class))},
                            {"shapes", o.shapes},
                            {"count", o.count},
                            {"measured_s", o.measured_s},
                            {"bound_s", o.bound_s},
                            {"builtin_s", o.builtin_s},
                            {"calibrated_s", o.calibrated_s},
                            {"fold", o.fold}});
    // A collective's wait apart from its transfer (null: one rank read, not separable).
    if (o.cost_class == CostClass::kCollective) {
      op["wait_s"] = Json(o.wait_s);
      op["transfer_s"] = o.transfer_s;
      op["wait_separable"] = o.wait_separable;
    }
    ops.push_back(std::move(op));
  }
  return Json::object({{"calibrated", r.calibrated},
                       {"traces", traces},
                       {"chips", chips},
                       {"classes", classes},
                       {"overall", row_json(r.overall)},
                       {"bounds_above", bounds},
                       {"ops", ops},
                       {"notes", Json(r.notes)}})
             .dump() +
         "\n";
}

}  // namespace

std::string render_fidelity(const FidelityResult& result, FidelityFormat format) {
  switch (format) {
    case FidelityFormat::kText: return text(result);
    case FidelityFormat::kMarkdown: return markdown(result);
    case FidelityFormat::kJson: return json(result);
  }
  return text(result);
}

}  // namespace roofline
