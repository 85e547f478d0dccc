// Any bytes given as a trace (JSON, gzip'd JSON, or whatever the sniffer
// makes of them) must parse or be refused with a located error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "roofline/trace/op_stats.hpp"
#include "roofline/trace/read.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  roofline::TraceReadOptions options;
  options.max_decompressed_bytes = std::uint64_t{16} << 20;
  options.max_json_event_bytes = std::uint64_t{1} << 20;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto trace = roofline::parse_trace_bytes(bytes, "fuzz.json", options);
  if (trace.ok()) (void)roofline::compute_op_stats(*trace);
  auto plain = roofline::parse_chrome_trace(bytes, "fuzz.json", options);
  if (plain.ok()) (void)roofline::compute_op_stats(*plain);
  return 0;
}
