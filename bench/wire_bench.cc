// Varint decoding, the innermost step of the XSpace and HloProto readers:
// read_varint against the byte-at-a-time loop it replaced, on the lengths a
// TPU pod host's events carry. An event of the usual shape is a metadata id
// (1 byte), a start offset (5 to 7 bytes: picoseconds into a profile of
// seconds) and a duration (2 to 5 bytes: nanoseconds to milliseconds), and
// the mix changes from one event to the next, which is what the loop's
// length branch mispredicts.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "src/wire/proto_wire.hpp"

namespace {

// read_varint as it was before its branch-free fast path, in substance (kept
// here only as the yardstick): a byte at a time, the length bound checked
// once where ten bytes are left. (Its first two bytes were unrolled, which
// times the same here; nearer the end it was the byte loop read_varint still
// ends with, where the inputs below never get.)
bool byte_loop_varint(const std::uint8_t* base, std::size_t& pos, std::size_t end, std::uint64_t& v) {
  if (end - pos < 10) return roofline::detail::read_varint(base, pos, end, v);
  const std::uint8_t* p = base + pos;
  std::uint64_t r = 0;
  for (int i = 0; i < 10; ++i) {
    r |= std::uint64_t{p[i] & 0x7fu} << (7 * i);
    if (p[i] < 0x80) {
      if (i == 9 && p[i] > 1) return false;  // more than 64 bits
      v = r;
      pos += static_cast<std::size_t>(i) + 1;
      return true;
    }
  }
  return false;
}

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
  do {
    out.push_back(static_cast<std::uint8_t>((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
    v >>= 7;
  } while (v != 0);
}

// One million events' (id, offset, duration) varints, fixed seed.
const std::vector<std::uint8_t>& event_times() {
  static const std::vector<std::uint8_t> bytes = [] {
    std::vector<std::uint8_t> out;
    std::mt19937_64 rng(14);
    std::uniform_int_distribution<std::uint64_t> id(1, 120);
    std::uniform_int_distribution<int> offset_bits(29, 48), duration_bits(8, 34);
    for (int i = 0; i < 1'000'000; ++i) {
      put_varint(out, id(rng));
      put_varint(out, (std::uint64_t{1} << offset_bits(rng)) | (rng() & 0xffff));
      put_varint(out, (std::uint64_t{1} << duration_bits(rng)) | (rng() & 0xff));
    }
    out.resize(out.size() + 16, 0);  // as in a file, bytes follow the last one
    return out;
  }();
  return bytes;
}

template <bool (*Read)(const std::uint8_t*, std::size_t&, std::size_t, std::uint64_t&)>
void decode_all(benchmark::State& state) {
  const std::vector<std::uint8_t>& b = event_times();
  const std::size_t end = b.size() - 16;
  for (auto _ : state) {
    std::uint64_t sum = 0, v = 0;
    std::size_t pos = 0;
    while (pos < end && Read(b.data(), pos, b.size(), v)) sum += v;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 3'000'000);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * end));
}

BENCHMARK(decode_all<roofline::detail::read_varint>)->Name("varint/event_times/read_varint");
BENCHMARK(decode_all<byte_loop_varint>)->Name("varint/event_times/byte_loop");

}  // namespace

BENCHMARK_MAIN();
