// The ranked lists a reader wants first: what is worth fixing (the most
// time lost against the calibrated expectation: what a tuned kernel of that
// kind reaches on the chip), where the most time went against the roofline
// (what no kernel can beat), and which ops are furthest below it.
#pragma once

#include <algorithm>
#include <vector>

#include "roofline/match/report.hpp"

namespace roofline {

// Ops with a prediction, the `n` with the most time lost first: lost_s
// (measured - predicted, against the roofline) or lost_expected_s.
inline std::vector<const OpReport*> ops_by(const Report& r, std::size_t n, double OpReport::*lost) {
  std::vector<const OpReport*> out;
  for (const OpReport& op : r.ops)
    if (op.predicted) out.push_back(&op);
  std::stable_sort(out.begin(), out.end(), [lost](const OpReport* a, const OpReport* b) { return a->*lost > b->*lost; });
  if (out.size() > n) out.resize(n);
  return out;
}

// Most time lost (measured - predicted) first.
inline std::vector<const OpReport*> ops_by_time_lost(const Report& r, std::size_t n) {
  return ops_by(r, n, &OpReport::lost_s);
}

// Most time lost against the calibrated expectation (measured - expected)
// first: the ops worth fixing. An op lost against its roofline may be as
// fast as that kind of kernel gets on the chip; one lost against its
// expectation is slower than it should be.
inline std::vector<const OpReport*> ops_by_time_lost_expected(const Report& r, std::size_t n) {
  return ops_by(r, n, &OpReport::lost_expected_s);
}

// Ops with a prediction, largest measured/predicted ratio first. Ops under
// `min_share` of the measured time are left out: a 2 us op at 50x its
// roofline is launch overhead, not a lead worth following.
inline std::vector<const OpReport*> ops_furthest_below_roofline(const Report& r, std::size_t n,
                                                                double min_share = 0.001) {
  std::vector<const OpReport*> out;
  const double total = r.summary.measured_s;
  for (const OpReport& op : r.ops)
    if (op.predicted && op.prediction.t_lower_s > 0 && (total <= 0 || op.measured_s >= min_share * total))
      out.push_back(&op);
  std::stable_sort(out.begin(), out.end(),
                   [](const OpReport* a, const OpReport* b) { return a->ratio > b->ratio; });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace roofline
