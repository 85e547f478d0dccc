#include "src/trace/event_buffers.hpp"

#include <utility>

namespace roofline::detail {
namespace {

// Arrays under 1 MiB cost malloc nothing worth keeping; a pod host file's
// four device arrays are 125 MB, well under the cap.
constexpr std::size_t kMinKeptBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxKeptBytes = std::size_t{512} << 20;
constexpr std::size_t kMaxKept = 16;
constexpr std::size_t kRoundEvents = std::size_t{1} << 16;

struct Kept {
  std::vector<std::vector<Event>> arrays;
  std::size_t bytes = 0;
};

Kept& kept() {
  thread_local Kept k;
  return k;
}

std::size_t bytes_of(const std::vector<Event>& v) { return v.capacity() * sizeof(Event); }

// Moves `events`' array into `k` unless it is too small or would not fit
// under the caps, and leaves `events` empty either way.
void keep(Kept& k, std::vector<Event>& events) {
  std::vector<Event> v = std::exchange(events, {});
  const std::size_t bytes = bytes_of(v);
  if (bytes < kMinKeptBytes || k.arrays.size() >= kMaxKept || k.bytes + bytes > kMaxKeptBytes) return;
  v.clear();
  k.arrays.push_back(std::move(v));
  k.bytes += bytes;
}

}  // namespace

std::vector<Event> take_events(std::size_t capacity) {
  std::vector<Event> v;
  if (capacity * sizeof(Event) < kMinKeptBytes) {
    v.reserve(capacity);
    return v;
  }
  Kept& k = kept();
  auto best = k.arrays.end();
  for (auto it = k.arrays.begin(); it != k.arrays.end(); ++it)
    if (it->capacity() >= capacity && (best == k.arrays.end() || it->capacity() < best->capacity())) best = it;
  if (best == k.arrays.end()) {
    v.reserve((capacity + kRoundEvents - 1) / kRoundEvents * kRoundEvents);
    return v;
  }
  v = std::move(*best);
  k.arrays.erase(best);
  k.bytes -= bytes_of(v);
  return v;
}

void keep_for_next_file(Trace& t, KeptTimelines which) {
  Kept& k = kept();
  k = Kept{};
  for (Device& d : t.devices) keep(k, d.events);
  if (which == KeptTimelines::kDevicesAndHosts)
    for (Device& h : t.hosts) keep(k, h.events);
}

std::size_t kept_event_bytes() { return kept().bytes; }

void free_kept_events() { kept() = Kept{}; }

}  // namespace roofline::detail
