// Any bytes given as a partial statistics file (roofline stats --partial)
// must parse or be refused with a located error, never crash; what parses
// must merge with itself (refused: the same files twice) and with a copy
// under other file names, and finish. What finishes holds no figure a trace
// cannot give (issue 38: tampered partials printed a duty cycle of 750% and
// negative times): the fuzzer traps on one.
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string_view>
#include <vector>

#include "roofline/measure/stats_partial.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = roofline::parse_stats_partial(text, "fuzz.json");
  if (!p.ok()) return 0;
  // finish_stats adds one double per op event: keep inputs to a fuzzer's pace.
  std::int64_t events = 0;
  for (const roofline::DeviceStats& d : p->device_stats) events += d.op_events;
  if (events > 1'000'000) return 0;
  (void)roofline::stats_partial_json(*p);
  roofline::StatsPartial other = *p;
  for (std::string& f : other.files) f += ".other";
  other.source += ".other";
  (void)roofline::merge_partials(std::vector{*p, *p});
  auto m = roofline::merge_partials(std::vector{*p, other});
  const roofline::TraceStats s = roofline::finish_stats(m.ok() ? *m : *p);
  (void)roofline::trace_outline(m.ok() ? *m : *p);
  // The reader's tolerance (src/measure/stats_partial_check.cc) is a relative
  // 1e-6; these bounds allow it.
  auto check = [](bool ok) {
    if (!ok) __builtin_trap();
  };
  constexpr double kSlack = 1 + 1e-5;
  for (const roofline::DeviceStats& d : s.devices) {
    check(d.window_s >= 0 && d.busy_s >= 0 && d.busy_s <= d.window_s * kSlack + 1e-12);
    check(d.duty_cycle >= 0 && d.duty_cycle <= kSlack);
    for (const roofline::OpStat& o : d.ops) check(o.total_s >= 0 && o.min_s >= 0 && o.share >= 0);
    for (const roofline::CategoryStat& c : d.categories) check(c.busy_share >= 0 && c.busy_share <= kSlack);
  }
  check(s.duty_cycle >= 0 && s.duty_cycle <= kSlack);
  for (const roofline::OpStat& o : s.ops)
    check(o.total_s >= 0 && o.min_s >= 0 && o.share >= 0 &&
          (o.async || o.op_class == roofline::OpClass::kSync || o.share <= kSlack));
  return 0;
}
