#include "src/trace/chrome/json_stream.hpp"

#include <cstring>

namespace roofline::detail {

absl::Status JsonStream::start() {
  auto grew = w_.refill(w_.p);
  if (!grew.ok()) return grew.status();
  if (w_.end - w_.p >= 3 && std::memcmp(w_.p, "\xEF\xBB\xBF", 3) == 0) w_.p += 3;  // BOM
  return absl::OkStatus();
}

std::string JsonStream::context() const {
  return event_ == kNoEvent ? context_ : cat("traceEvents[", event_, "]");
}

absl::Status JsonStream::scan_error() const {
  return absl::DataLossError(cat(origin_, ": ", context(), ": ", sc_.error, where(sc_.error_at)));
}

absl::Status JsonStream::refill_or_fail(const char* keep) {
  auto grew = w_.refill(keep);
  if (!grew.ok()) {
    // The input stream's own errors (a gzip fault, a limit) already name
    // the file; only the window's (one value too large) needs it.
    const std::string message(grew.status().message());
    if (message.starts_with(origin_ + ": ")) return grew.status();
    return absl::Status(grew.status().code(), cat(origin_, ": ", message));
  }
  if (!*grew)
    return absl::DataLossError(cat(origin_, ": truncated JSON: the data ends inside ", context(), where(w_.end)));
  return absl::OkStatus();
}

absl::StatusOr<bool> JsonStream::skip_ws() {
  for (;;) {
    while (JsonScanner::is_ws(*w_.p)) ++w_.p;
    if (w_.p < w_.end) {
      if (*w_.p == '\0') return absl::DataLossError(cat(origin_, ": unexpected NUL byte", where(w_.p)));
      return true;
    }
    auto grew = w_.refill(w_.p);
    if (!grew.ok()) return grew.status();
    if (!*grew) return false;
  }
}

namespace {

// Where a skipped value ends, scanned a byte at a time so that the state
// (depth, inside a string, after a backslash) survives a refill.
struct SkipState {
  int depth = 0;
  bool in_string = false, escaped = false, started = false;

  // Scans [c, end); returns where the value ends (at the enclosing ',' or
  // bracket for a scalar, past the closing quote or bracket otherwise), or
  // nullptr when it goes on past `end`.
  const char* scan(const char* c, const char* end) {
    for (; c < end; ++c) {
      const char ch = *c;
      if (in_string) {
        if (escaped) escaped = false;
        else if (ch == '\\') escaped = true;
        else if (ch == '"') {
          in_string = false;
          if (depth == 0) return c + 1;
        }
        continue;
      }
      if (ch == '"') {
        in_string = true;
        started = true;
      } else if (ch == '{' || ch == '[') {
        ++depth;
        started = true;
      } else if (ch == '}' || ch == ']') {
        if (depth == 0) return c;  // a scalar ended at the enclosing bracket
        if (--depth == 0) return c + 1;
      } else if (ch == ',' && depth == 0 && started) {
        return c;
      } else if (!JsonScanner::is_ws(ch)) {
        started = true;
      }
    }
    return nullptr;
  }
};

}  // namespace

absl::Status JsonStream::skip_value() {
  SkipState s;
  for (;;) {
    if (const char* done = s.scan(w_.p, w_.end)) {
      w_.p = done;
      return absl::OkStatus();
    }
    w_.p = w_.end;
    auto grew = w_.refill(w_.p);
    if (!grew.ok()) return grew.status();
    if (!*grew) {
      if (s.depth == 0 && s.started && !s.in_string) return absl::OkStatus();
      return absl::DataLossError(cat(origin_, ": truncated JSON: the data ends inside ", context(), where(w_.end)));
    }
  }
}

}  // namespace roofline::detail
