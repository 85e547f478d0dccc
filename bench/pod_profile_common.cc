// Reading the source trace and writing the generated files.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "bench/pod_profile_common.hpp"

namespace roofline::pod {

std::string host_name(int h, int hosts) {
  int width = 2;
  for (int n = hosts - 1; n >= 100; n /= 10) ++width;
  std::string digits = std::to_string(h);
  if (static_cast<int>(digits.size()) < width) digits.insert(0, static_cast<std::size_t>(width) - digits.size(), '0');
  return "host" + digits;
}

absl::StatusOr<std::string> read_source(const std::string& path) {
  // open() first: gzopen's failure does not always say why.
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return absl::NotFoundError(path + ": cannot open the source trace (" + std::strerror(errno) + ")");
  gzFile f = gzdopen(fd, "rb");
  if (f == nullptr) {
    ::close(fd);
    return absl::InternalError(path + ": gzdopen failed");
  }
  gzbuffer(f, 1 << 20);
  std::string out;
  std::string chunk(std::size_t{1} << 20, '\0');
  for (;;) {
    const int k = gzread(f, chunk.data(), static_cast<unsigned>(chunk.size()));
    if (k < 0) {
      int errnum = 0;
      std::string msg = gzerror(f, &errnum);
      gzclose(f);
      return absl::DataLossError(path + ": byte " + std::to_string(out.size()) + ": " + msg);
    }
    if (k == 0) break;
    out.append(chunk.data(), static_cast<std::size_t>(k));
  }
  gzclose(f);
  if (out.empty()) return absl::InvalidArgumentError(path + ": the source trace is empty");
  return out;
}

absl::StatusOr<OutputFile> OutputFile::create(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return absl::PermissionDeniedError(path + ": cannot create (" + std::strerror(errno) + ")");
  return OutputFile(fd, path);
}

OutputFile::OutputFile(int fd, std::string path) : fd_(fd), path_(std::move(path)), buf_(kCapacity, '\0') {}

OutputFile::OutputFile(OutputFile&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      path_(std::move(o.path_)),
      buf_(std::move(o.buf_)),
      used_(std::exchange(o.used_, 0)),
      flushed_(o.flushed_),
      status_(std::move(o.status_)) {}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void OutputFile::write_through(std::string_view s) {
  while (!s.empty() && status_.ok()) {
    const ssize_t k = ::write(fd_, s.data(), s.size());
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      status_ = absl::UnavailableError(path_ + ": write failed at byte " + std::to_string(flushed_) + " (" +
                                       std::strerror(errno) + ")");
      return;
    }
    flushed_ += static_cast<std::uint64_t>(k);
    s.remove_prefix(static_cast<std::size_t>(k));
  }
}

void OutputFile::flush() {
  const std::size_t n = used_;
  used_ = 0;
  write_through(std::string_view(buf_.data(), n));
}

absl::Status OutputFile::close() {
  flush();
  if (fd_ >= 0 && ::close(std::exchange(fd_, -1)) != 0 && status_.ok())
    status_ = absl::UnavailableError(path_ + ": close failed (" + std::strerror(errno) + ")");
  return status_;
}

}  // namespace roofline::pod
