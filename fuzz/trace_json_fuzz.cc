// Any bytes given as a trace (JSON, gzip'd JSON, or whatever the sniffer
// makes of them) must parse or be refused with a located error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "roofline/measure/op_stats.hpp"
#include "roofline/trace/read.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The CLI's defaults (read.hpp), as in trace_xplane_fuzz.cc.
  const roofline::TraceReadOptions options;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto trace = roofline::parse_trace_bytes(bytes, "fuzz.json", options);
  if (trace.ok()) (void)roofline::compute_op_stats(*trace);
  auto plain = roofline::parse_chrome_trace(bytes, "fuzz.json", options);
  if (plain.ok()) (void)roofline::compute_op_stats(*plain);
  return 0;
}
