// A JSON document read as a stream of units (a trace event, a top-level key)
// from a JsonWindow: `unit` runs a scanner over contiguous bytes and, when the
// unit runs past the bytes read so far, refills and runs it again; values of
// any size can be skipped without holding them. Errors name the file, what was
// being read (`context`) and the byte offset. The token scanners themselves
// are json_scan.hpp; what the units mean is the caller's. Internal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "src/trace/byte_stream.hpp"
#include "src/trace/chrome/json_scan.hpp"
#include "src/trace/chrome/json_window.hpp"

namespace roofline::detail {

class JsonStream {
 public:
  // `origin` names the input in errors; `decompressed` says byte offsets
  // count decompressed bytes.
  JsonStream(ByteStream& in, std::string origin, bool decompressed, std::uint64_t max_unit_bytes)
      : w_(in, max_unit_bytes), sc_(w_), origin_(std::move(origin)), decompressed_(decompressed) {}

  JsonWindow& window() { return w_; }
  JsonScanner& scanner() { return sc_; }
  const std::string& origin() const { return origin_; }

  // What is being read, for errors: "the top-level object".
  void set_context(std::string text) {
    context_ = std::move(text);
    event_ = kNoEvent;
  }
  // The same for element `index` of traceEvents ("traceEvents[12]"), worded
  // only when an error needs it: a string per event cost 8% of a Kineto read.
  void set_event_context(std::uint64_t index) { event_ = index; }
  std::string context() const;

  // " (byte N)" or " (byte N of the decompressed JSON)".
  std::string where(const char* at) const {
    return cat(" (byte ", w_.offset(at), decompressed_ ? " of the decompressed JSON)" : ")");
  }

  // Reads the first bytes and steps over a UTF-8 byte order mark.
  absl::Status start();

  // Runs `fn(p)` (returning R) over contiguous bytes from the cursor,
  // refilling and re-running on kMore; on kOk the cursor moves past the unit.
  template <class Fn>
  absl::Status unit(Fn fn) {
    for (;;) {
      const char* start = w_.p;
      const char* p = start;
      sc_.scratch.clear();
      const R r = fn(p);
      if (r == R::kOk) {
        w_.p = p;
        return absl::OkStatus();
      }
      if (r == R::kErr) return scan_error();
      ROOFLINE_RETURN_IF_ERROR(refill_or_fail(start));
    }
  }

  // Skips whitespace across refills; false at the end of the data.
  absl::StatusOr<bool> skip_ws();

  // Skips a value of any size without keeping it (e.g. a huge stackFrames).
  absl::Status skip_value();

 private:
  absl::Status scan_error() const;
  // After kMore: reads on, keeping [keep, end); an error (naming the
  // context) when nothing came.
  absl::Status refill_or_fail(const char* keep);

  static constexpr std::uint64_t kNoEvent = ~std::uint64_t{0};

  JsonWindow w_;
  JsonScanner sc_;
  std::string origin_;
  bool decompressed_;
  std::string context_ = "the top-level value";
  std::uint64_t event_ = kNoEvent;
};

}  // namespace roofline::detail
