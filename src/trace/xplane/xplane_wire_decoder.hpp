// The XSpace wire decoder's reader of one buffer (xplane_wire.cc drives
// it): field headers inline here; pass 1, the planes' metadata and line
// headers, in xplane_wire_metadata.cc; pass 2, the events, in
// xplane_wire_events.cc. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "roofline/detail/cat.hpp"
#include "src/trace/xplane/xplane_assembler.hpp"
#include "src/wire/proto_wire.hpp"

namespace roofline::detail {

struct WireSpan {
  std::size_t begin = 0, end = 0;
};

class XSpaceDecoder {
 public:
  XSpaceDecoder(std::string_view bytes, std::string origin)
      : base_(reinterpret_cast<const std::uint8_t*>(bytes.data())), size_(bytes.size()),
        origin_(std::move(origin)) {}

  const std::string& origin() const { return origin_; }
  std::string_view view(std::size_t b, std::size_t e) const {
    return {reinterpret_cast<const char*>(base_) + b, e - b};
  }

  absl::Status error(std::size_t at, std::string_view what) const {
    return absl::DataLossError(cat(origin_, ": byte ", at, ": ", what));
  }

  // Reads a varint at `pos` (< end): the shared primitive (src/wire/proto_wire.hpp).
  [[gnu::always_inline]] bool varint(std::size_t& pos, std::size_t end, std::uint64_t& v) const {
    return read_varint(base_, pos, end, v);
  }

  // One field header and, for LEN fields, the bounds of the payload.
  struct Field {
    std::uint32_t number = 0;
    std::uint32_t type = 0;
    std::uint64_t value = 0;  // varint / fixed values
    WireSpan payload;             // LEN payload
    std::size_t at = 0;
  };

  [[gnu::always_inline]] absl::Status next(std::size_t& pos, std::size_t end, Field& f) const {
    WireField w;
    const WireFault fault = read_wire_field(base_, pos, end, w);
    f.at = w.at;
    f.number = w.number;
    f.type = w.type;
    f.value = w.value;
    f.payload = {w.begin, w.end};
    switch (fault) {
      case WireFault::kNone: return absl::OkStatus();
      case WireFault::kTag: return error(f.at, "truncated or overlong field tag");
      case WireFault::kFieldZero: return error(f.at, "invalid field number 0");
      case WireFault::kVarint: return error(f.at, "truncated varint");
      case WireFault::kFixed64: return error(f.at, "truncated fixed64 field");
      case WireFault::kFixed32: return error(f.at, "truncated fixed32 field");
      case WireFault::kLength: return error(f.at, "truncated length of a length-delimited field");
      case WireFault::kLenPastEnd:
        return error(f.at, cat("truncated length-delimited field (length ", w.value, ", ", end - pos,
                               " bytes remain)"));
      case WireFault::kWireType: break;
    }
    return error(f.at, cat("invalid wire type ", f.type, " (field ", f.number, ")"));
  }

  absl::Status expect(const Field& f, std::uint32_t type, std::string_view what) const {
    if (f.type == type) return absl::OkStatus();
    return error(f.at, cat(what, " has wire type ", f.type, ", expected ", type));
  }

  struct LineHeader {
    std::int64_t id = 0, display_id = 0, timestamp_ns = 0;
    std::string_view name, display_name;
    std::size_t first_event = 0;  // position of the first events field, or end
    std::size_t events = 0;
    WireSpan span;
  };

  // One event's fields. Stats that cannot matter to the assembler are
  // decoded (a broken one is still an error) but not kept.
  struct RawEvent {
    std::int64_t metadata_id = 0, offset_ps = 0, duration_ps = 0;
    bool aggregated = false;
  };

  absl::Status stat(WireSpan s, XStatView& out) const;

  // The common shape of a stat: one-byte tags of known fields with their
  // expected wire types, well formed. False for anything else, which `stat`
  // then decodes (and words the error of) from the start; both agree on
  // every stat this accepts.
  [[gnu::always_inline]] inline bool fast_stat(std::size_t pos, std::size_t end, XStatView& out) const;

  absl::Status event_metadata(WireSpan s, XEventMetadataView& m) const;

  // A map<int64, Message> entry: key 1, value 2.
  absl::Status map_entry(WireSpan s, std::int64_t& key, WireSpan& value, bool& has_value) const;

  absl::Status line_header(WireSpan s, LineHeader& h) const;

  // The plane's name (its last name field, as plane_pass1 reads it), or
  // empty where its fields do not parse (plane_pass1 then says why).
  std::string_view plane_name(WireSpan s) const;

  // Without `read_lines` (a plane whose events nothing reads), its lines
  // are not looked into: no headers, no timestamps for the time base.
  absl::Status plane_pass1(WireSpan s, XPlaneView& p, std::vector<LineHeader>& lines, bool read_lines) const;

  // The common shape of an event (as fast_stat for a stat): false for
  // anything else, which slow_event then decodes from the start.
  [[gnu::always_inline]] inline bool fast_event(std::size_t pos, std::size_t end, const XPlaneAssembler& a,
                                                RawEvent& ev, std::vector<XStatView>& stats) const;

  // An event's metadata id and times when its fields come in the usual
  // order (1, 2, 3, then stats, each at most once) and each is well formed,
  // and no stat of it is one add_event reads (XPlaneAssembler::
  // event_stat_used: an event's op is then its metadata's, and no stat of it
  // can warn): what decides whether a host window keeps it. Of a stat only
  // its fields' tags are read, for its metadata id (the last one, as in a
  // decode). False for anything else (num_occurrences, a field repeated,
  // whose last value would win), which is then decoded whole. Written as a
  // straight line of the usual order: most host events are (1, 2, 3) alone,
  // so its branches are predicted.
  [[gnu::always_inline]] inline bool event_times(WireSpan s, const XPlaneAssembler& a, RawEvent& ev) const;

  absl::Status slow_event(WireSpan s, const XPlaneAssembler& a, RawEvent& ev, std::vector<XStatView>& stats) const;

  // Pass 2 over one line, whose header pass 1 read.
  absl::Status line_events(const LineHeader& h, XPlaneAssembler& a, std::vector<XStatView>& stats,
                           bool& warned_aggregated) const;

 private:
  const std::uint8_t* base_;
  std::size_t size_;
  std::string origin_;
};

}  // namespace roofline::detail
