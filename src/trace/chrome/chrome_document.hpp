// The structure of a Chrome trace-event JSON document: an object with a
// "traceEvents" array and other top-level keys, or a bare array of events
// (whose closing bracket the format lets a writer omit). Each event is
// tokenized (chrome_event_scan.hpp) and handed to a sink as it streams; of the
// other top-level values, those the sink wants are handed over whole and the
// rest skipped, however large. What the events mean is the sink's business.
// Internal.
#pragma once

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "src/trace/chrome/chrome_event_scan.hpp"
#include "src/trace/chrome/json_stream.hpp"

namespace roofline::detail {

class ChromeDocumentSink {
 public:
  virtual ~ChromeDocumentSink() = default;
  // traceEvents[index], its fields valid during the call.
  virtual absl::Status event(const EventFields& f, std::uint64_t index) = 0;
  // Whether the top-level value under `key` is to be read (else skipped).
  virtual bool wants(std::string_view key) const = 0;
  // A wanted top-level value as JSON text, valid during the call.
  virtual absl::Status top_level(std::string_view key, std::string_view json) = 0;
};

// Reads the whole document. Errors: not JSON of either shape, no traceEvents
// (NotFound: JSON, but not a trace), truncation, data after the value.
absl::Status read_chrome_document(JsonStream& stream, ChromeDocumentSink& sink);

}  // namespace roofline::detail
