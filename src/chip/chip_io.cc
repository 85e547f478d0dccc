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
  // No chip's name has a '/' or ends in .json: such an argument is a path,
  // and a missing file is said to be one ("cannot open"), not an unknown
  // chip. Anything else that exists is read as a spec too (a FIFO, a
  // directory: load_chip says what it is).
  std::error_code ec;
  const bool looks_like_path = name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json");
  if (looks_like_path || std::filesystem::exists(name_or_path, ec)) return load_chip(name_or_path);
  return c.status();
}

}  // namespace roofline
