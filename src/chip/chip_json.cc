// Chip spec JSON -> Chip. Strict on purpose: an unknown key, a wrong type or
// a nonsensical figure is refused with the file and the JSON path, because a
// silently ignored typo in a spec becomes a silently wrong prediction.
#include <cmath>
#include <optional>
#include <limits>
#include <utility>
#include <vector>
#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "roofline/detail/cat.hpp"
#include "roofline/chip_io.hpp"
#include "roofline/detail/status_macros.hpp"
#include "src/wire/bounded_input.hpp"

namespace roofline {
namespace {

using nlohmann::json;

// What a spec's figures may be (docs/chip_spec.md, Validation): about a hundred
// times the largest real ones (9e15 FP4 FLOP/s, 1.7e13 B/s of on-chip
// memory, 2.1e11 bytes of HBM), so a real chip of the next decade fits and a unit slip of
// 1e3 or more does not.
constexpr double kMaxFlopsPerS = 1e18;
constexpr double kMaxBytesPerS = 1e15;
constexpr double kMaxCapacityBytes = 1e14;
// Above this a spec file is no spec (real ones are about 10 KB).
constexpr std::uint64_t kMaxChipSpecBytes = std::uint64_t{1} << 20;

// Walks a JSON object, remembers which keys were read, and turns every
// problem into one Status naming origin and path.
class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}

  absl::Status error(const std::string& path, std::string_view what) const {
    return absl::InvalidArgumentError(detail::cat(origin_, ": ", path, ": ", what));
  }

  absl::Status object(const json& j, const std::string& path) const {
    if (!j.is_object()) return error(path.empty() ? "/" : path, "expected an object");
    return absl::OkStatus();
  }

  // The member `key` of object `j` at `path`, or an error if absent.
  absl::StatusOr<const json*> member(const json& j, const std::string& path,
                                     const std::string& key) const {
    auto it = j.find(key);
    if (it == j.end()) return error(path + "/" + key, "missing required field");
    return &*it;
  }

  absl::StatusOr<std::string> string(const json& j, const std::string& path,
                                     const std::string& key) const {
    auto m = member(j, path, key);
    if (!m.ok()) return m.status();
    if (!(*m)->is_string()) return error(path + "/" + key, "expected a string");
    std::string s = (*m)->get<std::string>();
    if (s.empty()) return error(path + "/" + key, "expected a non-empty string");
    return s;
  }

  absl::StatusOr<double> positive(const json& j, const std::string& path,
                                  const std::string& key) const {
    auto m = member(j, path, key);
    if (!m.ok()) return m.status();
    return positive_value(**m, path + "/" + key);
  }

  // A positive finite number; a denormal one (below DBL_MIN) is a typo, not
  // a figure, and would turn every time derived from it into inf.
  absl::StatusOr<double> positive_value(const json& v, const std::string& path) const {
    if (!v.is_number()) return error(path, "expected a positive number");
    double d = v.get<double>();
    if (!std::isfinite(d) || d < std::numeric_limits<double>::min()) return error(path, "expected a positive number");
    return d;
  }

  // A peak or a bandwidth: per second, at least 1 and at most `most` (the
  // path says which: a FLOP rate or a byte rate). Real ones are 1e9 and up;
  // 1e-300 FLOP/s is a unit slip that would make every predicted time
  // overflow to inf (printed as null), and a link of 1e308 B/s one that
  // makes every transfer free.
  absl::StatusOr<double> rate_value(const json& v, const std::string& path) const {
    ROOFLINE_ASSIGN_OR_RETURN(double d, positive_value(v, path));
    const bool flops = path.find("flops") != std::string::npos;
    const double most = flops ? kMaxFlopsPerS : kMaxBytesPerS;
    if (d < 1 || d > most)
      return error(path, detail::cat("expected a rate from 1 to ", most, flops ? " FLOP/s" : " bytes/s"));
    return d;
  }

  // A capacity in bytes: positive and at most kMaxCapacityBytes.
  absl::StatusOr<double> capacity_value(const json& v, const std::string& path) const {
    ROOFLINE_ASSIGN_OR_RETURN(double d, positive_value(v, path));
    if (d > kMaxCapacityBytes)
      return error(path, detail::cat("expected a capacity of at most ", kMaxCapacityBytes, " bytes"));
    return d;
  }
  absl::StatusOr<double> capacity(const json& j, const std::string& path, const std::string& key) const {
    auto m = member(j, path, key);
    if (!m.ok()) return m.status();
    return capacity_value(**m, path + "/" + key);
  }

  absl::StatusOr<double> rate(const json& j, const std::string& path, const std::string& key) const {
    auto m = member(j, path, key);
    if (!m.ok()) return m.status();
    return rate_value(**m, path + "/" + key);
  }

  absl::StatusOr<int> positive_int(const json& j, const std::string& path,
                                   const std::string& key) const {
    auto m = member(j, path, key);
    if (!m.ok()) return m.status();
    const json& v = **m;
    if (!v.is_number_integer() || v.get<long long>() <= 0 || v.get<long long>() > 1'000'000)
      return error(path + "/" + key, "expected a positive integer");
    return static_cast<int>(v.get<long long>());
  }

  absl::Status only_keys(const json& j, const std::string& path,
                         std::initializer_list<std::string_view> allowed) const {
    for (auto it = j.begin(); it != j.end(); ++it) {
      bool ok = false;
      for (std::string_view a : allowed) ok = ok || it.key() == a;
      if (!ok) return error(path + "/" + it.key(), "unknown field");
    }
    return absl::OkStatus();
  }

 private:
  std::string origin_;
};

absl::Status read_interconnect(const Reader& r, const json& j, Interconnect& ic,
                               std::set<std::string>& figures) {
  const std::string p = "/interconnect";
  ROOFLINE_RETURN_IF_ERROR(r.object(j, p));
  ROOFLINE_RETURN_IF_ERROR(r.only_keys(j, p, {"topology", "link_bytes_per_s", "links_per_chip",
                                      "hop_latency_s", "wraparound", "max_shape"}));
  std::string topo;
  ROOFLINE_ASSIGN_OR_RETURN(topo, r.string(j, p, "topology"));
  if (topo == "torus-2d") ic.topology = Topology::kTorus2D;
  else if (topo == "torus-3d") ic.topology = Topology::kTorus3D;
  else if (topo == "switch") ic.topology = Topology::kSwitch;
  else return r.error(p + "/topology", "expected one of torus-2d, torus-3d, switch");
  ROOFLINE_ASSIGN_OR_RETURN(ic.link_bytes_per_s, r.rate(j, p, "link_bytes_per_s"));
  ROOFLINE_ASSIGN_OR_RETURN(ic.links_per_chip, r.positive_int(j, p, "links_per_chip"));
  ROOFLINE_ASSIGN_OR_RETURN(ic.hop_latency_s, r.positive(j, p, "hop_latency_s"));
  // A hop is a microsecond; a second or more is a unit slip.
  if (ic.hop_latency_s >= 1) return r.error(p + "/hop_latency_s", "expected a time below 1 s");

  const json* wrap = nullptr;
  ROOFLINE_ASSIGN_OR_RETURN(wrap, r.member(j, p, "wraparound"));
  const std::string wp = p + "/wraparound";
  ROOFLINE_RETURN_IF_ERROR(r.object(*wrap, wp));
  ROOFLINE_RETURN_IF_ERROR(r.only_keys(*wrap, wp, {"rule", "axis_size"}));
  std::string rule;
  ROOFLINE_ASSIGN_OR_RETURN(rule, r.string(*wrap, wp, "rule"));
  if (rule == "always") ic.wrap = WrapRule::kAlways;
  else if (rule == "never") ic.wrap = WrapRule::kNever;
  else if (rule == "axis-equals") ic.wrap = WrapRule::kAxisEquals;
  else if (rule == "axis-multiple") ic.wrap = WrapRule::kAxisMultiple;
  else return r.error(wp + "/rule", "expected one of always, never, axis-equals, axis-multiple");
  if (ic.wrap == WrapRule::kAxisEquals || ic.wrap == WrapRule::kAxisMultiple) {
    ROOFLINE_ASSIGN_OR_RETURN(ic.wrap_axis_size, r.positive_int(*wrap, wp, "axis_size"));
  } else if (wrap->contains("axis_size")) {
    return r.error(wp + "/axis_size", "only allowed with rule axis-equals or axis-multiple");
  }

  const json* shape = nullptr;
  ROOFLINE_ASSIGN_OR_RETURN(shape, r.member(j, p, "max_shape"));
  if (!shape->is_array() || shape->empty() || shape->size() > 3)
    return r.error(p + "/max_shape", "expected an array of 1 to 3 positive integers");
  for (std::size_t i = 0; i < shape->size(); ++i) {
    const json& d = (*shape)[i];
    if (!d.is_number_integer() || d.get<long long>() <= 0 || d.get<long long>() > 100'000)
      return r.error(detail::cat(p, "/max_shape/", i), "expected a positive integer");
    ic.max_shape.push_back(static_cast<int>(d.get<long long>()));
  }
  const std::size_t want_rank = ic.topology == Topology::kTorus2D   ? 2
                                : ic.topology == Topology::kTorus3D ? 3
                                                                    : 1;
  if (ic.max_shape.size() != want_rank)
    return r.error(p + "/max_shape",
                   detail::cat("a ", topo, " needs ", want_rank, " dimension(s)"));
  for (const char* f : {"topology", "link_bytes_per_s", "links_per_chip", "hop_latency_s",
                        "wraparound", "max_shape"})
    figures.insert(std::string("interconnect/") + f);
  return absl::OkStatus();
}

// Every figure must be backed by a source: a field listed exactly, or a
// prefix of it ending at a '/' boundary.
absl::Status check_sources(const Reader& r, const std::vector<SpecSource>& sources,
                           const std::set<std::string>& figures) {
  for (const std::string& fig : figures) {
    bool covered = false;
    for (const SpecSource& s : sources)
      for (const std::string& f : s.fields)
        covered = covered || fig == f ||
                  (fig.size() > f.size() && fig.compare(0, f.size(), f) == 0 &&
                   fig[f.size()] == '/');
    if (!covered) return r.error("/sources", detail::cat("no source backs '", fig, "'"));
  }
  return absl::OkStatus();
}

// /peak_flops_per_s: a dense peak per class, and the classes every spec needs.
absl::Status read_peaks(const Reader& r, const json& j, Chip& c, std::set<std::string>& figures) {
  const json* peaks = nullptr;
  ROOFLINE_ASSIGN_OR_RETURN(peaks, r.member(j, "", "peak_flops_per_s"));
  ROOFLINE_RETURN_IF_ERROR(r.object(*peaks, "/peak_flops_per_s"));
  for (auto it = peaks->begin(); it != peaks->end(); ++it) {
    const std::string path = "/peak_flops_per_s/" + it.key();
    auto cls = parse_peak_class(it.key());
    if (!cls)
      return r.error(path, "unknown dtype (expected fp64, fp32, tf32, bf16, fp16, fp8, int8, int4 or fp4)");
    ROOFLINE_ASSIGN_OR_RETURN(c.peak_flops_per_s[static_cast<int>(*cls)], r.rate_value(it.value(), path));
    figures.insert("peak_flops_per_s/" + it.key());
  }
  // fp32 and a 16-bit float rate are what every roofline needs; the rest is
  // per chip (a V100 has fp16 tensor cores but no bf16 or int8 ones).
  // A TPU has no fp32 matrix unit of its own: select_peak times fp32 on the
  // bf16 MXU and says so, so a TPU spec carries no fp32 figure (one would be
  // a convention, not a measurement). Every GPU lists its fp32 rate.
  if (c.kind == ChipKind::kGpu && !c.has(PeakClass::kFp32))
    return r.error("/peak_flops_per_s/fp32", "missing required field (GPUs list their fp32 rate)");
  if (c.kind == ChipKind::kTpu && c.has(PeakClass::kFp32))
    return r.error("/peak_flops_per_s/fp32",
                   "a TPU spec has no fp32 peak: fp32 is timed on the bf16 MXU (docs/chip_spec.md, Peaks)");
  if (!c.has(PeakClass::kBf16) && !c.has(PeakClass::kFp16))
    return r.error("/peak_flops_per_s/bf16",
                   "missing required field (a spec needs a bf16 or an fp16 peak)");
  return absl::OkStatus();
}

// /on_chip: each memory as its capacity in bytes (the original form), or as
// {"bytes", "bytes_per_s" (optional: no published bandwidth leaves the tier
// out of timing), "holds_working_set"}.
absl::Status read_on_chip(const Reader& r, const json& j, Chip& c, std::set<std::string>& figures) {
  const json* on_chip = nullptr;
  ROOFLINE_ASSIGN_OR_RETURN(on_chip, r.member(j, "", "on_chip"));
  ROOFLINE_RETURN_IF_ERROR(r.object(*on_chip, "/on_chip"));
  for (auto it = on_chip->begin(); it != on_chip->end(); ++it) {
    const std::string path = "/on_chip/" + it.key();
    const std::string figure = "on_chip/" + it.key();
    OnChipMemory m{.name = it.key()};
    if (!it.value().is_object()) {
      ROOFLINE_ASSIGN_OR_RETURN(m.bytes, r.capacity_value(it.value(), path));
      figures.insert(figure);
      c.on_chip.push_back(std::move(m));
      continue;
    }
    const json& t = it.value();
    ROOFLINE_RETURN_IF_ERROR(r.only_keys(t, path, {"bytes", "bytes_per_s", "holds_working_set"}));
    ROOFLINE_ASSIGN_OR_RETURN(m.bytes, r.capacity(t, path, "bytes"));
    figures.insert(figure + "/bytes");
    if (t.contains("bytes_per_s")) {
      ROOFLINE_ASSIGN_OR_RETURN(m.bytes_per_s, r.rate(t, path, "bytes_per_s"));
      figures.insert(figure + "/bytes_per_s");
    }
    const json* holds = nullptr;
    ROOFLINE_ASSIGN_OR_RETURN(holds, r.member(t, path, "holds_working_set"));
    if (!holds->is_boolean()) return r.error(path + "/holds_working_set", "expected true or false");
    m.holds_working_set = holds->get<bool>();
    figures.insert(figure + "/holds_working_set");
    c.on_chip.push_back(std::move(m));
  }
  return absl::OkStatus();
}

// /achieved: published measurements of what real kernels reach (the
// built-in calibration). Every key is optional: a figure nobody published is
// left out. An achieved rate above the peak it is measured against is a slip
// (a sparse figure, a unit), so it is refused.
absl::Status read_achieved(const Reader& r, const json& a, Chip& c, std::set<std::string>& figures) {
  const std::string p = "/achieved";
  ROOFLINE_RETURN_IF_ERROR(r.object(a, p));
  ROOFLINE_RETURN_IF_ERROR(r.only_keys(a, p, {"matmul_flops_per_s", "hbm_bytes_per_s", "link_bytes_per_s",
                                              "pcie_bytes_per_s", "dcn_bytes_per_s", "launch_s",
                                              "collective_launch_s", "copy_launch_s"}));
  AchievedRates& out = c.achieved;
  const auto at_most = [&](const std::string& path, double v, double peak, std::string_view of) -> absl::Status {
    if (v > peak) return r.error(path, detail::cat("an achieved rate above the ", of, " (", peak, ")"));
    return absl::OkStatus();
  };
  if (a.contains("matmul_flops_per_s")) {
    const json& mm = a.at("matmul_flops_per_s");
    const std::string mp = p + "/matmul_flops_per_s";
    ROOFLINE_RETURN_IF_ERROR(r.object(mm, mp));
    for (auto it = mm.begin(); it != mm.end(); ++it) {
      const std::string path = mp + "/" + it.key();
      auto cls = parse_peak_class(it.key());
      if (!cls)
        return r.error(path, "unknown dtype (expected fp64, fp32, tf32, bf16, fp16, fp8, int8, int4 or fp4)");
      const double peak = c.peak_flops_per_s[static_cast<int>(*cls)];
      if (peak <= 0) return r.error(path, detail::cat("no peak_flops_per_s/", it.key(), " to measure it against"));
      double& v = out.matmul_flops_per_s[static_cast<int>(*cls)];
      ROOFLINE_ASSIGN_OR_RETURN(v, r.rate_value(it.value(), path));
      ROOFLINE_RETURN_IF_ERROR(at_most(path, v, peak, "peak"));
      figures.insert("achieved/matmul_flops_per_s/" + it.key());
    }
  }
  struct Rate {
    const char* key;
    double* value;
    double peak;
    const char* of;
  };
  for (const Rate& k : {Rate{"hbm_bytes_per_s", &out.hbm_bytes_per_s, c.hbm_bytes_per_s, "HBM bandwidth"},
                        Rate{"link_bytes_per_s", &out.link_bytes_per_s, c.ici.link_bytes_per_s, "link bandwidth"},
                        Rate{"pcie_bytes_per_s", &out.pcie_bytes_per_s, c.pcie_bytes_per_s, "PCIe bandwidth"},
                        Rate{"dcn_bytes_per_s", &out.dcn_bytes_per_s, c.dcn_bytes_per_s, "DCN bandwidth"}}) {
    if (!a.contains(k.key)) continue;
    ROOFLINE_ASSIGN_OR_RETURN(*k.value, r.rate(a, p, k.key));
    ROOFLINE_RETURN_IF_ERROR(at_most(p + "/" + k.key, *k.value, k.peak, k.of));
    figures.insert(std::string("achieved/") + k.key);
  }
  for (auto [key, value] : {std::pair{"launch_s", &out.launch_s}, std::pair{"collective_launch_s", &out.collective_launch_s},
                            std::pair{"copy_launch_s", &out.copy_launch_s}}) {
    if (!a.contains(key)) continue;
    ROOFLINE_ASSIGN_OR_RETURN(*value, r.positive(a, p, key));
    // A launch floor is microseconds; a second or more is a unit slip.
    if (*value >= 1) return r.error(p + "/" + key, "expected a time below 1 s");
    figures.insert(std::string("achieved/") + key);
  }
  return absl::OkStatus();
}

// /sources: where each figure comes from.
absl::Status read_sources(const Reader& r, const json& j, Chip& c) {
  const json* sources = nullptr;
  ROOFLINE_ASSIGN_OR_RETURN(sources, r.member(j, "", "sources"));
  if (!sources->is_array() || sources->empty())
    return r.error("/sources", "expected a non-empty array of sources");
  for (std::size_t i = 0; i < sources->size(); ++i) {
    const json& s = (*sources)[i];
    const std::string sp = detail::cat("/sources/", i);
    ROOFLINE_RETURN_IF_ERROR(r.object(s, sp));
    ROOFLINE_RETURN_IF_ERROR(r.only_keys(s, sp, {"fields", "reference", "read_on"}));
    SpecSource src;
    ROOFLINE_ASSIGN_OR_RETURN(src.reference, r.string(s, sp, "reference"));
    ROOFLINE_ASSIGN_OR_RETURN(src.read_on, r.string(s, sp, "read_on"));
    const json* fields = nullptr;
    ROOFLINE_ASSIGN_OR_RETURN(fields, r.member(s, sp, "fields"));
    if (!fields->is_array() || fields->empty())
      return r.error(sp + "/fields", "expected a non-empty array of field paths");
    for (std::size_t k = 0; k < fields->size(); ++k) {
      if (!(*fields)[k].is_string())
        return r.error(detail::cat(sp, "/fields/", k), "expected a string");
      src.fields.push_back((*fields)[k].get<std::string>());
    }
    c.sources.push_back(std::move(src));
  }
  return absl::OkStatus();
}

absl::StatusOr<Chip> read_chip(const Reader& r, const json& j) {
  Chip c;
  std::set<std::string> figures;
  ROOFLINE_RETURN_IF_ERROR(r.object(j, ""));
  ROOFLINE_RETURN_IF_ERROR(r.only_keys(
      j, "", {"name", "display_name", "vendor", "kind", "device_names", "peak_flops_per_s",
              "hbm_bytes", "hbm_bytes_per_s", "on_chip", "interconnect", "dcn_bytes_per_s",
              "dcn_latency_s", "pcie_bytes_per_s", "chips_per_host", "cores_per_chip", "achieved", "sources",
              "die", "compute_units"}));
  ROOFLINE_ASSIGN_OR_RETURN(c.name, r.string(j, "", "name"));
  ROOFLINE_ASSIGN_OR_RETURN(c.display_name, r.string(j, "", "display_name"));
  ROOFLINE_ASSIGN_OR_RETURN(c.vendor, r.string(j, "", "vendor"));
  std::string kind;
  ROOFLINE_ASSIGN_OR_RETURN(kind, r.string(j, "", "kind"));
  if (kind == "tpu") c.kind = ChipKind::kTpu;
  else if (kind == "gpu") c.kind = ChipKind::kGpu;
  else return r.error("/kind", "expected tpu or gpu");
  // Optional: the die, a claim that needs a source like any figure.
  if (j.contains("die")) {
    ROOFLINE_ASSIGN_OR_RETURN(c.die, r.string(j, "", "die"));
    figures.insert("die");
  }

  const json* names = nullptr;
  ROOFLINE_ASSIGN_OR_RETURN(names, r.member(j, "", "device_names"));
  if (!names->is_array()) return r.error("/device_names", "expected an array of strings");
  for (std::size_t i = 0; i < names->size(); ++i) {
    if (!(*names)[i].is_string() || (*names)[i].get<std::string>().empty())
      return r.error(detail::cat("/device_names/", i), "expected a non-empty string");
    c.device_names.push_back((*names)[i].get<std::string>());
  }

  ROOFLINE_RETURN_IF_ERROR(read_peaks(r, j, c, figures));

  ROOFLINE_ASSIGN_OR_RETURN(c.hbm_bytes, r.capacity(j, "", "hbm_bytes"));
  ROOFLINE_ASSIGN_OR_RETURN(c.hbm_bytes_per_s, r.rate(j, "", "hbm_bytes_per_s"));
  figures.insert("hbm_bytes");
  figures.insert("hbm_bytes_per_s");

  ROOFLINE_RETURN_IF_ERROR(read_on_chip(r, j, c, figures));

  const json* ic = nullptr;
  ROOFLINE_ASSIGN_OR_RETURN(ic, r.member(j, "", "interconnect"));
  ROOFLINE_RETURN_IF_ERROR(read_interconnect(r, *ic, c.ici, figures));
  ROOFLINE_ASSIGN_OR_RETURN(c.dcn_bytes_per_s, r.rate(j, "", "dcn_bytes_per_s"));
  ROOFLINE_ASSIGN_OR_RETURN(c.pcie_bytes_per_s, r.rate(j, "", "pcie_bytes_per_s"));
  ROOFLINE_ASSIGN_OR_RETURN(c.chips_per_host, r.positive_int(j, "", "chips_per_host"));
  ROOFLINE_ASSIGN_OR_RETURN(c.cores_per_chip, r.positive_int(j, "", "cores_per_chip"));
  for (const char* f : {"dcn_bytes_per_s", "pcie_bytes_per_s", "chips_per_host", "cores_per_chip"})
    figures.insert(f);
  // Optional: the SMs or CUs, which total the per-SM memories.
  if (j.contains("compute_units")) {
    ROOFLINE_ASSIGN_OR_RETURN(c.compute_units, r.positive_int(j, "", "compute_units"));
    figures.insert("compute_units");
  }
  // Optional: a per-step latency of the scale-out network, when published.
  if (j.contains("dcn_latency_s")) {
    ROOFLINE_ASSIGN_OR_RETURN(c.dcn_latency_s, r.positive(j, "", "dcn_latency_s"));
    // A network step is microseconds; a second or more is a unit slip.
    if (c.dcn_latency_s >= 1) return r.error("/dcn_latency_s", "expected a time below 1 s");
    figures.insert("dcn_latency_s");
  }

  if (j.contains("achieved")) ROOFLINE_RETURN_IF_ERROR(read_achieved(r, j.at("achieved"), c, figures));

  ROOFLINE_RETURN_IF_ERROR(read_sources(r, j, c));
  ROOFLINE_RETURN_IF_ERROR(check_sources(r, c.sources, figures));
  return c;
}

// Finds the first repeated key of any object while nlohmann parses: it
// keeps the last value of a repeated key silently, which would let a spec
// state a figure twice and use the second. Each level keeps its own key or
// index, not its path: the path is put together only for the error, so
// memory grows with the depth, not with its square.
struct DuplicateKeys {
  struct Level {
    std::set<std::string> keys = {};  // objects: the keys seen so far
    std::string key = {};             // objects: the key whose value comes next
    std::size_t index = 0;            // arrays: the index of the value that comes next
    bool array = false;
  };
  std::vector<Level> stack;
  std::optional<std::string> found;

  // The path of the value the innermost level reads next.
  std::string path() const {
    std::string p;
    for (const Level& l : stack) p += "/" + (l.array ? std::to_string(l.index) : l.key);
    return p;
  }
  void value_done() {
    if (!stack.empty() && stack.back().array) ++stack.back().index;
  }

  json::parser_callback_t callback() {
    return [this](int, json::parse_event_t event, json& parsed) {
      switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
          stack.push_back({.array = event == json::parse_event_t::array_start});
          break;
        case json::parse_event_t::key: {
          Level& l = stack.back();
          l.key = parsed.get<std::string>();
          if (!l.keys.insert(l.key).second && !found) found = path();
          break;
        }
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
          stack.pop_back();
          value_done();
          break;
        case json::parse_event_t::value:
          value_done();
          break;
      }
      return true;
    };
  }
};

// ": byte N" for the first occurrence of the token a number-overflow
// message quotes ("number overflow parsing '1e400'"), or "" if not found.
std::string overflow_place(std::string_view text, std::string_view message) {
  const std::size_t open = message.find('\'');
  const std::size_t close = open == std::string_view::npos ? open : message.find('\'', open + 1);
  if (close == std::string_view::npos) return "";
  const std::size_t at = text.find(message.substr(open + 1, close - open - 1));
  return at == std::string_view::npos ? "" : detail::cat(": byte ", at);
}

}  // namespace

absl::StatusOr<Chip> parse_chip(std::string_view json_text, std::string_view origin) {
  Reader r(origin);
  // Nesting is bounded before nlohmann builds (and the key check walks) a
  // document: a spec is 4 levels deep, one nested 100k deep is an attack.
  if (const std::size_t at = detail::json_too_deep_at(json_text); at != std::string_view::npos)
    return absl::InvalidArgumentError(
        detail::cat(origin, ": byte ", at, ": JSON nested deeper than ", detail::kMaxInputJsonDepth, " levels"));
  // nlohmann throws even with allow_exceptions=false on some inputs (a
  // number that overflows a double): catch everything it throws here, and
  // anything else (bad_alloc), so that no exception leaves the parser.
  try {
    DuplicateKeys dup;
    const json j = json::parse(json_text.begin(), json_text.end(), dup.callback());
    if (dup.found) return r.error(*dup.found, "duplicate key (a spec is strict: say each figure once)");
    return read_chip(r, j);
  } catch (const json::parse_error& e) {
    return absl::InvalidArgumentError(
        detail::cat(origin, ": byte ", e.byte, ": invalid JSON: ", e.what()));
  } catch (const json::out_of_range& e) {
    // A number that overflows a double: nlohmann names the token but not
    // where it is; the first occurrence of that token is the place.
    return absl::InvalidArgumentError(detail::cat(origin, overflow_place(json_text, e.what()), ": invalid JSON: ",
                                                  e.what()));
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(detail::cat(origin, ": invalid JSON: ", e.what()));
  } catch (const std::exception& e) {
    return absl::ResourceExhaustedError(detail::cat(origin, ": cannot read the spec: ", e.what()));
  } catch (...) {
    return absl::InternalError(detail::cat(origin, ": cannot read the spec"));
  }
}

absl::StatusOr<Chip> load_chip(const std::string& path) {
  ROOFLINE_ASSIGN_OR_RETURN(std::string text,
                            detail::read_bounded_file(path, kMaxChipSpecBytes, "chip spec", detail::json_object_head));
  ROOFLINE_ASSIGN_OR_RETURN(Chip c, parse_chip(text, path));
  // The name is how the spec is found, by name or by file: the two agree
  // (docs/chip_spec.md), so a copy of a spec edited into another chip
  // cannot keep the name of the one it was copied from.
  std::string stem = std::filesystem::path(path).filename().string();
  if (stem.ends_with(".json")) stem.resize(stem.size() - 5);
  if (c.name != stem)
    return absl::InvalidArgumentError(detail::cat(path, ": /name: '", c.name,
                                                  "' must be the file name without .json ('", stem, "')"));
  return c;
}

}  // namespace roofline
