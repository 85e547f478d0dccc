// Text (terminal) and Markdown: the same sections, headline figures first,
// then where the time went, then the ops worth a look, then what could not
// be predicted and why.
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "roofline/report/labels.hpp"
#include "roofline/report/rank.hpp"
#include "roofline/report/render.hpp"
#include "roofline/format/markdown.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"

namespace roofline {
namespace {

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string ratio_text(double r) { return r > 0 ? fixed(r, r >= 10 ? 0 : 2) + "x" : "-"; }

// A table both renderers can print: text aligns columns with spaces,
// Markdown writes pipes.
struct Table {
  std::vector<std::string> header;
  std::vector<bool> right;  // right-aligned columns
  std::vector<std::vector<std::string>> rows;
};

std::string clip(const std::string& s, std::size_t max) {
  if (display_width(s) <= max) return s;
  return s.substr(0, max - 3) + "...";
}

std::string table_text(const Table& t) {
  std::vector<TextTable::Column> columns;
  for (std::size_t i = 0; i < t.header.size(); ++i)
    columns.push_back({t.header[i], t.right[i] ? TextTable::Align::kRight
                                               : TextTable::Align::kLeft});
  TextTable table(std::move(columns), /*indent=*/2);
  for (const auto& r : t.rows) table.add_row(r);
  return table.render();
}

std::string table_markdown(const Table& t) { return markdown_table(t.header, t.rows, t.right); }

// Which time lost a ranked table shows: against the roofline (what no
// kernel beats) or against the calibrated expectation (what is worth fixing).
enum class LostAgainst : unsigned char { kRoofline, kExpected };

// Every op row shows the three figures side by side: measured, the roofline
// lower bound and the calibrated expected time, and measured over each.
Table op_table(const std::vector<const OpReport*>& ops, bool with_target, LostAgainst lost) {
  Table t;
  t.header = {"op", "module", "src", "count", "measured", "roofline", "expected", "x roofline", "x expected",
              "bound", lost == LostAgainst::kExpected ? "lost vs exp" : "lost", "FLOP util", "BW util"};
  t.right = {false, false, false, true, true, true, true, true, true, false, true, true, true};
  if (with_target) {
    t.header.insert(t.header.end(), {"on target", "time on target", "method"});
    t.right.insert(t.right.end(), {true, true, false});
  }
  for (const OpReport* op : ops) {
    const bool p = op->predicted;
    const double lost_s = lost == LostAgainst::kExpected ? op->lost_expected_s : op->lost_s;
    std::vector<std::string> row = {short_op_name(op->name, 48),
                                    clip(op->module, 32),
                                    std::string(cost_source_tag(op->match)),
                                    std::to_string(op->count),
                                    format_seconds(op->measured_s),
                                    p ? format_seconds(op->prediction.t_lower_s) : "-",
                                    p ? format_seconds(op->expected_s) : "-",
                                    // "!": below the roofline (OpReport::below_roofline)
                                    p ? ratio_text(op->ratio) + (op->below_roofline ? "!" : "") : "-",
                                    p ? ratio_text(expected_ratio(*op)) : "-",
                                    op_bound_label(*op),
                                    // Below the roofline, time lost against it would be negative: unknown.
                                    p && !(lost == LostAgainst::kRoofline && op->below_roofline) ? format_seconds(lost_s)
                                                                                                  : "-",
                                    p && !op->async ? format_percent(op->flop_util) : "-",
                                    p && !op->async ? format_percent(op->bw_util) : "-"};
    if (with_target) {
      row.push_back(op->target_predicted_s ? format_seconds(*op->target_predicted_s) : "-");
      row.push_back(op->target_expected_s ? format_seconds(*op->target_expected_s) : "-");
      row.push_back(op->target_method ? std::string(target_method_name(*op->target_method)) : "-");
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

struct Section {
  std::string title;
  std::string intro;
  Table table;
};

std::vector<std::string> headline_lines(const Report& r) {
  const ReportSummary& s = r.summary;
  std::vector<std::string> l;
  l.push_back("chip: " + r.chip + (r.chip_source.empty() ? "" : " (" + r.chip_source + ")") +
              ", " + r.peak_label() +
              ", HBM " + format_si(r.hbm_bytes_per_s, "B/s"));
  std::string devs = std::to_string(r.devices.size()) + " device(s):";
  for (std::size_t i = 0; i < r.devices.size() && i < 4; ++i)
    devs += (i ? ", " : " ") + r.devices[i].name;
  if (r.devices.size() > 4) devs += ", ...";
  l.push_back(devs);
  l.push_back("measured busy time " + format_seconds(s.measured_s) + " over a wall span of " +
              format_seconds(s.wall_s) + "; duty cycle " + format_percent(s.duty_cycle) +
              ", idle " + format_seconds(s.idle_s));
  if (std::optional<std::string> none = nothing_predicted_headline(r)) {
    l.push_back(*none);
    return l;
  }
  const double eff = s.matched_measured_s > 0 ? s.predicted_s / s.matched_measured_s : 0;
  l.push_back("roofline of the predicted ops " + format_seconds(s.predicted_s) + " vs their measured " +
              format_seconds(s.matched_measured_s) + ": they run at " + format_percent(eff) +
              " of roofline speed");
  if (s.expected_s > 0)
    l.push_back("calibrated expected of the same ops " + format_seconds(s.expected_s) + ": measured is " +
                ratio_text(s.matched_measured_s / s.expected_s) + " the expected (" + calibration_label(r.calibration) +
                ")");
  if (s.async_predicted_s > 0)
    l.push_back("async transfers (not in the line above): exposed waits " +
                format_seconds(s.async_measured_s) + " against a transfer roofline of " +
                format_seconds(s.async_predicted_s));
  l.push_back("MFU " + format_percent(s.mfu) + ", HFU " + format_percent(s.hfu) + " (" +
              s.mfu_convention + ")");
  if (s.unmatched_s > 0 || std::any_of(r.ops.begin(), r.ops.end(),
                                       [](const OpReport& o) { return !o.predicted; })) {
    int n = 0;
    for (const OpReport& o : r.ops) n += !o.predicted;
    l.push_back(std::to_string(n) + " op(s) without a prediction account for " +
                format_seconds(s.unmatched_s) + " (listed at the end with the reason)");
  }
  if (std::optional<std::string> across = across_devices_headline(r)) l.push_back("across devices: " + *across);
  if (!r.target_chip.empty()) {
    const TargetTotals target = target_totals(r);
    const std::string methods = target_methods_text(target);
    l.push_back("what-if on " + r.target_chip + ": the predicted ops' roofline would be " +
                format_seconds(target.predicted_s) + " (vs " + format_seconds(s.predicted_s) + " on " + r.chip +
                "), and they would take " + format_seconds(target.expected_s) + " (vs " +
                format_seconds(target.measured_s) + " measured)" +
                (methods.empty() ? std::string() : ": " + methods) + " (" + calibration_label(r.target_calibration) +
                ")");
  }
  return l;
}

// Stragglers and collective waits (Report::across_devices): the steps with
// the largest skew, the collectives with the most wait, and per device its
// wait. Names from traces pass through for_terminal() here, as Markdown
// does not escape control characters (text tables do again: a no-op).
std::vector<Section> across_devices_sections(const AcrossDevices& a, std::size_t top) {
  std::vector<Section> out;
  const std::string defined = "definitions: docs/traces.md, \"Across devices\"";
  // Without steps, the first table says so.
  std::string no_steps = a.steps.empty() ? "no step ran on 2 or more devices; " + defined + "; " : "";
  if (!a.steps.empty()) {
    Table steps;
    steps.header = {"step", "devices", "slowest", "time", "fastest", "time", "median", "skew"};
    steps.right = {false, true, false, true, false, true, true, true};
    const std::vector<const StepStraggler*> shown = steps_by_skew(a, top);
    for (const StepStraggler* st : shown)
      steps.rows.push_back({for_terminal(st->repeat ? st->step + " (" + std::to_string(st->repeat + 1) + ")" : st->step),
                            std::to_string(st->devices), for_terminal(st->slowest_device),
                            format_seconds(st->slowest_s), for_terminal(st->fastest_device),
                            format_seconds(st->fastest_s), format_seconds(st->median_s), format_seconds(st->skew_s)});
    out.push_back({"Across devices: steps with the largest skew",
                   "skew = slowest - fastest device; " + std::to_string(shown.size()) + " of " +
                       std::to_string(a.steps.size()) + " steps run on 2 or more devices; " + defined,
                   steps});
  }
  if (!a.collectives.empty()) {
    Table coll;
    coll.header = {"collective", "module", "calls", "total wait", "max skew", "median skew", "waited for (most often)"};
    coll.right = {false, false, true, true, true, true, false};
    for (std::size_t i = 0; i < a.collectives.size() && i < top; ++i) {
      const CollectiveWait& c = a.collectives[i];
      coll.rows.push_back({for_terminal(short_op_name(c.name, 48)), for_terminal(clip(c.module, 32)),
                           std::to_string(c.calls), format_seconds(c.wait_s), format_seconds(c.max_skew_s),
                           format_seconds(c.median_skew_s),
                           c.waited_for_device.empty()
                               ? "-"
                               : for_terminal(c.waited_for_device) + " (" + std::to_string(c.waited_for_count) +
                                     " of " + std::to_string(c.calls) + ")"});
    }
    out.push_back({"Across devices: collectives with the most wait",
                   std::exchange(no_steps, "") +
                       "a call's wait on a device = its time - the shortest call's, summed over devices and calls; " +
                       std::to_string(coll.rows.size()) + " of " + std::to_string(a.collectives.size()),
                   coll});
  }
  Table devices;
  devices.header = {"device", "collective wait", "slowest in steps", "waited for"};
  devices.right = {false, true, true, true};
  const std::vector<const DeviceWait*> shown = devices_shown(a, kAcrossDevicesShown);
  for (const DeviceWait* d : shown)
    devices.rows.push_back({for_terminal(d->device), format_seconds(d->collective_wait_s),
                            std::to_string(d->slowest_steps), std::to_string(d->waited_for_count)});
  std::string intro = no_steps +
                      "waited for: collective calls where the others waited for it; a step or call that several "
                      "devices took longest or shortest alike counts for no one";
  if (shown.size() < a.devices.size())
    intro += "; the " + std::to_string(shown.size()) + " with the most wait, " +
             std::to_string(a.devices.size() - shown.size()) + " more left out (all in the JSON)";
  out.push_back({"Across devices: per device", intro, devices});
  return out;
}

// The one ranked table (RenderOptions::rank); the others are a --rank away.
Section ranked_section(const Report& r, const RenderOptions& o) {
  const bool target = !r.target_chip.empty();
  const std::size_t top = static_cast<std::size_t>(std::max(1, o.top));
  const std::string others = "; --rank lost|roofline|ratio|time ranks by another figure";
  switch (o.rank) {
    case ReportRank::kRoofline:
      return {"Most time lost against the roofline",
              "lost = measured - roofline lower bound, summed over occurrences" + others,
              op_table(ops_by_time_lost(r, top), target, LostAgainst::kRoofline)};
    case ReportRank::kRatio:
      return {"Furthest below their roofline",
              "x roofline = measured / roofline, x expected = measured / expected; ops under 0.1% of the time "
              "are left out" + others,
              op_table(ops_furthest_below_roofline(r, top), target, LostAgainst::kRoofline)};
    case ReportRank::kTime: {
      std::vector<const OpReport*> by_time;
      for (const OpReport& op : r.ops) by_time.push_back(&op);
      if (by_time.size() > top) by_time.resize(top);
      return {"Top ops by measured time", "measured = self time, summed over occurrences" + others,
              op_table(by_time, target, LostAgainst::kRoofline)};
    }
    case ReportRank::kLost: break;
  }
  return {"Worth fixing: most time lost against the expected",
          "lost vs exp = measured - calibrated expected, summed over occurrences: time a kernel as good as "
          "the calibration's would save" + others,
          op_table(ops_by_time_lost_expected(r, top), target, LostAgainst::kExpected)};
}

// The answer, in three lines: where the time went, measured against
// expected, and what is most worth fixing.
std::vector<std::string> answer_lines(const Report& r) {
  const ReportSummary& s = r.summary;
  std::vector<std::string> l;
  std::vector<std::pair<double, std::string>> shares;
  // by_category lists idle time as a category of its own.
  for (const CategoryTime& c : s.by_category) shares.push_back({c.measured_s, c.category});
  std::sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string went = "Where the time went: ";
  for (std::size_t i = 0; i < shares.size() && i < 3; ++i)
    went += (i ? ", " : "") + format_percent(s.wall_s > 0 ? shares[i].first / s.wall_s : 0) + " " + shares[i].second;
  l.push_back(went + " of the " + format_seconds(s.wall_s) + " wall span.");
  if (s.expected_s > 0)
    l.push_back("Measured vs expected: the predicted ops took " + format_seconds(s.matched_measured_s) + ", " +
                ratio_text(s.matched_measured_s / s.expected_s) + " the " + format_seconds(s.expected_s) +
                " a good kernel of each kind is expected to take (roofline " + format_seconds(s.predicted_s) +
                "); MFU " + format_percent(s.mfu) + ".");
  else
    l.push_back("Measured vs expected: no op has an expected time (" +
                nothing_predicted_headline(r).value_or("none was predicted") + ").");
  const std::vector<const OpReport*> fix = ops_by_time_lost_expected(r, 3);
  std::string worth = "Most worth fixing: ";
  for (std::size_t i = 0; i < fix.size(); ++i)
    worth += (i ? ", " : "") + short_op_name(fix[i]->name, 48) + " (" + format_seconds(fix[i]->lost_expected_s) +
             " over its expected)";
  l.push_back(fix.empty() ? "Most worth fixing: no predicted op took longer than expected." : worth + ".");
  return l;
}

std::vector<Section> sections(const Report& r, const RenderOptions& o) {
  std::vector<Section> out;
  const std::size_t top = static_cast<std::size_t>(std::max(1, o.top));

  Table cat;
  cat.header = {"category", "ops", "measured", "share", "roofline"};
  cat.right = {false, true, true, true, true};
  for (const CategoryTime& c : r.summary.by_category)
    cat.rows.push_back({c.category, std::to_string(c.ops), format_seconds(c.measured_s),
                        format_percent(r.summary.wall_s > 0 ? c.measured_s / r.summary.wall_s : 0),
                        c.predicted_s > 0 ? format_seconds(c.predicted_s) : "-"});
  out.push_back({"Where the time went", "share of the wall span; idle is time no op ran", cat});

  if (r.summary.modules.size() > 1) {
    Table mods;
    mods.header = {"module", "ops", "measured", "roofline", "of roofline speed"};
    mods.right = {false, true, true, true, true};
    for (std::size_t i = 0; i < r.summary.modules.size() && i < top; ++i) {
      const ModuleSummary& m = r.summary.modules[i];
      mods.rows.push_back({clip(m.name, 48), std::to_string(m.ops), format_seconds(m.measured_s),
                           m.predicted_s > 0 ? format_seconds(m.predicted_s) : "-",
                           m.matched_measured_s > 0 ? format_percent(m.predicted_s / m.matched_measured_s) : "-"});
    }
    out.push_back({"By module", "HLO module, or the framework op that launched the kernels", mods});
  }

  if (!r.summary.steps.empty()) {
    Table steps;
    steps.header = {"step", "device", "measured", "busy", "roofline", "MFU"};
    steps.right = {false, true, true, true, true, true};
    for (std::size_t i = 0; i < r.summary.steps.size() && i < top; ++i) {
      const StepSummary& s = r.summary.steps[i];
      steps.rows.push_back({s.name, std::to_string(s.device), format_seconds(s.measured_s),
                            format_seconds(s.busy_s), format_seconds(s.predicted_s), format_percent(s.mfu)});
    }
    out.push_back({"Steps", "", steps});
  }

  if (r.across_devices) {
    std::vector<Section> across = across_devices_sections(*r.across_devices, top);
    out.insert(out.end(), across.begin(), across.end());
  }

  Table un;
  un.header = {"op", "module", "count", "measured", "why no prediction"};
  un.right = {false, false, true, true, false};
  std::size_t shown = 0, total = 0;
  for (const OpReport& op : r.ops)
    if (!op.predicted) {
      ++total;
      if (shown++ < top)
        un.rows.push_back({short_op_name(op.name, 48), clip(op.module, 32), std::to_string(op.count),
                           format_seconds(op.measured_s), op.reason});
    }
  if (total > 0)
    out.push_back({"Ops without a prediction",
                   total > shown ? std::to_string(total) + " in all; the largest " +
                                       std::to_string(shown) + " by time"
                                 : "",
                   un});
  return out;
}

}  // namespace

std::string render_text(const Report& r, RenderOptions o) {
  std::string out = "roofline report: " + for_terminal(r.trace_path) + "\n\n";
  // Op names, device names and trace warnings pass through for_terminal().
  for (const std::string& l : answer_lines(r)) out += "  " + for_terminal(l) + "\n";
  const Section ranked = ranked_section(r, o);
  out += "\n" + ranked.title + " (" + ranked.intro + ")\n" + table_text(ranked.table);
  out += "\n  " + std::string(kCostSourceLegend) + "\n";
  out += "\nThe run\n";
  for (const std::string& l : headline_lines(r)) out += "  " + for_terminal(l) + "\n";
  for (const Section& s : sections(r, o)) {
    out += "\n" + s.title + (s.intro.empty() ? "" : " (" + s.intro + ")") + "\n";
    out += table_text(s.table);
  }
  if (!r.notes.empty()) {
    out += "\nNotes\n";
    for (const std::string& n : r.notes) out += "  - " + for_terminal(n) + "\n";
  }
  return out;
}

std::string render_markdown(const Report& r, RenderOptions o) {
  std::string out = "# roofline report: `" + for_terminal(r.trace_path) + "`\n\n";
  for (const std::string& l : answer_lines(r)) out += "- " + markdown_cell(for_terminal(l)) + "\n";
  const Section ranked = ranked_section(r, o);
  out += "\n## " + ranked.title + "\n\n" + ranked.intro + ".\n\n" + table_markdown(ranked.table);
  out += "\n" + std::string(kCostSourceLegend) + ".\n";
  out += "\n## The run\n\n";
  for (const std::string& l : headline_lines(r)) out += "- " + markdown_cell(for_terminal(l)) + "\n";
  for (const Section& s : sections(r, o)) {
    out += "\n## " + s.title + "\n\n";
    if (!s.intro.empty()) out += s.intro + ".\n\n";
    out += table_markdown(s.table);
  }
  if (!r.notes.empty()) {
    out += "\n## Notes\n\n";
    for (const std::string& n : r.notes) out += "- " + markdown_cell(for_terminal(n)) + "\n";
  }
  return out;
}

std::optional<ReportRank> parse_report_rank(std::string_view name) {
  if (name == "lost") return ReportRank::kLost;
  if (name == "roofline") return ReportRank::kRoofline;
  if (name == "ratio") return ReportRank::kRatio;
  if (name == "time") return ReportRank::kTime;
  return std::nullopt;
}

std::optional<ReportFormat> parse_report_format(std::string_view name) {
  if (name == "text") return ReportFormat::kText;
  if (name == "md" || name == "markdown") return ReportFormat::kMarkdown;
  if (name == "json") return ReportFormat::kJson;
  if (name == "csv") return ReportFormat::kCsv;
  if (name == "html") return ReportFormat::kHtml;
  return std::nullopt;
}

std::string render_report(const Report& r, ReportFormat f, RenderOptions o) {
  switch (f) {
    case ReportFormat::kText: return render_text(r, o);
    case ReportFormat::kMarkdown: return render_markdown(r, o);
    case ReportFormat::kJson: return render_json(r);
    case ReportFormat::kCsv: return render_csv(r);
    case ReportFormat::kHtml: return render_html(r, o);
  }
  return {};
}

std::string_view match_source_name(MatchSource m) {
  switch (m) {
    case MatchSource::kHloModule: return "hlo-module";
    case MatchSource::kHloGiven: return "hlo-given";
    case MatchSource::kOpHloText: return "op-hlo-text";
    case MatchSource::kInputDims: return "input-dims";
    case MatchSource::kCollectiveArgs: return "collective-args";
    case MatchSource::kCopyBytes: return "copy-bytes";
    case MatchSource::kXlaStats: return "xla-stats";
    case MatchSource::kUnmatched: return "unmatched";
  }
  return "?";
}

}  // namespace roofline
