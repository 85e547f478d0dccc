// The HLO modules a trace's XLA ops may come from: those the profiler
// embedded in an .xplane.pb (parsed on first use) and those the caller gave
// (ReportOptions::hlo_modules, the CLI's --hlo). A given module replaces the
// embedded one of the same name: it is what the caller asked to cost from.
// Models found here (HloModel) point into these modules: the index must
// outlive them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "roofline/hlo/module.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

class HloModuleIndex {
 public:
  // `trace` and `extra` (may be null) must outlive the index.
  HloModuleIndex(const Trace& trace, const std::vector<HloModule>* extra);

  struct Found {
    const HloInstruction* instruction = nullptr;  // nullptr: no module has it
    bool given = false;  // from a given module (--hlo), not the embedded HLO
  };

  // The instruction `op` names: in a given module of its module name (which
  // replaces the embedded one), else in the embedded module of its program
  // id (or, without ids, of its module name), else in the one given module
  // that has an instruction of that name (a trace that does not name its
  // modules, or names them otherwise than the dump).
  Found find(const OpInfo& op);

  // A note for each given module whose name no op of `trace` carries: it
  // replaced nothing and matched ops only by instruction name. Empty when
  // the trace names no modules at all.
  std::vector<std::string> unused_given_notes() const;

  bool has_modules() const;

  // Embedded modules that could not be read, one line each, in the order
  // they were first needed.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  const HloModule* embedded(std::size_t i);

  const Trace* trace_;
  const std::vector<HloModule>* extra_;
  std::vector<std::string> notes_;
  // One slot per embedded module: unparsed (null), unreadable (nullopt) or parsed.
  std::vector<std::unique_ptr<std::optional<HloModule>>> parsed_;
};

}  // namespace roofline
