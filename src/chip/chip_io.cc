// Chips named from outside the program: names a user typed, spec files,
// profiler device names. The embedded chips themselves are header-only
// (roofline/detail/embedded_chips.hpp).
#include "roofline/chip_io.hpp"

#include <cctype>
#include <filesystem>
#include <string>

namespace roofline {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

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

}  // namespace

absl::StatusOr<const Chip*> find_chip(std::string_view name) {
  for (const Chip& c : embedded_chips())
    if (c.name == name) return &c;
  return absl::NotFoundError(detail::unknown_chip_message(name));
}

absl::StatusOr<Chip> resolve_chip(const std::string& name_or_path) {
  absl::StatusOr<const Chip*> c = find_chip(name_or_path);
  if (c.ok()) return **c;
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec)) return load_chip(name_or_path);
  return c.status();
}

const Chip* chip_for_device_name(std::string_view device_name) {
  const std::string dev = lower(device_name);
  const Chip* best = nullptr;
  std::size_t best_len = 0;
  for (const Chip& c : embedded_chips())
    for (const std::string& n : c.device_names)
      if (n.size() > best_len && denotes(dev, lower(n))) {
        best = &c;
        best_len = n.size();
      }
  return best;
}

}  // namespace roofline
