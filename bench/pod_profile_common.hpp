// What the two pod-profile generators (pod_profile_kineto.cc,
// pod_profile_xplane.cc) share: the options, the straggler rule, the time
// stretch, reading the source trace and a buffered output file.
// make_pod_profile.cc says what is generated and what is planted.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace roofline::pod {

struct PodOptions {
  std::string source_path;
  int hosts = 0;
  std::uint64_t bytes_per_host = 0;
  std::string out_dir;
  std::uint64_t seed = 0;  // rotates which host is the straggler of a repeat
};

// What a generator did, for the summary line.
struct PodSummary {
  std::int64_t repeats = 0;            // K: copies of the source's events per file
  std::uint64_t events_per_repeat = 0;  // source events copied in each repeat
  std::uint64_t bytes_written = 0;      // all files
  std::string planted;                  // one line: the collectives that wait
};

// The host that is slow in repeat `r` (0-based).
inline int straggler_host(std::int64_t r, const PodOptions& o) {
  return static_cast<int>((static_cast<std::uint64_t>(r) + o.seed) % static_cast<std::uint64_t>(o.hosts));
}

// The straggler's clock: time `t` after `origin` runs 10% longer. Both ends
// of an event are mapped (never its duration alone), so an event nested in
// another stays nested after rounding. Precondition: t >= origin.
inline std::int64_t stretch(std::int64_t t, std::int64_t origin) { return origin + (t - origin) * 11 / 10; }

// "host07": the file stem of host `h` of `hosts` (at least two digits).
std::string host_name(int h, int hosts);

// The whole source file, gunzip'd if it is gzip (zlib reads plain files as
// they are). Errors name the file.
absl::StatusOr<std::string> read_source(const std::string& path);

// A file written through a 4 MiB buffer. The first write error is kept and
// returned by close(); later appends are dropped.
class OutputFile {
 public:
  static absl::StatusOr<OutputFile> create(const std::string& path);
  OutputFile(OutputFile&& o) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  ~OutputFile();

  void append(std::string_view s) {
    if (s.size() > kCapacity - used_) flush();
    if (s.size() >= kCapacity) return write_through(s);
    std::memcpy(buf_.data() + used_, s.data(), s.size());
    used_ += s.size();
  }
  // Room for at least `n` (<= 64) bytes at the returned pointer; commit(k)
  // keeps the first k of them.
  char* reserve(std::size_t n) {
    if (n > kCapacity - used_) flush();
    return buf_.data() + used_;
  }
  void commit(std::size_t k) { used_ += k; }
  void put_varint(std::uint64_t v) {
    char* p = reserve(10);
    std::size_t k = 0;
    while (v >= 0x80) {
      p[k++] = static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    p[k++] = static_cast<char>(v);
    commit(k);
  }

  std::uint64_t bytes_written() const { return flushed_ + used_; }
  absl::Status close();

 private:
  static constexpr std::size_t kCapacity = std::size_t{4} << 20;
  OutputFile(int fd, std::string path);
  void flush();
  void write_through(std::string_view s);

  int fd_ = -1;
  std::string path_;
  std::string buf_;
  std::size_t used_ = 0;
  std::uint64_t flushed_ = 0;
  absl::Status status_;
};

inline int varint_size(std::uint64_t v) {
  int n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

absl::Status write_kineto_pod(const PodOptions& o, PodSummary& summary);
absl::Status write_xplane_pod(const PodOptions& o, PodSummary& summary);

}  // namespace roofline::pod
