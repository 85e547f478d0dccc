// The embedded chips: parsed once, on first use, from the specs compiled in
// from hardware/. A spec that fails to parse is a build defect; the chip
// tests load every one, so it cannot ship.
#include <algorithm>
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

// chip_for_device_name() is in identify.cc, with the rest of device -> chip
// identification (roofline/chip_identity.hpp).

}  // namespace roofline
