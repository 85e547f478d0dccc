// Chip -> spec JSON (chip_to_json, roofline/chip_io.hpp): the inverse of
// the parser in chip_json.cc, so that a chip read from a spec writes back
// a spec the parser reads to the same Chip (tests/chip_test.cc).
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "roofline/chip_io.hpp"

namespace roofline {

using nlohmann::json;

std::string chip_to_json(const Chip& c) {
  json j;
  j["name"] = c.name;
  j["display_name"] = c.display_name;
  j["vendor"] = c.vendor;
  j["kind"] = c.kind == ChipKind::kTpu ? "tpu" : "gpu";
  if (!c.die.empty()) j["die"] = c.die;
  j["device_names"] = c.device_names;
  json peaks = json::object();
  for (int i = 0; i < kPeakClassCount; ++i)
    if (c.peak_flops_per_s[i] > 0)
      peaks[std::string(peak_class_name(static_cast<PeakClass>(i)))] = c.peak_flops_per_s[i];
  j["peak_flops_per_s"] = peaks;
  j["hbm_bytes"] = c.hbm_bytes;
  j["hbm_bytes_per_s"] = c.hbm_bytes_per_s;
  json on_chip = json::object();
  for (const OnChipMemory& m : c.on_chip) {
    if (m.bytes_per_s <= 0 && !m.holds_working_set) {
      on_chip[m.name] = m.bytes;
      continue;
    }
    json t = {{"bytes", m.bytes}, {"holds_working_set", m.holds_working_set}};
    if (m.bytes_per_s > 0) t["bytes_per_s"] = m.bytes_per_s;
    on_chip[m.name] = t;
  }
  j["on_chip"] = on_chip;
  json wrap;
  switch (c.ici.wrap) {
    case WrapRule::kAlways: wrap["rule"] = "always"; break;
    case WrapRule::kNever: wrap["rule"] = "never"; break;
    case WrapRule::kAxisEquals: wrap["rule"] = "axis-equals"; wrap["axis_size"] = c.ici.wrap_axis_size; break;
    case WrapRule::kAxisMultiple: wrap["rule"] = "axis-multiple"; wrap["axis_size"] = c.ici.wrap_axis_size; break;
  }
  j["interconnect"] = {{"topology", std::string(topology_name(c.ici.topology))},
                       {"link_bytes_per_s", c.ici.link_bytes_per_s},
                       {"links_per_chip", c.ici.links_per_chip},
                       {"hop_latency_s", c.ici.hop_latency_s},
                       {"wraparound", wrap},
                       {"max_shape", c.ici.max_shape}};
  j["dcn_bytes_per_s"] = c.dcn_bytes_per_s;
  if (c.dcn_latency_s > 0) j["dcn_latency_s"] = c.dcn_latency_s;
  j["pcie_bytes_per_s"] = c.pcie_bytes_per_s;
  j["chips_per_host"] = c.chips_per_host;
  j["cores_per_chip"] = c.cores_per_chip;
  if (c.compute_units > 0) j["compute_units"] = c.compute_units;
  json achieved = json::object();
  json matmul = json::object();
  for (int i = 0; i < kPeakClassCount; ++i)
    if (c.achieved.matmul_flops_per_s[i] > 0)
      matmul[std::string(peak_class_name(static_cast<PeakClass>(i)))] = c.achieved.matmul_flops_per_s[i];
  if (!matmul.empty()) achieved["matmul_flops_per_s"] = matmul;
  for (auto [key, value] : {std::pair{"hbm_bytes_per_s", c.achieved.hbm_bytes_per_s},
                            std::pair{"link_bytes_per_s", c.achieved.link_bytes_per_s},
                            std::pair{"pcie_bytes_per_s", c.achieved.pcie_bytes_per_s},
                            std::pair{"dcn_bytes_per_s", c.achieved.dcn_bytes_per_s},
                            std::pair{"launch_s", c.achieved.launch_s},
                            std::pair{"collective_launch_s", c.achieved.collective_launch_s},
                            std::pair{"copy_launch_s", c.achieved.copy_launch_s}})
    if (value > 0) achieved[key] = value;
  if (!achieved.empty()) j["achieved"] = achieved;
  json sources = json::array();
  for (const SpecSource& s : c.sources)
    sources.push_back({{"fields", s.fields}, {"reference", s.reference}, {"read_on", s.read_on}});
  j["sources"] = sources;
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace roofline
