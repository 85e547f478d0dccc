// The figures of a partial read back, judged (stats_partial_check.hpp): a
// partial is a file anyone can edit, and what it says is printed as the
// statistics of a trace, so a figure no trace can give is refused where it
// is read, with the file and the JSON path, instead of reaching a table as
// "-30.5 us", a duty cycle of 750% or 99 s busy in a 104 us window.
#include "src/measure/stats_partial_check.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"

namespace roofline::detail {
namespace {

// Figures a pass computes from integer picoseconds agree to the last few
// bits, whichever way they are added (sums of doubles in another order,
// one product against another); a tampered one is off by far more.
constexpr double kRelative = 1e-6;
constexpr double kAbsoluteS = 1e-12;  // 1 ps: the trace's resolution

bool near(double a, double b) { return std::abs(a - b) <= kRelative * std::max(std::abs(a), std::abs(b)) + kAbsoluteS; }
bool at_most(double a, double b) { return a <= b + kRelative * std::abs(b) + kAbsoluteS; }
bool fraction(double v) { return v >= 0 && v <= 1 + kRelative; }

class Checker {
 public:
  explicit Checker(std::string_view origin) : origin_(origin) {}
  absl::Status error(const std::string& path, std::string_view what) const {
    return absl::InvalidArgumentError(cat(origin_, ": ", path, ": ", what));
  }

 private:
  std::string origin_;
};

#define ROOFLINE_CHECK_FIGURE(cond, path, ...) \
  if (!(cond)) return c.error(path, cat(__VA_ARGS__))

absl::Status check_op(const Checker& c, const OpStat& o, const std::string& q) {
  for (auto [key, v] : {std::pair{"total_s", o.total_s}, std::pair{"mean_s", o.mean_s},
                        std::pair{"median_s", o.median_s}, std::pair{"min_s", o.min_s}, std::pair{"max_s", o.max_s},
                        std::pair{"share", o.share}})
    ROOFLINE_CHECK_FIGURE(v >= 0, cat(q, "/", key), "expected a time or share of at least 0 (got ", v, ")");
  ROOFLINE_CHECK_FIGURE(at_most(o.min_s, o.median_s) && at_most(o.median_s, o.max_s), q + "/median_s",
                        "expected min_s <= median_s <= max_s (got ", o.min_s, ", ", o.median_s, ", ", o.max_s, ")");
  ROOFLINE_CHECK_FIGURE(at_most(o.min_s, o.mean_s) && at_most(o.mean_s, o.max_s), q + "/mean_s",
                        "expected min_s <= mean_s <= max_s (got ", o.min_s, ", ", o.mean_s, ", ", o.max_s, ")");
  ROOFLINE_CHECK_FIGURE(near(o.total_s, o.mean_s * static_cast<double>(o.count)), q + "/total_s",
                        "expected count x mean_s (", o.count, " x ", o.mean_s, "), got ", o.total_s);
  // Async and sync rows are not busy time: their share may pass 1.
  if (!o.async && o.op_class != OpClass::kSync)
    ROOFLINE_CHECK_FIGURE(fraction(o.share), q + "/share", "expected a share of the busy self time, 0 to 1 (got ",
                          o.share, ")");
  return absl::OkStatus();
}

absl::Status check_device(const Checker& c, const DeviceStats& d, std::int64_t busy_self_ps, const std::string& p) {
  for (auto [key, v] : {std::pair{"window_s", d.window_s}, std::pair{"busy_s", d.busy_s}, std::pair{"idle_s", d.idle_s},
                        std::pair{"compute_s", d.compute_s}, std::pair{"collective_s", d.collective_s},
                        std::pair{"data_movement_s", d.data_movement_s}, std::pair{"sync_s", d.sync_s}})
    ROOFLINE_CHECK_FIGURE(v >= 0, cat(p, "/", key), "expected a time of at least 0 (got ", v, ")");
  ROOFLINE_CHECK_FIGURE(at_most(d.busy_s, d.window_s), p + "/busy_s",
                        "expected at most the window (busy ", d.busy_s, " s in a window of ", d.window_s, " s)");
  ROOFLINE_CHECK_FIGURE(near(d.idle_s, d.window_s - d.busy_s), p + "/idle_s",
                        "expected window_s - busy_s (", d.window_s - d.busy_s, "), got ", d.idle_s);
  ROOFLINE_CHECK_FIGURE(fraction(d.duty_cycle), p + "/duty_cycle", "expected 0 to 1 (got ", d.duty_cycle, ")");
  if (d.window_s > 0)
    ROOFLINE_CHECK_FIGURE(near(d.duty_cycle, d.busy_s / d.window_s), p + "/duty_cycle",
                          "expected busy_s / window_s (", d.busy_s / d.window_s, "), got ", d.duty_cycle);
  ROOFLINE_CHECK_FIGURE(near(d.compute_s + d.collective_s + d.data_movement_s, d.busy_s), p + "/busy_s",
                        "expected compute_s + collective_s + data_movement_s (",
                        d.compute_s + d.collective_s + d.data_movement_s, "), got ", d.busy_s);

  std::int64_t events = 0;
  double busy_total_s = 0;
  for (std::size_t i = 0; i < d.ops.size(); ++i) {
    const OpStat& o = d.ops[i];
    ROOFLINE_RETURN_IF_ERROR(check_op(c, o, cat(p, "/ops/", i)));
    events += o.count;  // each at most 2^32 (the rows' bound), so no overflow
    if (!o.async && o.op_class != OpClass::kSync) busy_total_s += o.total_s;
  }
  ROOFLINE_CHECK_FIGURE(events == d.op_events, p + "/op_events",
                        "expected the sum of the ops' counts (", events, "), got ", d.op_events);
  ROOFLINE_CHECK_FIGURE(near(busy_total_s, static_cast<double>(busy_self_ps) * 1e-12), p + "/busy_self_ps",
                        "expected the busy ops' total self time (", busy_total_s, " s), got ", busy_self_ps, " ps");

  double charged_s = 0;
  for (std::size_t i = 0; i < d.categories.size(); ++i) {
    const CategoryStat& k = d.categories[i];
    const std::string q = cat(p, "/categories/", i);
    for (auto [key, v] : {std::pair{"total_s", k.total_s}, std::pair{"share", k.share}, std::pair{"busy_s", k.busy_s},
                          std::pair{"busy_share", k.busy_share}})
      ROOFLINE_CHECK_FIGURE(v >= 0, cat(q, "/", key), "expected at least 0 (got ", v, ")");
    ROOFLINE_CHECK_FIGURE(at_most(k.busy_s, d.busy_s), q + "/busy_s",
                          "expected at most the device's busy time (", d.busy_s, " s), got ", k.busy_s);
    ROOFLINE_CHECK_FIGURE(fraction(k.busy_share), q + "/busy_share", "expected 0 to 1 (got ", k.busy_share, ")");
    if (d.busy_s > 0)
      ROOFLINE_CHECK_FIGURE(near(k.busy_share, k.busy_s / d.busy_s), q + "/busy_share",
                            "expected busy_s / the device's busy time (", k.busy_s / d.busy_s, "), got ", k.busy_share);
    if (k.op_class != OpClass::kSync)
      ROOFLINE_CHECK_FIGURE(fraction(k.share), q + "/share", "expected 0 to 1 (got ", k.share, ")");
    charged_s += k.busy_s;
  }
  if (!d.categories.empty())
    ROOFLINE_CHECK_FIGURE(near(charged_s, d.busy_s), p + "/categories",
                          "expected their busy_s to add up to the device's busy time (", d.busy_s, " s), got ",
                          charged_s, " s");

  for (std::size_t i = 0; i < d.idle_gaps.size(); ++i) {
    const IdleGap& g = d.idle_gaps[i];
    const std::string q = cat(p, "/idle_gaps/", i);
    ROOFLINE_CHECK_FIGURE(g.duration_s >= 0 && at_most(g.duration_s, d.idle_s), q + "/duration_s",
                          "expected 0 to the device's idle time (", d.idle_s, " s), got ", g.duration_s);
    for (std::size_t k = 0; k < g.host.size(); ++k)
      ROOFLINE_CHECK_FIGURE(g.host[k].overlap_s >= 0, cat(q, "/host/", k, "/overlap_s"), "expected at least 0 (got ",
                            g.host[k].overlap_s, ")");
  }
  if (d.steps) {
    const StepStats& s = *d.steps;
    const std::string q = p + "/steps";
    ROOFLINE_CHECK_FIGURE(s.min_s >= 0, q + "/min_s", "expected at least 0 (got ", s.min_s, ")");
    ROOFLINE_CHECK_FIGURE(at_most(s.min_s, s.median_s) && at_most(s.median_s, s.max_s), q + "/median_s",
                          "expected min_s <= median_s <= max_s");
    ROOFLINE_CHECK_FIGURE(at_most(s.min_s, s.mean_s) && at_most(s.mean_s, s.max_s), q + "/mean_s",
                          "expected min_s <= mean_s <= max_s");
  }
  return absl::OkStatus();
}

#undef ROOFLINE_CHECK_FIGURE

}  // namespace

absl::Status check_partial_figures(const StatsPartial& p, std::string_view origin) {
  const Checker c(origin);
  // Each row's occurrences are those the devices count for its op.
  std::map<std::pair<std::uint32_t, bool>, std::int64_t> device_counts;
  for (std::size_t i = 0; i < p.device_stats.size(); ++i) {
    const DeviceStats& d = p.device_stats[i];
    ROOFLINE_RETURN_IF_ERROR(check_device(c, d, p.busy_self_ps[i], cat("/devices/", d.device, "/stats")));
    for (const OpStat& o : d.ops) device_counts[{o.op, o.async}] += o.count;
  }
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    const OpDurations& r = p.rows[i];
    std::int64_t n = 0;
    for (const DurationRun& run : r.runs) n += run.count;
    const auto it = device_counts.find({r.op, r.async});
    const std::int64_t devices = it == device_counts.end() ? 0 : it->second;
    if (n != devices)
      return c.error(cat("/rows/", i, "/self_ps"), cat("expected the ", devices, " occurrences the devices count for op ",
                                                       r.op, ", got ", n));
  }
  // Rows are unique by (op, async) and each matched a count above: any
  // other op the devices count has no row.
  if (device_counts.size() != p.rows.size())
    return c.error("/rows", cat("expected a row for each of the ", device_counts.size(),
                                " ops the devices count, got ", p.rows.size()));
  return absl::OkStatus();
}

}  // namespace roofline::detail
