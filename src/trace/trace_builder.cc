#include "src/trace/trace_builder.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include "roofline/detail/cat.hpp"

namespace roofline {

std::string_view device_kind_name(DeviceKind k) {
  switch (k) {
    case DeviceKind::kTpu: return "tpu";
    case DeviceKind::kGpu: return "gpu";
    case DeviceKind::kCpu: return "cpu";
    case DeviceKind::kOther: return "other";
  }
  return "other";
}

std::string_view line_role_name(LineRole r) {
  switch (r) {
    case LineRole::kOps: return "ops";
    case LineRole::kAsyncOps: return "async_ops";
    case LineRole::kModules: return "modules";
    case LineRole::kSteps: return "steps";
    case LineRole::kAnnotations: return "annotations";
    case LineRole::kDerived: return "derived";
    case LineRole::kHostThread: return "host_thread";
    case LineRole::kOther: return "other";
  }
  return "other";
}

std::string_view trace_format_name(TraceFormat f) {
  switch (f) {
    case TraceFormat::kXPlane: return "xplane";
    case TraceFormat::kTslJson: return "tsl_json";
    case TraceFormat::kKinetoJson: return "kineto_json";
    case TraceFormat::kChromeJson: return "chrome_json";
  }
  return "chrome_json";
}

namespace detail {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

PlaneKind classify_plane(std::string_view name) {
  PlaneKind k;
  if (auto at = name.find("/device:"); at != std::string_view::npos) {
    std::string_view rest = name.substr(at + 8);
    k.is_device = true;
    if (starts_with(rest, "TPU:")) {
      k.kind = DeviceKind::kTpu;
      rest.remove_prefix(4);
    } else if (starts_with(rest, "GPU:")) {
      k.kind = DeviceKind::kGpu;
      rest.remove_prefix(4);
    } else {
      k.kind = DeviceKind::kOther;
      if (auto colon = rest.rfind(':'); colon != std::string_view::npos) rest.remove_prefix(colon + 1);
    }
    int ordinal = 0;
    auto r = std::from_chars(rest.data(), rest.data() + rest.size(), ordinal);
    k.ordinal = r.ec == std::errc() ? ordinal : 0;
    return k;
  }
  if (name.find("/host:CPU") != std::string_view::npos) k.is_host = true;
  return k;
}

LineRole device_line_role(DeviceKind kind, std::string_view name) {
  if (name == "XLA Modules" || name == "Sparse Core Modules") return LineRole::kModules;
  if (name == "Steps" || name == "Sparse Core Steps") return LineRole::kSteps;
  if (kind == DeviceKind::kGpu) {
    if (starts_with(name, "Stream #")) return LineRole::kOps;
    if (name == "XLA Ops" || name == "TensorFlow Ops" || name == "TensorFlow Name Scope" ||
        name == "Framework Ops" || name == "Framework Name Scope" || name == "Source code" ||
        name == "Launch Stats")
      return LineRole::kDerived;
    return LineRole::kOther;
  }
  if (name == "XLA Ops" || name == "Sparse Core Ops") return LineRole::kOps;
  if (name == "Async XLA Ops") return LineRole::kAsyncOps;
  if (name == "Framework Ops" || name == "Framework Name Scope" || name == "Source code" ||
      name == "TensorFlow Ops" || name == "TensorFlow Name Scope")
    return LineRole::kDerived;
  return LineRole::kOther;
}

ModuleName split_module_name(std::string_view s) {
  ModuleName m;
  if (!s.empty() && s.back() == ')') {
    if (auto open = s.rfind('('); open != std::string_view::npos && open > 0) {
      std::uint64_t id = 0;
      const char* b = s.data() + open + 1;
      const char* e = s.data() + s.size() - 1;
      auto r = std::from_chars(b, e, id);
      if (r.ec == std::errc() && r.ptr == e && b != e) {
        m.name = std::string(s.substr(0, open));
        m.program_id = id;
        return m;
      }
    }
  }
  m.name = std::string(s);
  return m;
}

void append_compact_json(std::string& out, std::string_view s) {
  bool in_string = false, escaped = false;
  for (char c : s) {
    if (in_string) {
      out.push_back(c);
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
      out.push_back(c);
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      out.push_back(c);
    }
  }
}

TraceBuilder::TraceBuilder(Trace t) : trace_(std::move(t)) {
  for (std::size_t i = 0; i < trace_.ops.size(); ++i) {
    op_key(trace_.ops[i]);
    op_index_.try_emplace(key_, static_cast<std::uint32_t>(i));
  }
  for (std::size_t i = 0; i < trace_.calls.size(); ++i) {
    call_key(trace_.calls[i]);
    call_index_.try_emplace(key_, static_cast<std::uint32_t>(i));
  }
  for (std::size_t i = 0; i < trace_.scopes.size(); ++i)
    scope_index_.try_emplace(trace_.scopes[i], static_cast<std::uint32_t>(i));
}

void TraceBuilder::op_key(const OpInfo& op) {
  key_.clear();
  key_.append(op.module).push_back('\x1f');
  if (op.program_id) detail::append_one(key_, *op.program_id);
  key_.push_back('\x1f');
  key_.append(op.name).push_back('\x1f');
  key_.append(op.kernel).push_back('\x1f');
  key_.append(op.category).push_back('\x1f');
  key_.append(op.hlo_text).push_back('\x1f');
  // XLA's figures tell ops apart too: events of one name in two modules of
  // a TSL JSON trace share every other field until attribute_modules gives
  // them their module, and the op must not take whichever figures the
  // file happened to list first.
  for (const std::optional<std::int64_t>* v : {&op.flops, &op.model_flops, &op.bytes_accessed}) {
    if (*v) detail::append_one(key_, **v);
    key_.push_back('\x1f');
  }
}

void TraceBuilder::call_key(const CallInfo& c) {
  key_.clear();
  for (const std::string* s : {&c.launcher, &c.input_dims, &c.input_types, &c.concrete_inputs, &c.collective,
                               &c.dtype, &c.process_group})
    key_.append(*s).push_back('\x1f');
  for (const auto* v : {&c.in_msg_nelems, &c.out_msg_nelems, &c.group_size, &c.copy_bytes}) {
    if (*v) detail::append_one(key_, **v);
    key_.push_back('\x1f');
  }
  if (c.scope != kNoScopePath) {
    detail::append_one(key_, c.scope);
    key_.push_back('\x1f');
    detail::append_one(key_, int{c.scope_kinds});
  }
}

std::uint32_t TraceBuilder::intern_scope(std::string path) {
  auto [it, inserted] = scope_index_.try_emplace(path, static_cast<std::uint32_t>(trace_.scopes.size()));
  if (inserted) trace_.scopes.push_back(std::move(path));
  return it->second;
}

std::uint32_t TraceBuilder::intern_op(OpInfo op) {
  op_key(op);
  auto [it, inserted] =
      op_index_.try_emplace(key_, static_cast<std::uint32_t>(trace_.ops.size()));
  if (inserted) {
    op.op_class = classify_op(op.category, op.name, op.kernel);
    trace_.ops.push_back(std::move(op));
  }
  return it->second;
}

std::uint32_t TraceBuilder::intern_call(CallInfo c) {
  call_key(c);
  auto [it, inserted] =
      call_index_.try_emplace(key_, static_cast<std::uint32_t>(trace_.calls.size()));
  if (inserted) trace_.calls.push_back(std::move(c));
  return it->second;
}

// The last event sorts before the one before it.
void move_last_event_back(std::vector<Event>& events) {
  // Farther than this, an event is left where it is, for finish's sort: an
  // input in reverse order costs linear time, not quadratic.
  constexpr std::size_t kMaxMove = 32;
  const std::size_t last = events.size() - 1;
  const Event e = events[last];
  std::size_t to = last - 1;
  while (to > 0 && event_order(e, events[to - 1])) {
    if (last - to >= kMaxMove) return;
    --to;
  }
  std::move_backward(events.begin() + static_cast<std::ptrdiff_t>(to), events.begin() + static_cast<std::ptrdiff_t>(last),
                     events.end());
  events[to] = e;
}

namespace {

// Sorts events by event_order exactly as std::stable_sort would. XPlane
// events arrive line by line, nearly sorted: TPU ops timed by the device
// clock are a few out of place (0.7% on the real-shaped pod profile). Then
// the events out of order are set aside, sorted and merged back: two passes
// and a buffer of those few, where a merge sort moved every event several
// times through a buffer of half of them. An event is set aside when it
// sorts before the last event kept; every kept event after it sorts after
// it, so a kept event that ties with it came before it in the input and
// goes first in the merge. Events in any order (JSON) are merge sorted.
void sort_events(std::vector<Event>& events) {
  const auto first = std::is_sorted_until(events.begin(), events.end(), event_order);
  if (first == events.end()) return;
  std::size_t out_of_order = 0;
  for (auto it = first, last = first - 1; it != events.end(); ++it) {
    if (event_order(*it, *last)) ++out_of_order;
    else last = it;
  }
  if (out_of_order > events.size() / 16) {
    std::stable_sort(events.begin(), events.end(), event_order);
    return;
  }
  std::vector<Event> aside;
  aside.reserve(out_of_order);
  std::size_t kept = static_cast<std::size_t>(first - events.begin());
  for (std::size_t i = kept; i < events.size(); ++i) {
    if (event_order(events[i], events[kept - 1])) aside.push_back(events[i]);
    else events[kept++] = events[i];
  }
  std::stable_sort(aside.begin(), aside.end(), event_order);
  std::size_t out = events.size(), i = kept, j = aside.size();
  while (j > 0) {
    if (i > 0 && event_order(aside[j - 1], events[i - 1])) events[--out] = events[--i];
    else events[--out] = aside[--j];
  }
}

// Parent links and self time on each line. An event is a child when it lies
// wholly inside an enclosing one; a partial overlap (rounding in exports)
// makes siblings, never negative self time. A sync event (a stream waiting,
// OpClass::kSync) is not work: it nests only in other sync events and never
// takes self time from the kernel it overlaps on its stream. Stops, false,
// at the first event out of event_order.
bool nest_in_order(Device& d, const std::vector<OpInfo>& ops) {
  std::vector<std::int32_t> stacks[2];  // work, sync
  std::uint32_t line = ~0u;
  for (std::size_t i = 0; i < d.events.size(); ++i) {
    Event& e = d.events[i];
    if (i > 0 && event_order(e, d.events[i - 1])) return false;
    e.self_ps = e.duration_ps;
    e.parent = kNoParent;
    if (e.line != line) {
      stacks[0].clear();
      stacks[1].clear();
      line = e.line;
    }
    std::vector<std::int32_t>& stack = stacks[e.op < ops.size() && ops[e.op].op_class == OpClass::kSync ? 1 : 0];
    while (!stack.empty()) {
      const Event& top = d.events[static_cast<std::size_t>(stack.back())];
      if (e.start_ps >= top.start_ps && e.end_ps() <= top.end_ps()) break;
      stack.pop_back();
    }
    if (!stack.empty()) {
      e.parent = stack.back();
      Event& p = d.events[static_cast<std::size_t>(stack.back())];
      p.self_ps = std::max<std::int64_t>(0, p.self_ps - e.duration_ps);
    }
    stack.push_back(static_cast<std::int32_t>(i));
  }
  return true;
}

// Most devices' events come in order: they are nested in one pass over them,
// and sorted (then nested again from the start) only when that pass meets
// one out of order.
void nest(Device& d, const std::vector<OpInfo>& ops) {
  if (nest_in_order(d, ops)) return;
  sort_events(d.events);
  nest_in_order(d, ops);
}

struct ModuleSpan {
  std::int64_t start_ps, end_ps;
  std::uint32_t op;
};

// Ops read without their module (TSL JSON drops program ids; XLA Ops events
// carry none) get it from the XLA Modules event they run inside.
void attribute_modules(Device& d, TraceBuilder& b) {
  std::vector<ModuleSpan> spans;
  for (const Event& e : d.events)
    if (d.lines[e.line].role == LineRole::kModules) spans.push_back({e.start_ps, e.end_ps(), e.op});
  if (spans.empty()) return;
  std::sort(spans.begin(), spans.end(),
            [](const ModuleSpan& x, const ModuleSpan& y) { return x.start_ps < y.start_ps; });
  absl::flat_hash_map<std::uint64_t, std::uint32_t> rekeyed;  // (op << 32 | module op) -> op
  for (Event& e : d.events) {
    const LineRole role = d.lines[e.line].role;
    if (role != LineRole::kOps && role != LineRole::kAsyncOps) continue;
    {
      const OpInfo& op = b.trace().ops[e.op];
      if (!op.module.empty() || op.program_id) continue;
    }
    auto it = std::upper_bound(spans.begin(), spans.end(), e.start_ps,
                               [](std::int64_t t, const ModuleSpan& s) { return t < s.start_ps; });
    if (it == spans.begin()) continue;
    --it;
    if (e.start_ps > it->end_ps) continue;
    const std::uint64_t key = (std::uint64_t{e.op} << 32) | it->op;
    auto found = rekeyed.find(key);
    if (found == rekeyed.end()) {
      OpInfo copy = b.trace().ops[e.op];
      ModuleName m = split_module_name(b.trace().ops[it->op].name);
      copy.module = m.name;
      copy.program_id = m.program_id;
      found = rekeyed.emplace(key, b.intern_op(std::move(copy))).first;
    }
    e.op = found->second;
  }
}

void collect_steps(Device& d, const Trace& t) {
  d.steps.clear();
  for (const Event& e : d.events) {
    const LineRole role = d.lines[e.line].role;
    const std::string& name = t.ops[e.op].name;
    if (role == LineRole::kSteps ||
        (role == LineRole::kAnnotations && starts_with(name, "ProfilerStep#")))
      d.steps.push_back({.name = name, .start_ps = e.start_ps, .duration_ps = e.duration_ps});
  }
  std::stable_sort(d.steps.begin(), d.steps.end(),
                   [](const Step& a, const Step& b) { return a.start_ps < b.start_ps; });
}

// jax on CPU has no device plane: XLA's CPU thunks run on host threads and
// carry hlo_module / hlo_op. They become the ops of XLA:CPU devices: one per
// device_ordinal the thunks carry ("XLA:CPU:3", id 3; jax's
// --xla_force_host_platform_device_count makes several). A host whose thunks
// name one ordinal, or none, has one device "XLA:CPU" (id: the ordinal).
using Ordinals = absl::flat_hash_map<std::size_t, std::vector<std::pair<std::uint32_t, std::int32_t>>>;

void synthesize_cpu_devices(Trace& t, const Ordinals& ordinals) {
  if (!t.devices.empty()) return;
  static const std::vector<std::pair<std::uint32_t, std::int32_t>> kNone;
  for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
    const Device& h = t.hosts[hi];
    auto found = ordinals.find(hi);
    const auto& ords = found == ordinals.end() ? kNone : found->second;
    std::size_t next = 0;  // into ords, which is in event order
    std::vector<std::int32_t> keys;  // ordinal of each device made (-1: none)
    std::vector<Device> cpus;
    std::vector<std::vector<std::int64_t>> line_maps;
    for (std::size_t ei = 0; ei < h.events.size(); ++ei) {
      while (next < ords.size() && ords[next].first < ei) ++next;
      const Event& e = h.events[ei];
      if (t.ops[e.op].module.empty()) continue;
      const std::int32_t ordinal = next < ords.size() && ords[next].first == ei ? ords[next].second : -1;
      std::size_t di = std::find(keys.begin(), keys.end(), ordinal) - keys.begin();
      if (di == keys.size()) {
        keys.push_back(ordinal);
        Device cpu;
        cpu.host = h.host;
        cpu.name = ordinal < 0 ? std::string("XLA:CPU") : cat("XLA:CPU:", ordinal);
        cpu.id = ordinal < 0 ? 0 : ordinal;
        cpu.model = "XLA:CPU";
        cpu.kind = DeviceKind::kCpu;
        cpus.push_back(std::move(cpu));
        line_maps.emplace_back(h.lines.size(), -1);
      }
      Device& cpu = cpus[di];
      std::vector<std::int64_t>& line_map = line_maps[di];
      if (line_map[e.line] < 0) {
        line_map[e.line] = static_cast<std::int64_t>(cpu.lines.size());
        Line l = h.lines[e.line];
        l.role = LineRole::kOps;
        cpu.lines.push_back(std::move(l));
      }
      Event copy = e;
      copy.line = static_cast<std::uint32_t>(line_map[e.line]);
      cpu.events.push_back(copy);
    }
    // One virtual device keeps the plain name (and the name the JSON
    // export's device gets); several are told apart by their ordinal.
    if (cpus.size() == 1) cpus.front().name = "XLA:CPU";
    for (Device& cpu : cpus) t.devices.push_back(std::move(cpu));
  }
}

}  // namespace

absl::Status TraceBuilder::finish() {
  synthesize_cpu_devices(trace_, device_ordinals_);
  for (Device& d : trace_.devices) {
    nest(d, trace_.ops);
    attribute_modules(d, *this);
    collect_steps(d, trace_);
  }
  for (Device& h : trace_.hosts) nest(h, trace_.ops);
  std::stable_sort(trace_.host_steps.begin(), trace_.host_steps.end(),
                   [](const Step& a, const Step& b) { return a.start_ps < b.start_ps; });
  std::stable_sort(trace_.devices.begin(), trace_.devices.end(), [](const Device& a, const Device& b) {
    if (a.host != b.host) return a.host < b.host;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.id < b.id;
  });
  return absl::OkStatus();
}

}  // namespace detail
}  // namespace roofline
