// Any bytes given as a chip spec must parse or be refused, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "roofline/chip_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto chip = roofline::parse_chip(text, "fuzz.json");
  if (chip.ok()) (void)roofline::chip_to_json(*chip);
  return 0;
}
