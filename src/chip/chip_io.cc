// Chips named from outside the program: names a user typed and spec files
// (profiler device names are in identify.cc). The embedded chips themselves are header-only
// (roofline/detail/embedded_chips.hpp).
#include "roofline/chip_io.hpp"

#include <filesystem>
#include <string>

namespace roofline {
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

}  // namespace roofline
