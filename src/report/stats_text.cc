// The text `roofline stats` prints: devices, top ops, categories, figures
// across devices, idle gaps and warnings, as the CLI and Python
// (roofline.stats(...).to_text()) give it.
#include "roofline/report/stats_text.hpp"

#include "roofline/format/appendf.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "roofline/chip.hpp"
#include "roofline/chip_identity.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "roofline/match/identify.hpp"

namespace roofline {
namespace {

using detail::cat;

std::string op_label(const OpStat& o, std::size_t max_len) {
  std::string s = o.name;
  if (!o.kernel.empty()) s += cat(" [", o.kernel, "]");
  if (s.size() > max_len) s = s.substr(0, max_len - 3) + "...";
  return s;
}

std::string module_label(const OpStat& o) {
  if (o.module.empty()) return "-";
  return o.program_id ? cat(o.module, "(", *o.program_id, ")") : o.module;
}

// The peaks a profiler recorded for its devices (XPlane device stats), as
// the trace's own figures: the report predicts with the chip table's.
void print_reported_peaks(std::string& out, const Trace& t, const TraceStats& s) {
  std::vector<std::pair<std::string, std::string>> lines;  // figures, devices
  for (const DeviceStats& d : s.devices) {
    const DeviceCaps& caps = t.devices[d.device].caps;
    if (!caps.peak_flops_per_s && !caps.hbm_bytes_per_s) continue;
    std::string figures;
    if (caps.peak_flops_per_s) figures = "peak " + format_si(*caps.peak_flops_per_s, "FLOP/s", 4);
    if (caps.hbm_bytes_per_s)
      figures += cat(figures.empty() ? "" : ", ", "HBM ", format_si(*caps.hbm_bytes_per_s, "B/s", 4));
    auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == figures; });
    if (it == lines.end()) lines.push_back({figures, d.name});
    else it->second += ", " + d.name;
  }
  for (const auto& [figures, devices] : lines)
    appendf(out, "the trace's own figures for %s: %s (the report predicts with the chip table's: roofline chips)\n",
                 for_terminal(devices).c_str(), figures.c_str());
}

std::string device_label(const Trace& t, std::size_t device) {
  const Device& d = t.devices[device];
  return d.host.empty() ? d.name : cat(d.host, ":", d.name);
}

// Stragglers and collective waits (roofline/measure/skew.hpp): the steps with
// the largest skew, the collectives with the most wait, and per device its
// wait. Cells go through TextTable, which escapes names from traces.
void print_across_devices(std::string& out, const Trace& t, const TraceStats& s) {
  if (!s.skew) return;
  const SkewStats& k = *s.skew;
  constexpr std::size_t kTop = 5;
  using A = TextTable::Align;
  appendf(out, "across devices (docs/traces.md, \"Across devices\"):\n");
  std::vector<const StepSkew*> steps;
  for (const StepSkew& st : k.steps) steps.push_back(&st);
  // Largest skew first; on a tie, step order.
  std::stable_sort(steps.begin(), steps.end(), [](const StepSkew* a, const StepSkew* b) { return a->skew_s > b->skew_s; });
  if (steps.empty()) {
    appendf(out, "no step ran on 2 or more devices\n");
  } else {
    TextTable table({{"step"}, {"devices", A::kRight}, {"slowest"}, {"time", A::kRight}, {"fastest"},
                     {"time", A::kRight}, {"median", A::kRight}, {"skew", A::kRight}});
    for (std::size_t i = 0; i < steps.size() && i < kTop; ++i) {
      const StepSkew& st = *steps[i];
      table.add_row({st.repeat ? cat(st.step, " (", st.repeat + 1, ")") : st.step, cat(st.devices),
                     device_label(t, st.slowest_device), format_seconds(st.slowest_s),
                     device_label(t, st.fastest_device), format_seconds(st.fastest_s), format_seconds(st.median_s),
                     format_seconds(st.skew_s)});
    }
    appendf(out, "steps with the largest skew (slowest - fastest device; %zu of %zu):\n%s",
                 std::min(kTop, steps.size()), steps.size(), table.render().c_str());
  }
  if (k.collectives.empty()) {
    appendf(out, "no collective ran on 2 or more devices\n");
  } else {
    TextTable table({{"module"}, {"collective"}, {"calls", A::kRight}, {"total wait", A::kRight},
                     {"max skew", A::kRight}, {"median skew", A::kRight}, {"waited for (most often)"}});
    for (std::size_t i = 0; i < k.collectives.size() && i < kTop; ++i) {
      const CollectiveSkew& c = k.collectives[i];
      std::string label = c.name;
      if (!c.kernel.empty()) label += cat(" [", c.kernel, "]");
      if (label.size() > 60) label = label.substr(0, 57) + "...";
      table.add_row({c.module.empty() ? "-" : c.program_id ? cat(c.module, "(", *c.program_id, ")") : c.module, label,
                     cat(c.occurrences), format_seconds(c.wait_s), format_seconds(c.max_skew_s),
                     format_seconds(c.median_skew_s),
                     c.waited_for ? cat(device_label(t, *c.waited_for), " (", c.waited_for_count, " of ",
                                        c.occurrences, ")")
                                  : "-"});
    }
    appendf(out, "collectives with the most wait (a call's wait: its time - the shortest call's; %zu of %zu):\n%s",
                 std::min(kTop, k.collectives.size()), k.collectives.size(), table.render().c_str());
  }
  // Every device when few, else those that waited most.
  constexpr std::size_t kDevices = 8;
  std::vector<const DeviceSkew*> devices;
  for (const DeviceSkew& d : k.devices) devices.push_back(&d);
  if (devices.size() > kDevices) {
    std::stable_sort(devices.begin(), devices.end(), [](const DeviceSkew* a, const DeviceSkew* b) {
      return a->collective_wait_s > b->collective_wait_s;
    });
    devices.resize(kDevices);
  }
  TextTable table({{"device"}, {"collective wait", A::kRight}, {"slowest in steps", A::kRight},
                   {"waited for", A::kRight}});
  for (const DeviceSkew* d : devices)
    table.add_row({device_label(t, d->device), format_seconds(d->collective_wait_s), cat(d->slowest_steps),
                   cat(d->waited_for_count)});
  appendf(out, "per device (waited for: collective calls where the others waited for it; a step or call that "
               "several devices took longest or shortest alike counts for no one)%s:\n%s\n",
               k.devices.size() > kDevices ? cat("; ", kDevices, " of ", k.devices.size(),
                                                 " with the most wait (all: --format json)").c_str()
                                           : "",
               table.render().c_str());
}

// "xplane" for one file; "xplane (63 files), kineto (1 file)" for several.
std::string formats_label(const Trace& t) {
  std::vector<std::pair<TraceFormat, std::size_t>> counts;
  for (TraceFormat f : t.formats) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == f; });
    if (it == counts.end()) counts.push_back({f, 1});
    else ++it->second;
  }
  std::string out;
  for (const auto& [f, n] : counts)
    out += cat(out.empty() ? "" : ", ", trace_format_name(f),
               t.formats.size() > 1 ? cat(" (", n, n == 1 ? " file)" : " files)") : "");
  return out;
}

// The trace's warnings, one line each; those that differ only in the file
// they name ("host00.xplane.pb: ...", as a pod's hosts give alike) once,
// with the files, where they first appear.
void print_warnings(std::string& out, const Trace& t) {
  struct Said {
    std::string message;
    std::vector<std::string> files;
  };
  std::vector<Said> said;
  for (const std::string& w : t.warnings) {
    // The longest file name the warning begins with (names may hold ": ").
    auto file = t.files.end();
    for (auto f = t.files.begin(); f != t.files.end(); ++f)
      if (w.size() > f->size() + 2 && w.compare(0, f->size(), *f) == 0 && w.compare(f->size(), 2, ": ") == 0 &&
          (file == t.files.end() || f->size() > file->size()))
        file = f;
    if (file == t.files.end()) {
      said.push_back({w, {}});
      continue;
    }
    const std::string rest = w.substr(file->size() + 2);
    auto it = std::find_if(said.begin(), said.end(), [&](const Said& s) { return !s.files.empty() && s.message == rest; });
    // A file that says one thing twice says it twice, as it did.
    if (it != said.end() && std::find(it->files.begin(), it->files.end(), *file) != it->files.end())
      it = said.end();
    if (it == said.end()) said.push_back({rest, {*file}});
    else it->files.push_back(*file);
  }
  constexpr std::size_t kNamed = 3;
  for (const Said& s : said) {
    if (s.files.size() == 1) {
      appendf(out, "warning: %s\n", for_terminal(cat(s.files[0], ": ", s.message)).c_str());
      continue;
    }
    std::string files;
    for (std::size_t i = 0; i < s.files.size() && i < kNamed; ++i) files += cat(i ? ", " : "", s.files[i]);
    if (s.files.size() > kNamed) files += cat(" and ", s.files.size() - kNamed, " more");
    appendf(out, "warning: %s; in %zu files: %s\n", for_terminal(s.message).c_str(), s.files.size(),
                 for_terminal(files).c_str());
  }
}

}  // namespace

std::string render_stats_text(const Trace& t, const TraceStats& s, std::size_t top) {
  std::string out;
  const std::string formats = formats_label(t);
  appendf(out, "%s: %s; %zu devices (%zu with ops), %zu host timelines\n\n", for_terminal(t.source).c_str(),
               formats.c_str(), t.devices.size(), s.devices.size(), t.hosts.size());
  using A = TextTable::Align;
  TextTable dev({{"device"}, {"model"}, {"chip"}, {"ops", A::kRight}, {"window", A::kRight},
                 {"busy", A::kRight}, {"idle", A::kRight}, {"duty", A::kRight},
                 {"compute", A::kRight}, {"collective", A::kRight}, {"data mvmt", A::kRight},
                 {"sync", A::kRight}, {"steps", A::kRight}});
  for (const DeviceStats& d : s.devices) {
    std::string steps = "-";
    if (d.steps)
      steps = cat(d.steps->count, " x ", format_seconds(d.steps->median_s), d.steps->from_host ? " (host)" : "");
    const IdentifiedChip id = identify_device(t.devices[d.device]);
    dev.add_row({d.host.empty() ? d.name : cat(d.host, ":", d.name),
                 id.model.empty() ? "-" : id.model + (id.inferred ? " (inferred)" : ""),
                 id.chip ? id.chip->name : "-", cat(d.op_events), format_seconds(d.window_s),
                 format_seconds(d.busy_s), format_seconds(d.idle_s), format_percent(d.duty_cycle),
                 format_seconds(d.compute_s), format_seconds(d.collective_s),
                 format_seconds(d.data_movement_s), format_seconds(d.sync_s), steps});
  }
  appendf(out, "%s", dev.render().c_str());
  appendf(out, "(busy = compute + collective + data mvmt: an instant when several run counts once, as compute, "
               "else collective; sync is streams waiting, not busy)\n");
  print_reported_peaks(out, t, s);
  appendf(out, "\n");

  TextTable ops({{"module"}, {"op"}, {"category"}, {"count", A::kRight}, {"total", A::kRight},
                 {"mean", A::kRight}, {"median", A::kRight}, {"min", A::kRight}, {"max", A::kRight},
                 {"share", A::kRight}, {"XLA flops", A::kRight}, {"XLA bytes", A::kRight}});
  std::size_t n = 0;
  for (const OpStat& o : s.ops) {
    if (n++ == top) break;
    ops.add_row({module_label(o), op_label(o, 60) + (o.async ? " (async)" : ""), o.category,
                 cat(o.count), format_seconds(o.total_s), format_seconds(o.mean_s),
                 format_seconds(o.median_s), format_seconds(o.min_s), format_seconds(o.max_s),
                 o.async || o.op_class == OpClass::kSync ? "-" : format_percent(o.share), o.flops ? format_si(static_cast<double>(*o.flops), "") : "-",
                 o.bytes_accessed ? format_bytes(static_cast<double>(*o.bytes_accessed)) : "-"});
  }
  appendf(out, "top %zu of %zu ops by self time%s:\n%s\n", std::min(top, s.ops.size()), s.ops.size(),
               s.devices.size() > 1 ? ", all devices" : "", ops.render().c_str());

  TextTable cats({{"category"}, {"class"}, {"count", A::kRight}, {"self time", A::kRight}, {"share", A::kRight},
                  {"busy", A::kRight}, {"of busy", A::kRight}});
  for (const CategoryStat& c : s.categories) {
    const bool sync = c.op_class == OpClass::kSync;
    cats.add_row({c.category.empty() ? "-" : c.category, std::string(op_class_name(c.op_class)),
                  cat(c.count), format_seconds(c.total_s), sync ? "-" : format_percent(c.share),
                  sync ? "-" : format_seconds(c.busy_s), sync ? "-" : format_percent(c.busy_share)});
  }
  appendf(out, "categories (busy: each busy instant counted once, so they add up to the busy time):\n%s\n",
               cats.render().c_str());
  print_across_devices(out, t, s);

  for (const DeviceStats& d : s.devices) {
    if (d.idle_gaps.empty()) continue;
    appendf(out, "largest idle gaps on %s:\n", for_terminal(device_label(t, d.device)).c_str());
    for (const IdleGap& g : d.idle_gaps) {
      std::string host;
      for (const HostActivity& h : g.host)
        host += cat(host.empty() ? "" : ", ", h.name.size() > 48 ? h.name.substr(0, 45) + "..." : h.name,
                    " ", format_seconds(h.overlap_s));
      appendf(out, "  at %s for %s%s%s\n", format_seconds(g.start_s).c_str(),
                   format_seconds(g.duration_s).c_str(), host.empty() ? "" : "; host: ", for_terminal(host).c_str());
    }
    if (s.devices.size() > 4) {
      appendf(out, "  (gaps of the other devices: --device N or --format json)\n");
      break;
    }
  }
  for (const DeviceStats& d : s.devices)
    if (const IdentifiedChip id = identify_device(t.devices[d.device]); !id.warning.empty())
      appendf(out, "warning: %s: %s\n", for_terminal(d.name).c_str(), for_terminal(id.warning).c_str());
  print_warnings(out, t);
  return out;
}

}  // namespace roofline
