// roofline stats TRACE: what a measured trace spent its time on, per device
// and per op, like a profiler's overview and HLO Op Stats pages.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "roofline/detail/cat.hpp"
#include "roofline/report/units.hpp"
#include "roofline/trace/op_stats.hpp"
#include "roofline/trace/read.hpp"
#include "src/cli/command.hpp"
#include "src/cli/text_table.hpp"

namespace roofline::cli {
namespace {

using detail::cat;

nlohmann::json opt_json(const std::optional<std::int64_t>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json op_json(const OpStat& o) {
  return {{"name", o.name},
          {"module", o.module},
          {"program_id", o.program_id ? nlohmann::json(*o.program_id) : nlohmann::json(nullptr)},
          {"kernel", o.kernel},
          {"category", o.category},
          {"class", op_class_name(o.op_class)},
          {"async", o.async},
          {"count", o.count},
          {"total_s", o.total_s},
          {"mean_s", o.mean_s},
          {"median_s", o.median_s},
          {"min_s", o.min_s},
          {"max_s", o.max_s},
          {"share", o.share},
          {"flops", opt_json(o.flops)},
          {"bytes_accessed", opt_json(o.bytes_accessed)}};
}

nlohmann::json category_json(const CategoryStat& c) {
  return {{"category", c.category}, {"class", op_class_name(c.op_class)}, {"count", c.count},
          {"total_s", c.total_s}, {"share", c.share}};
}

nlohmann::json device_json(const Trace& t, const DeviceStats& d) {
  const Device& dev = t.devices[d.device];
  nlohmann::json gaps = nlohmann::json::array();
  for (const IdleGap& g : d.idle_gaps) {
    nlohmann::json host = nlohmann::json::array();
    for (const HostActivity& h : g.host) host.push_back({{"name", h.name}, {"overlap_s", h.overlap_s}});
    gaps.push_back({{"start_s", g.start_s}, {"duration_s", g.duration_s}, {"host", host}});
  }
  nlohmann::json steps = nullptr;
  if (d.steps)
    steps = {{"count", d.steps->count}, {"from_host", d.steps->from_host}, {"mean_s", d.steps->mean_s},
             {"median_s", d.steps->median_s}, {"min_s", d.steps->min_s}, {"max_s", d.steps->max_s}};
  auto opt_num = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"id", d.id},
          {"name", d.name},
          {"host", d.host},
          {"kind", device_kind_name(dev.kind)},
          {"model", d.model},
          {"model_inferred", dev.model_inferred},
          {"chip", d.chip ? nlohmann::json(d.chip->name) : nlohmann::json(nullptr)},
          {"peak_flops_per_s", opt_num(dev.caps.peak_flops_per_s)},
          {"hbm_bytes_per_s", opt_num(dev.caps.hbm_bytes_per_s)},
          {"op_events", d.op_events},
          {"window_s", d.window_s},
          {"busy_s", d.busy_s},
          {"idle_s", d.idle_s},
          {"duty_cycle", d.duty_cycle},
          {"compute_s", d.compute_s},
          {"collective_s", d.collective_s},
          {"data_movement_s", d.data_movement_s},
          {"exposed_collective_s", d.exposed_collective_s},
          {"steps", steps},
          {"idle_gaps", gaps}};
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string num(double v) { return cat(v); }

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

void print_text(const Trace& t, const TraceStats& s, std::size_t top) {
  std::string formats;
  for (TraceFormat f : t.formats) formats += cat(formats.empty() ? "" : ", ", trace_format_name(f));
  std::printf("%s: %s; %zu devices (%zu with ops), %zu host timelines\n\n", t.source.c_str(),
              formats.c_str(), t.devices.size(), s.devices.size(), t.hosts.size());
  using A = TextTable::Align;
  TextTable dev({{"device"}, {"model"}, {"chip"}, {"ops", A::kRight}, {"window", A::kRight},
                 {"busy", A::kRight}, {"idle", A::kRight}, {"duty", A::kRight},
                 {"compute", A::kRight}, {"collective", A::kRight}, {"exposed coll.", A::kRight},
                 {"data mvmt", A::kRight}, {"steps", A::kRight}});
  for (const DeviceStats& d : s.devices) {
    std::string steps = "-";
    if (d.steps)
      steps = cat(d.steps->count, " x ", format_seconds(d.steps->median_s), d.steps->from_host ? " (host)" : "");
    dev.add_row({d.host.empty() ? d.name : cat(d.host, ":", d.name),
                 d.model.empty() ? "-" : d.model + (t.devices[d.device].model_inferred ? " (inferred)" : ""),
                 d.chip ? d.chip->name : "-", cat(d.op_events), format_seconds(d.window_s),
                 format_seconds(d.busy_s), format_seconds(d.idle_s), format_percent(d.duty_cycle),
                 format_seconds(d.compute_s), format_seconds(d.collective_s),
                 format_seconds(d.exposed_collective_s), format_seconds(d.data_movement_s), steps});
  }
  std::printf("%s\n", dev.render().c_str());

  TextTable ops({{"module"}, {"op"}, {"category"}, {"count", A::kRight}, {"total", A::kRight},
                 {"mean", A::kRight}, {"median", A::kRight}, {"min", A::kRight}, {"max", A::kRight},
                 {"share", A::kRight}, {"XLA flops", A::kRight}, {"XLA bytes", A::kRight}});
  std::size_t n = 0;
  for (const OpStat& o : s.ops) {
    if (n++ == top) break;
    ops.add_row({module_label(o), op_label(o, 60) + (o.async ? " (async)" : ""), o.category,
                 cat(o.count), format_seconds(o.total_s), format_seconds(o.mean_s),
                 format_seconds(o.median_s), format_seconds(o.min_s), format_seconds(o.max_s),
                 o.async ? "-" : format_percent(o.share), o.flops ? format_si(static_cast<double>(*o.flops), "") : "-",
                 o.bytes_accessed ? format_bytes(static_cast<double>(*o.bytes_accessed)) : "-"});
  }
  std::printf("top %zu of %zu ops by self time%s:\n%s\n", std::min(top, s.ops.size()), s.ops.size(),
              s.devices.size() > 1 ? ", all devices" : "", ops.render().c_str());

  TextTable cats({{"category"}, {"class"}, {"count", A::kRight}, {"total", A::kRight}, {"share", A::kRight}});
  for (const CategoryStat& c : s.categories)
    cats.add_row({c.category.empty() ? "-" : c.category, std::string(op_class_name(c.op_class)),
                  cat(c.count), format_seconds(c.total_s), format_percent(c.share)});
  std::printf("categories:\n%s\n", cats.render().c_str());

  for (const DeviceStats& d : s.devices) {
    if (d.idle_gaps.empty()) continue;
    std::printf("largest idle gaps on %s:\n", d.name.c_str());
    for (const IdleGap& g : d.idle_gaps) {
      std::string host;
      for (const HostActivity& h : g.host)
        host += cat(host.empty() ? "" : ", ", h.name.size() > 48 ? h.name.substr(0, 45) + "..." : h.name,
                    " ", format_seconds(h.overlap_s));
      std::printf("  at %s for %s%s%s\n", format_seconds(g.start_s).c_str(),
                  format_seconds(g.duration_s).c_str(), host.empty() ? "" : "; host: ", host.c_str());
    }
    if (s.devices.size() > 4) {
      std::printf("  (gaps of the other devices: --device N or --format json)\n");
      break;
    }
  }
  for (const std::string& w : t.warnings) std::printf("warning: %s\n", w.c_str());
}

int run_stats(const Args& args) {
  auto fmt = args.format({"text", "json", "csv"});
  if (!fmt.ok()) return fail(fmt.status());
  if (args.positional().size() != 1) return fail_usage("stats: expected exactly one TRACE (file or directory)");
  OpStatsOptions options;
  if (args.has("device")) {
    auto d = args.get_int("device", std::nullopt, kIntRange);
    if (!d.ok()) return fail(d.status());
    options.device_id = static_cast<int>(*d);
  }
  auto top = args.get_int("top", *fmt == "text" ? 20 : -1, kIntRange);
  if (!top.ok()) return fail(top.status());
  if (*top < -1 || (args.has("top") && *top < 0)) return fail_usage("--top: expected a count >= 0");

  auto trace = read_trace(args.positional()[0]);
  if (!trace.ok()) return fail(trace.status());
  const TraceStats s = compute_op_stats(*trace, options);
  if (options.device_id && s.devices.empty())
    return fail(absl::NotFoundError(cat(args.positional()[0], ": no device ", *options.device_id,
                                        " with op events")));
  const std::size_t limit = *top < 0 ? s.ops.size() : static_cast<std::size_t>(*top);

  if (*fmt == "json") {
    nlohmann::json out;
    out["source"] = trace->source;
    out["files"] = trace->files;
    nlohmann::json formats = nlohmann::json::array();
    for (TraceFormat f : trace->formats) formats.push_back(trace_format_name(f));
    out["formats"] = formats;
    out["devices"] = nlohmann::json::array();
    for (const DeviceStats& d : s.devices) out["devices"].push_back(device_json(*trace, d));
    out["busy_s"] = s.busy_s;
    out["idle_s"] = s.idle_s;
    out["duty_cycle"] = s.duty_cycle;
    out["ops"] = nlohmann::json::array();
    for (std::size_t i = 0; i < s.ops.size() && i < limit; ++i) out["ops"].push_back(op_json(s.ops[i]));
    out["categories"] = nlohmann::json::array();
    for (const CategoryStat& c : s.categories) out["categories"].push_back(category_json(c));
    out["warnings"] = trace->warnings;
    std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return 0;
  }
  if (*fmt == "csv") {
    std::printf("module,program_id,name,kernel,category,class,async,count,total_s,mean_s,median_s,min_s,max_s,share,flops,bytes_accessed\n");
    for (std::size_t i = 0; i < s.ops.size() && i < limit; ++i) {
      const OpStat& o = s.ops[i];
      std::printf("%s,%s,%s,%s,%s,%s,%s,%lld,%s,%s,%s,%s,%s,%s,%s,%s\n", csv_field(o.module).c_str(),
                  o.program_id ? cat(*o.program_id).c_str() : "", csv_field(o.name).c_str(),
                  csv_field(o.kernel).c_str(), csv_field(o.category).c_str(),
                  std::string(op_class_name(o.op_class)).c_str(), o.async ? "true" : "false",
                  static_cast<long long>(o.count), num(o.total_s).c_str(), num(o.mean_s).c_str(),
                  num(o.median_s).c_str(), num(o.min_s).c_str(), num(o.max_s).c_str(), num(o.share).c_str(),
                  o.flops ? cat(*o.flops).c_str() : "", o.bytes_accessed ? cat(*o.bytes_accessed).c_str() : "");
    }
    return 0;
  }
  print_text(*trace, s, limit);
  return 0;
}

ROOFLINE_CLI_COMMAND({
    .name = "stats",
    .usage = "roofline stats TRACE [--device N] [--top N] [--format text|json|csv]",
    .summary = "Op statistics of a measured trace (.xplane.pb, trace JSON, PyTorch trace, or a profile directory).",
    .options = {{"device", "N", "only devices with this id (TPU:N, GPU N)"},
                {"top", "N", "ops listed (default 20 in text, all in json/csv)"},
                {"format", "text|json|csv", "output format (default text)"}},
    .run = run_stats,
});

}  // namespace
}  // namespace roofline::cli
