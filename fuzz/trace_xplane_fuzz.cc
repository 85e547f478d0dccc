// Any bytes given as an XSpace must decode or be refused with a located
// error: no crash, no hang, no allocation beyond what the bytes can hold.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "roofline/trace/op_stats.hpp"
#include "roofline/trace/read.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The CLI's defaults (read.hpp): the limits a user meets. Inflate output
  // is at most about 1000 times its input, and libFuzzer keeps inputs under
  // -max_len (the largest seed), so a gzip'd stat stays far below them.
  const roofline::TraceReadOptions options;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto trace = roofline::parse_xplane(bytes, "fuzz.xplane.pb", options);
  if (trace.ok()) (void)roofline::compute_op_stats(*trace);
  return 0;
}
