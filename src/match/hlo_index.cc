// Finding an XLA op's HLO instruction (roofline/match/hlo_index.hpp).
#include "roofline/match/hlo_index.hpp"

#include <string_view>

#include "roofline/detail/cat.hpp"
#include "roofline/hlo/reader.hpp"

namespace roofline {
namespace {

std::string_view strip_percent(std::string_view n) {
  if (!n.empty() && n.front() == '%') n.remove_prefix(1);
  return n;
}

}  // namespace

HloModuleIndex::HloModuleIndex(const Trace& trace, const std::vector<HloModule>* extra)
    : trace_(&trace), extra_(extra), parsed_(trace.hlo_modules.size()) {}

const HloInstruction* HloModuleIndex::find(const OpInfo& op) {
  const std::string_view name = strip_percent(op.name);
  // Embedded modules: the program id is exact; the name is a fallback.
  for (std::size_t i = 0; i < trace_->hlo_modules.size(); ++i) {
    const HloModuleBytes& m = trace_->hlo_modules[i];
    const bool same_program = op.program_id && m.program_id && *op.program_id == *m.program_id;
    const bool same_name = !op.module.empty() && m.module == op.module && (!op.program_id || !m.program_id);
    if (!same_program && !same_name) continue;
    if (const HloModule* mod = embedded(i))
      if (const HloInstruction* inst = mod->instruction(name)) return inst;
  }
  if (!extra_) return nullptr;
  for (const HloModule& m : *extra_)
    if (!op.module.empty() && m.name() == op.module)
      if (const HloInstruction* inst = m.instruction(name)) return inst;
  // Traces that do not name modules (or name them differently from the
  // dump) still match by instruction name when exactly one module has it.
  const HloInstruction* only = nullptr;
  int hits = 0;
  for (const HloModule& m : *extra_)
    if (const HloInstruction* inst = m.instruction(name)) only = inst, ++hits;
  return hits == 1 ? only : nullptr;
}

bool HloModuleIndex::has_modules() const {
  return !trace_->hlo_modules.empty() || (extra_ && !extra_->empty());
}

const HloModule* HloModuleIndex::embedded(std::size_t i) {
  if (!parsed_[i]) {
    const HloModuleBytes& m = trace_->hlo_modules[i];
    auto mod = parse_hlo_proto(m.bytes, detail::cat(trace_->source, ": embedded HLO of ", m.module));
    if (mod.ok()) {
      parsed_[i] = std::make_unique<std::optional<HloModule>>(*std::move(mod));
    } else {
      notes_.push_back(detail::cat("could not read the embedded HLO of module ", m.module, ": ",
                                   std::string(mod.status().message())));
      parsed_[i] = std::make_unique<std::optional<HloModule>>();
    }
  }
  return parsed_[i]->has_value() ? &**parsed_[i] : nullptr;
}

}  // namespace roofline
