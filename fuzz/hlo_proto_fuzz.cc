// Any bytes given as an HloProto must parse or be refused with a byte
// offset; a module that parses is costed and predicted.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "roofline/chip.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto module = roofline::parse_hlo_proto(bytes, "fuzz.pb");
  if (!module.ok()) return 0;
  static const roofline::Chip& chip = roofline::chip("h100-sxm");
  (void)roofline::predict(*module, chip);
  return 0;
}
