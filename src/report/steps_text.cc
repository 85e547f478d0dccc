// roofline stats --by step: the per-step breakdown as text and JSON
// (roofline/report/steps.hpp).
#include <cstdio>
#include <functional>
#include <string>

#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "roofline/report/steps.hpp"

namespace roofline {
namespace {

using detail::cat;

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", x * 100);
  return buf;
}

// "1.2 ms: PjitFunction(f) 0.8 ms, cudaMemcpyAsync 0.1 ms" for the gaps column.
std::string gap_text(const IdleGap& g) {
  std::string s = format_seconds(g.duration_s);
  for (std::size_t i = 0; i < g.host.size(); ++i)
    s += cat(i == 0 ? " (host: " : ", ", g.host[i].name, " ", format_seconds(g.host[i].overlap_s));
  if (!g.host.empty()) s += ")";
  return s;
}

}  // namespace

std::string render_steps_text(const StepBreakdown& b, std::size_t rows) {
  if (b.devices.empty()) return "No steps: the trace marks none on a device with op events (docs/traces.md, \"By step\").\n";
  std::string out;
  for (const DeviceSteps& d : b.devices) {
    const StepVariance& v = d.variance;
    char cv[32];
    std::snprintf(cv, sizeof cv, "%.3f", v.cv);
    out += cat("Device ", for_terminal(d.name), d.from_host ? " (host steps)" : "", ": ", v.count, " steps, mean ",
               format_seconds(v.mean_s), ", stdev ", format_seconds(v.stdev_s), ", min ", format_seconds(v.min_s),
               ", max ", format_seconds(v.max_s), ", cv ", cv, "\n");
    TextTable t({{"step"},
                 {"time", TextTable::Align::kRight},
                 {"busy", TextTable::Align::kRight},
                 {"duty", TextTable::Align::kRight},
                 {"largest gaps (host activity inside)"}},
                2);
    std::size_t shown = 0;
    for (const StepTime& s : d.steps) {
      if (shown++ >= rows) break;
      std::string gaps;
      for (const IdleGap& g : s.gaps) gaps += cat(gaps.empty() ? "" : "; ", gap_text(g));
      t.add_row({s.name, format_seconds(s.duration_s), format_seconds(s.busy_s), percent(s.duty_cycle), gaps});
    }
    out += t.render();
    if (static_cast<std::int64_t>(std::min(rows, d.steps.size())) < v.count)
      out += cat("  (", v.count - static_cast<std::int64_t>(std::min(rows, d.steps.size())), " more steps)\n");
    out += "\n";
  }
  return out;
}

Json steps_json(const StepBreakdown& b, const std::function<void(std::size_t, std::size_t, Json&)>& extra) {
  Json devices = Json::array();
  for (std::size_t di = 0; di < b.devices.size(); ++di) {
    const DeviceSteps& d = b.devices[di];
    Json steps = Json::array();
    for (std::size_t si = 0; si < d.steps.size(); ++si) {
      const StepTime& s = d.steps[si];
      Json gaps = Json::array();
      for (const IdleGap& g : s.gaps) {
        Json host = Json::array();
        for (const HostActivity& h : g.host) host.push_back(Json::object({{"name", h.name}, {"overlap_s", h.overlap_s}}));
        gaps.push_back(Json::object({{"start_s", g.start_s}, {"duration_s", g.duration_s}, {"host", std::move(host)}}));
      }
      Json row = Json::object({{"name", s.name},
                               {"start_s", s.start_s},
                               {"duration_s", s.duration_s},
                               {"busy_s", s.busy_s},
                               {"duty_cycle", s.duty_cycle},
                               {"gaps", std::move(gaps)}});
      if (extra) extra(di, si, row);
      steps.push_back(std::move(row));
    }
    const StepVariance& v = d.variance;
    devices.push_back(Json::object({{"device", d.id},
                                    {"name", d.name},
                                    {"from_host", d.from_host},
                                    {"variance", Json::object({{"count", v.count},
                                                               {"mean_s", v.mean_s},
                                                               {"stdev_s", v.stdev_s},
                                                               {"min_s", v.min_s},
                                                               {"max_s", v.max_s},
                                                               {"cv", v.cv}})},
                                    {"steps", std::move(steps)}}));
  }
  return Json::object({{"devices", std::move(devices)}});
}

}  // namespace roofline
