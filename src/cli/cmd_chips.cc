// roofline chips / roofline chip NAME|PATH
#include <cstdarg>
#include <cstdio>
#include <string>
#include <nlohmann/json.hpp>

#include "absl/strings/str_join.h"
#include "roofline/format/appendf.hpp"
#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {
namespace {

std::string peak_or_dash(const Chip& c, PeakClass p) {
  return c.has(p) ? format_si(c.peak_flops_per_s[static_cast<int>(p)], "FLOP/s") : "-";
}

int run_chips(const Args& args) {
  auto fmt = args.format({"text", "json"});
  if (!fmt.ok()) return fail(fmt.status());
  if (*fmt == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const Chip& c : embedded_chips()) out.push_back(nlohmann::json::parse(chip_to_json(c)));
    return write_output(
        args, json_format_controls_escaped(out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)) + "\n");
  }
  using A = TextTable::Align;
  TextTable t({{"chip"}, {"name"}, {"bf16", A::kRight}, {"fp8", A::kRight}, {"int8", A::kRight},
               {"HBM", A::kRight}, {"HBM BW", A::kRight}, {"ridge bf16", A::kRight},
               {"interconnect"}});
  for (const Chip& c : embedded_chips()) {
    char ridge[32];
    const DType half = c.has(DType::kBF16) ? DType::kBF16 : DType::kF16;  // V100: fp16 only
    std::snprintf(ridge, sizeof ridge, "%.0f FLOP/B%s", c.ridge_flops_per_byte(half),
                  half == DType::kBF16 ? "" : " (fp16)");
    std::string ic = detail::cat(topology_name(c.ici.topology), " ",
                                  absl::StrJoin(c.ici.max_shape, "x"), ", ", c.ici.links_per_chip,
                                  " x ", format_si(c.ici.link_bytes_per_s, "B/s"));
    t.add_row({c.name, c.display_name, peak_or_dash(c, PeakClass::kBf16),
               peak_or_dash(c, PeakClass::kFp8), peak_or_dash(c, PeakClass::kInt8),
               format_bytes(c.hbm_bytes), format_si(c.hbm_bytes_per_s, "B/s"), ridge, ic});
  }
  return write_output(args, t.render());
}

int run_chip(const Args& args) {
  auto fmt = args.format({"text", "json"});
  if (!fmt.ok()) return fail(fmt.status());
  if (args.positional().size() != 1)
    return fail_usage("chip: expected exactly one chip name or spec path");
  absl::StatusOr<Chip> c = resolve_chip(args.positional()[0]);
  if (!c.ok()) return fail(c.status());
  if (*fmt == "json") {
    // A spec file is input: its strings' bidirectional controls escaped too.
    return write_output(args, json_format_controls_escaped(chip_to_json(*c)) + "\n");
  }
  std::string out;
  // Names and sources come from the spec file (a PATH is input): escaped.
  appendf(out, "%s (%s, %s)\n", for_terminal(c->name).c_str(), for_terminal(c->display_name).c_str(),
              for_terminal(c->vendor).c_str());
  for (int i = 0; i < kPeakClassCount; ++i)
    if (c->peak_flops_per_s[i] > 0) {
      auto pc = static_cast<PeakClass>(i);
      appendf(out, "  peak %-5s %14s   ridge %6.0f FLOP/B\n",
                  std::string(peak_class_name(pc)).c_str(),
                  format_si(c->peak_flops_per_s[i], "FLOP/s").c_str(),
                  c->peak_flops_per_s[i] / c->hbm_bytes_per_s);
    }
  appendf(out, "  HBM        %14s at %s\n", format_bytes(c->hbm_bytes).c_str(),
              format_si(c->hbm_bytes_per_s, "B/s").c_str());
  for (const OnChipMemory& m : c->on_chip)
    appendf(out, "  %-10s %14s\n", for_terminal(m.name).c_str(), format_bytes(m.bytes).c_str());
  const Interconnect& ic = c->ici;
  appendf(out, "  interconnect %s, max %s, %d links x %s one-way, %s per hop\n",
              std::string(topology_name(ic.topology)).c_str(),
              absl::StrJoin(ic.max_shape, "x").c_str(), ic.links_per_chip,
              format_si(ic.link_bytes_per_s, "B/s").c_str(),
              format_seconds(ic.hop_latency_s).c_str());
  appendf(out, "  DCN %s, PCIe %s, %d chips per host, %d cores per chip\n",
              format_si(c->dcn_bytes_per_s, "B/s").c_str(),
              format_si(c->pcie_bytes_per_s, "B/s").c_str(), c->chips_per_host,
              c->cores_per_chip);
  appendf(out, "  sources:\n");
  for (const SpecSource& s : c->sources)
    appendf(out, "    - %s (read %s): %s\n", for_terminal(s.reference).c_str(), for_terminal(s.read_on).c_str(),
                for_terminal(absl::StrJoin(s.fields, ", ")).c_str());
  return write_output(args, out);
}

ROOFLINE_CLI_COMMAND({
    .name = "chips",
    .usage = "roofline chips [--format text|json] [-o FILE]",
    .summary = "List the chips compiled into roofline with their headline figures.",
    .options = {{"format", "text|json", "output format (default text)"},
                {"output", "FILE", "write to FILE instead of stdout", "o"}},
    .run = run_chips,
});

ROOFLINE_CLI_COMMAND({
    .name = "chip",
    .usage = "roofline chip NAME|PATH [--format text|json] [-o FILE]",
    .summary = "Show one chip spec: an embedded chip by name, or validate a JSON spec file.",
    .options = {{"format", "text|json", "output format (default text)"},
                {"output", "FILE", "write to FILE instead of stdout", "o"}},
    .run = run_chip,
});

}  // namespace
}  // namespace roofline::cli
