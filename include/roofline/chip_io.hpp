// Chips from outside the program: spec files, names a user typed, device
// names a profiler reported. Part of the compiled roofline::roofline
// (roofline/chip.hpp, the Chip model and the embedded chips, is header-only
// roofline::core).
//
//   absl::StatusOr<roofline::Chip> c = roofline::resolve_chip(argv[1]);  // "tpu-v5e" or "my.json"
//   if (!c.ok()) { std::cerr << c.status().message() << "\n"; return 1; }
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "roofline/chip.hpp"

namespace roofline {

// The embedded chip named `name`, for names a user typed; the error lists
// the known chips ("unknown chip 'tpu-v5x'; known chips: a100-sxm, ...").
absl::StatusOr<const Chip*> find_chip(std::string_view name);

// Reads a chip spec from a JSON file. Errors name the file and the JSON path
// of the offending field: "my.json: /hbm_bytes_per_s: expected a positive number".
// The file is at most 1 MiB (a stream stops there), nested at most 64
// levels, and its `name` is the file name without .json.
absl::StatusOr<Chip> load_chip(const std::string& path);

// Parses spec text; `origin` names it in error messages.
absl::StatusOr<Chip> parse_chip(std::string_view json_text, std::string_view origin);

// A name from `embedded_chips()` or else a path to a JSON spec: an argument
// with a '/' or ending in .json is always a path (a missing one is NotFound
// "cannot open chip spec", not an unknown chip).
absl::StatusOr<Chip> resolve_chip(const std::string& name_or_path);

// The spec as JSON in the format of hardware/*.json; parse_chip() reads it
// back to an equal Chip.
std::string chip_to_json(const Chip& chip);


}  // namespace roofline
