// Matching two reports' ops by identity, and the totals of the diff
// (roofline/report/diff.hpp).
#include "roofline/report/diff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "roofline/calibration.hpp"

namespace roofline {

std::string_view diff_change_name(DiffChange c) {
  switch (c) {
    case DiffChange::kChanged: return "changed";
    case DiffChange::kResized: return "resized";
    case DiffChange::kAppeared: return "appeared";
    case DiffChange::kVanished: return "vanished";
  }
  return "?";
}

namespace {

// Four significant digits: the cost of one occurrence is a sum of
// doubles, and the same op's sum may differ in its last bits between two
// runs of the model.
std::string rounded(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// What an op is, whatever XLA or the framework numbered it.
struct Identity {
  std::string kind, module, scope, category, shapes, cost;
  auto operator<=>(const Identity&) const = default;
};

Identity identity_of(const OpReport& op) {
  const double n = op.count > 0 ? static_cast<double>(op.count) : 1.0;
  std::string cost;
  if (op.predicted) cost = rounded(op.prediction.flops / n) + " FLOP, " + rounded(op.prediction.hbm_bytes / n) + " B";
  return {kernel_family(op.name), kernel_family(op.module), op.scope, op.category, op.shapes, cost};
}

// The number of steps a report marks: those of its first device that has
// any (each device lists the same steps).
std::int64_t steps_of(const Report& r) {
  if (r.summary.steps.empty()) return 0;
  const int device = r.summary.steps.front().device;
  return std::count_if(r.summary.steps.begin(), r.summary.steps.end(),
                       [&](const StepSummary& s) { return s.device == device; });
}

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

DiffHeadline headline(const Report& r, bool per_step) {
  DiffHeadline h;
  h.steps = steps_of(r);
  const double devices = std::max<double>(1, static_cast<double>(r.devices.size()));
  std::vector<double> steps;
  for (const StepSummary& s : r.summary.steps) steps.push_back(s.measured_s);
  h.step_time_s = h.steps > 0 ? median(steps) : r.summary.wall_s / devices;
  const double per = devices * (per_step && h.steps > 0 ? static_cast<double>(h.steps) : 1.0);
  h.busy_s = r.summary.measured_s / per;
  h.idle_s = r.summary.idle_s / per;
  h.expected_s = r.summary.expected_s / per;
  h.mfu = r.summary.mfu;
  h.duty_cycle = r.summary.duty_cycle;
  return h;
}

void add(DiffSide& side, const OpReport& op, double scale) {
  side.ops += 1;
  side.count += op.count;
  side.measured_s += op.measured_s * scale;
  // Ops measured below their roofline are left out of the report's
  // expected and roofline totals (OpReport::below_roofline); so here.
  if (op.predicted && !op.below_roofline) {
    side.expected_s += op.expected_s * scale;
    side.roofline_s += op.prediction.t_lower_s * scale;
  }
}

template <class Row>
void by_change(std::vector<Row>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::abs(a.delta_measured_s()) > std::abs(b.delta_measured_s());
  });
}

}  // namespace

ReportDiff diff(const Report& before, const Report& after) {
  ReportDiff d;
  d.before_path = before.trace_path;
  d.after_path = after.trace_path;
  d.before_chip = before.chip;
  d.after_chip = after.chip;
  const std::int64_t steps_before = steps_of(before), steps_after = steps_of(after);
  d.per_step = steps_before > 0 && steps_after > 0;
  d.before = headline(before, d.per_step);
  d.after = headline(after, d.per_step);
  if (before.chip != after.chip)
    d.notes.push_back("the chips differ (" + before.chip + " before, " + after.chip +
                      " after): expected and roofline times are each on its own chip");
  if (d.per_step) {
    if (steps_before != steps_after)
      d.notes.push_back("the profiles hold " + std::to_string(steps_before) + " and " + std::to_string(steps_after) +
                        " steps: times are per step (totals divided by the steps each marks)");
  } else {
    d.notes.push_back(std::string(steps_before == 0 && steps_after == 0 ? "neither profile marks"
                                                                        : "only one profile marks") +
                      " steps: times are totals over each profile, so profile the same work on both sides");
  }

  const double scale_before = d.per_step ? 1.0 / static_cast<double>(steps_before) : 1.0;
  const double scale_after = d.per_step ? 1.0 / static_cast<double>(steps_after) : 1.0;
  const double devices_before = std::max<double>(1, static_cast<double>(before.devices.size()));
  const double devices_after = std::max<double>(1, static_cast<double>(after.devices.size()));
  std::map<Identity, OpDiff> ops;
  std::map<std::string, GroupDiff> categories, modules;
  const auto take = [&](const Report& r, bool is_after) {
    const double scale = (is_after ? scale_after : scale_before) / (is_after ? devices_after : devices_before);
    for (const OpReport& op : r.ops) {
      const Identity id = identity_of(op);
      OpDiff& row = ops[id];
      row.kind = id.kind;
      row.module = id.module;
      row.scope = id.scope;
      row.category = id.category;
      row.shapes = id.shapes;
      std::string& example = is_after ? row.example_after : row.example_before;
      if (example.empty()) example = op.name;
      add(is_after ? row.after : row.before, op, scale);
      GroupDiff& c = categories[op.category];
      c.name = op.category;
      add(is_after ? c.after : c.before, op, scale);
      GroupDiff& m = modules[id.module];
      m.name = id.module;
      add(is_after ? m.after : m.before, op, scale);
    }
  };
  take(before, false);
  take(after, true);
  // An op that vanished and one that appeared, alone of their kind in
  // their module and category, are one op resized.
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::vector<OpDiff*>> gone, came;
  for (auto& [id, row] : ops) {
    row.change = row.before.ops == 0 ? DiffChange::kAppeared
                 : row.after.ops == 0 ? DiffChange::kVanished
                                      : DiffChange::kChanged;
    if (row.change == DiffChange::kChanged) continue;
    (row.change == DiffChange::kVanished ? gone : came)[{row.kind, row.module, row.scope, row.category}].push_back(&row);
  }
  std::set<const OpDiff*> merged;  // vanished rows now part of a resized one
  for (auto& [key, rows] : gone) {
    const auto other = came.find(key);
    if (rows.size() != 1 || other == came.end() || other->second.size() != 1) continue;
    OpDiff& old_row = *rows.front();
    OpDiff& new_row = *other->second.front();
    new_row.before = old_row.before;
    new_row.example_before = old_row.example_before;
    new_row.shapes_before = old_row.shapes;
    new_row.change = DiffChange::kResized;
    merged.insert(&old_row);
  }
  for (auto& [id, row] : ops)
    if (!merged.contains(&row)) d.ops.push_back(std::move(row));
  for (auto& [name, g] : categories) d.categories.push_back(std::move(g));
  for (auto& [name, g] : modules) d.modules.push_back(std::move(g));
  by_change(d.ops);
  by_change(d.categories);
  by_change(d.modules);
  return d;
}

}  // namespace roofline
