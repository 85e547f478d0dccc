// Protobuf wire-format primitives shared by the hand-written decoders
// (XSpace in src/trace/xplane/xplane_wire.cc, HloProto in src/hlo/proto_reader.cc):
// a varint and one field header, read in place from the input's bytes with
// every length bounded by the bytes that remain. Each decoder words its own
// errors from the WireFault below, so the primitives carry no strings.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace roofline::detail {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// Reads a varint at `pos` (< end) of `base`. Fast path when eight bytes
// are available. False for a varint cut off by `end` or longer than 64 bits.
[[gnu::always_inline]] inline bool read_varint(const std::uint8_t* base, std::size_t& pos, std::size_t end,
                                               std::uint64_t& v) {
  const std::uint8_t* p = base + pos;
  if (end - pos >= 8) {
    if (p[0] < 0x80) {  // most tags, lengths and ids: one byte
      v = p[0];
      pos += 1;
      return true;
    }
    // Two to eight bytes without a branch on the length (the length of an
    // event's start and duration changes from one event to the next, which
    // a loop's exit mispredicts): the terminating byte is the lowest whose
    // top bit is clear; the 7-bit groups up to it are packed in three
    // shifts.
    std::uint64_t x;
    std::memcpy(&x, p, 8);
    if constexpr (std::endian::native == std::endian::little) {
      const std::uint64_t stops = ~x & 0x8080808080808080u;
      if (stops != 0) {
        x &= stops ^ (stops - 1);  // the bytes up to the terminating one
        x &= 0x7f7f7f7f7f7f7f7fu;
        x = ((x & 0x7f007f007f007f00u) >> 1) | (x & 0x007f007f007f007fu);
        x = ((x & 0x3fff00003fff0000u) >> 2) | (x & 0x00003fff00003fffu);
        x = ((x & 0x0fffffff00000000u) >> 4) | (x & 0x000000000fffffffu);
        v = x;
        pos += static_cast<std::size_t>(std::countr_zero(stops) >> 3) + 1;
        return true;
      }
    }
  }
  std::uint64_t r = 0;
  for (int i = 0; i < 10 && pos + static_cast<std::size_t>(i) < end; ++i) {
    r |= std::uint64_t{p[i] & 0x7fu} << (7 * i);
    if (p[i] < 0x80) {
      if (i == 9 && p[i] > 1) return false;
      v = r;
      pos += static_cast<std::size_t>(i) + 1;
      return true;
    }
  }
  return false;
}

// One field header and, for LEN fields, the bounds of the payload.
struct WireField {
  std::uint32_t number = 0;
  std::uint32_t type = 0;
  std::uint64_t value = 0;  // varint / fixed values; the payload length of a LEN field
  std::size_t begin = 0, end = 0;  // LEN payload
  std::size_t at = 0;              // where the tag starts
};

// Why a field header could not be read.
enum class WireFault : std::uint8_t {
  kNone,
  kTag,              // truncated or overlong tag
  kFieldZero,        // field number 0 (or above 2^29 - 1)
  kVarint,           // truncated or overlong varint value
  kFixed64,          // fewer than 8 bytes remain
  kFixed32,          // fewer than 4 bytes remain
  kLength,           // the length of a LEN field is cut off
  kLenPastEnd,       // a LEN payload runs past `end` (value = the length)
  kWireType,         // wire type 3, 4, 6 or 7
};

// Reads the field at `pos` (< end) and moves past it.
[[gnu::always_inline]] inline WireFault read_wire_field(const std::uint8_t* base, std::size_t& pos, std::size_t end,
                                                        WireField& f) {
  f.at = pos;
  std::uint64_t tag;
  if (!read_varint(base, pos, end, tag)) return WireFault::kTag;
  f.number = static_cast<std::uint32_t>(tag >> 3);
  f.type = static_cast<std::uint32_t>(tag & 7);
  if (f.number == 0 || (tag >> 3) > 0x1fffffff) return WireFault::kFieldZero;
  switch (f.type) {
    case kVarint:
      return read_varint(base, pos, end, f.value) ? WireFault::kNone : WireFault::kVarint;
    case kFixed64:
      if (end - pos < 8) return WireFault::kFixed64;
      std::memcpy(&f.value, base + pos, 8);
      pos += 8;
      return WireFault::kNone;
    case kFixed32: {
      if (end - pos < 4) return WireFault::kFixed32;
      std::uint32_t v;
      std::memcpy(&v, base + pos, 4);
      f.value = v;
      pos += 4;
      return WireFault::kNone;
    }
    case kLen: {
      if (!read_varint(base, pos, end, f.value)) return WireFault::kLength;
      if (f.value > end - pos) return WireFault::kLenPastEnd;
      f.begin = pos;
      f.end = pos + static_cast<std::size_t>(f.value);
      pos = f.end;
      return WireFault::kNone;
    }
    default:
      return WireFault::kWireType;
  }
}

}  // namespace roofline::detail
