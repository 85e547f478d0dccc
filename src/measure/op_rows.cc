// One op row's figures from its self times (count, total, mean, median,
// min, max, share), self times as ascending runs and their union, and the
// order rows are listed in: what a pass over the events, a merge of
// partials and the match stage's measurement share (op_stats_parts.hpp).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "src/measure/op_stats_parts.hpp"

namespace roofline::detail {
namespace {

constexpr double kPs = 1e-12;

}  // namespace

void fill_identity(OpStat& s, const OpInfo& info) {
  s.name = info.name;
  s.module = info.module;
  s.program_id = info.program_id;
  s.kernel = info.kernel;
  s.category = info.category;
  s.op_class = info.op_class;
  s.flops = info.flops;
  s.bytes_accessed = info.bytes_accessed;
}

// The figures of one row from its self times as ascending runs; the sum is
// taken in ascending order, one addition per occurrence, so that a row
// finished from merged runs (stats_partial.hpp) adds the same doubles in the
// same order as one pass over all its events.
OpStat finish_op(const OpInfo& info, std::uint32_t op, bool async, const std::vector<DurationRun>& runs,
                 double denominator_s) {
  OpStat s;
  s.op = op;
  s.async = async;
  fill_identity(s, info);
  std::int64_t n = 0;
  double total = 0;
  for (const DurationRun& r : runs) {
    n += r.count;
    for (std::int64_t i = 0; i < r.count; ++i) total += static_cast<double>(r.self_ps);
  }
  // The k-th smallest (0-based) self time.
  auto nth = [&](std::int64_t k) {
    for (const DurationRun& r : runs) {
      if (k < r.count) return static_cast<double>(r.self_ps);
      k -= r.count;
    }
    return static_cast<double>(runs.back().self_ps);
  };
  s.count = n;
  s.total_s = total * kPs;
  s.mean_s = s.total_s / static_cast<double>(n);
  s.median_s = (n % 2 == 1 ? nth(n / 2) : 0.5 * (nth(n / 2 - 1) + nth(n / 2))) * kPs;
  s.min_s = static_cast<double>(runs.front().self_ps) * kPs;
  s.max_s = static_cast<double>(runs.back().self_ps) * kPs;
  s.share = denominator_s > 0 ? s.total_s / denominator_s : 0;
  return s;
}

// What fill_busy reads of an op's statistics (identity, count, total), for
// a pass that wants no op rows: exactly finish_op's, given a total below
// kExactPs.
OpStat op_totals(const OpInfo& info, std::uint32_t op, bool async, std::int64_t count, std::int64_t total_ps) {
  OpStat s;
  s.op = op;
  s.async = async;
  fill_identity(s, info);
  s.count = count;
  s.total_s = static_cast<double>(total_ps) * kPs;
  return s;
}

namespace {

// Ascending order, as std::sort gives it; by bytes (least significant
// first, skipping the bytes all values share) for the long vectors of a
// pod's devices, where one op runs hundreds of thousands of times.
void sort_self_times(std::vector<std::int64_t>& v) {
  if (v.size() < 4096) {
    std::sort(v.begin(), v.end());
    return;
  }
  constexpr std::uint64_t kSign = std::uint64_t{1} << 63;  // signed order as unsigned
  auto key = [](std::int64_t x) { return static_cast<std::uint64_t>(x) ^ kSign; };
  std::uint64_t any = 0, all = ~std::uint64_t{0};
  for (std::int64_t x : v) {
    any |= key(x);
    all &= key(x);
  }
  std::vector<std::int64_t> buf(v.size());
  std::int64_t* from = v.data();
  std::int64_t* to = buf.data();
  for (int shift = 0; shift < 64; shift += 8) {
    if ((((any ^ all) >> shift) & 0xff) == 0) continue;
    std::size_t at[257] = {};
    for (std::size_t i = 0; i < v.size(); ++i) ++at[((key(from[i]) >> shift) & 0xff) + 1];
    for (int b = 0; b < 256; ++b) at[b + 1] += at[b];
    for (std::size_t i = 0; i < v.size(); ++i) to[at[(key(from[i]) >> shift) & 0xff]++] = from[i];
    std::swap(from, to);
  }
  if (from != v.data()) std::copy(from, from + v.size(), v.data());
}

// Ops that keep the device busy: not in flight on an async line, not a
// stream waiting.
bool busy_row(const OpStat& o) { return !o.async && o.op_class != OpClass::kSync; }

// Ops in flight on async lines and sync waits are listed after the ops that
// keep the device busy.
bool by_total(const OpStat& a, const OpStat& b) {
  if (busy_row(a) != busy_row(b)) return busy_row(a);
  if (a.total_s != b.total_s) return a.total_s > b.total_s;
  if (a.op != b.op) return a.op < b.op;
  return a.async < b.async;  // an op's row on an async line and on an op line: a total order
}

}  // namespace

std::vector<DurationRun> to_runs(std::vector<std::int64_t>& v) {
  sort_self_times(v);
  std::vector<DurationRun> out;
  for (std::int64_t x : v) {
    if (!out.empty() && out.back().self_ps == x) ++out.back().count;
    else out.push_back({.self_ps = x, .count = 1});
  }
  return out;
}

// The runs of the union of two multisets given as runs: what to_runs gives
// for their self times together.
void add_runs(std::vector<DurationRun>& into, const std::vector<DurationRun>& more) {
  std::vector<DurationRun> out;
  out.reserve(into.size() + more.size());
  auto a = into.cbegin();
  auto b = more.cbegin();
  while (a != into.cend() || b != more.cend()) {
    DurationRun next;
    if (b == more.cend() || (a != into.cend() && a->self_ps < b->self_ps)) next = *a++;
    else if (a == into.cend() || b->self_ps < a->self_ps) next = *b++;
    else next = {.self_ps = a->self_ps, .count = (a++)->count + (b++)->count};
    out.push_back(next);
  }
  into = std::move(out);
}

void sort_by_total(std::vector<OpStat>& ops) { std::sort(ops.begin(), ops.end(), by_total); }

}  // namespace roofline::detail
