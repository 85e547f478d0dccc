#include "roofline/hlo/opcode.hpp"

#include "absl/container/flat_hash_map.h"

namespace roofline {
namespace {

constexpr std::string_view kNames[] = {
#define ROOFLINE_HLO_OPCODE_NAME_(e, s) s,
    ROOFLINE_HLO_OPCODES(ROOFLINE_HLO_OPCODE_NAME_)
#undef ROOFLINE_HLO_OPCODE_NAME_
};

}  // namespace

std::string_view opcode_name(HloOpcode op) {
  const auto i = static_cast<std::size_t>(op);
  return i < std::size(kNames) ? kNames[i] : std::string_view("unknown");
}

HloOpcode opcode_from_name(std::string_view name) {
  static const auto* const index = [] {
    auto* m = new absl::flat_hash_map<std::string_view, HloOpcode>();
    for (std::size_t i = 0; i < std::size(kNames); ++i) m->emplace(kNames[i], static_cast<HloOpcode>(i));
    return m;
  }();
  auto it = index->find(name);
  return it == index->end() ? HloOpcode::kUnknown : it->second;
}

}  // namespace roofline
