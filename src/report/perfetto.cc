// The timeline as Chrome trace-event JSON (roofline/report/perfetto.hpp;
// docs/report.md, "Timeline"). Each event is built as a Json and dumped on
// its own, so strings from the trace are escaped by the one JSON writer and
// no tree of every event is held at once.
#include "roofline/report/perfetto.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/format/json.hpp"

namespace roofline {
namespace {

using detail::cat;

std::string_view kind_word(DeviceKind k) {
  switch (k) {
    case DeviceKind::kTpu: return "TPU";
    case DeviceKind::kGpu: return "GPU";
    case DeviceKind::kCpu: return "CPU";
    case DeviceKind::kOther: break;
  }
  return "CUSTOM";
}

// Microseconds, the unit of the format's ts and dur.
double us(std::int64_t ps) { return static_cast<double>(ps) / 1e6; }
double us_of_s(double s) { return s * 1e6; }

// One grouped event with the op it was matched to.
struct Placed {
  const Event* event = nullptr;
  const MatchedOp* op = nullptr;
  // The share of the op's prediction this event carries: 1, or for an op
  // that runs as several kernels, the event's self time over the op's mean
  // self time per run (so one run's kernels add up to the op's prediction).
  double share = 1;
};

// The threads of one op line: measured, expected, roofline.
struct LineTids {
  int measured = 0;
  std::string name;
};

class Writer {
 public:
  explicit Writer(const TimelineOptions& o) : options_(o) {}

  void add(Json e) {
    if (!first_) out_ += ",\n";
    first_ = false;
    out_ += e.dump();
  }

  void metadata(int pid, int tid, std::string_view what, std::string_view key, Json value) {
    Json args = Json::object();
    args[key] = std::move(value);
    add(Json::object({{"ph", "M"}, {"pid", pid}, {"tid", tid}, {"ts", 0}, {"name", what}, {"args", std::move(args)}}));
  }

  std::string finish(Json meta) {
    return cat("{\"displayTimeUnit\": \"ns\",\n\"traceEvents\": [\n", out_, "\n],\n\"metadata\": ", meta.dump(), "\n}\n");
  }

  const TimelineOptions& options() const { return options_; }

 private:
  const TimelineOptions& options_;
  std::string out_;
  bool first_ = true;
};

// The device's grouped events (on op lines, matched to an op), earliest
// first, with the op each belongs to.
std::vector<Placed> placed_events(const Match& m, std::size_t di) {
  const Trace& t = *m.trace;
  const Device& d = t.devices[di];
  std::unordered_map<std::uint64_t, std::uint32_t> op_of;  // (op, call) -> index into m.ops
  const std::vector<OpOccurrences>& occ = m.measured.devices[di].ops;
  for (std::size_t i = 0; i < occ.size() && i < m.occurrence_op[di].size(); ++i)
    op_of[(std::uint64_t{occ[i].op} << 32) | occ[i].call] = m.occurrence_op[di][i];
  std::vector<Placed> out;
  for (const Event& e : d.events) {
    if (d.lines[e.line].role != LineRole::kOps) continue;
    auto it = op_of.find((std::uint64_t{e.op} << 32) | e.call);
    if (it == op_of.end()) continue;  // a stream waiting: not an op
    const MatchedOp& op = m.ops[it->second];
    double share = 1;
    if (op.group.per_kernel.size() > 1 && op.group.self_ps > 0 && op.group.count() > 0)
      share = static_cast<double>(e.self_ps) /
              (static_cast<double>(op.group.self_ps) / static_cast<double>(op.group.count()));
    out.push_back({.event = &e, .op = &op, .share = share});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Placed& a, const Placed& b) { return a.event->start_ps < b.event->start_ps; });
  return out;
}

std::string measured_line_name(const Device& d, const Line& l) {
  // The names the trace-viewer JSON reader takes for op lines, so that the
  // file reads back as a trace (Stream #N on GPUs, XLA Ops elsewhere).
  if (d.kind == DeviceKind::kGpu) return cat("Stream #", l.id);
  if (l.name == "XLA Ops" || l.name == "Sparse Core Ops") return l.name;
  return "XLA Ops";
}

Json op_args(const Trace& t, const Placed& p) {
  const OpInfo& info = t.ops[p.event->op];
  const OpGroup& g = p.op->group;
  const OpInfo& named = t.ops[g.op];
  Json a = Json::object({{"op", named.name},
                         {"module", g.xla ? named.module : eager_module(t, g)},
                         {"category", info.category},
                         {"self_us", us(p.event->self_ps)}});
  if (!info.kernel.empty()) a["kernel"] = info.kernel;
  if (const auto& pr = p.op->prediction; pr && pr->valid()) {
    a["bound"] = bound_name(pr->bound);
    a["flops"] = pr->flops * p.share;
    a["hbm_bytes"] = pr->hbm_bytes * p.share;
    a["roofline_us"] = us_of_s(pr->t_lower_s * p.share);
    if (p.op->expected_s) a["expected_us"] = us_of_s(*p.op->expected_s * p.share);
  } else {
    a["bound"] = "not predicted";
  }
  return a;
}

// The expected and roofline tracks of one op line: each op's duration laid
// at its measured start, cut at the next op's start on the line so that the
// events of a thread stay nested (args keep the whole duration).
void write_predicted(Writer& w, const Trace& t, int pid, int tid, const std::vector<const Placed*>& line,
                     bool expected) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    const Placed& p = *line[i];
    const auto& pr = p.op->prediction;
    if (!pr || !pr->valid()) continue;
    if (expected && !p.op->expected_s) continue;
    const double dur_us = us_of_s((expected ? *p.op->expected_s : pr->t_lower_s) * p.share);
    if (!std::isfinite(dur_us)) continue;
    double shown = dur_us;
    bool cut = false;
    if (i + 1 < line.size()) {
      const double room = us(line[i + 1]->event->start_ps - p.event->start_ps);
      if (shown > room) shown = room, cut = true;
    }
    Json args = op_args(t, p);
    args["cut"] = cut;
    w.add(Json::object({{"ph", "X"}, {"pid", pid}, {"tid", tid}, {"name", t.ops[p.event->op].name},
                        {"cat", expected ? "expected" : "roofline"}, {"ts", us(p.event->start_ps)},
                        {"dur", shown}, {"args", std::move(args)}}));
  }
}

// The device's idle gaps: no op running on any of its op lines.
void write_gaps(Writer& w, int pid, int tid, const std::vector<Placed>& events) {
  std::int64_t covered = events.empty() ? 0 : events.front().event->start_ps;
  for (const Placed& p : events) {
    const std::int64_t gap = p.event->start_ps - covered;
    if (gap >= w.options().min_gap_ps && gap > 0)
      w.add(Json::object({{"ph", "X"}, {"pid", pid}, {"tid", tid}, {"name", "idle"}, {"cat", "gap"},
                          {"ts", us(covered)}, {"dur", us(gap)}, {"args", Json::object({{"gap_us", us(gap)}})}}));
    covered = std::max(covered, p.event->end_ps());
  }
}

// Achieved FLOP/s and bytes/s of the ops running at each moment: each op's
// own FLOPs and bytes over its measured duration, summed over the ops that
// overlap (several GPU streams).
void write_counters(Writer& w, int pid, const std::vector<Placed>& events) {
  struct Delta {
    double flops = 0, bytes = 0;
    int running = 0;
  };
  std::map<std::int64_t, Delta> at;
  for (const Placed& p : events) {
    const auto& pr = p.op->prediction;
    if (!pr || !pr->valid() || p.event->duration_ps <= 0) continue;
    const double s = static_cast<double>(p.event->duration_ps) / 1e12;
    const double f = pr->flops * p.share / s, b = pr->hbm_bytes * p.share / s;
    Delta& in = at[p.event->start_ps];
    in.flops += f, in.bytes += b, in.running += 1;
    Delta& out = at[p.event->end_ps()];
    out.flops -= f, out.bytes -= b, out.running -= 1;
  }
  double flops = 0, bytes = 0;
  int running = 0;
  for (const auto& [ps, d] : at) {
    flops += d.flops, bytes += d.bytes, running += d.running;
    if (running == 0) flops = bytes = 0;  // no drift of sums once nothing runs
    w.add(Json::object({{"ph", "C"}, {"pid", pid}, {"tid", 0}, {"name", "achieved FLOP/s"}, {"ts", us(ps)},
                        {"args", Json::object({{"FLOP/s", flops}})}}));
    w.add(Json::object({{"ph", "C"}, {"pid", pid}, {"tid", 0}, {"name", "achieved bytes/s"}, {"ts", us(ps)},
                        {"args", Json::object({{"bytes/s", bytes}})}}));
  }
}

}  // namespace

Timeline render_perfetto(const Match& m, const TimelineOptions& options) {
  const Trace& t = *m.trace;
  Writer w(options);
  Timeline out;
  int pid = 0;
  for (std::size_t di : m.devices) {
    const Device& d = t.devices[di];
    ++pid;
    std::vector<Placed> events = placed_events(m, di);
    if (events.size() > options.max_ops_per_device) {
      out.ops_left_out += events.size() - options.max_ops_per_device;
      events.resize(options.max_ops_per_device);
    }
    out.ops_written += events.size();
    w.metadata(pid, 0, "process_name", "name", cat("/device:", kind_word(d.kind), ":", d.id));
    w.metadata(pid, 0, "process_labels", "labels", d.model.empty() ? d.name : cat(d.name, " (", d.model, ")"));
    // Three threads per op line that ran ops, in line order; then the gaps.
    std::map<std::uint32_t, std::vector<const Placed*>> by_line;
    for (const Placed& p : events) by_line[p.event->line].push_back(&p);
    int tid = 1;
    for (const auto& [line, placed] : by_line) {
      const std::string name = measured_line_name(d, d.lines[line]);
      w.metadata(pid, tid, "thread_name", "name", name);
      w.metadata(pid, tid + 1, "thread_name", "name", cat("expected: ", name));
      w.metadata(pid, tid + 2, "thread_name", "name", cat("roofline: ", name));
      for (const Placed* p : placed)
        w.add(Json::object({{"ph", "X"}, {"pid", pid}, {"tid", tid}, {"name", t.ops[p->event->op].name},
                            {"cat", "measured"}, {"ts", us(p->event->start_ps)}, {"dur", us(p->event->duration_ps)},
                            {"args", op_args(t, *p)}}));
      write_predicted(w, t, pid, tid + 1, placed, /*expected=*/true);
      write_predicted(w, t, pid, tid + 2, placed, /*expected=*/false);
      tid += 3;
    }
    w.metadata(pid, tid, "thread_name", "name", "idle gaps");
    write_gaps(w, pid, tid, events);
    write_counters(w, pid, events);
  }
  Json meta = Json::object({{"source", t.source},
                            {"chip", m.chip.chip ? Json(m.chip.chip->name) : Json()},
                            {"ops_written", out.ops_written},
                            {"ops_left_out", out.ops_left_out},
                            {"max_ops_per_device", options.max_ops_per_device}});
  out.json = w.finish(std::move(meta));
  return out;
}

}  // namespace roofline
