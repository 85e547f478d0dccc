// Any bytes given as an XSpace must decode or be refused with a located
// error: no crash, no hang, no allocation beyond what the bytes can hold.
// And a read without host timelines (the report's), which does not decode
// host events where a device plane exists, must agree with the full read
// on what it reads; and the statistics' two partial reads (devices, then
// only the host events in the devices' idle gaps) must give the whole
// read's statistics to the bit (below); and a read whose host planes are
// past the limit of host timelines must be the read without them.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "roofline/measure/measured.hpp"
#include "roofline/measure/op_stats.hpp"
#include "roofline/measure/stats_partial.hpp"
#include "roofline/report/json.hpp"
#include "roofline/trace/read.hpp"
#include "src/measure/stats_file_read.hpp"
#include "src/trace/xplane/xplane_decode.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The CLI's defaults (read.hpp): the limits a user meets. Inflate output
  // is at most about 1000 times its input, and libFuzzer keeps inputs under
  // -max_len (the largest seed), so a gzip'd stat stays far below them.
  const roofline::TraceReadOptions options;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto trace = roofline::parse_xplane(bytes, "fuzz.xplane.pb", options);
  if (trace.ok()) (void)roofline::compute_op_stats(*trace);

  // The statistics' reads: the whole read's error where they fail (a
  // damaged host event outside every gap, which they never decode, lets
  // them succeed where it fails), else its statistics exactly.
  auto planned = roofline::detail::stats_of_reads(
      [&](roofline::detail::XPlaneReadPlan* plan) {
        return roofline::detail::decode_xplane(bytes, "fuzz.xplane.pb", options, nullptr, plan);
      },
      {}, false);
  if (!planned.ok()) {
    if (trace.ok() || planned.status() != trace.status()) std::abort();
  } else if (trace.ok()) {
    const roofline::detail::StatsParts& p = planned->parts;
    const roofline::TraceStats s =
        roofline::detail::finish_stats(p.devices, p.busy_self_ps, p.skew_inputs, p.rows, planned->trace.ops);
    if (roofline::to_json(planned->trace, s, SIZE_MAX).dump() !=
        roofline::to_json(*trace, roofline::compute_op_stats(*trace), SIZE_MAX).dump())
      std::abort();
    // The partial too: its ops in trace order, which ties follow.
    roofline::Trace whole = *trace;
    roofline::detail::StatsParts whole_parts = roofline::detail::compute_stats_parts(whole, {});
    if (roofline::stats_partial_json(roofline::detail::partial_of_parts(planned->trace, planned->parts, {})) !=
        roofline::stats_partial_json(roofline::detail::partial_of_parts(whole, std::move(whole_parts), {})))
      std::abort();
  }

  roofline::TraceReadOptions lean_options;
  lean_options.host_timelines = false;
  auto lean = roofline::parse_xplane(bytes, "fuzz.xplane.pb", lean_options);
  // The lean read decodes a subset of what the full read does. Without a
  // device plane (XLA:CPU) that is everything: the same error, or the same
  // ops and warnings. With one, it fails only where the full read fails
  // (a damaged host event it never decodes lets it succeed where the full
  // read fails), and otherwise has the same devices with as many events,
  // and no more ops or warnings.
  const auto has_device_plane = [](const roofline::Trace& t) {
    for (const roofline::Device& d : t.devices)
      if (d.kind != roofline::DeviceKind::kCpu) return true;
    return false;
  };
  if (!lean.ok()) {
    if (trace.ok()) std::abort();
    return 0;
  }
  if (!has_device_plane(*lean)) {
    if (!trace.ok() || lean->ops.size() != trace->ops.size() || lean->warnings != trace->warnings) std::abort();
  }
  // The report's statistics of the lean read (no op rows, integer totals)
  // split busy time as the statistics pass does.
  const roofline::MeasuredTrace m = roofline::measure(*lean, std::nullopt);
  const roofline::TraceStats s = roofline::compute_op_stats(*lean);
  std::size_t with_stats = 0;
  for (const roofline::MeasuredDevice& d : m.devices) {
    if (!d.stats) continue;
    if (with_stats >= s.devices.size()) std::abort();
    const auto &x = d.stats->categories, &y = s.devices[with_stats++].categories;
    if (x.size() != y.size()) std::abort();
    for (std::size_t i = 0; i < x.size(); ++i)
      if (x[i].category != y[i].category || x[i].count != y[i].count || x[i].total_s != y[i].total_s ||
          x[i].busy_s != y[i].busy_s)
        std::abort();
  }
  if (with_stats != s.devices.size()) std::abort();

  // Host planes past host_timelines_up_to_bytes (0: any host plane) beside
  // a device plane: the read is the lean one, with one more warning, which
  // is given exactly when the full read had host timelines to drop; the
  // statistics' reads of it are that read's.
  roofline::TraceReadOptions past_options;
  past_options.host_timelines_up_to_bytes = 0;
  auto past = roofline::parse_xplane(bytes, "fuzz.xplane.pb", past_options);
  if (!past.ok()) std::abort();  // the lean read succeeded
  {
    roofline::Trace unwarned = *past;
    const bool warned = !unwarned.warnings.empty() &&
                        unwarned.warnings.back().starts_with("fuzz.xplane.pb: host timelines not read: ");
    if (warned) unwarned.warnings.pop_back();
    if (trace.ok() && warned != (has_device_plane(*trace) && !trace->hosts.empty())) std::abort();
    if (roofline::to_json(unwarned, roofline::compute_op_stats(unwarned), SIZE_MAX).dump() !=
        roofline::to_json(*lean, s, SIZE_MAX).dump())
      std::abort();
    auto past_planned = roofline::detail::stats_of_reads(
        [&](roofline::detail::XPlaneReadPlan* plan) {
          return roofline::detail::decode_xplane(bytes, "fuzz.xplane.pb", past_options, nullptr, plan);
        },
        {}, false);
    if (!past_planned.ok()) std::abort();
    const roofline::detail::StatsParts& p = past_planned->parts;
    if (roofline::to_json(past_planned->trace,
                          roofline::detail::finish_stats(p.devices, p.busy_self_ps, p.skew_inputs, p.rows,
                                                         past_planned->trace.ops),
                          SIZE_MAX)
            .dump() != roofline::to_json(*past, roofline::compute_op_stats(*past), SIZE_MAX).dump())
      std::abort();
  }
  // A bound no file reaches is no bound: the full read, to the bit.
  roofline::TraceReadOptions unbounded_options;
  unbounded_options.host_timelines_up_to_bytes = UINT64_MAX;
  auto unbounded = roofline::parse_xplane(bytes, "fuzz.xplane.pb", unbounded_options);
  if (unbounded.ok() != trace.ok() || (!trace.ok() && unbounded.status() != trace.status())) std::abort();
  if (trace.ok() && roofline::to_json(*unbounded, roofline::compute_op_stats(*unbounded), SIZE_MAX).dump() !=
                        roofline::to_json(*trace, roofline::compute_op_stats(*trace), SIZE_MAX).dump())
    std::abort();
  if (!trace.ok()) return 0;
  if (lean->ops.size() > trace->ops.size() || lean->warnings.size() > trace->warnings.size() ||
      lean->devices.size() != trace->devices.size())
    std::abort();
  for (std::size_t i = 0; i < lean->devices.size(); ++i)
    if (lean->devices[i].events.size() != trace->devices[i].events.size()) std::abort();
  return 0;
}
