// Which chip a profiled device is: the one table from what a profiler says
// about a device (its vendor, its model name, its compute capability, core
// count and memory) to the model to show and the embedded chip it denotes.
//
//   roofline::IdentifiedChip id = roofline::identify_chip(
//       {.vendor = "AMD", .model = "AMD Radeon Graphics", .compute_capability_major = 9,
//        .compute_capability_minor = 0, .core_count = 104});
//   // id.model == "AMD Instinct MI250", id.inferred, id.chip->name == "mi250"
//
// Trace readers record what the file says (roofline/trace/trace.hpp); this is
// where a device becomes a chip, so there is one list of names and one list of
// capability signatures, not one per reader. Names are matched against each
// embedded spec's `device_names` (hardware/*.json). Plain std types only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace roofline {

struct Chip;

// What a profiler reported about a device. Absent figures stay empty (every
// member has a default, so designated initializers may name only some).
struct DeviceIdentity {
  std::string vendor{};  // as reported: "Nvidia", "AMD", "Google"; may be empty
  // As reported: "TPU v6 Lite", "NVIDIA H100 80GB HBM3", "AMD Radeon Graphics".
  // Empty when the profiler gave only capabilities (XLA's GPU planes).
  std::string model{};
  // CUDA compute capability, or the AMD gfx version (gfx942 -> 9.4, gfx90a -> 9.0).
  std::optional<int> compute_capability_major{};
  std::optional<int> compute_capability_minor{};
  std::optional<int> core_count{};       // SMs (NVIDIA) / CUs (AMD)
  std::optional<double> memory_bytes{};  // device memory
};

struct IdentifiedChip {
  // The model to show: as reported, or inferred from the capabilities when
  // the device reported no name or, for AMD, one that names no chip (ROCm
  // may call any GPU "AMD Radeon Graphics", and both MI250 parts "AMD
  // Instinct MI250X / MI250"). Empty when there is neither.
  std::string model{};
  bool inferred = false;  // `model` was inferred, not reported
  // The embedded chip `model` denotes (chip_for_device_name), or nullptr.
  const Chip* chip = nullptr;
  // Set when the name leaves the part ambiguous and nothing settles it: an
  // "A100" that states no memory size and reports none.
  std::string warning{};
};

// Identifies a device. A reported name that denotes a chip is taken as it is;
// NVIDIA and TPU names are specific and never replaced. The capability
// signatures known: gfx942 with 304 CUs (MI300X; MI325X above 220 GB) or 228
// (MI300A); gfx90a with 104 CUs (one MI250 GCD; 110 CUs, an MI250X GCD, stays
// unknown); cc 7.0 / 80 SMs (V100), 8.0 / 108 (A100 40 or 80 GB), 9.0 / 132
// (H100 80 GB; H200 above 100 GB), 10.0 / 148 (B200). Inference needs the
// compute capability major and the core count.
//
// One die sold with two memory sizes under a name that may not say which
// (NVIDIA's "A100-PG509-200" board): the reported memory decides (A100 up to
// 60 GB: a100-sxm-40gb, else a100-sxm). With no memory size it is the 80 GB
// part, with a `warning`.
IdentifiedChip identify_chip(const DeviceIdentity& device);

// The embedded chip a profiler's device name denotes ("TPU v6 Lite" -> tpu-v6e,
// "NVIDIA H100 80GB HBM3" -> h100-sxm), or nullptr: the name half of
// identify_chip.
const Chip* chip_for_device_name(std::string_view device_name);

}  // namespace roofline
