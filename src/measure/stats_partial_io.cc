// The partial statistics file (docs/partials.md): compact JSON written with
// nlohmann (numbers as the shortest text that reads back to the same double,
// integers as integers, so a partial round-trips bit for bit) and read
// strictly: every error names the file and the JSON path, or the byte
// offset of text that is not JSON. Nothing read is trusted: indices are
// checked before use, so a damaged file fails to read instead of reaching
// finish_stats.
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "src/measure/op_stats_parts.hpp"
#include "src/measure/stats_partial_check.hpp"
#include "src/wire/bounded_input.hpp"

namespace roofline {
namespace {

using detail::cat;
using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }
json opt(const std::optional<int>& v) { return v ? json(*v) : json(); }
json opt(const std::optional<std::int64_t>& v) { return v ? json(*v) : json(); }

json caps_json(const DeviceCaps& c) {
  return {{"peak_flops_per_s", opt(c.peak_flops_per_s)},
          {"hbm_bytes_per_s", opt(c.hbm_bytes_per_s)},
          {"memory_bytes", opt(c.memory_bytes)},
          {"clock_hz", opt(c.clock_hz)},
          {"core_count", opt(c.core_count)},
          {"compute_capability_major", opt(c.compute_capability_major)},
          {"compute_capability_minor", opt(c.compute_capability_minor)}};
}

// A device's steps and collective calls, whole: the figures across devices
// are computed from them when the partials are finished.
json skew_json(const DeviceSkewInputs& in) {
  json steps = json::array();
  for (const SkewStep& s : in.steps) steps.push_back({{"name", s.name}, {"duration_ps", s.duration_ps}});
  json collectives = json::array();
  for (const CollectiveCalls& c : in.collectives) collectives.push_back({{"op", c.op}, {"duration_ps", c.duration_ps}});
  return {{"steps", steps}, {"collectives", collectives}};
}

json stats_json(const DeviceStats& d, std::int64_t busy_self_ps, const DeviceSkewInputs& skew) {
  json ops = json::array();
  for (const OpStat& o : d.ops)
    ops.push_back({{"op", o.op}, {"async", o.async}, {"count", o.count}, {"total_s", o.total_s},
                   {"mean_s", o.mean_s}, {"median_s", o.median_s}, {"min_s", o.min_s}, {"max_s", o.max_s},
                   {"share", o.share}});
  json cats = json::array();
  for (const CategoryStat& c : d.categories)
    cats.push_back({{"category", c.category}, {"class", op_class_name(c.op_class)}, {"count", c.count},
                    {"total_s", c.total_s}, {"share", c.share}, {"busy_s", c.busy_s}, {"busy_share", c.busy_share}});
  json gaps = json::array();
  for (const IdleGap& g : d.idle_gaps) {
    json host = json::array();
    for (const HostActivity& h : g.host) host.push_back({{"name", h.name}, {"overlap_s", h.overlap_s}});
    gaps.push_back({{"start_s", g.start_s}, {"duration_s", g.duration_s}, {"host", host}});
  }
  json steps;
  if (d.steps)
    steps = {{"from_host", d.steps->from_host}, {"count", d.steps->count}, {"mean_s", d.steps->mean_s},
             {"median_s", d.steps->median_s}, {"min_s", d.steps->min_s}, {"max_s", d.steps->max_s}};
  return {{"busy_self_ps", busy_self_ps}, {"op_events", d.op_events}, {"window_s", d.window_s},
          {"busy_s", d.busy_s}, {"idle_s", d.idle_s}, {"duty_cycle", d.duty_cycle}, {"compute_s", d.compute_s},
          {"collective_s", d.collective_s}, {"data_movement_s", d.data_movement_s}, {"sync_s", d.sync_s},
          {"ops", ops}, {"categories", cats}, {"idle_gaps", gaps}, {"steps", steps}, {"skew", skew_json(skew)}};
}

// Walks the parsed JSON; every error names the file and the JSON path.
class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}
  const std::string& origin() const { return origin_; }

  absl::Status error(const std::string& path, std::string_view what) const {
    return absl::InvalidArgumentError(cat(origin_, ": ", path.empty() ? "/" : path, ": ", what));
  }
  absl::Status object(const json& j, const std::string& path, std::initializer_list<std::string_view> keys) const {
    if (!j.is_object()) return error(path, "expected an object");
    for (auto it = j.begin(); it != j.end(); ++it)
      if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) return error(path + "/" + it.key(), "unknown field");
    for (std::string_view k : keys)
      if (!j.contains(std::string(k))) return error(cat(path, "/", k), "missing required field");
    return absl::OkStatus();
  }
  absl::Status array(const json& j, const std::string& path) const {
    return j.is_array() ? absl::OkStatus() : error(path, "expected an array");
  }
  absl::StatusOr<std::string> string(const json& j, const std::string& path) const {
    if (!j.is_string()) return error(path, "expected a string");
    return j.get<std::string>();
  }
  absl::StatusOr<std::vector<std::string>> strings(const json& j, const std::string& path) const {
    ROOFLINE_RETURN_IF_ERROR(array(j, path));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
      ROOFLINE_ASSIGN_OR_RETURN(std::string s, string(j[i], cat(path, "/", i)));
      out.push_back(std::move(s));
    }
    return out;
  }
  absl::StatusOr<bool> boolean(const json& j, const std::string& path) const {
    if (!j.is_boolean()) return error(path, "expected true or false");
    return j.get<bool>();
  }
  absl::StatusOr<double> number(const json& j, const std::string& path) const {
    if (!j.is_number()) return error(path, "expected a number");
    const double v = j.get<double>();
    if (!std::isfinite(v)) return error(path, "expected a finite number");
    return v;
  }
  absl::StatusOr<std::optional<double>> opt_number(const json& j, const std::string& path) const {
    if (j.is_null()) return std::optional<double>();
    ROOFLINE_ASSIGN_OR_RETURN(double v, number(j, path));
    return std::optional<double>(v);
  }
  absl::StatusOr<std::int64_t> integer(const json& j, const std::string& path, std::int64_t min = 0) const {
    if (!j.is_number_integer() || (j.is_number_unsigned() && j.get<std::uint64_t>() > INT64_MAX) ||
        j.get<std::int64_t>() < min)
      return error(path, min == 0 ? "expected a non-negative integer" : cat("expected an integer of at least ", min));
    return j.get<std::int64_t>();
  }
  absl::StatusOr<std::optional<std::int64_t>> opt_integer(const json& j, const std::string& path,
                                                          std::int64_t min) const {
    if (j.is_null()) return std::optional<std::int64_t>();
    ROOFLINE_ASSIGN_OR_RETURN(std::int64_t v, integer(j, path, min));
    return std::optional<std::int64_t>(v);
  }
  absl::StatusOr<std::optional<int>> opt_int(const json& j, const std::string& path) const {
    if (j.is_null()) return std::optional<int>();
    if (!j.is_number_integer() || (j.is_number_unsigned() && j.get<std::uint64_t>() > INT32_MAX) ||
        j.get<std::int64_t>() < INT32_MIN || j.get<std::int64_t>() > INT32_MAX)
      return error(path, "expected an integer (32 bits) or null");
    return std::optional<int>(static_cast<int>(j.get<std::int64_t>()));
  }
  absl::StatusOr<std::size_t> index(const json& j, const std::string& path, std::size_t size,
                                    std::string_view of) const {
    if (!j.is_number_unsigned() || j.get<std::uint64_t>() >= size)
      return error(path, cat("expected an index into ", of, " (below ", size, ")"));
    return static_cast<std::size_t>(j.get<std::uint64_t>());
  }
  template <class E>
  absl::StatusOr<E> name(const json& j, const std::string& path, int count, std::string_view (*name_of)(E)) const {
    ROOFLINE_ASSIGN_OR_RETURN(std::string s, string(j, path));
    std::string known;
    for (int i = 0; i < count; ++i) {
      if (name_of(static_cast<E>(i)) == s) return static_cast<E>(i);
      known += cat(i ? ", " : "", name_of(static_cast<E>(i)));
    }
    return error(path, cat("expected one of ", known));
  }

 private:
  std::string origin_;
};

absl::StatusOr<DeviceCaps> read_caps(const Reader& r, const json& j, const std::string& p) {
  ROOFLINE_RETURN_IF_ERROR(r.object(j, p, {"peak_flops_per_s", "hbm_bytes_per_s", "memory_bytes", "clock_hz", "core_count",
                                           "compute_capability_major", "compute_capability_minor"}));
  DeviceCaps c;
  ROOFLINE_ASSIGN_OR_RETURN(c.peak_flops_per_s, r.opt_number(j["peak_flops_per_s"], p + "/peak_flops_per_s"));
  ROOFLINE_ASSIGN_OR_RETURN(c.hbm_bytes_per_s, r.opt_number(j["hbm_bytes_per_s"], p + "/hbm_bytes_per_s"));
  ROOFLINE_ASSIGN_OR_RETURN(c.memory_bytes, r.opt_number(j["memory_bytes"], p + "/memory_bytes"));
  ROOFLINE_ASSIGN_OR_RETURN(c.clock_hz, r.opt_number(j["clock_hz"], p + "/clock_hz"));
  ROOFLINE_ASSIGN_OR_RETURN(c.core_count, r.opt_int(j["core_count"], p + "/core_count"));
  ROOFLINE_ASSIGN_OR_RETURN(c.compute_capability_major,
                            r.opt_int(j["compute_capability_major"], p + "/compute_capability_major"));
  ROOFLINE_ASSIGN_OR_RETURN(c.compute_capability_minor,
                            r.opt_int(j["compute_capability_minor"], p + "/compute_capability_minor"));
  return c;
}

absl::StatusOr<DeviceSkewInputs> read_skew(const Reader& r, const json& j, const std::string& p,
                                           const StatsPartial& out, std::int64_t op_events) {
  ROOFLINE_RETURN_IF_ERROR(r.object(j, p, {"steps", "collectives"}));
  DeviceSkewInputs in;
  const json& steps = j["steps"];
  ROOFLINE_RETURN_IF_ERROR(r.array(steps, p + "/steps"));
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string q = cat(p, "/steps/", i);
    ROOFLINE_RETURN_IF_ERROR(r.object(steps[i], q, {"name", "duration_ps"}));
    SkewStep s;
    ROOFLINE_ASSIGN_OR_RETURN(s.name, r.string(steps[i]["name"], q + "/name"));
    ROOFLINE_ASSIGN_OR_RETURN(s.duration_ps, r.integer(steps[i]["duration_ps"], q + "/duration_ps"));
    in.steps.push_back(std::move(s));
  }
  const json& collectives = j["collectives"];
  ROOFLINE_RETURN_IF_ERROR(r.array(collectives, p + "/collectives"));
  std::int64_t calls = 0;  // each is one of the device's op events
  for (std::size_t i = 0; i < collectives.size(); ++i) {
    const std::string q = cat(p, "/collectives/", i);
    const json& c = collectives[i];
    ROOFLINE_RETURN_IF_ERROR(r.object(c, q, {"op", "duration_ps"}));
    CollectiveCalls cc;
    ROOFLINE_ASSIGN_OR_RETURN(std::size_t op, r.index(c["op"], q + "/op", out.ops.size(), "/ops"));
    cc.op = static_cast<std::uint32_t>(op);
    if (out.ops[op].op_class != OpClass::kCollective) return r.error(q + "/op", "expected a collective op");
    if (!in.collectives.empty() && in.collectives.back().op >= cc.op)
      return r.error(q + "/op", "collectives must be sorted by op, each once");
    const json& d = c["duration_ps"];
    if (!d.is_array() || d.empty()) return r.error(q + "/duration_ps", "expected a non-empty array of integers");
    if (static_cast<std::int64_t>(d.size()) > op_events - calls)
      return r.error(q + "/duration_ps", "more collective calls than the device's op events");
    calls += static_cast<std::int64_t>(d.size());
    for (std::size_t k = 0; k < d.size(); ++k) {
      ROOFLINE_ASSIGN_OR_RETURN(std::int64_t v, r.integer(d[k], cat(q, "/duration_ps/", k)));
      cc.duration_ps.push_back(v);
    }
    in.collectives.push_back(std::move(cc));
  }
  return in;
}

absl::Status read_stats(const Reader& r, const json& j, const std::string& p, const StatsPartial& out,
                        DeviceStats& d, std::int64_t& busy_self_ps, DeviceSkewInputs& skew) {
  ROOFLINE_RETURN_IF_ERROR(r.object(j, p, {"busy_self_ps", "op_events", "window_s", "busy_s", "idle_s", "duty_cycle",
                                           "compute_s", "collective_s", "data_movement_s", "sync_s", "ops",
                                           "categories", "idle_gaps", "steps", "skew"}));
  ROOFLINE_ASSIGN_OR_RETURN(busy_self_ps, r.integer(j["busy_self_ps"], p + "/busy_self_ps"));
  ROOFLINE_ASSIGN_OR_RETURN(d.op_events, r.integer(j["op_events"], p + "/op_events", 1));
  for (auto [key, field] : {std::pair{"window_s", &d.window_s}, std::pair{"busy_s", &d.busy_s},
                            std::pair{"idle_s", &d.idle_s}, std::pair{"duty_cycle", &d.duty_cycle},
                            std::pair{"compute_s", &d.compute_s}, std::pair{"collective_s", &d.collective_s},
                            std::pair{"data_movement_s", &d.data_movement_s}, std::pair{"sync_s", &d.sync_s}}) {
    ROOFLINE_ASSIGN_OR_RETURN(*field, r.number(j[key], cat(p, "/", key)));
  }
  const json& ops = j["ops"];
  ROOFLINE_RETURN_IF_ERROR(r.array(ops, p + "/ops"));
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string q = cat(p, "/ops/", i);
    const json& o = ops[i];
    ROOFLINE_RETURN_IF_ERROR(
        r.object(o, q, {"op", "async", "count", "total_s", "mean_s", "median_s", "min_s", "max_s", "share"}));
    OpStat s;
    ROOFLINE_ASSIGN_OR_RETURN(std::size_t op, r.index(o["op"], q + "/op", out.ops.size(), "/ops"));
    s.op = static_cast<std::uint32_t>(op);
    ROOFLINE_ASSIGN_OR_RETURN(s.async, r.boolean(o["async"], q + "/async"));
    ROOFLINE_ASSIGN_OR_RETURN(s.count, r.integer(o["count"], q + "/count", 1));
    for (auto [key, field] : {std::pair{"total_s", &s.total_s}, std::pair{"mean_s", &s.mean_s},
                              std::pair{"median_s", &s.median_s}, std::pair{"min_s", &s.min_s},
                              std::pair{"max_s", &s.max_s}, std::pair{"share", &s.share}}) {
      ROOFLINE_ASSIGN_OR_RETURN(*field, r.number(o[key], cat(q, "/", key)));
    }
    detail::fill_identity(s, out.ops[op]);
    d.ops.push_back(std::move(s));
  }
  const json& cats = j["categories"];
  ROOFLINE_RETURN_IF_ERROR(r.array(cats, p + "/categories"));
  for (std::size_t i = 0; i < cats.size(); ++i) {
    const std::string q = cat(p, "/categories/", i);
    const json& c = cats[i];
    ROOFLINE_RETURN_IF_ERROR(r.object(c, q, {"category", "class", "count", "total_s", "share", "busy_s", "busy_share"}));
    CategoryStat s;
    ROOFLINE_ASSIGN_OR_RETURN(s.category, r.string(c["category"], q + "/category"));
    ROOFLINE_ASSIGN_OR_RETURN(s.op_class, r.name(c["class"], q + "/class", 4, &op_class_name));
    ROOFLINE_ASSIGN_OR_RETURN(s.count, r.integer(c["count"], q + "/count"));
    for (auto [key, field] : {std::pair{"total_s", &s.total_s}, std::pair{"share", &s.share},
                              std::pair{"busy_s", &s.busy_s}, std::pair{"busy_share", &s.busy_share}}) {
      ROOFLINE_ASSIGN_OR_RETURN(*field, r.number(c[key], cat(q, "/", key)));
    }
    d.categories.push_back(std::move(s));
  }
  const json& gaps = j["idle_gaps"];
  ROOFLINE_RETURN_IF_ERROR(r.array(gaps, p + "/idle_gaps"));
  for (std::size_t i = 0; i < gaps.size(); ++i) {
    const std::string q = cat(p, "/idle_gaps/", i);
    const json& g = gaps[i];
    ROOFLINE_RETURN_IF_ERROR(r.object(g, q, {"start_s", "duration_s", "host"}));
    IdleGap gap;
    ROOFLINE_ASSIGN_OR_RETURN(gap.start_s, r.number(g["start_s"], q + "/start_s"));
    ROOFLINE_ASSIGN_OR_RETURN(gap.duration_s, r.number(g["duration_s"], q + "/duration_s"));
    ROOFLINE_RETURN_IF_ERROR(r.array(g["host"], q + "/host"));
    for (std::size_t k = 0; k < g["host"].size(); ++k) {
      const std::string h = cat(q, "/host/", k);
      const json& a = g["host"][k];
      ROOFLINE_RETURN_IF_ERROR(r.object(a, h, {"name", "overlap_s"}));
      HostActivity act;
      ROOFLINE_ASSIGN_OR_RETURN(act.name, r.string(a["name"], h + "/name"));
      ROOFLINE_ASSIGN_OR_RETURN(act.overlap_s, r.number(a["overlap_s"], h + "/overlap_s"));
      gap.host.push_back(std::move(act));
    }
    d.idle_gaps.push_back(std::move(gap));
  }
  const json& steps = j["steps"];
  if (!steps.is_null()) {
    const std::string q = p + "/steps";
    ROOFLINE_RETURN_IF_ERROR(r.object(steps, q, {"from_host", "count", "mean_s", "median_s", "min_s", "max_s"}));
    StepStats s;
    ROOFLINE_ASSIGN_OR_RETURN(s.from_host, r.boolean(steps["from_host"], q + "/from_host"));
    ROOFLINE_ASSIGN_OR_RETURN(s.count, r.integer(steps["count"], q + "/count", 1));
    for (auto [key, field] : {std::pair{"mean_s", &s.mean_s}, std::pair{"median_s", &s.median_s},
                              std::pair{"min_s", &s.min_s}, std::pair{"max_s", &s.max_s}}) {
      ROOFLINE_ASSIGN_OR_RETURN(*field, r.number(steps[key], cat(q, "/", key)));
    }
    d.steps = s;
  }
  ROOFLINE_ASSIGN_OR_RETURN(skew, read_skew(r, j["skew"], p + "/skew", out, d.op_events));
  return absl::OkStatus();
}

absl::StatusOr<StatsPartial> read_partial(const Reader& r, const json& j) {
  // Format and version first, so that another file or version is refused by
  // name before its fields are judged.
  if (!j.is_object()) return r.error("", "expected an object (a roofline-stats-partial file)");
  if (!j.contains("format") || !j["format"].is_string() || j["format"].get<std::string>() != kStatsPartialFormat)
    return r.error("/format", cat("expected \"", kStatsPartialFormat, "\" (written by roofline stats --partial)"));
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<std::int64_t>() != kStatsPartialVersion)
    return r.error("/version", cat("expected ", kStatsPartialVersion, ", the only version this build reads (got ",
                                   j.contains("version") ? j["version"].dump() : std::string("none"), ")"));
  ROOFLINE_RETURN_IF_ERROR(r.object(j, "", {"format", "version", "source", "files", "formats", "warnings", "options",
                                            "host_timelines", "host_names", "devices", "ops", "rows"}));
  StatsPartial out;
  ROOFLINE_ASSIGN_OR_RETURN(out.source, r.string(j["source"], "/source"));
  ROOFLINE_ASSIGN_OR_RETURN(out.files, r.strings(j["files"], "/files"));
  const json& formats = j["formats"];
  ROOFLINE_RETURN_IF_ERROR(r.array(formats, "/formats"));
  for (std::size_t i = 0; i < formats.size(); ++i) {
    ROOFLINE_ASSIGN_OR_RETURN(TraceFormat f, r.name(formats[i], cat("/formats/", i), 4, &trace_format_name));
    out.formats.push_back(f);
  }
  const json& w = j["warnings"];
  ROOFLINE_RETURN_IF_ERROR(r.object(w, "/warnings", {"listing", "skipped", "files"}));
  ROOFLINE_ASSIGN_OR_RETURN(out.listing_warnings, r.strings(w["listing"], "/warnings/listing"));
  ROOFLINE_ASSIGN_OR_RETURN(out.skipped_warnings, r.strings(w["skipped"], "/warnings/skipped"));
  ROOFLINE_ASSIGN_OR_RETURN(out.file_warnings, r.strings(w["files"], "/warnings/files"));
  const json& o = j["options"];
  ROOFLINE_RETURN_IF_ERROR(r.object(o, "/options", {"device", "idle_gaps", "host_activities"}));
  ROOFLINE_ASSIGN_OR_RETURN(out.options.device_id, r.opt_int(o["device"], "/options/device"));
  ROOFLINE_ASSIGN_OR_RETURN(std::int64_t gaps, r.integer(o["idle_gaps"], "/options/idle_gaps"));
  ROOFLINE_ASSIGN_OR_RETURN(std::int64_t acts, r.integer(o["host_activities"], "/options/host_activities"));
  out.options.idle_gaps = static_cast<std::size_t>(gaps);
  out.options.host_activities = static_cast<std::size_t>(acts);
  ROOFLINE_ASSIGN_OR_RETURN(std::int64_t hosts, r.integer(j["host_timelines"], "/host_timelines"));
  // Each becomes an (empty) host timeline of trace_outline.
  if (hosts > kMaxPartialHostTimelines)
    return r.error("/host_timelines", cat("expected at most ", kMaxPartialHostTimelines));
  out.host_timelines = static_cast<std::size_t>(hosts);
  ROOFLINE_ASSIGN_OR_RETURN(out.host_names, r.strings(j["host_names"], "/host_names"));

  const json& ops = j["ops"];
  ROOFLINE_RETURN_IF_ERROR(r.array(ops, "/ops"));
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string q = cat("/ops/", i);
    const json& op = ops[i];
    ROOFLINE_RETURN_IF_ERROR(r.object(
        op, q, {"name", "module", "program_id", "kernel", "category", "class", "hlo_text", "xla_flops", "xla_bytes"}));
    OpInfo info;
    ROOFLINE_ASSIGN_OR_RETURN(info.name, r.string(op["name"], q + "/name"));
    ROOFLINE_ASSIGN_OR_RETURN(info.module, r.string(op["module"], q + "/module"));
    if (!op["program_id"].is_null()) {
      if (!op["program_id"].is_number_unsigned()) return r.error(q + "/program_id", "expected a non-negative integer or null");
      info.program_id = op["program_id"].get<std::uint64_t>();
    }
    ROOFLINE_ASSIGN_OR_RETURN(info.kernel, r.string(op["kernel"], q + "/kernel"));
    ROOFLINE_ASSIGN_OR_RETURN(info.category, r.string(op["category"], q + "/category"));
    ROOFLINE_ASSIGN_OR_RETURN(info.op_class, r.name(op["class"], q + "/class", 4, &op_class_name));
    ROOFLINE_ASSIGN_OR_RETURN(info.hlo_text, r.string(op["hlo_text"], q + "/hlo_text"));
    ROOFLINE_ASSIGN_OR_RETURN(info.flops, r.opt_integer(op["xla_flops"], q + "/xla_flops", INT64_MIN));
    ROOFLINE_ASSIGN_OR_RETURN(info.bytes_accessed, r.opt_integer(op["xla_bytes"], q + "/xla_bytes", INT64_MIN));
    out.ops.push_back(std::move(info));
  }

  const json& rows = j["rows"];
  ROOFLINE_RETURN_IF_ERROR(r.array(rows, "/rows"));
  std::int64_t events = 0;  // over all rows: each op event is in one
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string q = cat("/rows/", i);
    const json& row = rows[i];
    ROOFLINE_RETURN_IF_ERROR(r.object(row, q, {"op", "async", "self_ps"}));
    OpDurations d;
    ROOFLINE_ASSIGN_OR_RETURN(std::size_t op, r.index(row["op"], q + "/op", out.ops.size(), "/ops"));
    d.op = static_cast<std::uint32_t>(op);
    ROOFLINE_ASSIGN_OR_RETURN(d.async, r.boolean(row["async"], q + "/async"));
    if (!out.rows.empty() && std::pair(out.rows.back().op, out.rows.back().async) >= std::pair(d.op, d.async))
      return r.error(q, "rows must be sorted by (op, async), each once");
    const json& runs = row["self_ps"];
    if (!runs.is_array() || runs.empty()) return r.error(q + "/self_ps", "expected a non-empty array of [self_ps, count]");
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const std::string s = cat(q, "/self_ps/", k);
      if (!runs[k].is_array() || runs[k].size() != 2) return r.error(s, "expected [self_ps, count]");
      DurationRun run;
      // Self times are durations less their children's, never below 0.
      ROOFLINE_ASSIGN_OR_RETURN(run.self_ps, r.integer(runs[k][0], s + "/0"));
      ROOFLINE_ASSIGN_OR_RETURN(run.count, r.integer(runs[k][1], s + "/1", 1));
      if (!d.runs.empty() && d.runs.back().self_ps >= run.self_ps)
        return r.error(s + "/0", "self times must ascend strictly");
      if (run.count > kMaxPartialEvents - events)
        return r.error(s + "/1", cat("more than ", kMaxPartialEvents, " op events in all"));
      events += run.count;
      d.runs.push_back(run);
    }
    out.rows.push_back(std::move(d));
  }

  const json& devices = j["devices"];
  ROOFLINE_RETURN_IF_ERROR(r.array(devices, "/devices"));
  std::int64_t device_events = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const std::string q = cat("/devices/", i);
    const json& dv = devices[i];
    ROOFLINE_RETURN_IF_ERROR(r.object(dv, q, {"id", "host", "name", "model", "vendor", "kind", "caps", "stats"}));
    Device d;
    ROOFLINE_ASSIGN_OR_RETURN(std::optional<int> id, r.opt_int(dv["id"], q + "/id"));
    if (!id) return r.error(q + "/id", "expected an integer");
    d.id = *id;
    ROOFLINE_ASSIGN_OR_RETURN(d.host, r.string(dv["host"], q + "/host"));
    ROOFLINE_ASSIGN_OR_RETURN(d.name, r.string(dv["name"], q + "/name"));
    ROOFLINE_ASSIGN_OR_RETURN(d.model, r.string(dv["model"], q + "/model"));
    ROOFLINE_ASSIGN_OR_RETURN(d.vendor, r.string(dv["vendor"], q + "/vendor"));
    ROOFLINE_ASSIGN_OR_RETURN(d.kind, r.name(dv["kind"], q + "/kind", 4, &device_kind_name));
    ROOFLINE_ASSIGN_OR_RETURN(d.caps, read_caps(r, dv["caps"], q + "/caps"));
    if (!dv["stats"].is_null()) {
      DeviceStats s = detail::device_identity(d, i);
      std::int64_t busy = 0;
      DeviceSkewInputs skew;
      ROOFLINE_RETURN_IF_ERROR(read_stats(r, dv["stats"], q + "/stats", out, s, busy, skew));
      if (s.op_events > events - device_events)
        return r.error(q + "/stats/op_events", "more op events than the rows hold");
      device_events += s.op_events;
      out.device_stats.push_back(std::move(s));
      out.busy_self_ps.push_back(busy);
      out.skew_inputs.push_back(std::move(skew));
    }
    out.devices.push_back(std::move(d));
  }
  if (device_events != events)
    return r.error("/rows", cat("the rows hold ", events, " op events, the devices ", device_events));
  ROOFLINE_RETURN_IF_ERROR(detail::check_partial_figures(out, r.origin()));
  return out;
}

}  // namespace

std::string stats_partial_json(const StatsPartial& p) {
  json formats = json::array();
  for (TraceFormat f : p.formats) formats.push_back(trace_format_name(f));
  json devices = json::array();
  std::size_t next = 0;  // device_stats are in device order
  for (std::size_t i = 0; i < p.devices.size(); ++i) {
    const Device& d = p.devices[i];
    json stats;
    if (next < p.device_stats.size() && p.device_stats[next].device == i) {
      stats = stats_json(p.device_stats[next], p.busy_self_ps[next], p.skew_inputs[next]);
      ++next;
    }
    devices.push_back({{"id", d.id}, {"host", d.host}, {"name", d.name}, {"model", d.model}, {"vendor", d.vendor},
                       {"kind", device_kind_name(d.kind)}, {"caps", caps_json(d.caps)}, {"stats", stats}});
  }
  json ops = json::array();
  for (const OpInfo& o : p.ops)
    ops.push_back({{"name", o.name}, {"module", o.module}, {"program_id", o.program_id ? json(*o.program_id) : json()},
                   {"kernel", o.kernel}, {"category", o.category}, {"class", op_class_name(o.op_class)},
                   {"hlo_text", o.hlo_text}, {"xla_flops", opt(o.flops)}, {"xla_bytes", opt(o.bytes_accessed)}});
  json rows = json::array();
  for (const OpDurations& r : p.rows) {
    json runs = json::array();
    for (const DurationRun& run : r.runs) runs.push_back({run.self_ps, run.count});
    rows.push_back({{"op", r.op}, {"async", r.async}, {"self_ps", runs}});
  }
  const json out = {
      {"format", kStatsPartialFormat},
      {"version", kStatsPartialVersion},
      {"source", p.source},
      {"files", p.files},
      {"formats", formats},
      {"warnings", {{"listing", p.listing_warnings}, {"skipped", p.skipped_warnings}, {"files", p.file_warnings}}},
      {"options",
       {{"device", opt(p.options.device_id)}, {"idle_gaps", p.options.idle_gaps},
        {"host_activities", p.options.host_activities}}},
      {"host_timelines", p.host_timelines},
      {"host_names", p.host_names},
      {"devices", devices},
      {"ops", ops},
      {"rows", rows}};
  // Invalid UTF-8 in names read from traces becomes U+FFFD and bidirectional
  // controls \uHHHH, as in every output (roofline/format/terminal.hpp).
  return json_format_controls_escaped(out.dump(-1, ' ', false, json::error_handler_t::replace)) + "\n";
}

absl::StatusOr<StatsPartial> parse_stats_partial(std::string_view text, std::string_view origin) {
  const Reader r(origin);
  // Nesting is bounded before nlohmann builds a document (a partial is 5
  // levels deep).
  if (const std::size_t at = detail::json_too_deep_at(text); at != std::string_view::npos)
    return absl::InvalidArgumentError(
        cat(origin, ": byte ", at, ": JSON nested deeper than ", detail::kMaxInputJsonDepth, " levels"));
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return absl::InvalidArgumentError(cat(origin, ": byte ", e.byte, ": not JSON (", e.what(), ")"));
  } catch (const json::exception& e) {  // a number no double holds (1e400), ...
    return absl::InvalidArgumentError(cat(origin, ": not a partial: ", e.what()));
  }
  return read_partial(r, j);
}

absl::StatusOr<StatsPartial> read_stats_partial_file(const std::string& path) {
  // A partial holds a file's op rows and run lengths, not its events: real
  // ones are kilobytes to a few megabytes (docs/traces.md, Errors).
  constexpr std::uint64_t kMaxStatsPartialBytes = std::uint64_t{256} << 20;
  absl::StatusOr<std::string> text =
      detail::read_bounded_file(path, kMaxStatsPartialBytes, "stats partial", detail::json_object_head);
  if (!text.ok()) return text.status();
  return parse_stats_partial(*text, path);
}

}  // namespace roofline
