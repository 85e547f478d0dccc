#include "src/trace/byte_stream.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"

namespace roofline::detail {

absl::StatusOr<std::size_t> MemoryStream::read(char* dst, std::size_t n) {
  const std::size_t k = std::min(n, bytes_.size() - pos_);
  std::memcpy(dst, bytes_.data() + pos_, k);
  pos_ += k;
  return k;
}

absl::StatusOr<std::unique_ptr<FileStream>> FileStream::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(cat(path, ": cannot open: ", std::strerror(errno)));
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<FileStream>(new FileStream(fd, path));
}

FileStream::~FileStream() { ::close(fd_); }

absl::StatusOr<std::size_t> FileStream::read(char* dst, std::size_t n) {
  for (;;) {
    ssize_t k = ::read(fd_, dst, n);
    if (k >= 0) {
      pos_ += static_cast<std::uint64_t>(k);
      return static_cast<std::size_t>(k);
    }
    if (errno != EINTR)
      return absl::DataLossError(cat(path_, ": byte ", pos_, ": read failed: ", std::strerror(errno)));
  }
}

bool is_gzip(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

namespace {

class GzipStream final : public ByteStream {
 public:
  GzipStream(std::unique_ptr<ByteStream> in, std::string origin, std::uint64_t max_out, std::string_view raise_with)
      : in_(std::move(in)), origin_(std::move(origin)), max_out_(max_out), raise_with_(raise_with), inbuf_(1 << 18) {
    std::memset(&z_, 0, sizeof z_);
    // 16 + MAX_WBITS: gzip wrapper only.
    ok_ = inflateInit2(&z_, 16 + MAX_WBITS) == Z_OK;
  }
  ~GzipStream() override {
    if (ok_) inflateEnd(&z_);
  }

  absl::StatusOr<std::size_t> read(char* dst, std::size_t n) override {
    if (!ok_) return absl::InternalError(cat(origin_, ": zlib could not be initialised"));
    if (done_ || n == 0) return 0;
    z_.next_out = reinterpret_cast<Bytef*>(dst);
    z_.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
    const uInt want = z_.avail_out;
    while (z_.avail_out == want) {
      if (z_.avail_in == 0) {
        auto k = in_->read(reinterpret_cast<char*>(inbuf_.data()), inbuf_.size());
        if (!k.ok()) return k.status();
        if (*k == 0) {
          if (member_started_)
            return absl::DataLossError(cat(origin_, ": byte ", in_->raw_bytes_read(),
                                           ": truncated gzip stream (ends inside a member)"));
          done_ = true;
          break;
        }
        z_.next_in = inbuf_.data();
        z_.avail_in = static_cast<uInt>(*k);
      }
      member_started_ = true;
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        // Another member may follow (concatenated gzip files are one stream).
        member_started_ = false;
        inflateReset(&z_);
        continue;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        const std::uint64_t at = in_->raw_bytes_read() - z_.avail_in;
        return absl::DataLossError(cat(origin_, ": byte ", at, ": corrupt gzip data (",
                                       z_.msg ? z_.msg : "inflate failed", ")"));
      }
    }
    const std::size_t got = want - z_.avail_out;
    out_ += got;
    if (out_ > max_out_)
      return absl::ResourceExhaustedError(
          raise_with_.empty()
              ? cat(origin_, ": decompresses to more than ", max_out_, " bytes, over the limit; refusing")
              : cat(origin_, ": decompresses to more than ", max_out_,
                    " bytes, over the limit; refusing (a gzip bomb? raise it with ", raise_with_, ")"));
    return got;
  }
  std::uint64_t raw_bytes_read() const override { return in_->raw_bytes_read(); }

 private:
  std::unique_ptr<ByteStream> in_;
  std::string origin_;
  std::uint64_t max_out_;
  std::string_view raise_with_;
  std::vector<Bytef> inbuf_;
  z_stream z_;
  bool ok_ = false;
  bool done_ = false;
  bool member_started_ = false;
  std::uint64_t out_ = 0;
};

class PrefetchStream final : public ByteStream {
 public:
  explicit PrefetchStream(std::unique_ptr<ByteStream> inner) : inner_(std::move(inner)) {
    worker_ = std::thread([this] { produce(); });
  }
  ~PrefetchStream() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  absl::StatusOr<std::size_t> read(char* dst, std::size_t n) override {
    while (cur_pos_ == cur_.size()) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return !queue_.empty() || finished_; });
      if (queue_.empty()) {
        if (!status_.ok()) return status_;
        return 0;
      }
      cur_ = std::move(queue_.front());
      queue_.pop_front();
      cur_pos_ = 0;
      cv_.notify_all();
    }
    const std::size_t k = std::min(n, cur_.size() - cur_pos_);
    std::memcpy(dst, cur_.data() + cur_pos_, k);
    cur_pos_ += k;
    return k;
  }
  std::uint64_t raw_bytes_read() const override { return raw_.load(); }

 private:
  static constexpr std::size_t kChunk = 1 << 20;
  static constexpr std::size_t kDepth = 4;

  void produce() {
    for (;;) {
      std::vector<char> buf(kChunk);
      std::size_t have = 0;
      absl::Status st;
      while (have < kChunk) {
        auto k = inner_->read(buf.data() + have, kChunk - have);
        if (!k.ok()) {
          st = k.status();
          break;
        }
        if (*k == 0) break;
        have += *k;
      }
      raw_.store(inner_->raw_bytes_read());
      buf.resize(have);
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return queue_.size() < kDepth || stop_; });
      if (stop_) return;
      if (have > 0) queue_.push_back(std::move(buf));
      if (!st.ok() || have < kChunk) {
        status_ = st;
        finished_ = true;
        cv_.notify_all();
        return;
      }
      cv_.notify_all();
    }
  }

  std::unique_ptr<ByteStream> inner_;
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<char>> queue_;
  bool finished_ = false;
  bool stop_ = false;
  absl::Status status_;
  std::vector<char> cur_;
  std::size_t cur_pos_ = 0;
  std::atomic<std::uint64_t> raw_{0};
};

class PrefixedStream final : public ByteStream {
 public:
  PrefixedStream(std::string head, std::unique_ptr<ByteStream> rest) : head_(std::move(head)), rest_(std::move(rest)) {}
  absl::StatusOr<std::size_t> read(char* dst, std::size_t n) override {
    if (pos_ < head_.size()) {
      const std::size_t k = std::min(n, head_.size() - pos_);
      std::memcpy(dst, head_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return rest_->read(dst, n);
  }
  std::uint64_t raw_bytes_read() const override { return rest_->raw_bytes_read(); }

 private:
  std::string head_;
  std::size_t pos_ = 0;
  std::unique_ptr<ByteStream> rest_;
};

class BoundedStream final : public ByteStream {
 public:
  BoundedStream(std::unique_ptr<ByteStream> in, std::string origin, std::uint64_t max, std::string_view raise_with)
      : in_(std::move(in)), origin_(std::move(origin)), max_(max), raise_with_(raise_with) {}
  absl::StatusOr<std::size_t> read(char* dst, std::size_t n) override {
    ROOFLINE_ASSIGN_OR_RETURN(std::size_t k, in_->read(dst, n));
    out_ += k;
    if (out_ > max_)
      return absl::ResourceExhaustedError(cat(origin_, ": more than ", max_,
                                              " bytes on the stream, over the read limit (raise it with ", raise_with_,
                                              ")"));
    return k;
  }
  std::uint64_t raw_bytes_read() const override { return in_->raw_bytes_read(); }

 private:
  std::unique_ptr<ByteStream> in_;
  std::string origin_;
  std::uint64_t max_;
  std::string_view raise_with_;
  std::uint64_t out_ = 0;
};

}  // namespace

std::unique_ptr<ByteStream> make_prefixed_stream(std::string head, std::unique_ptr<ByteStream> rest) {
  return std::make_unique<PrefixedStream>(std::move(head), std::move(rest));
}

std::unique_ptr<ByteStream> make_bounded_stream(std::unique_ptr<ByteStream> in, std::string origin,
                                                std::uint64_t max_bytes, std::string_view raise_with) {
  return std::make_unique<BoundedStream>(std::move(in), std::move(origin), max_bytes, raise_with);
}

absl::StatusOr<std::string> read_head(ByteStream& in, std::size_t n) {
  std::string head(n, '\0');
  std::size_t have = 0;
  while (have < n) {
    ROOFLINE_ASSIGN_OR_RETURN(std::size_t k, in.read(head.data() + have, n - have));
    if (k == 0) break;
    have += k;
  }
  head.resize(have);
  return head;
}

absl::StatusOr<std::string> read_all_bounded(ByteStream& in, std::string_view origin, std::uint64_t max_bytes,
                                             std::string_view raise_with) {
  // The buffer doubles up to one byte past the limit and never beyond, with
  // exact allocations (a fresh string reserves what it is asked), so memory
  // at the limit is at most 1.5x the limit, whatever the stream.
  const std::uint64_t most = max_bytes + 1;
  std::string out;
  const std::uint64_t first = std::max<std::uint64_t>(in.size_hint(), std::uint64_t{1} << 16);
  out.reserve(static_cast<std::size_t>(std::min(first, most)));
  for (;;) {
    if (out.size() == out.capacity()) {
      const auto grown = static_cast<std::size_t>(std::min<std::uint64_t>(2 * std::uint64_t{out.capacity()}, most));
      if (grown <= out.capacity()) break;
      std::string bigger;
      bigger.reserve(grown);
      bigger.append(out);
      out.swap(bigger);
    }
    const std::size_t have = out.size();
    const std::size_t room = out.capacity() - have;
    out.resize(out.capacity());
    absl::StatusOr<std::size_t> k = in.read(out.data() + have, room);
    if (!k.ok()) return k.status();
    out.resize(have + *k);
    if (*k == 0) return out;
  }
  if (out.size() > max_bytes)
    return absl::ResourceExhaustedError(cat(origin, ": more than ", max_bytes,
                                            " bytes held in memory, over the read limit (raise it with ", raise_with,
                                            ")"));
  return out;
}

std::unique_ptr<ByteStream> make_gzip_stream(std::unique_ptr<ByteStream> compressed,
                                             std::string origin, std::uint64_t max_output_bytes,
                                             std::string_view raise_with) {
  return std::make_unique<GzipStream>(std::move(compressed), std::move(origin), max_output_bytes, raise_with);
}

std::unique_ptr<ByteStream> make_prefetch_stream(std::unique_ptr<ByteStream> inner) {
  return std::make_unique<PrefetchStream>(std::move(inner));
}

absl::StatusOr<std::string> gunzip(std::string_view bytes, std::string_view origin,
                                   std::uint64_t max_output_bytes, std::string_view raise_with) {
  auto s = make_gzip_stream(std::make_unique<MemoryStream>(bytes), std::string(origin), max_output_bytes,
                            raise_with);
  // The buffer doubles up to one byte past the limit and never beyond, with
  // exact allocations (a fresh string reserves what it is asked), so memory
  // at the limit is at most 1.5x the limit, whatever the bomb.
  const std::uint64_t most = max_output_bytes + 1;
  std::string out;
  std::size_t capacity = static_cast<std::size_t>(
      std::min<std::uint64_t>(std::max<std::size_t>(bytes.size() * 4, 4096), most));
  out.reserve(capacity);
  for (;;) {
    if (out.size() == out.capacity()) {
      const auto grown = static_cast<std::size_t>(std::min<std::uint64_t>(2 * std::uint64_t{out.capacity()}, most));
      if (grown <= out.capacity()) break;  // at the limit: the stream has said so already
      std::string bigger;
      bigger.reserve(grown);
      bigger.append(out);
      out.swap(bigger);
    }
    const std::size_t have = out.size();
    const std::size_t room = out.capacity() - have;
    out.resize(out.capacity());
    auto k = s->read(out.data() + have, room);
    if (!k.ok()) return k.status();
    out.resize(have + *k);
    if (*k == 0) break;
  }
  return out;
}

absl::StatusOr<MappedFile> MappedFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(cat(path, ": cannot open: ", std::strerror(errno)));
  MappedFile f;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    f.size_ = static_cast<std::size_t>(st.st_size);
    if (f.size_ == 0) {
      ::close(fd);
      return f;
    }
    void* p = ::mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      ::madvise(p, f.size_, MADV_SEQUENTIAL);
      f.data_ = static_cast<const char*>(p);
      f.mapped_ = true;
      ::close(fd);
      return f;
    }
  }
  // Pipes and the like: read it all.
  char buf[1 << 16];
  for (;;) {
    ssize_t k = ::read(fd, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      const int err = errno;
      ::close(fd);
      return absl::DataLossError(cat(path, ": read failed: ", std::strerror(err)));
    }
    if (k == 0) break;
    f.fallback_.append(buf, static_cast<std::size_t>(k));
  }
  ::close(fd);
  f.data_ = f.fallback_.data();
  f.size_ = f.fallback_.size();
  return f;
}

MappedFile::MappedFile(MappedFile&& o) noexcept
    : data_(o.data_), size_(o.size_), mapped_(o.mapped_), released_(o.released_),
      fallback_(std::move(o.fallback_)) {
  if (!mapped_) data_ = fallback_.data();
  o.data_ = nullptr;
  o.size_ = 0;
  o.mapped_ = false;
}

MappedFile::~MappedFile() {
  if (mapped_) ::munmap(const_cast<char*>(data_), size_);
}

void MappedFile::release_all() {
  if (!mapped_) return;
  ::madvise(const_cast<char*>(data_), size_, MADV_DONTNEED);
  released_ = 0;
}

void MappedFile::release_before(std::size_t offset) {
  if (!mapped_) return;
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t upto = std::min(offset, size_) / page * page;
  if (upto <= released_ + (std::size_t{32} << 20)) return;
  ::madvise(const_cast<char*>(data_) + released_, upto - released_, MADV_DONTNEED);
  released_ = upto;
}

}  // namespace roofline::detail
