// The empty chip table the chip table generator itself is compiled with:
// it includes roofline/chip.hpp (through the spec parser) before the real
// table exists. Only the generator's include path has this directory.
#pragma once

namespace roofline::detail {

inline constexpr std::array<EmbeddedChip, 0> kChipTable{};

}  // namespace roofline::detail
