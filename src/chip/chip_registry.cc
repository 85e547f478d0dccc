// The embedded chips: parsed once, on first use, from the specs compiled in
// from hardware/. A spec that fails to parse is a build defect; the chip
// tests load every one, so it cannot ship.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "absl/strings/str_join.h"
#include "roofline/chip.hpp"
#include "src/chip/embedded_specs.hpp"

namespace roofline {
namespace {

std::vector<Chip> parse_all() {
  std::vector<Chip> chips;
  for (const detail::EmbeddedSpec& spec : detail::embedded_specs()) {
    absl::StatusOr<Chip> c = parse_chip(spec.json, std::string("hardware/") + std::string(spec.file_name));
    if (!c.ok()) {
      std::fprintf(stderr, "roofline: embedded spec is invalid: %s\n",
                   std::string(c.status().message()).c_str());
      std::abort();
    }
    chips.push_back(*std::move(c));
  }
  std::sort(chips.begin(), chips.end(),
            [](const Chip& a, const Chip& b) { return a.name < b.name; });
  return chips;
}

const std::vector<Chip>& registry() {
  static const std::vector<Chip> chips = parse_all();
  return chips;
}

std::string known_names() {
  std::vector<std::string> names;
  for (const Chip& c : registry()) names.push_back(c.name);
  return absl::StrJoin(names, ", ");
}

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

std::span<const Chip> embedded_chips() { return registry(); }

absl::StatusOr<const Chip*> find_chip(std::string_view name) {
  for (const Chip& c : registry())
    if (c.name == name) return &c;
  return absl::NotFoundError(
      detail::cat("unknown chip '", std::string(name), "'; known chips: ", known_names()));
}

const Chip& chip(std::string_view name) {
  absl::StatusOr<const Chip*> c = find_chip(name);
  if (!c.ok()) throw std::out_of_range(std::string(c.status().message()));
  return **c;
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
  for (const Chip& c : registry())
    for (const std::string& n : c.device_names)
      if (n.size() > best_len && denotes(dev, lower(n))) {
        best = &c;
        best_len = n.size();
      }
  return best;
}

}  // namespace roofline
