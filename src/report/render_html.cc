// One self-contained HTML page: inline CSS, an inline SVG roofline plot and
// time breakdown drawn here in C++, and a few lines of inline JS to sort the
// op table. Nothing is fetched, so the page works offline and attached to a
// bug. The page records script errors in <body data-errors> and sets
// data-ready="ok" when its script has run, which the Chromium test reads.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "roofline/report/labels.hpp"
#include "roofline/report/rank.hpp"
#include "roofline/report/render.hpp"
#include "roofline/format/html.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/units.hpp"

namespace roofline {
namespace {

std::string esc(const std::string& raw) { return html_escape(raw); }

// A name from a trace (or a path): as esc.
std::string esc_name(const std::string& s) { return esc(s); }

std::string num(double v, int sig = 6) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", sig, v);
  return buf;
}

const char* bound_color(Bound b) {
  switch (b) {
    case Bound::kCompute: return "#2b6cb0";
    case Bound::kMemory: return "#dd6b20";
    case Bound::kCommunication:
    case Bound::kHostLink: return "#2f855a";  // a link: the interconnect's colour
    case Bound::kInvalid: return "#718096";
  }
  return "#718096";
}

// Log-log axes mapping data to the plot's pixel box.
struct LogAxis {
  double lo, hi;       // decades: 10^lo .. 10^hi
  double p0, p1;       // pixels
  double at(double v) const {
    const double l = std::clamp(std::log10(v), lo, hi);
    return p0 + (l - lo) / (hi - lo) * (p1 - p0);
  }
};

std::string roofline_svg(const Report& r) {
  const double peak = r.peak_flops_per_s, bw = r.hbm_bytes_per_s;
  const double ridge = bw > 0 ? peak / bw : 1;
  double imin = ridge / 100, imax = ridge * 100, ymin = peak / 1e4;
  for (const OpReport& op : r.ops) {
    if (!op.predicted || op.prediction.flops <= 0 || op.prediction.hbm_bytes <= 0 || op.measured_s <= 0) continue;
    imin = std::min(imin, op.prediction.flops / op.prediction.hbm_bytes);
    imax = std::max(imax, op.prediction.flops / op.prediction.hbm_bytes);
    ymin = std::min(ymin, op.prediction.flops / op.measured_s);
  }
  const double W = 760, H = 460, L = 70, R = 20, T = 20, B = 50;
  LogAxis x{std::floor(std::log10(imin)), std::ceil(std::log10(imax)), L, W - R};
  LogAxis y{std::floor(std::log10(ymin)), std::ceil(std::log10(peak * 1.5)), H - B, T};
  std::string s = "<svg id=\"roofline-plot\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " +
                  num(W) + " " + num(H) + "\" role=\"img\" aria-label=\"roofline plot\">\n";
  // Grid and decade labels.
  for (double d = x.lo; d <= x.hi; ++d) {
    const double px = x.at(std::pow(10, d));
    s += "<line class=\"grid\" x1=\"" + num(px) + "\" y1=\"" + num(T) + "\" x2=\"" + num(px) +
         "\" y2=\"" + num(H - B) + "\"/><text class=\"tick\" x=\"" + num(px) + "\" y=\"" +
         num(H - B + 16) + "\" text-anchor=\"middle\">1e" + num(d) + "</text>\n";
  }
  for (double d = y.lo; d <= y.hi; ++d) {
    const double py = y.at(std::pow(10, d));
    s += "<line class=\"grid\" x1=\"" + num(L) + "\" y1=\"" + num(py) + "\" x2=\"" + num(W - R) +
         "\" y2=\"" + num(py) + "\"/><text class=\"tick\" x=\"" + num(L - 6) + "\" y=\"" +
         num(py + 4) + "\" text-anchor=\"end\">1e" + num(d) + "</text>\n";
  }
  s += "<text class=\"axis\" x=\"" + num((L + W - R) / 2) + "\" y=\"" + num(H - 12) +
       "\" text-anchor=\"middle\">arithmetic intensity (FLOP / HBM byte)</text>\n";
  s += "<text class=\"axis\" transform=\"rotate(-90)\" x=\"" + num(-(T + H - B) / 2) +
       "\" y=\"16\" text-anchor=\"middle\">achieved FLOP/s</text>\n";
  // Roofs: bandwidth slope up to the ridge, flat compute roof after it.
  const double x0 = std::pow(10, x.lo), x1 = std::pow(10, x.hi);
  s += "<polyline class=\"roof\" points=\"" + num(x.at(x0)) + "," + num(y.at(x0 * bw)) + " " +
       num(x.at(ridge)) + "," + num(y.at(peak)) + " " + num(x.at(x1)) + "," + num(y.at(peak)) +
       "\"/>\n";
  s += "<circle class=\"ridge\" cx=\"" + num(x.at(ridge)) + "\" cy=\"" + num(y.at(peak)) +
       "\" r=\"4\"><title>ridge point: " + num(ridge, 4) + " FLOP/B</title></circle>\n";
  s += "<text class=\"label\" x=\"" + num(x.at(ridge) + 6) + "\" y=\"" + num(y.at(peak) - 6) +
       "\">" + esc(r.peak_dtype.empty() ? r.dominant_dtype : r.peak_dtype) + " peak " + esc(format_si(peak, "FLOP/s")) + ", ridge " +
       num(ridge, 3) + " FLOP/B</text>\n";
  s += "<text class=\"label\" x=\"" + num(x.at(x0) + 6) + "\" y=\"" + num(y.at(x0 * bw) - 8) +
       "\">HBM " + esc(format_si(bw, "B/s")) + "</text>\n";
  // One mark per predicted op; ops with no FLOPs sit on the bottom edge,
  // drawn hollow, so every predicted op is visible.
  double tmax = 0;
  for (const OpReport& op : r.ops) tmax = std::max(tmax, op.measured_s);
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const OpReport& op = r.ops[i];
    if (!op.predicted) continue;
    const bool placed = op.prediction.flops > 0 && op.prediction.hbm_bytes > 0 && op.measured_s > 0;
    const double px = placed ? x.at(op.prediction.flops / op.prediction.hbm_bytes) : x.at(x0) + 12;
    const double py = placed ? y.at(op.prediction.flops / op.measured_s) : y.at(std::pow(10, y.lo)) - 12;
    const double rad = 3 + 14 * std::sqrt(tmax > 0 ? op.measured_s / tmax : 0);
    s += std::string("<circle class=\"op-mark") + (placed ? "" : " hollow") + "\" data-op=\"" +
         std::to_string(i) + "\" cx=\"" + num(px) + "\" cy=\"" + num(py) + "\" r=\"" + num(rad, 3) +
         "\" style=\"--c:" + bound_color(op.prediction.bound) + "\"><title>" + esc(op.name) + " (" +
         esc(op.module) + ")\nmeasured " + esc(format_seconds(op.measured_s)) + ", roofline " +
         esc(format_seconds(op.prediction.t_lower_s)) + " (" + num(op.ratio, 3) + "x), expected " +
         esc(format_seconds(op.expected_s)) + " (" + num(expected_ratio(op), 3) + "x), " +
         op_bound_label(op) + "-bound</title></circle>\n";
  }
  s += "</svg>\n";
  return s;
}

std::string category_bar(const Report& r) {
  static const char* kColors[] = {"#2b6cb0", "#dd6b20", "#2f855a", "#805ad5", "#d69e2e",
                                  "#319795", "#c53030", "#a0aec0"};
  const double total = r.summary.wall_s;
  std::string bar = "<div class=\"bar\">", legend = "<ul class=\"legend\">";
  std::size_t i = 0;
  for (const CategoryTime& c : r.summary.by_category) {
    const double share = total > 0 ? c.measured_s / total : 0;
    const char* color = c.category == "idle" ? "#e2e8f0" : kColors[i++ % 8];
    bar += "<span style=\"width:" + num(100 * share, 4) + "%;background:" + color +
           "\" title=\"" + esc(c.category) + " " + esc(format_percent(share)) + "\"></span>";
    legend += "<li><i style=\"background:" + std::string(color) + "\"></i>" + esc(c.category) +
              " " + esc(format_seconds(c.measured_s)) + " (" + esc(format_percent(share)) + ")</li>";
  }
  return bar + "</div>" + legend + "</ul>";
}

std::string op_rows(const Report& r) {
  const bool with_target = !r.target_chip.empty();
  std::string s;
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const OpReport& op = r.ops[i];
    auto cell = [](const std::string& text, const std::string& key) {
      return "<td data-v=\"" + esc(key) + "\">" + esc(text) + "</td>";
    };
    const bool p = op.predicted;
    const bool timed = p && op.prediction.t_lower_s > 0;  // zero-cost ops have no ratio or bound
    const bool expected = p && op.expected_s > 0;
    // An async wait has no meaningful rates, nor an op measured below its
    // roofline (OpReport::below_roofline: its "!" after the ratio).
    const bool rates = p && !op.async && !op.below_roofline;
    // Long C++ kernel names would stretch the table: a short name, the
    // full one on hover.
    const std::string shown = short_op_name(op.name, 60);
    const std::string title = shown == op.name ? "" : " title=\"" + esc(op.name) + "\"";
    s += "<tr data-op=\"" + std::to_string(i) + "\">" +
         "<td data-v=\"" + esc(op.name) + "\"" + title + ">" + esc(shown) +
         (op.shapes.empty() ? "" : "<div class=\"shape\">" + esc(op.shapes) + "</div>") + "</td>" +
         cell(op.module, op.module) + cell(op.category, op.category) +
         cell(std::string(match_source_name(op.match)), std::string(match_source_name(op.match))) +
         cell(std::to_string(op.count), std::to_string(op.count)) +
         cell(format_seconds(op.measured_s), num(op.measured_s)) +
         cell(p ? format_seconds(op.prediction.t_lower_s) : "-", p ? num(op.prediction.t_lower_s) : "-1") +
         cell(p ? format_seconds(op.expected_s) : "-", p ? num(op.expected_s) : "-1") +
         cell(timed ? num(op.ratio, 3) + (op.below_roofline ? "x!" : "x") : "-", timed ? num(op.ratio) : "-1") +
         cell(expected ? num(expected_ratio(op), 3) + "x" : "-", expected ? num(expected_ratio(op)) : "-1") +
         cell(op_bound_label(op), timed ? op_bound_label(op) : "~") +
         // Below the roofline, "time lost" against it would be negative: unknown.
         cell(p && !op.below_roofline ? format_seconds(op.lost_s) : "-", p && !op.below_roofline ? num(op.lost_s) : "-1") +
         cell(p ? format_seconds(op.lost_expected_s) : "-", p ? num(op.lost_expected_s) : "-1") +
         cell(rates ? format_percent(op.flop_util) : "-", rates ? num(op.flop_util) : "-1") +
         cell(rates ? format_percent(op.bw_util) : "-", rates ? num(op.bw_util) : "-1") +
         cell(op.xla_flops ? format_si(*op.xla_flops, "FLOP") : "-", num(op.xla_flops.value_or(-1))) +
         cell(p ? format_si(op.prediction.flops / std::max<double>(1, static_cast<double>(op.count)), "FLOP") : "-",
              num(p ? op.prediction.flops / std::max<double>(1, static_cast<double>(op.count)) : -1)) +
         (with_target ? cell(op.target_predicted_s ? format_seconds(*op.target_predicted_s) : "-",
                             num(op.target_predicted_s.value_or(-1))) +
                            cell(op.target_expected_s ? format_seconds(*op.target_expected_s) : "-",
                                 num(op.target_expected_s.value_or(-1))) +
                            cell(op.target_method ? std::string(target_method_label(*op.target_method)) : "-",
                                 op.target_method ? std::string(target_method_name(*op.target_method)) : "~")
                      : std::string()) +
         cell(p ? "" : op.reason, p ? "" : op.reason) + "</tr>\n";
  }
  return s;
}

// One ranked list (worth fixing, or lost against the roofline): the op and
// its three figures; a row links to the op's plot mark and table row.
std::string ranked_table(const Report& r, const std::vector<const OpReport*>& ops, const char* lost_header,
                         double OpReport::*lost) {
  std::string s = "<table class=\"ranked\"><thead><tr><th>op</th><th>measured</th><th>roofline</th>"
                  "<th>expected</th><th>x roofline</th><th>x expected</th><th>" +
                  std::string(lost_header) + "</th></tr></thead><tbody>\n";
  for (const OpReport* op : ops) {
    const auto index = static_cast<std::size_t>(op - r.ops.data());
    const std::string shown = short_op_name(op->name, 60);
    const double x_exp = expected_ratio(*op);
    s += "<tr data-op=\"" + std::to_string(index) + "\"><td" +
         (shown == op->name ? std::string() : " title=\"" + esc(op->name) + "\"") + ">" + esc(shown) + "</td><td>" +
         esc(format_seconds(op->measured_s)) + "</td><td>" + esc(format_seconds(op->prediction.t_lower_s)) +
         "</td><td>" +
         esc(format_seconds(op->expected_s)) + "</td><td>" + (op->ratio > 0 ? num(op->ratio, 3) + "x" : "-") +
         "</td><td>" + (x_exp > 0 ? num(x_exp, 3) + "x" : "-") + "</td><td>" +
         (lost == &OpReport::lost_s && op->below_roofline ? "-" : esc(format_seconds(op->*lost))) +
         "</td></tr>\n";
  }
  return s + "</tbody></table>\n";
}

std::string html_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::string s = "<table class=\"ranked\"><thead><tr>";
  for (const std::string& h : header) s += "<th>" + esc(h) + "</th>";
  s += "</tr></thead><tbody>\n";
  for (const auto& row : rows) {
    s += "<tr>";
    for (const std::string& c : row) s += "<td>" + c + "</td>";
    s += "</tr>\n";
  }
  return s + "</tbody></table>\n";
}

// Stragglers and collective waits (Report::across_devices), as the text
// report's sections: the steps with the largest skew, the collectives with
// the most wait, and per device its wait. Cells are escaped here.
std::string across_devices_html(const AcrossDevices& a, std::size_t top) {
  std::string h = "<h2 id=\"across-devices\">Across devices</h2><p class=\"muted\">Stragglers and collective waits "
                  "(definitions: docs/traces.md, &quot;Across devices&quot;). A step's skew = slowest &minus; fastest "
                  "device; a call's wait on a device = its time &minus; the shortest call's.</p>\n";
  if (a.steps.empty()) {
    h += "<p class=\"muted\">No step ran on 2 or more devices.</p>\n";
  } else {
    std::vector<std::vector<std::string>> rows;
    const std::vector<const StepStraggler*> shown = steps_by_skew(a, top);
    for (const StepStraggler* st : shown)
      rows.push_back({esc_name(st->repeat ? st->step + " (" + std::to_string(st->repeat + 1) + ")" : st->step),
                      std::to_string(st->devices), esc_name(st->slowest_device), esc(format_seconds(st->slowest_s)),
                      esc_name(st->fastest_device), esc(format_seconds(st->fastest_s)),
                      esc(format_seconds(st->median_s)), esc(format_seconds(st->skew_s))});
    h += "<p class=\"muted\">Steps with the largest skew: " + std::to_string(shown.size()) + " of " +
         std::to_string(a.steps.size()) + " steps run on 2 or more devices.</p>\n" +
         html_table({"step", "devices", "slowest", "time", "fastest", "time", "median", "skew"}, rows);
  }
  if (!a.collectives.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < a.collectives.size() && i < top; ++i) {
      const CollectiveWait& c = a.collectives[i];
      const std::string shown = short_op_name(c.name, 60);
      rows.push_back({(shown == c.name ? std::string() : "<span title=\"" + esc_name(c.name) + "\">") + esc_name(shown) +
                          (shown == c.name ? "" : "</span>"),
                      esc_name(c.module), std::to_string(c.calls), esc(format_seconds(c.wait_s)),
                      esc(format_seconds(c.max_skew_s)), esc(format_seconds(c.median_skew_s)),
                      c.waited_for_device.empty() ? "-"
                                                  : esc_name(c.waited_for_device) + " (" +
                                                        std::to_string(c.waited_for_count) + " of " +
                                                        std::to_string(c.calls) + ")"});
    }
    h += "<p class=\"muted\">Collectives with the most wait: " + std::to_string(rows.size()) + " of " +
         std::to_string(a.collectives.size()) + ".</p>\n" +
         html_table({"collective", "module", "calls", "total wait", "max skew", "median skew", "waited for (most often)"},
                    rows);
  }
  std::vector<std::vector<std::string>> rows;
  const std::vector<const DeviceWait*> shown = devices_shown(a, kAcrossDevicesShown);
  for (const DeviceWait* d : shown)
    rows.push_back({esc_name(d->device), esc(format_seconds(d->collective_wait_s)), std::to_string(d->slowest_steps),
                    std::to_string(d->waited_for_count)});
  h += "<p class=\"muted\">Per device. Waited for: collective calls where the others waited for it; a step or call "
       "that several devices took longest or shortest alike counts for no one" +
       (shown.size() < a.devices.size()
            ? "; the " + std::to_string(shown.size()) + " with the most wait, " +
                  std::to_string(a.devices.size() - shown.size()) + " more left out (all in the JSON)"
            : std::string()) +
       ".</p>\n" + html_table({"device", "collective wait", "slowest in steps", "waited for"}, rows);
  return h;
}

constexpr const char* kStyle = R"css(
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1a202c;padding:0 16px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}
.muted{color:#4a5568}.kpis{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.kpi{border:1px solid #e2e8f0;border-radius:6px;padding:8px 12px;min-width:140px}
.kpi b{display:block;font-size:20px}
svg{width:100%;height:auto;border:1px solid #e2e8f0;border-radius:6px;background:#fff}
.grid{stroke:#edf2f7}.tick{font-size:11px;fill:#4a5568}.axis{font-size:12px;fill:#2d3748}
.roof{fill:none;stroke:#1a202c;stroke-width:2}.ridge{fill:#1a202c}.label{font-size:11px;fill:#1a202c}
.op-mark{fill:var(--c);fill-opacity:.45;stroke:var(--c);stroke-width:1.5}
.op-mark.hollow{fill:none}.op-mark.hot{fill-opacity:.9;stroke:#000}
.bar{display:flex;height:22px;border-radius:4px;overflow:hidden;border:1px solid #e2e8f0}
.bar span{display:block;height:100%}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:14px;margin:8px 0}
.legend i{display:inline-block;width:10px;height:10px;margin-right:5px;border-radius:2px}
table{border-collapse:collapse;width:100%;font-size:12.5px}
th,td{padding:4px 6px;border-bottom:1px solid #edf2f7;text-align:left;vertical-align:top}
th{cursor:pointer;background:#f7fafc;position:sticky;top:0}th:hover{background:#edf2f7}
td:nth-child(n+5):nth-child(-n+17){text-align:right;white-space:nowrap}
.ranked td:nth-child(n+2){text-align:right;white-space:nowrap}.ranked{margin-bottom:8px}
tr.hot{background:#fefcbf}.none{font-weight:600;color:#c53030}.shape{color:#718096;font-size:11px;word-break:break-all}.notes li{margin:4px 0}
)css";

// Sorting keeps the DOM rows and re-appends them; mark hover links a row and
// its plot point.
constexpr const char* kScript = R"js(
(function(){
  var errs=[];window.addEventListener('error',function(e){errs.push(String(e.message));document.body.dataset.errors=errs.join('; ');});
  var table=document.getElementById('ops');var body=table.tBodies[0];
  Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,col){
    th.addEventListener('click',function(){
      var asc=th.dataset.dir!=='asc';th.dataset.dir=asc?'asc':'desc';
      var rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a,b){
        var x=a.cells[col].dataset.v,y=b.cells[col].dataset.v,nx=parseFloat(x),ny=parseFloat(y);
        var c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:String(x).localeCompare(String(y));
        return asc?c:-c;});
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
  function hot(id,on){
    var m=document.querySelector('.op-mark[data-op="'+id+'"]');if(m)m.classList.toggle('hot',on);
    document.querySelectorAll('tr[data-op="'+id+'"]').forEach(function(r){r.classList.toggle('hot',on);});}
  document.querySelectorAll('[data-op]').forEach(function(el){
    el.addEventListener('mouseenter',function(){hot(el.dataset.op,true);});
    el.addEventListener('mouseleave',function(){hot(el.dataset.op,false);});});
  document.body.dataset.ready='ok';
})();
)js";

}  // namespace

std::string render_html(const Report& r, RenderOptions o) {
  const ReportSummary& s = r.summary;
  int predicted = 0;
  for (const OpReport& op : r.ops) predicted += op.predicted;
  const double eff = s.matched_measured_s > 0 ? s.predicted_s / s.matched_measured_s : 0;
  const TargetTotals target = target_totals(r);
  const std::size_t top = static_cast<std::size_t>(std::max(1, o.top));
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                  "<title>roofline report: " + esc_name(r.trace_path) + "</title><style>" + kStyle +
                  "</style></head>\n<body data-errors=\"\">\n";
  h += "<h1>roofline report</h1><div class=\"muted\">" + esc_name(r.trace_path) + " &middot; chip " +
       esc(r.chip) + (r.chip_source.empty() ? "" : " (" + esc(r.chip_source) + ")") + " &middot; " +
       std::to_string(r.devices.size()) + " device(s)" +
       (r.target_chip.empty() ? "" : " &middot; what-if chip " + esc(r.target_chip)) + "</div>\n";
  if (std::optional<std::string> none = nothing_predicted_headline(r))
    h += "<p class=\"none\">" + esc(*none) + "</p>\n";
  auto kpi = [](const std::string& label, const std::string& value) {
    return "<div class=\"kpi\"><b>" + esc(value) + "</b>" + esc(label) + "</div>";
  };
  h += "<div class=\"kpis\">" + kpi("measured busy", format_seconds(s.measured_s)) +
       kpi("roofline of predicted ops", format_seconds(s.predicted_s)) +
       kpi("of roofline speed", format_percent(eff)) +
       kpi("calibrated expected of predicted ops", format_seconds(s.expected_s)) +
       kpi("measured / expected", s.expected_s > 0 ? num(s.matched_measured_s / s.expected_s, 3) + "x" : "-") +
       kpi("MFU", format_percent(s.mfu)) +
       kpi("duty cycle", format_percent(s.duty_cycle)) +
       kpi("ops predicted", std::to_string(predicted) + " / " + std::to_string(r.ops.size())) +
       (r.target_chip.empty() ? std::string()
                              : kpi("roofline on " + r.target_chip, format_seconds(target.predicted_s)) +
                                    kpi("time on " + r.target_chip + " (" + target_methods_text(target) + ")",
                                        format_seconds(target.expected_s))) +
       "</div>\n";
  if (std::optional<std::string> across = across_devices_headline(r))
    h += "<div class=\"muted\" id=\"across-headline\">Across devices: " + esc(*across) + "</div>\n";
  h += "<div class=\"muted\">MFU convention: " + esc(s.mfu_convention) + "</div>\n";
  h += "<div class=\"muted\" id=\"calibration\">Three figures per op: the roofline lower bound (no kernel is "
       "faster), the calibrated expected time (what a good kernel of its kind takes on this chip; " +
       esc(calibration_label(r.calibration)) + ")" +
       (r.target_chip.empty() ? std::string() : "; on " + esc(r.target_chip) + ": " + esc(calibration_label(r.target_calibration))) +
       ", and the measured time.</div>\n";
  h += "<h2>Roofline</h2><p class=\"muted\">One point per predicted op at its arithmetic intensity "
       "and achieved FLOP/s, sized by its measured time; colour is the predicted bound "
       "(<span style=\"color:#2b6cb0\">compute</span>, <span style=\"color:#dd6b20\">memory</span>, "
       "<span style=\"color:#2f855a\">communication</span>). Hollow points have no FLOPs.</p>\n";
  // A report built by hand may have no chip figures: no roofs to draw.
  if (r.peak_flops_per_s > 0 && r.hbm_bytes_per_s > 0) h += roofline_svg(r);
  h += "<h2>Where the time went</h2>" + category_bar(r) + "\n";
  if (r.across_devices) h += across_devices_html(*r.across_devices, top);
  if (predicted > 0) {
    h += "<h2>Worth fixing</h2><p class=\"muted\">Most time lost against the calibrated expected: lost vs exp = "
         "measured &minus; expected, summed over occurrences.</p>\n" +
         ranked_table(r, ops_by_time_lost_expected(r, top), "lost vs exp", &OpReport::lost_expected_s);
    h += "<h2>Most time lost against the roofline</h2><p class=\"muted\">lost = measured &minus; roofline lower "
         "bound, summed over occurrences.</p>\n" +
         ranked_table(r, ops_by_time_lost(r, top), "lost", &OpReport::lost_s);
  }
  h += "<h2>Ops</h2><p class=\"muted\">Click a column to sort. ratio = measured / roofline lower "
       "bound, x expected = measured / calibrated expected; lost = measured &minus; roofline, lost vs exp = "
       "measured &minus; expected.</p>\n<table id=\"ops\"><thead><tr>"
       "<th>op</th><th>module</th><th>category</th><th>cost from</th><th>count</th><th>measured</th>"
       "<th>roofline</th><th>expected</th><th>ratio</th><th>x expected</th><th>bound</th><th>lost</th>"
       "<th>lost vs exp</th><th>FLOP util</th><th>BW util</th><th>XLA FLOPs/op</th><th>our FLOPs</th>" +
       (r.target_chip.empty() ? std::string()
                              : "<th>on " + esc(r.target_chip) + "</th><th>time on " + esc(r.target_chip) +
                                    "</th><th>method on " + esc(r.target_chip) + "</th>") +
       "<th>why no prediction</th></tr></thead><tbody>\n" + op_rows(r) + "</tbody></table>\n";
  if (!r.notes.empty()) {
    h += "<h2>Notes</h2><ul class=\"notes\">";
    for (const std::string& n : r.notes) h += "<li>" + esc(n) + "</li>";
    h += "</ul>\n";
  }
  h += std::string("<script>") + kScript + "</script>\n</body></html>\n";
  return h;
}

}  // namespace roofline
