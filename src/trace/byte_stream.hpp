// Sequential byte sources for the trace readers: a file read in chunks, bytes
// in memory, gzip inflated on the fly (optionally on a second thread), and a
// read-only memory map for the XSpace decoder. Internal to src/trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace roofline::detail {

class ByteStream {
 public:
  virtual ~ByteStream() = default;
  // Up to `n` bytes into `dst`; 0 only at the end. Errors name the origin.
  virtual absl::StatusOr<std::size_t> read(char* dst, std::size_t n) = 0;
  // Bytes consumed from the underlying file so far (compressed bytes for gzip).
  virtual std::uint64_t raw_bytes_read() const = 0;
  // Total bytes this stream will yield when known in advance (memory), else 0.
  virtual std::uint64_t size_hint() const { return 0; }
};

class MemoryStream final : public ByteStream {
 public:
  explicit MemoryStream(std::string_view bytes) : bytes_(bytes) {}
  absl::StatusOr<std::size_t> read(char* dst, std::size_t n) override;
  std::uint64_t raw_bytes_read() const override { return pos_; }
  std::uint64_t size_hint() const override { return bytes_.size(); }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

class FileStream final : public ByteStream {
 public:
  static absl::StatusOr<std::unique_ptr<FileStream>> open(const std::string& path);
  ~FileStream() override;
  absl::StatusOr<std::size_t> read(char* dst, std::size_t n) override;
  std::uint64_t raw_bytes_read() const override { return pos_; }

 private:
  FileStream(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_;
  std::string path_;
  std::uint64_t pos_ = 0;
};

// The options that raise the two gzip limits (TraceReadOptions, CLI flags).
inline constexpr std::string_view kRaiseDecompressed =
    "--max-decompressed-bytes, TraceReadOptions::max_decompressed_bytes";
inline constexpr std::string_view kRaiseInflated = "--max-inflated-bytes, TraceReadOptions::max_inflated_bytes";

// gzip (RFC 1952, concatenated members allowed) over another stream. Fails
// once more than `max_output_bytes` came out.
// The error names `raise_with`, the option that raises the limit (none when
// empty).
std::unique_ptr<ByteStream> make_gzip_stream(std::unique_ptr<ByteStream> compressed,
                                             std::string origin, std::uint64_t max_output_bytes,
                                             std::string_view raise_with = kRaiseDecompressed);

// Runs `inner` on a background thread a few chunks ahead of the reader, so
// inflating and tokenizing overlap on two cores.
std::unique_ptr<ByteStream> make_prefetch_stream(std::unique_ptr<ByteStream> inner);

bool is_gzip(std::string_view head);

// `head`, then what `rest` yields: a stream whose first bytes were read to
// tell its format (a pipe cannot be read twice).
std::unique_ptr<ByteStream> make_prefixed_stream(std::string head, std::unique_ptr<ByteStream> rest);

// Counts what `in` yields and fails once more than `max_bytes` came out,
// naming `origin` and `raise_with`: a plain stream (a pipe) has no gzip
// layer to count it.
std::unique_ptr<ByteStream> make_bounded_stream(std::unique_ptr<ByteStream> in, std::string origin,
                                                std::uint64_t max_bytes, std::string_view raise_with);

// Up to `n` bytes from the start of `in` (fewer only at its end).
absl::StatusOr<std::string> read_head(ByteStream& in, std::size_t n);

// All that `in` yields, held in memory: more than `max_bytes` is an error
// naming `origin` and `raise_with`, met with at most 1.5x the limit held.
absl::StatusOr<std::string> read_all_bounded(ByteStream& in, std::string_view origin, std::uint64_t max_bytes,
                                             std::string_view raise_with);

// The whole of a gzip'd buffer, bounded; errors name `origin`.
absl::StatusOr<std::string> gunzip(std::string_view bytes, std::string_view origin,
                                   std::uint64_t max_output_bytes,
                                   std::string_view raise_with = kRaiseInflated);

// A read-only map of a whole file (read into memory when it cannot be mapped).
class MappedFile {
 public:
  static absl::StatusOr<MappedFile> open(const std::string& path);
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  ~MappedFile();
  std::string_view bytes() const { return {data_, size_}; }
  // Tells the kernel the pages before `offset` will not be read again, so a
  // one-pass decode of a huge file keeps a bounded resident set.
  void release_before(std::size_t offset);
  // The same for the whole file (a later read faults pages back in).
  void release_all();

 private:
  MappedFile() = default;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
  std::size_t released_ = 0;
  std::string fallback_;
};

}  // namespace roofline::detail
