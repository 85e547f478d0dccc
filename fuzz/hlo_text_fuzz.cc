// Any text given as an HLO module must parse or be refused with a located
// error, never crash, hang or read out of bounds. A module that parses is
// costed and predicted too, so malformed attributes and call graphs reach
// the cost model.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "roofline/chip.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = roofline::parse_hlo_text(text, "fuzz.hlo");
  if (!module.ok()) return 0;
  static const roofline::Chip& chip = roofline::chip("tpu-v5e");
  (void)roofline::predict(*module, chip);
  return 0;
}
