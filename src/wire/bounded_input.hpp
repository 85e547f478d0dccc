// Input a user names, read within a limit. A file is read in chunks and
// counted while it is read, so that /dev/zero, /dev/urandom or an endless
// pipe into /dev/stdin stops at the limit with an error instead of filling
// memory; and JSON text is checked for its nesting depth before nlohmann
// builds a document of it (a spec nested 100k deep is no spec). Header-only:
// the chip table generator compiles chip_json.cc without the library.
// Internal to src/.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "roofline/detail/cat.hpp"

namespace roofline::detail {

// The deepest JSON a spec, calibration file, model config or partial holds
// is 5 levels; 64 leaves room and keeps every walk of the document shallow.
inline constexpr int kMaxInputJsonDepth = 64;

// Checks the first bytes of a file (at least 1, up to 64 KiB) before the
// rest is read: a stream of zeros is refused at its first byte, not at the
// limit. `path` and `what` name it in the error.
using HeadCheck = absl::Status (*)(std::string_view head, const std::string& path, std::string_view what);

// A JSON object, after whitespace and a byte order mark.
inline absl::Status json_object_head(std::string_view head, const std::string& path, std::string_view what) {
  std::size_t i = head.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  if (i == head.size() || head[i] == '{') return absl::OkStatus();
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(head[i]));
  return absl::InvalidArgumentError(
      cat(path, ": byte ", i, ": invalid JSON: a ", what, " is a JSON object, this starts with byte ", hex));
}

// All of `path`, or an error naming it: a directory ("is a directory, not a
// <what>"), a file that cannot be opened (NotFound), a read error, a head
// `check_head` refuses, or more than `max_bytes` (ResourceExhausted, found
// after reading at most max_bytes + 64 KiB, whatever the file or stream).
// `raise_with` names the option that raises the limit ("" for a fixed one).
inline absl::StatusOr<std::string> read_bounded_file(const std::string& path, std::uint64_t max_bytes,
                                                     std::string_view what, HeadCheck check_head = nullptr,
                                                     std::string_view raise_with = {}) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(cat(path, ": cannot open ", what, ": ", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(cat(path, ": is a directory, not a ", what));
  }
  std::string out;
  // A regular file says its size: one allocation; a stream grows by
  // doubling, never past the limit.
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) <= max_bytes)
    out.reserve(static_cast<std::size_t>(st.st_size) + 1);
  char buf[1 << 16];
  for (;;) {
    const ssize_t k = ::read(fd, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      const int err = errno;
      ::close(fd);
      return absl::DataLossError(cat(path, ": byte ", out.size(), ": read failed: ", std::strerror(err)));
    }
    if (k == 0) break;
    if (out.size() + static_cast<std::uint64_t>(k) > max_bytes) {
      ::close(fd);
      return absl::ResourceExhaustedError(
          cat(path, ": more than ", max_bytes, " bytes, over the ", what, " limit",
              raise_with.empty() ? std::string(" (a file or stream that does not end?)")
                                 : cat(" (raise it with ", raise_with, ")")));
    }
    out.append(buf, static_cast<std::size_t>(k));
    if (check_head != nullptr && out.size() == static_cast<std::size_t>(k)) {
      if (absl::Status head = check_head(out, path, what); !head.ok()) {
        ::close(fd);
        return head;
      }
    }
  }
  ::close(fd);
  return out;
}

// The byte offset (from 0) where JSON `text` first opens a container deeper
// than `max_depth`, or npos. Strings are skipped, so a '[' inside one does
// not count; the text need not be valid JSON (nlohmann says what else is
// wrong with it).
inline std::size_t json_too_deep_at(std::string_view text, int max_depth = kMaxInputJsonDepth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

// "line:column" (both from 1) of byte offset `at` in `text`.
inline std::string text_line_column(std::string_view text, std::size_t at) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') ++line, column = 1;
    else ++column;
  }
  return cat(line, ":", column);
}

}  // namespace roofline::detail
