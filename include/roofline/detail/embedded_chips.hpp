// The embedded chips: a constexpr table of plain literal values, generated
// from hardware/*.json at build time (roofline/generated/chip_table.hpp,
// written by src/chip/chip_table_generator.cc after the full spec parser
// has checked every file), and the Chip values built from it on first use.
// Nothing is parsed at run time and nothing here needs a compiled library.
#pragma once

#include <array>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/chip.hpp"
#include "roofline/detail/cat.hpp"

namespace roofline::detail {

// One chip spec as literal data; the fields mirror Chip's.
struct EmbeddedMemory {
  std::string_view name;
  double bytes = 0;
  double bytes_per_s = 0;
  bool holds_working_set = false;
};

struct EmbeddedSource {
  std::span<const std::string_view> fields;
  std::string_view reference;
  std::string_view read_on;
};

struct EmbeddedChip {
  std::string_view name;
  std::string_view display_name;
  std::string_view vendor;
  ChipKind kind = ChipKind::kTpu;
  std::string_view die;
  std::array<double, kPeakClassCount> peak_flops_per_s{};
  double hbm_bytes = 0;
  double hbm_bytes_per_s = 0;
  std::span<const EmbeddedMemory> on_chip;
  AchievedRates achieved;
  Topology topology = Topology::kSwitch;
  double link_bytes_per_s = 0;
  int links_per_chip = 0;
  double hop_latency_s = 0;
  WrapRule wrap = WrapRule::kNever;
  int wrap_axis_size = 0;
  std::span<const int> max_shape;
  double dcn_bytes_per_s = 0;
  double dcn_latency_s = 0;
  double pcie_bytes_per_s = 0;
  int chips_per_host = 1;
  int cores_per_chip = 1;
  int compute_units = 0;
  std::span<const std::string_view> device_names;
  std::span<const EmbeddedSource> sources;
};

}  // namespace roofline::detail

// Defines roofline::detail::kChipTable, sorted by name.
#include "roofline/generated/chip_table.hpp"

namespace roofline {
namespace detail {

inline Chip make_chip(const EmbeddedChip& e) {
  Chip c;
  c.name = std::string(e.name);
  c.display_name = std::string(e.display_name);
  c.vendor = std::string(e.vendor);
  c.kind = e.kind;
  c.die = std::string(e.die);
  c.peak_flops_per_s = e.peak_flops_per_s;
  c.hbm_bytes = e.hbm_bytes;
  c.hbm_bytes_per_s = e.hbm_bytes_per_s;
  for (const EmbeddedMemory& m : e.on_chip)
    c.on_chip.push_back({.name = std::string(m.name), .bytes = m.bytes, .bytes_per_s = m.bytes_per_s,
                         .holds_working_set = m.holds_working_set});
  c.achieved = e.achieved;
  c.ici.topology = e.topology;
  c.ici.link_bytes_per_s = e.link_bytes_per_s;
  c.ici.links_per_chip = e.links_per_chip;
  c.ici.hop_latency_s = e.hop_latency_s;
  c.ici.wrap = e.wrap;
  c.ici.wrap_axis_size = e.wrap_axis_size;
  c.ici.max_shape.assign(e.max_shape.begin(), e.max_shape.end());
  c.dcn_bytes_per_s = e.dcn_bytes_per_s;
  c.dcn_latency_s = e.dcn_latency_s;
  c.pcie_bytes_per_s = e.pcie_bytes_per_s;
  c.chips_per_host = e.chips_per_host;
  c.cores_per_chip = e.cores_per_chip;
  c.compute_units = e.compute_units;
  for (std::string_view n : e.device_names) c.device_names.emplace_back(n);
  for (const EmbeddedSource& s : e.sources) {
    SpecSource src;
    for (std::string_view f : s.fields) src.fields.emplace_back(f);
    src.reference = std::string(s.reference);
    src.read_on = std::string(s.read_on);
    c.sources.push_back(std::move(src));
  }
  return c;
}

// Built once, on first use; the table is already sorted by name.
inline const std::vector<Chip>& embedded_chip_registry() {
  static const std::vector<Chip> chips = [] {
    std::vector<Chip> out;
    out.reserve(kChipTable.size());
    for (const EmbeddedChip& e : kChipTable) out.push_back(make_chip(e));
    return out;
  }();
  return chips;
}

// "unknown chip 'tpu-v5x'; known chips: a100-sxm, b200, ...": chip() throws
// it and find_chip() returns it.
inline std::string unknown_chip_message(std::string_view name) {
  std::string known;
  for (const EmbeddedChip& e : kChipTable) known += cat(known.empty() ? "" : ", ", e.name);
  return cat("unknown chip '", name, "'; known chips: ", known);
}

}  // namespace detail

inline std::span<const Chip> embedded_chips() { return detail::embedded_chip_registry(); }

inline const Chip& chip(std::string_view name) {
  for (const Chip& c : detail::embedded_chip_registry())
    if (c.name == name) return c;
  throw std::out_of_range(detail::unknown_chip_message(name));
}

}  // namespace roofline
