// A sliding window over a ByteStream for a tokenizer that parses one unit
// (a trace event, a top-level key) at a time from contiguous memory. When a
// unit runs past the bytes read so far the tokenizer reports "need more", the
// window keeps the unit's bytes, reads on, and the unit is parsed again: no
// tokenizer state crosses a refill. The window always ends with a NUL
// sentinel, so scanners stop at the end without bounds checks, and has
// kJsonWindowPadding readable bytes after it, so a vector scan may load a
// whole block that starts before the end. Internal.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "roofline/detail/cat.hpp"
#include "src/trace/byte_stream.hpp"

namespace roofline::detail {

inline constexpr std::size_t kJsonWindowPadding = 64;

class JsonWindow {
 public:
  // The window holds two chunks of 128 KiB (more when one unit needs it),
  // or less when the whole input is known to be smaller: small enough that
  // what read() copies in is still in L2 when it is scanned (2 MiB windows
  // were some 5% slower end to end on a Kineto trace).
  JsonWindow(ByteStream& in, std::uint64_t max_unit_bytes)
      : in_(in), max_unit_(max_unit_bytes), cap_(initial_capacity(in)), buf_(allocate(cap_)) {
    p = end = buf_.get();
    buf_[0] = '\0';
  }

  const char* p;    // parse position
  const char* end;  // one past the data read so far; *end == '\0'

  bool eof() const { return eof_; }
  std::uint64_t offset(const char* at) const {
    return base_ + static_cast<std::uint64_t>(at - buf_.get());
  }

  // Keeps [keep, end), moves it to the front and reads more after it; `p`
  // keeps pointing at the same byte. Returns false when the stream has ended
  // and nothing new arrived.
  absl::StatusOr<bool> refill(const char* keep) {
    const std::size_t keep_len = static_cast<std::size_t>(end - keep);
    const std::size_t p_off = static_cast<std::size_t>(p - keep);
    if (keep_len > cap_ / 2) {
      if (keep_len > max_unit_)
        return absl::ResourceExhaustedError(
            cat("byte ", offset(keep), ": a single JSON value is larger than ", max_unit_,
                " bytes (TraceReadOptions::max_json_event_bytes)"));
      std::unique_ptr<char[]> bigger = allocate(cap_ * 2);
      std::copy(keep, end, bigger.get());
      base_ += static_cast<std::uint64_t>(keep - buf_.get());
      buf_ = std::move(bigger);
      cap_ *= 2;
    } else {
      base_ += static_cast<std::uint64_t>(keep - buf_.get());
      std::memmove(buf_.get(), keep, keep_len);
    }
    char* data = buf_.get();
    std::size_t have = keep_len;
    bool grew = false;
    while (!eof_ && have < cap_) {
      auto k = in_.read(data + have, cap_ - have);
      if (!k.ok()) return k.status();
      if (*k == 0) {
        eof_ = true;
        break;
      }
      have += *k;
      grew = true;
      if (have >= cap_ / 2) break;  // enough to go on with
    }
    data[have] = '\0';
    p = data + p_off;
    end = data + have;
    return grew;
  }

 private:
  // `cap` bytes, the sentinel and the padding (zeroed: never uninitialized
  // memory, even where a scan only looks and ignores what it saw).
  static std::unique_ptr<char[]> allocate(std::size_t cap) {
    std::unique_ptr<char[]> b(new char[cap + 1 + kJsonWindowPadding]);
    std::memset(b.get() + cap, 0, 1 + kJsonWindowPadding);
    return b;
  }

  static std::size_t initial_capacity(const ByteStream& in) {
    constexpr std::size_t kDefault = std::size_t{256} << 10;
    const std::uint64_t hint = in.size_hint();
    if (hint == 0 || hint >= kDefault) return kDefault;
    return std::max<std::size_t>(static_cast<std::size_t>(hint) + 64, 256);
  }

  ByteStream& in_;
  std::uint64_t max_unit_;
  std::size_t cap_;
  std::unique_ptr<char[]> buf_;
  std::uint64_t base_ = 0;
  bool eof_ = false;
};

}  // namespace roofline::detail
