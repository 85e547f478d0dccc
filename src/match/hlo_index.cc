// Finding an XLA op's HLO instruction (roofline/match/hlo_index.hpp).
#include "roofline/match/hlo_index.hpp"

#include <set>
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

HloModuleIndex::Found HloModuleIndex::find(const OpInfo& op) {
  const std::string_view name = strip_percent(op.name);
  // A given module of the op's module name replaces the embedded HLO: the
  // caller asked for it (a re-dump, an edited module), so it alone decides.
  bool replaced = false;
  if (extra_ && !op.module.empty())
    for (const HloModule& m : *extra_)
      if (m.name() == op.module) {
        replaced = true;
        if (const HloInstruction* inst = m.instruction(name)) return {inst, true};
      }
  if (replaced) return {};
  // Embedded modules: the program id is exact; the name is a fallback.
  for (std::size_t i = 0; i < trace_->hlo_modules.size(); ++i) {
    const HloModuleBytes& m = trace_->hlo_modules[i];
    const bool same_program = op.program_id && m.program_id && *op.program_id == *m.program_id;
    const bool same_name = !op.module.empty() && m.module == op.module && (!op.program_id || !m.program_id);
    if (!same_program && !same_name) continue;
    if (const HloModule* mod = embedded(i))
      if (const HloInstruction* inst = mod->instruction(name)) return {inst, false};
  }
  if (!extra_) return {};
  // Traces that do not name modules (or name them differently from the
  // dump) still match by instruction name when exactly one module has it.
  const HloInstruction* only = nullptr;
  int hits = 0;
  for (const HloModule& m : *extra_)
    if (const HloInstruction* inst = m.instruction(name)) only = inst, ++hits;
  return hits == 1 ? Found{only, true} : Found{};
}

std::vector<std::string> HloModuleIndex::unused_given_notes() const {
  std::vector<std::string> notes;
  if (!extra_) return notes;
  std::set<std::string_view> named;
  for (const OpInfo& op : trace_->ops)
    if (!op.module.empty()) named.insert(op.module);
  if (named.empty()) return notes;
  for (const HloModule& m : *extra_) {
    if (named.count(m.name())) continue;
    std::string known;
    for (std::string_view n : named) {
      if (known.size() > 200) { known += ", ..."; break; }
      known += detail::cat(known.empty() ? "" : ", ", n);
    }
    notes.push_back(detail::cat("given HLO module ", m.name(), " (", m.config().origin,
                                ") names no module of the trace (", known,
                                "): it replaced nothing and matched ops by instruction name only"));
  }
  return notes;
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
