// roofline report --by step: the per-step breakdown (roofline/measure/steps.hpp)
// beside the report's roofline of each step (ReportSummary::steps).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "roofline/report/steps.hpp"

namespace roofline {
namespace {

using detail::cat;

// The report's summary of each of the device's listed steps, in order, or
// nullptr where the report has none (it times host steps on one device only,
// and lists at most kMaxReportSteps).
std::vector<const StepSummary*> summaries_of(const Report& r, const DeviceSteps& d) {
  std::vector<const StepSummary*> out(d.steps.size(), nullptr);
  std::size_t next = 0;
  for (const StepSummary& s : r.summary.steps) {
    if (s.device != d.id) continue;
    while (next < d.steps.size() && d.steps[next].name != s.name) ++next;
    if (next == d.steps.size()) break;
    out[next++] = &s;
  }
  return out;
}

std::string fixed(const char* f, double x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

}  // namespace

std::string render_report_steps_text(const Report& r, const StepBreakdown& b, std::size_t rows) {
  if (b.devices.empty()) return "No steps: the trace marks none on a device with op events (docs/report.md, \"By step\").\n";
  std::string out = cat("chip ", r.chip, "; roofline: the lower bound of the predicted ops that start in the step\n\n");
  for (const DeviceSteps& d : b.devices) {
    const StepVariance& v = d.variance;
    out += cat("Device ", for_terminal(d.name), d.from_host ? " (host steps)" : "", ": ", v.count, " steps, mean ",
               format_seconds(v.mean_s), ", stdev ", format_seconds(v.stdev_s), ", min ", format_seconds(v.min_s),
               ", max ", format_seconds(v.max_s), ", cv ", fixed("%.3f", v.cv), "\n");
    const std::vector<const StepSummary*> sum = summaries_of(r, d);
    TextTable t({{"step"},
                 {"time", TextTable::Align::kRight},
                 {"busy", TextTable::Align::kRight},
                 {"duty", TextTable::Align::kRight},
                 {"roofline", TextTable::Align::kRight},
                 {"MFU", TextTable::Align::kRight},
                 {"largest gap (host activity inside)"}},
                2);
    for (std::size_t i = 0; i < d.steps.size() && i < rows; ++i) {
      const StepTime& s = d.steps[i];
      std::string gap;
      if (!s.gaps.empty()) {
        gap = format_seconds(s.gaps[0].duration_s);
        if (!s.gaps[0].host.empty())
          gap += cat(" (host: ", s.gaps[0].host[0].name, " ", format_seconds(s.gaps[0].host[0].overlap_s), ")");
      }
      const StepSummary* p = sum[i];
      t.add_row({s.name, format_seconds(s.duration_s), format_seconds(s.busy_s), fixed("%.1f%%", s.duty_cycle * 100),
                 p && p->predicted_s > 0 ? format_seconds(p->predicted_s) : "-",
                 p && p->predicted_s > 0 && std::isfinite(p->mfu) ? fixed("%.1f%%", p->mfu * 100) : "-", gap});
    }
    out += t.render();
    const std::size_t shown = std::min(rows, d.steps.size());
    if (static_cast<std::int64_t>(shown) < v.count)
      out += cat("  (", v.count - static_cast<std::int64_t>(shown), " more steps)\n");
    out += "\n";
  }
  return out;
}

Json report_steps_json(const Report& r, const StepBreakdown& b) {
  std::vector<std::vector<const StepSummary*>> sums;
  for (const DeviceSteps& d : b.devices) sums.push_back(summaries_of(r, d));
  Json j = steps_json(b, [&](std::size_t di, std::size_t si, Json& row) {
    const StepSummary* p = sums[di][si];
    if (p == nullptr) return;
    row["predicted_s"] = p->predicted_s;
    row["model_flops"] = p->model_flops;
    row["mfu"] = std::isfinite(p->mfu) ? Json(p->mfu) : Json();
  });
  j["chip"] = r.chip;
  return j;
}

}  // namespace roofline
