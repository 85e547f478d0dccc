// match(): steps 1 to 5 in order (roofline/match/match.hpp).
#include "roofline/match/match.hpp"

#include <utility>

namespace roofline {

absl::StatusOr<Match> match(const Trace& trace, const ReportOptions& options) {
  Match m(trace, options.hlo_modules);
  // 1. identify
  absl::StatusOr<std::vector<std::size_t>> devices = select_devices(trace, options.device_id);
  if (!devices.ok()) return devices.status();
  m.device_id = options.device_id;
  m.devices = *std::move(devices);
  absl::StatusOr<ChipChoice> chip = decide_chip(trace, m.devices, options.chip);
  if (!chip.ok()) return chip.status();
  m.chip = *std::move(chip);
  for (const std::string& n : m.chip.notes) m.notes.push_back(n);
  m.target_chip = options.target_chip;
  // 2. group
  OpGroups groups = group_ops(trace, m.devices);
  m.event_op = std::move(groups.event_group);
  // 3-5. find each op's cost source (attributing async pairs), cost it on
  // the chip and, with the same model, on the what-if chip.
  m.ops.reserve(groups.groups.size());
  for (OpGroup& g : groups.groups) {
    MatchedOp op{.group = std::move(g)};
    op.cost = find_cost_source(trace, op.group, m.modules);
    if (op.cost.model) {
      op.prediction = predict(*op.cost.model, *m.chip.chip);
      if (m.target_chip) op.target_prediction = predict(*op.cost.model, *m.target_chip);
    }
    m.ops.push_back(std::move(op));
  }
  for (const std::string& n : m.modules.notes()) m.notes.push_back(n);
  return m;
}

absl::StatusOr<Report> make_report(const Trace& trace, const ReportOptions& options) {
  absl::StatusOr<Match> m = match(trace, options);
  if (!m.ok()) return m.status();
  return aggregate(*m);
}

}  // namespace roofline
