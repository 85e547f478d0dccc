// Any text given as an HLO shape must parse or be refused with a located
// error; a shape that parses must print back to text that parses to the same
// shape, and its sizes must be computable (saturating, never overflowing).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "roofline/hlo/shape.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto shape = roofline::parse_shape(text);
  if (!shape.ok()) return 0;
  (void)roofline::element_count(*shape);
  (void)roofline::logical_bytes(*shape);
  (void)roofline::padded_bytes(*shape);
  auto again = roofline::parse_shape(roofline::to_string(*shape));
  if (!again.ok() || !(*again == *shape)) std::abort();
  return 0;
}
