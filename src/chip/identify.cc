// Device -> chip identification (roofline/chip_identity.hpp): the capability
// signatures of the GPUs we have specs for, and the match of a reported name
// against the embedded specs' device_names. chip_for_device_name
// is the name half of it.
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include "roofline/chip.hpp"
#include "roofline/chip_identity.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"

namespace roofline {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

bool is_amd(std::string_view vendor) { return lower(vendor).find("amd") != std::string::npos; }

// `name` occurs in `dev` and does not run on into a longer model number:
// "Tesla V100" names "Tesla V100-SXM2-16GB" but not "Tesla V100S-PCIE-32GB",
// "AMD Instinct MI250" not "AMD Instinct MI250X".
bool denotes(std::string_view dev, std::string_view name) {
  for (std::size_t at = dev.find(name); at != std::string_view::npos; at = dev.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if (end == dev.size() || !std::isalnum(static_cast<unsigned char>(dev[end]))) return true;
  }
  return false;
}

// The model a GPU's capabilities denote, "" when the combination is not one
// we know. An empty vendor is taken to be NVIDIA (CUPTI planes may omit it).
std::string infer_gpu_model(std::string_view vendor, int major, int minor, int cores, double memory_bytes) {
  const std::string v = lower(vendor);
  const bool amd = v.find("amd") != std::string::npos;
  const bool nvidia = v.empty() || v.find("nvidia") != std::string::npos;
  const double gb = memory_bytes / 1e9;
  if (amd && major == 9 && minor == 4) {
    if (cores == 304) return gb > 220 ? "AMD Instinct MI325X" : "AMD Instinct MI300X";
    if (cores == 228) return "AMD Instinct MI300A";
  }
  // gfx90a: one GCD of an MI250 has 104 CUs (an MI210, the same die on a
  // PCIe card, too: same peaks); an MI250X GCD has 110 and is left unknown.
  if (amd && major == 9 && minor == 0 && cores == 104) return "AMD Instinct MI250";
  if (!nvidia || amd) return "";
  if (major == 7 && minor == 0 && cores == 80) return "Tesla V100";
  if (major == 8 && minor == 0 && cores == 108) {
    if (memory_bytes <= 0) return "NVIDIA A100";  // the size is settled (or warned about) by identify_chip
    return gb > 60 ? "NVIDIA A100-SXM4-80GB" : "NVIDIA A100-SXM4-40GB";
  }
  if (major == 9 && minor == 0 && cores == 132)
    return gb > 100 ? "NVIDIA H200" : "NVIDIA H100 80GB HBM3";
  if (major == 10 && minor == 0 && cores == 148) return "NVIDIA B200";
  return "";
}

std::string infer_gpu_model(const DeviceIdentity& d) {
  if (!d.compute_capability_major || !d.core_count) return "";
  return infer_gpu_model(d.vendor, *d.compute_capability_major, d.compute_capability_minor.value_or(0),
                         *d.core_count, d.memory_bytes.value_or(0));
}

// A die sold with two memory sizes, and the models that name each.
struct SizedFamily {
  std::string_view token;  // lower case, as a name states it: "a100"
  double split_bytes;      // at most this much memory: the small part
  std::string_view small_model, large_model;
};
constexpr SizedFamily kSizedFamilies[] = {
    // 40 GB HBM2 (a trace reports 42.3e9 B) against 80 GB HBM2e (85.0e9 B).
    {"a100", 60e9, "NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB"},
};

// A name that states the family but not the memory size: "NVIDIA
// A100-PG509-200" (a 40 GB board) does, "NVIDIA A100-SXM4-80GB" does not.
const SizedFamily* ambiguous_family(std::string_view model) {
  const std::string m = lower(model);
  if (m.find("gb") != std::string::npos) return nullptr;
  for (const SizedFamily& f : kSizedFamilies)
    if (denotes(m, f.token)) return &f;
  return nullptr;
}

}  // namespace

const Chip* chip_for_device_name(std::string_view device_name) {
  const std::string dev = lower(device_name);
  // "NVIDIA GeForce RTX 4090 Laptop GPU" is a smaller die than the desktop
  // card whose name it contains: a laptop GPU takes only a laptop spec.
  const bool laptop = dev.find("laptop") != std::string::npos;
  const Chip* best = nullptr;
  std::size_t best_len = 0;
  for (const Chip& c : embedded_chips())
    for (const std::string& n : c.device_names)
      if (n.size() > best_len && denotes(dev, lower(n)) &&
          (!laptop || lower(n).find("laptop") != std::string::npos)) {
        best = &c;
        best_len = n.size();
      }
  return best;
}

// A name of a sized family (ambiguous_family) gets the part its memory
// size denotes, the large one with a warning when there is none.
void settle_size(IdentifiedChip& id, std::optional<double> memory_bytes) {
  const SizedFamily* f = ambiguous_family(id.model);
  if (!f) return;
  const bool small = memory_bytes && *memory_bytes <= f->split_bytes;
  id.chip = chip_for_device_name(small ? f->small_model : f->large_model);
  if (memory_bytes || !id.chip) return;
  const Chip* other = chip_for_device_name(f->small_model);
  id.warning = detail::cat("'", id.model, "' does not say its memory size and the trace does not report it; taking ",
                           id.chip->name, " (HBM ", format_si(id.chip->hbm_bytes_per_s, "B/s", 4), ")");
  if (other)
    id.warning += detail::cat(", not ", other->name, " (HBM ", format_si(other->hbm_bytes_per_s, "B/s", 4), ")");
}

IdentifiedChip identify_chip(const DeviceIdentity& device) {
  IdentifiedChip id{.model = device.model};
  if (!device.model.empty()) id.chip = chip_for_device_name(device.model);
  // A name that denotes a chip decides; so does any non-AMD name. An AMD name
  // may be generic, and a device with no name has only its capabilities.
  const bool may_infer = device.model.empty() || (id.chip == nullptr && is_amd(device.vendor));
  if (may_infer) {
    if (std::string inferred = infer_gpu_model(device); !inferred.empty()) {
      id.model = std::move(inferred);
      id.inferred = true;
      id.chip = chip_for_device_name(id.model);
    }
  }
  if (!id.chip) settle_size(id, device.memory_bytes);
  return id;
}

}  // namespace roofline
