// Build-time host tool: reads hardware/*.json with the library's strict spec
// parser and writes roofline/generated/chip_table.hpp, the constexpr table
// the header-only core builds its Chip values from (roofline/detail/
// embedded_chips.hpp). A spec the parser refuses fails the build with the
// parser's message (file and JSON path), so a broken spec cannot ship.
//
//   roofline_chip_table_generator OUT.hpp hardware/a100-sxm.json ...
//
// OUT is rewritten only when its text changes, so an unchanged table
// recompiles nothing.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"

namespace roofline {
namespace {

// A C++ string literal holding exactly `s`: printable ASCII as is, every
// other byte as a three-digit octal escape (which cannot run on into a
// following digit, unlike \x).
std::string literal(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    }
  }
  return out + "\"";
}

// The shortest text that reads back to the same double, as a double literal.
std::string number(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

template <class E>
std::string enumerator(E e, std::string_view type) {
  return detail::cat(type, "{", static_cast<int>(e), "}");
}

// The arrays one chip's spans point into, then the chip's table entry.
struct ChipText {
  std::string arrays;
  std::string entry;
};

ChipText chip_text(const Chip& c, int index) {
  ChipText t;
  const std::string id = detail::cat("kChip", index);
  // {pointer, count}: one span constructor for every array, where {array}
  // would instantiate one per array length in every including file.
  auto span = [&](const std::string& array, std::size_t size) {
    return size == 0 ? std::string("{}") : detail::cat("{", array, ", ", size, "}");
  };

  if (!c.on_chip.empty()) {
    t.arrays += detail::cat("inline constexpr EmbeddedMemory ", id, "OnChip[] = {\n");
    for (const OnChipMemory& m : c.on_chip)
      t.arrays += detail::cat("    {", literal(m.name), ", ", number(m.bytes), ", ", number(m.bytes_per_s), ", ",
                              m.holds_working_set ? "true" : "false", "},\n");
    t.arrays += "};\n";
  }
  if (!c.ici.max_shape.empty()) {
    t.arrays += detail::cat("inline constexpr int ", id, "MaxShape[] = {");
    for (std::size_t i = 0; i < c.ici.max_shape.size(); ++i) t.arrays += detail::cat(i ? ", " : "", c.ici.max_shape[i]);
    t.arrays += "};\n";
  }
  if (!c.device_names.empty()) {
    t.arrays += detail::cat("inline constexpr std::string_view ", id, "DeviceNames[] = {\n");
    for (const std::string& n : c.device_names) t.arrays += detail::cat("    ", literal(n), ",\n");
    t.arrays += "};\n";
  }
  for (std::size_t s = 0; s < c.sources.size(); ++s) {
    if (c.sources[s].fields.empty()) continue;
    t.arrays += detail::cat("inline constexpr std::string_view ", id, "Source", s, "Fields[] = {\n");
    for (const std::string& f : c.sources[s].fields) t.arrays += detail::cat("    ", literal(f), ",\n");
    t.arrays += "};\n";
  }
  if (!c.sources.empty()) {
    t.arrays += detail::cat("inline constexpr EmbeddedSource ", id, "Sources[] = {\n");
    for (std::size_t s = 0; s < c.sources.size(); ++s) {
      const SpecSource& src = c.sources[s];
      t.arrays += detail::cat("    {", span(detail::cat(id, "Source", s, "Fields"), src.fields.size()), ",\n     ",
                              literal(src.reference), ",\n     ", literal(src.read_on), "},\n");
    }
    t.arrays += "};\n";
  }

  std::string peaks, achieved_matmul;
  for (std::size_t i = 0; i < c.peak_flops_per_s.size(); ++i) {
    peaks += detail::cat(i ? ", " : "", number(c.peak_flops_per_s[i]));
    achieved_matmul += detail::cat(i ? ", " : "", number(c.achieved.matmul_flops_per_s[i]));
  }
  const AchievedRates& a = c.achieved;
  const std::string achieved = detail::cat(
      "{.matmul_flops_per_s = {", achieved_matmul, "}, .hbm_bytes_per_s = ", number(a.hbm_bytes_per_s),
      ", .link_bytes_per_s = ", number(a.link_bytes_per_s), ", .pcie_bytes_per_s = ", number(a.pcie_bytes_per_s),
      ", .dcn_bytes_per_s = ", number(a.dcn_bytes_per_s), ", .launch_s = ", number(a.launch_s), ", .collective_launch_s = ", number(a.collective_launch_s),
      ", .copy_launch_s = ", number(a.copy_launch_s), "}");
  t.entry = detail::cat(
      "    {.name = ", literal(c.name), ",\n",
      "     .display_name = ", literal(c.display_name), ",\n",
      "     .vendor = ", literal(c.vendor), ",\n",
      "     .kind = ", enumerator(c.kind, "ChipKind"), ",\n",
      "     .die = ", literal(c.die), ",\n",
      "     .peak_flops_per_s = {", peaks, "},\n",
      "     .hbm_bytes = ", number(c.hbm_bytes), ",\n",
      "     .hbm_bytes_per_s = ", number(c.hbm_bytes_per_s), ",\n",
      "     .on_chip = ", span(id + "OnChip", c.on_chip.size()), ",\n",
      "     .achieved = ", achieved, ",\n",
      "     .topology = ", enumerator(c.ici.topology, "Topology"), ",\n",
      "     .link_bytes_per_s = ", number(c.ici.link_bytes_per_s), ",\n",
      "     .links_per_chip = ", c.ici.links_per_chip, ",\n",
      "     .hop_latency_s = ", number(c.ici.hop_latency_s), ",\n",
      "     .wrap = ", enumerator(c.ici.wrap, "WrapRule"), ",\n",
      "     .wrap_axis_size = ", c.ici.wrap_axis_size, ",\n",
      "     .max_shape = ", span(id + "MaxShape", c.ici.max_shape.size()), ",\n",
      "     .dcn_bytes_per_s = ", number(c.dcn_bytes_per_s), ",\n",
      "     .dcn_latency_s = ", number(c.dcn_latency_s), ",\n",
      "     .pcie_bytes_per_s = ", number(c.pcie_bytes_per_s), ",\n",
      "     .chips_per_host = ", c.chips_per_host, ",\n",
      "     .cores_per_chip = ", c.cores_per_chip, ",\n",
      "     .compute_units = ", c.compute_units, ",\n",
      "     .device_names = ", span(id + "DeviceNames", c.device_names.size()), ",\n",
      "     .sources = ", span(id + "Sources", c.sources.size()), "},\n");
  return t;
}

std::string table_header(const std::vector<Chip>& chips) {
  std::string arrays, entries;
  for (std::size_t i = 0; i < chips.size(); ++i) {
    const ChipText t = chip_text(chips[i], static_cast<int>(i));
    arrays += detail::cat("// ", chips[i].name, "\n", t.arrays, "\n");
    entries += t.entry;
  }
  return detail::cat(
      "// Generated at build time by roofline_chip_table_generator from hardware/*.json\n"
      "// (src/chip/chip_table_generator.cc). Do not edit; edit the JSON specs.\n"
      "// Included by roofline/detail/embedded_chips.hpp, which defines the types.\n"
      "#pragma once\n\n"
      "namespace roofline::detail {\n\n",
      arrays, "// Sorted by name.\ninline constexpr std::array<EmbeddedChip, ", chips.size(), "> kChipTable = {{\n",
      entries, "}};\n\n}  // namespace roofline::detail\n");
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.hpp SPEC.json...\n", argv[0]);
    return 2;
  }
  const std::filesystem::path out_path = argv[1];
  std::vector<Chip> chips;
  std::set<std::string> names;
  for (int i = 2; i < argc; ++i) {
    const std::filesystem::path path = argv[i];
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot open chip spec\n", path.c_str());
      return 1;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Errors name the file as the repository does: "hardware/tpu-v5e.json: /hbm_bytes: ...".
    absl::StatusOr<Chip> c = parse_chip(text, "hardware/" + path.filename().string());
    if (!c.ok()) {
      std::fprintf(stderr, "%s\n", std::string(c.status().message()).c_str());
      return 1;
    }
    if (c->name != path.stem().string()) {
      std::fprintf(stderr, "hardware/%s: /name: '%s' must be the file name without .json\n",
                   path.filename().c_str(), c->name.c_str());
      return 1;
    }
    if (!names.insert(c->name).second) {
      std::fprintf(stderr, "hardware/%s: chip '%s' is specified twice\n", path.filename().c_str(), c->name.c_str());
      return 1;
    }
    chips.push_back(*std::move(c));
  }
  std::sort(chips.begin(), chips.end(), [](const Chip& a, const Chip& b) { return a.name < b.name; });

  const std::string text = table_header(chips);
  std::string old;
  if (std::ifstream prev(out_path, std::ios::binary); prev) {
    std::ostringstream buf;
    buf << prev.rdbuf();
    old = buf.str();
  }
  if (old == text) return 0;
  std::filesystem::create_directories(out_path.parent_path());
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "%s: cannot write\n", out_path.c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace roofline

int main(int argc, char** argv) { return roofline::run(argc, argv); }
