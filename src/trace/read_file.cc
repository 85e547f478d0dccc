// One file, whatever its format: the one place a trace's format is told
// from its first bytes (sniff_plain, gzip first), for files, pipes and bytes
// in memory alike; the XSpace and Chrome readers (xplane/, chrome/) do the
// rest. Many files: read_traces.cc.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/trace/read.hpp"
#include "roofline/trace/read_parts.hpp"
#include "src/trace/byte_stream.hpp"
#include "src/trace/chrome/chrome_json.hpp"
#include "src/trace/xplane/xplane_decode.hpp"

namespace roofline {
namespace {

namespace fs = std::filesystem;
using detail::cat;

enum class Sniffed { kJson, kXSpace, kUnknown };

Sniffed sniff_plain(std::string_view head) {
  std::size_t i = 0;
  if (head.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
  if (i < head.size() && (head[i] == '{' || head[i] == '[')) return Sniffed::kJson;
  // An XSpace starts with one of its fields: planes (0x0A), errors (0x12),
  // warnings (0x1A) or hostnames (0x22), all length-delimited.
  if (!head.empty()) {
    const unsigned char b = static_cast<unsigned char>(head[0]);
    if (b == 0x0A || b == 0x12 || b == 0x1A || b == 0x22) return Sniffed::kXSpace;
  }
  return Sniffed::kUnknown;
}

// NotFound: the file holds no trace (a directory read skips such files).
absl::Status not_a_trace(std::string_view origin, std::string_view head) {
  std::string hex;
  for (std::size_t i = 0; i < std::min<std::size_t>(head.size(), 8); ++i) {
    char b[4];
    std::snprintf(b, sizeof b, "%02x", static_cast<unsigned char>(head[i]));
    if (!hex.empty()) hex += ' ';
    hex += b;
  }
  if (head.empty()) return absl::NotFoundError(cat(origin, ": empty file, not a trace"));
  return absl::NotFoundError(
      cat(origin, ": not a trace: neither gzip, JSON nor an XSpace protobuf (starts with ", hex, ")"));
}

using detail::file_stem;

// A pipe, FIFO or terminal (`cat t.json | roofline stats /dev/stdin`) can be
// read once and not sought. Its first 4 KiB tell the format, and the stream
// is counted while it is read, never held whole first: JSON is parsed as it
// streams (within max_decompressed_bytes, gzip'd or not), an XSpace is held
// in memory within max_inflated_bytes, and anything else (/dev/zero,
// /dev/urandom) is refused at its first bytes.
absl::StatusOr<Trace> read_stream(const std::string& path, const TraceReadOptions& options) {
  constexpr std::size_t kHead = 4096;
  ROOFLINE_ASSIGN_OR_RETURN(std::unique_ptr<detail::FileStream> file, detail::FileStream::open(path));
  ROOFLINE_ASSIGN_OR_RETURN(std::string head, detail::read_head(*file, kHead));
  std::unique_ptr<detail::ByteStream> in = detail::make_prefixed_stream(head, std::move(file));
  bool decompressed = false;
  if (detail::is_gzip(head)) {
    in = detail::make_gzip_stream(std::move(in), path, options.max_decompressed_bytes);
    ROOFLINE_ASSIGN_OR_RETURN(head, detail::read_head(*in, kHead));
    in = detail::make_prefixed_stream(head, std::move(in));
    decompressed = true;
  }
  switch (sniff_plain(head)) {
    case Sniffed::kJson:
      if (!decompressed)
        in = detail::make_bounded_stream(std::move(in), path, options.max_decompressed_bytes,
                                         detail::kRaiseDecompressed);
      return detail::read_chrome_json(*in, path, decompressed, options);
    case Sniffed::kXSpace: {
      ROOFLINE_ASSIGN_OR_RETURN(std::string bytes, detail::read_all_bounded(*in, path, options.max_inflated_bytes,
                                                                            detail::kRaiseInflated));
      return detail::decode_xplane(bytes, path, options, nullptr);
    }
    case Sniffed::kUnknown: break;
  }
  return not_a_trace(decompressed ? cat(path, " (gzip'd)") : path, head);
}

// `plan` is followed by the read of an XSpace file not gzip'd (the only one
// it would pay to read twice), ignored otherwise.
absl::StatusOr<Trace> read_whole_file(const std::string& path, const TraceReadOptions& options,
                                      detail::XPlaneReadPlan* plan) {
  char head_buf[4096];
  std::size_t head_len = 0;
  {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return absl::NotFoundError(cat(path, ": cannot open: ", std::strerror(errno)));
    struct stat st{};
    if (::fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
      ::close(fd);
      return read_stream(path, options);
    }
    ssize_t k;
    do k = ::pread(fd, head_buf, sizeof head_buf, 0);
    while (k < 0 && errno == EINTR);
    const int err = errno;
    ::close(fd);
    if (k < 0) return absl::DataLossError(cat(path, ": read failed: ", std::strerror(err)));
    head_len = static_cast<std::size_t>(k);
  }
  const std::string_view head(head_buf, head_len);
  absl::StatusOr<Trace> trace;
  if (detail::is_gzip(head)) {
    // Peek at the decompressed start to tell JSON from a gzip'd XSpace.
    std::string inner_head(4096, '\0');
    {
      ROOFLINE_ASSIGN_OR_RETURN(auto file, detail::FileStream::open(path));
      auto gz = detail::make_gzip_stream(std::move(file), path, options.max_decompressed_bytes);
      std::size_t have = 0;
      while (have < inner_head.size()) {
        ROOFLINE_ASSIGN_OR_RETURN(std::size_t k, gz->read(inner_head.data() + have, inner_head.size() - have));
        if (k == 0) break;
        have += k;
      }
      inner_head.resize(have);
    }
    const Sniffed s = sniff_plain(inner_head);
    if (s == Sniffed::kJson) {
      ROOFLINE_ASSIGN_OR_RETURN(auto file, detail::FileStream::open(path));
      std::unique_ptr<detail::ByteStream> in =
          detail::make_gzip_stream(std::move(file), path, options.max_decompressed_bytes);
      if (options.background_inflate) in = detail::make_prefetch_stream(std::move(in));
      trace = detail::read_chrome_json(*in, path, /*decompressed=*/true, options);
    } else if (s == Sniffed::kXSpace) {
      ROOFLINE_ASSIGN_OR_RETURN(auto file, detail::MappedFile::open(path));
      ROOFLINE_ASSIGN_OR_RETURN(std::string bytes, detail::gunzip(file.bytes(), path, options.max_inflated_bytes));
      trace = detail::decode_xplane(bytes, path, options, nullptr);
    } else {
      return not_a_trace(cat(path, " (gzip'd)"), inner_head);
    }
  } else {
    switch (sniff_plain(head)) {
      case Sniffed::kJson: {
        ROOFLINE_ASSIGN_OR_RETURN(auto file, detail::FileStream::open(path));
        trace = detail::read_chrome_json(*file, path, /*decompressed=*/false, options);
        break;
      }
      case Sniffed::kXSpace: {
        ROOFLINE_ASSIGN_OR_RETURN(auto file, detail::MappedFile::open(path));
        trace = detail::decode_xplane(file.bytes(), path, options, &file, plan);
        break;
      }
      case Sniffed::kUnknown: return not_a_trace(path, head);
    }
  }
  if (!trace.ok()) return trace.status();
  // jax names its JSON exports after the host; XPlanes say it themselves.
  if (trace->formats.front() == TraceFormat::kTslJson) {
    const std::string name = fs::path(path).filename().string();
    if (name != "perfetto_trace.json.gz" && name != "perfetto_trace.json") {
      const std::string host = file_stem(path);
      for (Device& d : trace->devices)
        if (d.host.empty()) d.host = host;
      for (Device& d : trace->hosts)
        if (d.host.empty()) d.host = host;
    }
  }
  return trace;
}

}  // namespace

absl::StatusOr<Trace> detail::read_file(const std::string& path, const TraceReadOptions& options,
                                        XPlaneReadPlan* plan) {
  absl::StatusOr<Trace> trace = read_whole_file(path, options, plan);
  if (trace.ok() && !options.host_timelines) {
    // Dropped before any merge, so that many files' host threads are never
    // held together.
    trace->hosts.clear();
    trace->hosts.shrink_to_fit();
  }
  return trace;
}

absl::StatusOr<Trace> parse_xplane(std::string_view bytes, std::string_view origin,
                                   const TraceReadOptions& options) {
  return detail::decode_xplane(bytes, origin, options, nullptr);
}

absl::StatusOr<Trace> parse_chrome_trace(std::string_view json, std::string_view origin,
                                         const TraceReadOptions& options) {
  detail::MemoryStream in(json);
  return detail::read_chrome_json(in, std::string(origin), /*decompressed=*/false, options);
}

absl::StatusOr<Trace> parse_trace_bytes(std::string_view bytes, std::string_view origin,
                                        const TraceReadOptions& options) {
  if (detail::is_gzip(bytes)) {
    ROOFLINE_ASSIGN_OR_RETURN(std::string plain, detail::gunzip(bytes, origin, options.max_inflated_bytes));
    const Sniffed s = sniff_plain(std::string_view(plain).substr(0, 4096));
    if (s == Sniffed::kJson) {
      detail::MemoryStream in(plain);
      return detail::read_chrome_json(in, std::string(origin), /*decompressed=*/true, options);
    }
    if (s == Sniffed::kXSpace) return detail::decode_xplane(plain, origin, options, nullptr);
    return not_a_trace(cat(origin, " (gzip'd)"), plain.substr(0, 8));
  }
  switch (sniff_plain(bytes.substr(0, 4096))) {
    case Sniffed::kJson: return parse_chrome_trace(bytes, origin, options);
    case Sniffed::kXSpace: return parse_xplane(bytes, origin, options);
    case Sniffed::kUnknown: break;
  }
  return not_a_trace(origin, bytes.substr(0, 8));
}

}  // namespace roofline
