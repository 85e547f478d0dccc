// What the Chrome trace-event JSON reader keeps while the file streams, before
// anything is a Device: events come in any order, their process and thread
// metadata may come last, and a Kineto kernel's launcher may be read after the
// kernel. So events are staged per (pid, tid) line, with the Kineto host
// threads' cpu_op spans and the id maps that link launches (kineto_link.hpp),
// and turned into devices and hosts at the end (chrome_json_assemble.hpp).
// Plain data, shared by those steps. Internal.
#pragma once

#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "roofline/detail/cat.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline::detail {

// An append-only array in chunks of 64, 128, 256... elements, indexed and
// iterated like a vector. Appending never moves what is there: a doubling
// std::vector copied each staged event and faulted its memory in about twice
// (a fifth of a Kineto read's time went to page faults). Plain data only.
template <class T>
class ChunkedArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  ChunkedArray() = default;
  ChunkedArray(ChunkedArray&&) noexcept = default;
  ChunkedArray& operator=(ChunkedArray&&) noexcept = default;
  ~ChunkedArray() = default;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return chunks_[chunk_of(i)].get()[offset_in(i)]; }
  const T& operator[](std::size_t i) const { return chunks_[chunk_of(i)].get()[offset_in(i)]; }

  void push_back(const T& v) {
    const std::size_t c = chunk_of(size_);
    if (c == chunks_.size())
      // Raw storage: memory a chunk has not reached yet is never touched.
      chunks_.emplace_back(static_cast<T*>(::operator new(sizeof(T) * (kFirst << c))));
    new (chunks_[c].get() + offset_in(size_)) T(v);
    ++size_;
  }
  // Frees everything.
  void release() {
    decltype(chunks_)().swap(chunks_);
    size_ = 0;
  }

  template <class Owner, class Elem>
  class Iterator {
   public:
    Iterator(Owner* a, std::size_t i) : a_(a), i_(i) {}
    Elem& operator*() const { return (*a_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }

   private:
    Owner* a_;
    std::size_t i_;
  };
  Iterator<ChunkedArray, T> begin() { return {this, 0}; }
  Iterator<ChunkedArray, T> end() { return {this, size_}; }
  Iterator<const ChunkedArray, const T> begin() const { return {this, 0}; }
  Iterator<const ChunkedArray, const T> end() const { return {this, size_}; }

 private:
  static constexpr unsigned kFirstShift = 6;
  static constexpr std::size_t kFirst = std::size_t{1} << kFirstShift;
  // Chunk c holds elements [kFirst * (2^c - 1), kFirst * (2^(c+1) - 1)).
  static std::size_t chunk_of(std::size_t i) {
    return static_cast<std::size_t>(std::bit_width((i >> kFirstShift) + 1)) - 1;
  }
  static std::size_t offset_in(std::size_t i) { return i - ((std::size_t{1} << chunk_of(i)) - 1) * kFirst; }
  struct Free {
    void operator()(T* p) const { ::operator delete(p); }
  };
  std::vector<std::unique_ptr<T, Free>> chunks_;
  std::size_t size_ = 0;
};

// A pid or tid: an integer, or a string (old Kineto, "Spans") by its index
// in IdStrings.
struct IdKey {
  std::int64_t value = 0;
  bool is_string = false;
  friend bool operator==(const IdKey&, const IdKey&) = default;
  friend bool operator<(const IdKey& a, const IdKey& b) {
    return std::tie(a.is_string, a.value) < std::tie(b.is_string, b.value);
  }
  template <typename H>
  friend H AbslHashValue(H h, const IdKey& k) {
    return H::combine(std::move(h), k.value, k.is_string);
  }
};

// String ids, numbered in order of first appearance.
class IdStrings {
 public:
  IdKey intern(std::string_view s) {
    auto [it, inserted] = index_.try_emplace(std::string(s), static_cast<std::int64_t>(strings_.size()));
    if (inserted) strings_.emplace_back(s);
    return IdKey{.value = it->second, .is_string = true};
  }
  // The id as the file wrote it.
  std::string text(const IdKey& k) const {
    return k.is_string ? strings_[static_cast<std::size_t>(k.value)] : cat(k.value);
  }

 private:
  absl::flat_hash_map<std::string, std::int64_t> index_;
  std::vector<std::string> strings_;
};

struct LineKey {
  IdKey pid, tid;
  std::uint8_t lane = 0;  // 1: Kineto GPU annotations, kept apart from the kernels they span
  friend bool operator==(const LineKey&, const LineKey&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const LineKey& k) {
    return H::combine(std::move(h), k.pid, k.tid, k.lane);
  }
};

struct StagedEvent {
  std::int64_t start_ps = 0;
  std::int64_t duration_ps = 0;
  std::uint32_t op = 0;
  // Collective args on the kernel itself; after kineto_link, the launcher's
  // call merged with them.
  std::uint32_t own_call = kNoCall;
  std::uint64_t external_id = 0;
  std::uint64_t correlation = 0;
};

struct OpenBegin {
  std::int64_t start_ps;
  std::uint32_t op;
};

// A cpu_op as a candidate launcher: its span on its host thread and the call
// (name, Input Dims, Input type) it stands for.
struct CpuOpSpan {
  std::int64_t start_ps = 0;
  std::int64_t end_ps = 0;
  std::uint64_t external_id = 0;  // 0: none recorded
  std::uint32_t call = kNoCall;
  std::int32_t parent = -1;  // index of the innermost span enclosing this one, once indexed
};

// A host range that names a scope (a record_function's user_annotation, an
// nn.Module's python_function): its span on its thread and its name (the
// OpInfo of the event). kineto_scopes.hpp finds the ranges around a launch.
struct ScopeSpan {
  std::int64_t start_ps = 0;
  std::int64_t end_ps = 0;
  std::uint32_t op = 0;
  std::uint8_t kind = 0;  // kScopeKindRecordFunction or kScopeKindModule
};

// An element of a staged line: a cpu_op in `cpu_ops` (found by its External
// id) or a runtime / driver call in `events` (found by its correlation id).
struct StagedRef {
  std::uint32_t line = 0;
  std::uint32_t index = 0;
};

struct StagedLine {
  LineKey key;
  bool device_ops = false;  // saw kernel / gpu_memcpy / gpu_memset
  ChunkedArray<StagedEvent> events;
  // (index into events, device_ordinal) of the XLA:CPU thunks that name
  // their virtual device, in event order (TraceBuilder::set_device_ordinals).
  std::vector<std::pair<std::uint32_t, std::int32_t>> ordinals;
  std::vector<OpenBegin> open;
  // Kineto host threads: their cpu_ops in arrival order, and their indices
  // by start (longest first), to find the one enclosing a launch.
  ChunkedArray<CpuOpSpan> cpu_ops;
  std::vector<std::uint32_t> cpu_ops_by_start;
  // Kineto host threads: their scope ranges, in arrival order.
  ChunkedArray<ScopeSpan> scopes;
};

struct ProcessMeta {
  std::string name;
  std::string labels;
};

// Kineto's two ways from GPU work to its launch: every cpu_op with an
// External id and every runtime / driver call with a correlation id, in
// arrival order (the later one wins where an id repeats). Listed, not
// indexed, while streaming: most are never asked for, and a hash map of all
// of them (random writes into tables larger than the cache) cost more than
// the rest of staging them; kineto_link indexes the ones GPU work names.
// Freed once linked.
struct IdRef {
  std::uint64_t id = 0;
  StagedRef ref;
};
struct KinetoLaunches {
  ChunkedArray<IdRef> cpu_ops_by_external;
  ChunkedArray<IdRef> launches_by_correlation;
};

struct ChromeStaging {
  IdStrings ids;
  std::vector<StagedLine> lines;
  std::map<IdKey, ProcessMeta> processes;
  std::map<std::pair<IdKey, IdKey>, std::string> thread_names;
  KinetoLaunches launches;
  bool kineto = false;  // Kineto categories or top-level keys seen
  bool tsl = false;     // processes named "/device:..." or "/host:..."
  std::uint64_t unmatched_end = 0;
  std::uint64_t without_phase = 0;
  std::uint64_t kept_events = 0;  // 'X' and 'B' events staged
  std::uint64_t max_events = ~std::uint64_t{0};  // TraceReadOptions::max_events
  std::uint64_t max_ops = ~std::uint64_t{0};     // TraceReadOptions::max_ops
  // Events whose 'ph' the Trace Event Format does not define, with the
  // first such value (a file from a newer or broken producer says so).
  std::uint64_t unknown_phase = 0;
  std::string first_unknown_phase;
  // Whole µs subtracted from every timestamp: the first one, when the trace
  // counts from the epoch (older Kineto), else 0.
  std::int64_t base_us = 0;
  std::optional<std::int64_t> base_time_ns;  // Kineto baseTimeNanoseconds
  nlohmann::json device_properties;          // Kineto deviceProperties

  TraceFormat format() const {
    return kineto ? TraceFormat::kKinetoJson : tsl ? TraceFormat::kTslJson : TraceFormat::kChromeJson;
  }

  // The staged line of (pid, tid, lane), made on first use.
  std::uint32_t line_for(const IdKey& pid, const IdKey& tid, std::uint8_t lane) {
    const LineKey key{pid, tid, lane};
    if (last_line_ != ~0u && key == last_key_) return last_line_;
    auto [it, inserted] = line_index_.try_emplace(key, static_cast<std::uint32_t>(lines.size()));
    if (inserted) {
      lines.emplace_back();
      lines.back().key = key;
    }
    last_key_ = key;
    last_line_ = it->second;
    return it->second;
  }

 private:
  absl::flat_hash_map<LineKey, std::uint32_t> line_index_;
  LineKey last_key_{};
  std::uint32_t last_line_ = ~0u;
};

}  // namespace roofline::detail
