// Any bytes read as a trace, then joined with predictions and rendered in
// every format: must report or refuse, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "roofline/chip.hpp"
#include "roofline/match/match.hpp"
#include "roofline/report/render.hpp"
#include "roofline/trace/read.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The CLI's default read limits (read.hpp), as in trace_xplane_fuzz.cc.
  auto trace = roofline::parse_trace_bytes(bytes, "fuzz", roofline::TraceReadOptions{});
  if (!trace.ok()) return 0;
  roofline::ReportOptions options;
  options.chip = &roofline::chip("h100-sxm");
  options.target_chip = &roofline::chip("tpu-v5e");
  auto report = roofline::make_report(*trace, options);
  if (!report.ok()) return 0;
  for (auto f : {roofline::ReportFormat::kText, roofline::ReportFormat::kMarkdown,
                 roofline::ReportFormat::kJson, roofline::ReportFormat::kCsv,
                 roofline::ReportFormat::kHtml})
    (void)roofline::render_report(*report, f);
  return 0;
}
