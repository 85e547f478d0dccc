// Chips: the embedded specs by name, or a JSON spec file.
#include <string>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/map.h>

#include "python/src/bindings.hpp"
#include "python/src/status.hpp"
#include "roofline/chip.hpp"
#include "roofline/chip_io.hpp"

namespace nb = nanobind;

namespace roofline::python {
namespace {

std::map<std::string, double> peaks(const Chip& c) {
  std::map<std::string, double> out;
  for (int i = 0; i < kPeakClassCount; ++i)
    if (c.peak_flops_per_s[i] > 0) out[std::string(peak_class_name(static_cast<PeakClass>(i)))] = c.peak_flops_per_s[i];
  return out;
}

}  // namespace

void bind_chips(nb::module_& m) {
  nb::class_<Chip>(m, "Chip", "One accelerator's spec: peaks, memory, interconnect, each figure with its source.")
      .def_ro("name", &Chip::name)
      .def_ro("display_name", &Chip::display_name)
      .def_ro("vendor", &Chip::vendor)
      .def_ro("die", &Chip::die, "The silicon it is built on (\"GA100\"), where another built-in chip shares it; empty otherwise.")
      .def_prop_ro("kind", [](const Chip& c) { return c.kind == ChipKind::kTpu ? "tpu" : "gpu"; })
      .def_prop_ro("peak_flops_per_s", &peaks, "Peak FLOP/s per precision class (bf16, fp8, int8, fp32, ...).")
      .def_ro("hbm_bytes", &Chip::hbm_bytes)
      .def_ro("hbm_bytes_per_s", &Chip::hbm_bytes_per_s)
      .def_ro("dcn_bytes_per_s", &Chip::dcn_bytes_per_s)
      .def_ro("pcie_bytes_per_s", &Chip::pcie_bytes_per_s)
      .def_ro("chips_per_host", &Chip::chips_per_host)
      .def_ro("cores_per_chip", &Chip::cores_per_chip)
      .def_ro("compute_units", &Chip::compute_units, "SMs or CUs as the driver reports them; 0 where the spec gives none.")
      .def_prop_ro("on_chip_capacity_bytes", &on_chip_capacity_bytes,
                   "What the chip holds on chip (L2 + SMs x per-SM memories); 0 where it cannot be totalled.")
      .def("to_json", &chip_to_json, "The spec as JSON, in the form of hardware/*.json.")
      .def("__repr__", [](const Chip& c) { return "roofline.chip('" + c.name + "')  # " + c.display_name; });

  m.def(
      "chips",
      [] {
        std::vector<Chip> out;
        for (const Chip& c : embedded_chips()) out.push_back(c);
        return out;
      },
      "The embedded chips, by name.");
  m.def(
      "chip",
      [](const nb::handle& name_or_path_arg) {
        const std::string name_or_path = path_from(name_or_path_arg);
        // A missing spec file is FileNotFoundError; an unknown name is ValueError.
        const bool path = name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json");
        return value(resolve_chip(name_or_path), path ? &name_or_path : nullptr);
      },
      nb::arg("name_or_path"),
      "An embedded chip by name ('tpu-v5e', 'h100-sxm', ...) or a chip spec JSON file.");
}

DType dtype_from(const std::string& name) {
  if (auto t = parse_dtype(name)) return *t;
  std::string known;
  for (const detail::DTypeSpelling& s : detail::kDTypeSpellings)
    if (s.type != DType::kToken) known += (known.empty() ? "" : ", ") + std::string(s.name);
  throw nb::value_error(("unknown dtype '" + name + "'; known: " + known).c_str());
}

}  // namespace roofline::python
