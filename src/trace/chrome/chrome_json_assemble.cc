#include "src/trace/chrome/chrome_json_assemble.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "roofline/chip_identity.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "src/trace/event_buffers.hpp"

namespace roofline::detail {
namespace {

std::string vendor_of(std::string_view model) {
  if (model.find("NVIDIA") != std::string_view::npos || model.find("Tesla") != std::string_view::npos)
    return "Nvidia";
  if (model.find("AMD") != std::string_view::npos) return "AMD";
  return "";
}

class Assembler {
 public:
  Assembler(ChromeStaging& s, const std::string& origin, TraceBuilder& b)
      : s_(s), origin_(origin), b_(b), t_(b.trace()), format_(s.format()) {}

  absl::Status run() {
    warn_dropped();
    rebase();
    for (const StagedLine& l : s_.lines) {
      const bool dev = line_is_device(l);
      Entity& e = entities_[{l.key.pid, dev}];
      e.device = dev;
      e.staged_events += l.events.size();
    }
    // One allocation per entity: growing line by line copied and faulted in
    // its events again for every line.
    for (auto& [key, e] : entities_) {
      describe(key.first, e);
      e.d.events = take_events(e.staged_events);
    }
    for (std::uint32_t li : lines_in_order()) add_line(s_.lines[li]);
    for (auto& [key, e] : entities_) {
      if (e.device) {
        t_.devices.push_back(std::move(e.d));
        continue;
      }
      if (!e.ordinals.empty()) b_.set_device_ordinals(t_.hosts.size(), std::move(e.ordinals));
      t_.hosts.push_back(std::move(e.d));
    }
    return b_.finish();
  }

 private:
  struct Entity {
    bool device = false;
    std::size_t staged_events = 0;
    std::vector<std::pair<std::uint32_t, std::int32_t>> ordinals;  // (event index, device_ordinal)
    Device d;
  };

  void warn_dropped() {
    if (s_.unmatched_end > 0)
      t_.warnings.push_back(cat(origin_, ": ", s_.unmatched_end, " 'E' events without a matching 'B'; ignored"));
    if (s_.without_phase > 0)
      t_.warnings.push_back(cat(origin_, ": ", s_.without_phase, " events without 'ph'; ignored"));
    if (s_.unknown_phase > 0)
      t_.warnings.push_back(cat(origin_, ": ", s_.unknown_phase, " events with a 'ph' the Trace Event Format does not define (the first: ",
                                "\"", for_terminal(s_.first_unknown_phase), "\"", "); ignored"));
    std::uint64_t open = 0;
    for (const StagedLine& l : s_.lines) open += l.open.size();
    if (open > 0) t_.warnings.push_back(cat(origin_, ": ", open, " 'B' events never ended; ignored"));
  }

  // Traces rebased on their first timestamp start at their earliest event.
  void rebase() {
    std::int64_t shift_ps = 0;
    if (s_.base_us != 0) {
      std::int64_t first = std::numeric_limits<std::int64_t>::max();
      for (const StagedLine& l : s_.lines)
        for (const StagedEvent& e : l.events) first = std::min(first, e.start_ps);
      if (first != std::numeric_limits<std::int64_t>::max()) shift_ps = first;
      for (StagedLine& l : s_.lines)
        for (StagedEvent& e : l.events) e.start_ps -= shift_ps;
      for (Step& st : t_.host_steps) st.start_ps -= shift_ps;
    }
    // The origin only places this trace beside others (ranks of one job); a
    // value past int64 nanoseconds is a broken file: said, not wrapped.
    std::int64_t origin_ns = 0;
    bool in_range = !__builtin_mul_overflow(s_.base_us, std::int64_t{1000}, &origin_ns) &&
                    !__builtin_add_overflow(origin_ns, shift_ps / 1000, &origin_ns);
    std::int64_t kineto_ns = 0;
    if (s_.kineto && s_.base_time_ns)
      in_range = in_range && !__builtin_add_overflow(*s_.base_time_ns, origin_ns, &kineto_ns);
    if (!in_range)
      t_.warnings.push_back(cat(origin_, ": the trace's time origin (baseTimeNanoseconds plus its first timestamp) "
                                         "is beyond 2^63 ns; not kept"));
    else if (s_.kineto && s_.base_time_ns) t_.time_origin_ns = kineto_ns;
    else if (s_.base_us != 0) t_.time_origin_ns = origin_ns;
  }

  // In Kineto a GPU's pid is its index, and the odd host thread shares it
  // (python_function at pid 0, tid 0), so device-ness is a property of the
  // line there; in TSL JSON, of the process.
  bool line_is_device(const StagedLine& l) const {
    if (format_ == TraceFormat::kKinetoJson) return l.device_ops || l.key.lane == 1;
    if (format_ == TraceFormat::kTslJson) {
      auto it = s_.processes.find(l.key.pid);
      return it != s_.processes.end() && classify_plane(it->second.name).is_device;
    }
    return false;
  }

  void describe(const IdKey& pid, Entity& e) {
    auto meta_it = s_.processes.find(pid);
    const ProcessMeta* meta = meta_it != s_.processes.end() ? &meta_it->second : nullptr;
    Device& d = e.d;
    if (format_ == TraceFormat::kTslJson) {
      d.name = meta ? meta->name : s_.ids.text(pid);
      const PlaneKind k = classify_plane(d.name);
      d.kind = e.device ? k.kind : DeviceKind::kCpu;
      if (e.device) d.id = k.ordinal;
      if (d.kind == DeviceKind::kTpu) d.vendor = "Google";
    } else if (e.device) {
      d.kind = DeviceKind::kGpu;
      d.id = pid.is_string ? 0 : static_cast<int>(pid.value);
      d.name = meta && !meta->labels.empty() ? meta->labels : cat("GPU ", s_.ids.text(pid));
      if (const nlohmann::json* props = properties_of(pid)) describe_gpu(pid, *props, d);
    } else {
      d.kind = DeviceKind::kCpu;
      d.name = meta && !meta->name.empty() ? cat(meta->name, " (pid ", s_.ids.text(pid), ")")
                                           : cat("pid ", s_.ids.text(pid));
    }
  }

  // The deviceProperties entry of the GPU with this pid, or nullptr.
  const nlohmann::json* properties_of(const IdKey& pid) {
    const nlohmann::json& all = s_.device_properties;
    if (!all.is_array()) return nullptr;
    const nlohmann::json* props = nullptr;
    for (const auto& p : all)
      if (p.is_object() && p.contains("id") && p["id"].is_number_integer() && !pid.is_string &&
          p["id"].get<std::int64_t>() == pid.value)
        props = &p;
    if (props == nullptr && all.size() == 1 && all[0].is_object()) {
      // ROCm traces number devices by HIP ordinal (pid 2) while listing
      // the single visible GPU as id 0.
      props = &all[0];
      t_.warnings.push_back(cat(origin_, ": device ", s_.ids.text(pid),
                                " is not in deviceProperties; taken to be its only entry"));
    }
    return props;
  }

  void describe_gpu(const IdKey& pid, const nlohmann::json& props, Device& d) {
    auto get_num = [&](const char* k) -> std::optional<double> {
      if (props.contains(k) && props[k].is_number()) return props[k].get<double>();
      return std::nullopt;
    };
    if (props.contains("name") && props["name"].is_string()) d.model = props["name"].get<std::string>();
    d.vendor = vendor_of(d.model);
    // Counts and versions are small whole numbers; anything else (1e30, -3,
    // 8.5) is a broken file, ignored with a warning rather than cast.
    auto get_count = [&](const char* k) -> std::optional<int> {
      const std::optional<double> v = get_num(k);
      if (!v) return std::nullopt;
      if (*v >= 0 && *v <= 1e6 && *v == std::floor(*v)) return static_cast<int>(*v);
      t_.warnings.push_back(cat(origin_, ": deviceProperties of device ", s_.ids.text(pid), ": ", k, " = ", *v,
                                " is not a count; ignored"));
      return std::nullopt;
    };
    const std::optional<double> memory = get_num("totalGlobalMem");
    if (memory && !(*memory > 0 && std::isfinite(*memory)))
      t_.warnings.push_back(cat(origin_, ": deviceProperties of device ", s_.ids.text(pid),
                                ": totalGlobalMem is not a positive number; ignored"));
    else
      d.caps.memory_bytes = memory;
    d.caps.core_count = get_count("numSms");
    d.caps.compute_capability_major = get_count("computeMajor");
    d.caps.compute_capability_minor = get_count("computeMinor");
    note_generic_name(pid, d);
  }

  // ROCm may report a generic name ("AMD Radeon Graphics") or one two parts
  // share ("AMD Instinct MI250X / MI250"); identification (chip_identity.hpp)
  // then tells the part by its CU count, and the file's warnings say so.
  // Device::model keeps the name as reported. This is the one place a reader
  // consults the chip area: only to word this warning, here, so that it
  // keeps its place among the file's other warnings.
  void note_generic_name(const IdKey& pid, const Device& d) {
    if (d.model.empty()) return;
    const IdentifiedChip id = identify_chip({.vendor = d.vendor,
                                             .model = d.model,
                                             .compute_capability_major = d.caps.compute_capability_major,
                                             .compute_capability_minor = d.caps.compute_capability_minor,
                                             .core_count = d.caps.core_count,
                                             .memory_bytes = d.caps.memory_bytes});
    if (!id.inferred) return;
    t_.warnings.push_back(cat(origin_, ": device ", s_.ids.text(pid), " is named '", d.model, "'; taken to be ",
                              id.model, " from compute capability ", *d.caps.compute_capability_major, ".",
                              d.caps.compute_capability_minor.value_or(0), " and ", *d.caps.core_count, " CUs"));
  }

  // Lines in tid order within each pid.
  std::vector<std::uint32_t> lines_in_order() const {
    std::vector<std::uint32_t> order(s_.lines.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const LineKey& x = s_.lines[a].key;
      const LineKey& y = s_.lines[b].key;
      return std::tie(x.pid, x.tid, x.lane) < std::tie(y.pid, y.tid, y.lane);
    });
    return order;
  }

  Line line_of(const StagedLine& l, const Entity& ent) const {
    Line line;
    line.id = l.key.tid.is_string ? 0 : l.key.tid.value;
    auto tn = s_.thread_names.find({l.key.pid, l.key.tid});
    const bool named = tn != s_.thread_names.end();
    const std::string tid_text = s_.ids.text(l.key.tid);
    if (!ent.device) {
      line.name = named && !tn->second.empty() ? tn->second : cat("thread ", tid_text);
      line.role = LineRole::kHostThread;
    } else if (format_ == TraceFormat::kTslJson) {
      line.name = named ? tn->second : cat("thread ", tid_text);
      line.role = device_line_role(ent.d.kind, line.name);
    } else {
      const bool annotations = l.key.lane == 1;
      line.name = annotations                       ? cat("annotations ", tid_text)
                  : tid_text.rfind("stream", 0) == 0 ? tid_text
                                                     : cat("stream ", tid_text);
      line.role = annotations ? LineRole::kAnnotations : l.device_ops ? LineRole::kOps : LineRole::kOther;
    }
    return line;
  }

  // Host events carrying an HLO op they launched (GPU launches in TSL JSON)
  // are named by what the thread did.
  std::uint32_t host_op(std::uint32_t op) {
    const OpInfo& info = t_.ops[op];
    if (info.kernel.empty()) return op;
    auto it = host_ops_.find(op);
    if (it == host_ops_.end()) {
      OpInfo plain;
      plain.name = info.kernel;
      plain.category = info.category;
      it = host_ops_.emplace(op, b_.intern_op(std::move(plain))).first;
    }
    return it->second;
  }

  void add_line(StagedLine& l) {
    Entity& ent = entities_[{l.key.pid, line_is_device(l)}];
    Device& d = ent.d;
    const std::uint32_t index = static_cast<std::uint32_t>(d.lines.size());
    d.lines.push_back(line_of(l, ent));
    const auto base = static_cast<std::uint32_t>(d.events.size());
    if (!ent.device)
      for (const auto& [i, ordinal] : l.ordinals) ent.ordinals.emplace_back(base + i, ordinal);
    for (const StagedEvent& s : l.events) {
      Event e{.start_ps = s.start_ps, .duration_ps = s.duration_ps, .self_ps = s.duration_ps,
              .op = s.op, .line = index, .correlation_id = s.correlation};
      if (!ent.device) e.op = host_op(e.op);
      else if (format_ == TraceFormat::kKinetoJson) e.call = s.own_call;  // the launcher's, from kineto_link
      d.events.push_back(e);
    }
    l.events.release();
  }

  ChromeStaging& s_;
  const std::string& origin_;
  TraceBuilder& b_;
  Trace& t_;
  const TraceFormat format_;
  std::map<std::pair<IdKey, bool>, Entity> entities_;
  absl::flat_hash_map<std::uint32_t, std::uint32_t> host_ops_;
};

}  // namespace

absl::Status assemble_chrome_trace(ChromeStaging& staging, const std::string& origin, TraceBuilder& builder) {
  return Assembler(staging, origin, builder).run();
}

}  // namespace roofline::detail
