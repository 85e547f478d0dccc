// A streaming decoder of the XSpace protobuf wire format (field numbers from
// tsl/profiler/protobuf/xplane.proto), decoding in place from the file's
// bytes: no message objects, no copies of event data. It was measured against
// libprotobuf with a generated XSpace feeding the same assembler (bench/
// trace_bench.cc, docs/traces.md) and kept because it is faster; it also has
// no 2 GiB message limit and bounds every length by the bytes that remain.
//
// Field order in a serialized plane is id, name, lines, event_metadata,
// stat_metadata, stats: the metadata an event needs comes after the events.
// So pass 1 reads every plane's metadata and line headers, pass 2 the events.
#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/trace/read.hpp"
#include "src/trace/byte_stream.hpp"
#include "src/trace/xplane_assembler.hpp"
#include "src/trace/xplane_decode.hpp"
#include "src/wire/proto_wire.hpp"

namespace roofline::detail {
namespace {

struct Span {
  std::size_t begin = 0, end = 0;
};

class Decoder {
 public:
  Decoder(std::string_view bytes, std::string origin)
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
    Span payload;             // LEN payload
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

  absl::Status stat(Span s, XStatView& out) const {
    out = XStatView{};
    std::size_t pos = s.begin;
    Field f;
    while (pos < s.end) {
      ROOFLINE_RETURN_IF_ERROR(next(pos, s.end, f));
      switch (f.number) {
        case 1:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kVarint, "XStat.metadata_id"));
          out.metadata_id = static_cast<std::int64_t>(f.value);
          break;
        case 2:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kFixed64, "XStat.double_value"));
          std::memcpy(&out.d, &f.value, 8);
          out.type = XStatType::kDouble;
          break;
        case 3:
        case 7:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kVarint, f.number == 3 ? "XStat.uint64_value" : "XStat.ref_value"));
          out.u = f.value;
          out.type = f.number == 3 ? XStatType::kUint64 : XStatType::kRef;
          break;
        case 4:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kVarint, "XStat.int64_value"));
          out.i = static_cast<std::int64_t>(f.value);
          out.type = XStatType::kInt64;
          break;
        case 5:
        case 6:
        case 8:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kLen, "XStat string value"));
          out.s = view(f.payload.begin, f.payload.end);
          out.type = f.number == 5 ? XStatType::kStr
                     : f.number == 6 ? XStatType::kBytes
                                     : XStatType::kCompressedStr;
          break;
        default: break;  // unknown fields are skipped
      }
    }
    return absl::OkStatus();
  }

  // The common shape of a stat: one-byte tags of known fields with their
  // expected wire types, well formed. False for anything else, which `stat`
  // then decodes (and words the error of) from the start; both agree on
  // every stat this accepts.
  [[gnu::always_inline]] bool fast_stat(std::size_t pos, std::size_t end, XStatView& out) const {
    out = XStatView{};
    std::uint64_t v;
    while (pos < end) {
      const std::uint8_t tag = base_[pos++];
      switch (tag) {
        case 0x08:  // 1 metadata_id
          if (!varint(pos, end, v)) return false;
          out.metadata_id = static_cast<std::int64_t>(v);
          break;
        case 0x11:  // 2 double_value
          if (end - pos < 8) return false;
          std::memcpy(&out.d, base_ + pos, 8);
          pos += 8;
          out.type = XStatType::kDouble;
          break;
        case 0x18:  // 3 uint64_value
        case 0x38:  // 7 ref_value
          if (!varint(pos, end, v)) return false;
          out.u = v;
          out.type = tag == 0x18 ? XStatType::kUint64 : XStatType::kRef;
          break;
        case 0x20:  // 4 int64_value
          if (!varint(pos, end, v)) return false;
          out.i = static_cast<std::int64_t>(v);
          out.type = XStatType::kInt64;
          break;
        case 0x2a:  // 5 str_value
        case 0x32:  // 6 bytes_value
        case 0x42:  // 8 compressed str
          if (!varint(pos, end, v) || v > end - pos) return false;
          out.s = view(pos, pos + v);
          pos += v;
          out.type = tag == 0x2a ? XStatType::kStr : tag == 0x32 ? XStatType::kBytes : XStatType::kCompressedStr;
          break;
        default: return false;
      }
    }
    return true;
  }

  absl::Status event_metadata(Span s, XEventMetadataView& m) const {
    std::size_t pos = s.begin;
    Field f;
    while (pos < s.end) {
      ROOFLINE_RETURN_IF_ERROR(next(pos, s.end, f));
      switch (f.number) {
        case 1:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kVarint, "XEventMetadata.id"));
          m.id = static_cast<std::int64_t>(f.value);
          break;
        case 2:
        case 4:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kLen, "XEventMetadata name"));
          (f.number == 2 ? m.name : m.display_name) = view(f.payload.begin, f.payload.end);
          break;
        case 5: {
          ROOFLINE_RETURN_IF_ERROR(expect(f, kLen, "XEventMetadata.stats"));
          XStatView st;
          ROOFLINE_RETURN_IF_ERROR(stat(f.payload, st));
          m.stats.push_back(st);
          break;
        }
        default: break;  // metadata bytes, child_id
      }
    }
    return absl::OkStatus();
  }

  // A map<int64, Message> entry: key 1, value 2.
  absl::Status map_entry(Span s, std::int64_t& key, Span& value, bool& has_value) const {
    std::size_t pos = s.begin;
    Field f;
    key = 0;
    has_value = false;
    while (pos < s.end) {
      ROOFLINE_RETURN_IF_ERROR(next(pos, s.end, f));
      if (f.number == 1) {
        ROOFLINE_RETURN_IF_ERROR(expect(f, kVarint, "map key"));
        key = static_cast<std::int64_t>(f.value);
      } else if (f.number == 2) {
        ROOFLINE_RETURN_IF_ERROR(expect(f, kLen, "map value"));
        value = f.payload;
        has_value = true;
      }
    }
    return absl::OkStatus();
  }

  struct LineHeader {
    std::int64_t id = 0, display_id = 0, timestamp_ns = 0;
    std::string_view name, display_name;
    std::size_t first_event = 0;  // position of the first events field, or end
    std::size_t events = 0;
    Span span;
  };

  absl::Status line_header(Span s, LineHeader& h) const {
    std::size_t pos = s.begin;
    h.span = s;
    h.first_event = s.end;
    Field f;
    while (pos < s.end) {
      // Events (tag 0x22) are most of a line: skipped here, any other field
      // or a broken one read by the general reader.
      if (std::size_t ep = pos + 1; base_[pos] == 0x22) {
        std::uint64_t len;
        if (varint(ep, s.end, len) && len <= s.end - ep) {
          if (h.first_event == s.end) h.first_event = pos;
          ++h.events;
          pos = ep + static_cast<std::size_t>(len);
          continue;
        }
      }
      ROOFLINE_RETURN_IF_ERROR(next(pos, s.end, f));
      switch (f.number) {
        case 1:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kVarint, "XLine.id"));
          h.id = static_cast<std::int64_t>(f.value);
          break;
        case 10:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kVarint, "XLine.display_id"));
          h.display_id = static_cast<std::int64_t>(f.value);
          break;
        case 3:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kVarint, "XLine.timestamp_ns"));
          h.timestamp_ns = static_cast<std::int64_t>(f.value);
          break;
        case 2:
        case 11:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kLen, "XLine name"));
          (f.number == 2 ? h.name : h.display_name) = view(f.payload.begin, f.payload.end);
          break;
        case 4:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kLen, "XLine.events"));
          if (h.first_event == s.end) h.first_event = f.at;
          ++h.events;
          break;
        default: break;
      }
    }
    return absl::OkStatus();
  }

  // The plane's name (its last name field, as plane_pass1 reads it), or
  // empty where its fields do not parse (plane_pass1 then says why).
  std::string_view plane_name(Span s) const {
    std::size_t pos = s.begin;
    WireField w;
    std::string_view name;
    while (pos < s.end) {
      if (read_wire_field(base_, pos, s.end, w) != WireFault::kNone) return {};
      if (w.number == 2 && w.type == kLen) name = view(w.begin, w.end);
    }
    return name;
  }

  // Without `read_lines` (a plane whose events nothing reads), its lines
  // are not looked into: no headers, no timestamps for the time base.
  absl::Status plane_pass1(Span s, XPlaneView& p, std::vector<LineHeader>& lines, bool read_lines) const {
    std::size_t pos = s.begin;
    Field f;
    std::vector<Span> event_meta;
    while (pos < s.end) {
      ROOFLINE_RETURN_IF_ERROR(next(pos, s.end, f));
      switch (f.number) {
        case 1:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kVarint, "XPlane.id"));
          p.id = static_cast<std::int64_t>(f.value);
          break;
        case 2:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kLen, "XPlane.name"));
          p.name = view(f.payload.begin, f.payload.end);
          break;
        case 3: {
          ROOFLINE_RETURN_IF_ERROR(expect(f, kLen, "XPlane.lines"));
          if (!read_lines) break;
          LineHeader h;
          ROOFLINE_RETURN_IF_ERROR(line_header(f.payload, h));
          p.line_timestamps_ns.push_back(h.timestamp_ns);
          p.event_count += h.events;
          lines.push_back(h);
          break;
        }
        case 4:
          ROOFLINE_RETURN_IF_ERROR(expect(f, kLen, "XPlane.event_metadata"));
          event_meta.push_back(f.payload);
          break;
        case 5: {
          ROOFLINE_RETURN_IF_ERROR(expect(f, kLen, "XPlane.stat_metadata"));
          std::int64_t key;
          Span value;
          bool has;
          ROOFLINE_RETURN_IF_ERROR(map_entry(f.payload, key, value, has));
          std::string_view name;
          if (has) {
            std::size_t vp = value.begin;
            Field g;
            while (vp < value.end) {
              ROOFLINE_RETURN_IF_ERROR(next(vp, value.end, g));
              if (g.number == 2) {
                ROOFLINE_RETURN_IF_ERROR(expect(g, kLen, "XStatMetadata.name"));
                name = view(g.payload.begin, g.payload.end);
              }
            }
          }
          p.stat_metadata.emplace_back(key, name);
          break;
        }
        case 6: {
          ROOFLINE_RETURN_IF_ERROR(expect(f, kLen, "XPlane.stats"));
          XStatView st;
          ROOFLINE_RETURN_IF_ERROR(stat(f.payload, st));
          p.stats.push_back(st);
          break;
        }
        default: break;
      }
    }
    p.event_metadata.reserve(event_meta.size());
    for (const Span& e : event_meta) {
      std::int64_t key;
      Span value;
      bool has;
      ROOFLINE_RETURN_IF_ERROR(map_entry(e, key, value, has));
      XEventMetadataView m;
      if (has) ROOFLINE_RETURN_IF_ERROR(event_metadata(value, m));
      m.id = key;  // the map key is authoritative
      p.event_metadata.push_back(std::move(m));
    }
    return absl::OkStatus();
  }

  // One event's fields. Stats that cannot matter to the assembler are
  // decoded (a broken one is still an error) but not kept.
  struct RawEvent {
    std::int64_t metadata_id = 0, offset_ps = 0, duration_ps = 0;
    bool aggregated = false;
  };

  // The common shape of an event (as fast_stat for a stat): false for
  // anything else, which slow_event then decodes from the start.
  [[gnu::always_inline]] bool fast_event(std::size_t pos, std::size_t end, const XPlaneAssembler& a,
                                         RawEvent& ev, std::vector<XStatView>& stats) const {
    std::uint64_t v;
    // The usual order (1, 2, 3, then stats) as a straight line, whose
    // branches are predicted where a switch on each tag is not; anything
    // after it (another order, a repeat, num_occurrences) by the loop,
    // which reads fields in any order as a decode does.
    if (pos < end && base_[pos] == 0x08) {
      if (!varint(++pos, end, v)) return false;
      ev.metadata_id = static_cast<std::int64_t>(v);
    }
    if (pos < end && base_[pos] == 0x10) {
      if (!varint(++pos, end, v)) return false;
      ev.offset_ps = static_cast<std::int64_t>(v);
      ev.aggregated = false;
    }
    if (pos < end && base_[pos] == 0x18) {
      if (!varint(++pos, end, v)) return false;
      ev.duration_ps = static_cast<std::int64_t>(v);
    }
    while (pos < end && base_[pos] == 0x22) {
      if (!varint(++pos, end, v) || v > end - pos) return false;
      XStatView st;
      if (!fast_stat(pos, pos + v, st)) return false;
      if (a.event_stat_used(st.metadata_id)) stats.push_back(st);
      pos += v;
    }
    while (pos < end) {
      const std::uint8_t tag = base_[pos++];
      switch (tag) {
        case 0x08:  // 1 metadata_id
          if (!varint(pos, end, v)) return false;
          ev.metadata_id = static_cast<std::int64_t>(v);
          break;
        case 0x10:  // 2 offset_ps
          if (!varint(pos, end, v)) return false;
          ev.offset_ps = static_cast<std::int64_t>(v);
          ev.aggregated = false;
          break;
        case 0x18:  // 3 duration_ps
          if (!varint(pos, end, v)) return false;
          ev.duration_ps = static_cast<std::int64_t>(v);
          break;
        case 0x28:  // 5 num_occurrences
          if (!varint(pos, end, v)) return false;
          ev.aggregated = true;
          break;
        case 0x22: {  // 4 stats
          if (!varint(pos, end, v) || v > end - pos) return false;
          XStatView st;
          if (!fast_stat(pos, pos + v, st)) return false;
          if (a.event_stat_used(st.metadata_id)) stats.push_back(st);
          pos += v;
          break;
        }
        default: return false;
      }
    }
    return true;
  }

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
  [[gnu::always_inline]] bool event_times(Span s, const XPlaneAssembler& a, RawEvent& ev) const {
    std::size_t pos = s.begin;
    std::uint64_t v;
    if (pos < s.end && base_[pos] == 0x08) {
      if (!varint(++pos, s.end, v)) return false;
      ev.metadata_id = static_cast<std::int64_t>(v);
    }
    if (pos < s.end && base_[pos] == 0x10) {
      if (!varint(++pos, s.end, v)) return false;
      ev.offset_ps = static_cast<std::int64_t>(v);
    }
    if (pos < s.end && base_[pos] == 0x18) {
      if (!varint(++pos, s.end, v)) return false;
      ev.duration_ps = static_cast<std::int64_t>(v);
    }
    while (pos < s.end && base_[pos] == 0x22) {
      if (!varint(++pos, s.end, v) || v > s.end - pos) return false;
      const std::size_t stat_end = pos + static_cast<std::size_t>(v);
      std::int64_t id = 0;
      WireField w, value;  // the last value field (2 to 7) wins, as in a decode
      int values = 0;
      // The usual stat, an id and one value: read field by field, not by
      // the general reader (three times slower on a pod host's stats).
      if (stat_end - pos >= 2 && base_[pos] == 0x08) {
        std::size_t p = pos + 1;
        std::uint64_t u;
        if (varint(p, stat_end, u) && p < stat_end) {
          const std::uint8_t tag = base_[p];
          std::size_t q = p + 1;
          bool ok = false;
          if (tag == 0x11) {
            q += 8;
            ok = q <= stat_end;
          } else if (tag == 0x18 || tag == 0x20 || tag == 0x38) {
            ok = varint(q, stat_end, value.value);
          } else if (tag == 0x2a || tag == 0x32) {
            std::uint64_t len;
            ok = varint(q, stat_end, len) && len <= stat_end - q;
            if (ok) q += static_cast<std::size_t>(len);
          }
          if (ok && q == stat_end) {
            id = static_cast<std::int64_t>(u);
            value.number = tag >> 3;
            value.type = tag & 7u;
            values = 1;
            pos = stat_end;
          }
        }
      }
      while (pos < stat_end) {
        if (read_wire_field(base_, pos, stat_end, w) != WireFault::kNone) return false;
        if (w.number == 1 && w.type == kVarint) id = static_cast<std::int64_t>(w.value);
        else if (w.number >= 2 && w.number <= 7) {
          value = w;
          ++values;
        }
      }
      // A device_ordinal that is an ordinal (uint64 or int64, one value) can
      // neither warn nor change the event here: it splits XLA:CPU thunks
      // into devices only where no device plane is, and host windows are
      // only read where one is. A TPU host marks 4% of its events so.
      constexpr auto kMaxOrdinal = static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max());
      const bool ordinal = a.device_ordinal_stat(id) && values == 1 && (value.number == 3 || value.number == 4) &&
                           value.type == kVarint && value.value <= kMaxOrdinal;
      if (a.event_stat_used(id) && !ordinal) return false;
    }
    return pos == s.end;
  }

  absl::Status slow_event(Span s, const XPlaneAssembler& a, RawEvent& ev, std::vector<XStatView>& stats) const {
    std::size_t ep = s.begin;
    Field g;
    while (ep < s.end) {
      ROOFLINE_RETURN_IF_ERROR(next(ep, s.end, g));
      switch (g.number) {
        case 1:
          ROOFLINE_RETURN_IF_ERROR(expect(g, kVarint, "XEvent.metadata_id"));
          ev.metadata_id = static_cast<std::int64_t>(g.value);
          break;
        case 2:
          ROOFLINE_RETURN_IF_ERROR(expect(g, kVarint, "XEvent.offset_ps"));
          ev.offset_ps = static_cast<std::int64_t>(g.value);
          ev.aggregated = false;
          break;
        case 5:
          ROOFLINE_RETURN_IF_ERROR(expect(g, kVarint, "XEvent.num_occurrences"));
          ev.aggregated = true;
          break;
        case 3:
          ROOFLINE_RETURN_IF_ERROR(expect(g, kVarint, "XEvent.duration_ps"));
          ev.duration_ps = static_cast<std::int64_t>(g.value);
          break;
        case 4: {
          ROOFLINE_RETURN_IF_ERROR(expect(g, kLen, "XEvent.stats"));
          XStatView st;
          ROOFLINE_RETURN_IF_ERROR(stat(g.payload, st));
          if (a.event_stat_used(st.metadata_id)) stats.push_back(st);
          break;
        }
        default: break;
      }
    }
    return absl::OkStatus();
  }

  // Pass 2 over one line, whose header pass 1 read.
  absl::Status line_events(const LineHeader& h, XPlaneAssembler& a, std::vector<XStatView>& stats,
                           bool& warned_aggregated) const {
    const Span s = h.span;
    a.begin_line(h.id, h.display_id, h.name, h.display_name, h.timestamp_ns);
    std::size_t pos = h.first_event;
    Field f;
    while (pos < s.end) {
      // An events field (tag 0x22) read here; any other field, or a broken
      // one, by the general reader.
      std::size_t at = pos, ep = pos + 1;
      std::uint64_t len;
      Span payload;
      if (base_[pos] == 0x22 && varint(ep, s.end, len) && len <= s.end - ep) {
        payload = {ep, ep + static_cast<std::size_t>(len)};
        pos = payload.end;
      } else {
        ROOFLINE_RETURN_IF_ERROR(next(pos, s.end, f));
        if (f.number != 4) continue;
        at = f.at;
        payload = f.payload;
      }
      RawEvent ev;
      if (a.filters_events() && event_times(payload, a, ev) &&
          a.drops_event(ev.metadata_id, ev.offset_ps, ev.duration_ps))
        continue;
      stats.clear();
      if (!fast_event(payload.begin, payload.end, a, ev, stats)) {
        ev = RawEvent{};
        stats.clear();
        ROOFLINE_RETURN_IF_ERROR(slow_event(payload, a, ev, stats));
      }
      if (ev.aggregated) {
        // Aggregated planes count occurrences instead of placing events in time.
        warned_aggregated = true;
        continue;
      }
      ROOFLINE_RETURN_IF_ERROR(a.add_event(ev.metadata_id, ev.offset_ps, ev.duration_ps, stats, at));
    }
    return absl::OkStatus();
  }

 private:
  const std::uint8_t* base_;
  std::size_t size_;
  std::string origin_;
};

// Whether pass 2 may find the pages pass 1 mapped still there, instead of
// faulting them in again (a tenth of the read's system time on a pod
// host's profile): when the file's bytes not yet decoded and the events
// decoded so far never hold more memory together than the read holds anyway,
// the whole file in pass 1 or all the events at the end, plus the 32 MiB
// that pass 2 keeps mapped behind itself either way (MappedFile::
// release_before). Events are counted as if decoded at the start of their
// line, so the estimate is an upper bound.
bool keep_pages_for_pass2(std::size_t file_bytes, const std::vector<std::vector<Decoder::LineHeader>>& lines,
                          const XPlaneAssembler& a) {
  std::size_t events = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (a.keeps_events(i))
      for (const Decoder::LineHeader& l : lines[i]) events += l.events;
  const double bound = std::max(static_cast<double>(file_bytes), static_cast<double>(events) * sizeof(Event)) +
                       static_cast<double>(std::size_t{32} << 20);
  double decoded = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!a.keeps_events(i)) continue;
    for (const Decoder::LineHeader& l : lines[i]) {
      decoded += static_cast<double>(l.events) * sizeof(Event);
      if (decoded + static_cast<double>(file_bytes - l.span.begin) > bound) return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<Trace> decode_xplane(std::string_view bytes, std::string_view origin,
                                    const TraceReadOptions& options, MappedFile* release, XPlaneReadPlan* plan) {
  Decoder dec(bytes, std::string(origin));
  if (plan != nullptr) plan->entered = true;
  if (bytes.empty()) return absl::DataLossError(cat(origin, ": empty file, not an XSpace"));

  std::vector<Span> planes;
  std::vector<std::string_view> notes, hostnames;
  {
    std::size_t pos = 0;
    Decoder::Field f;
    while (pos < bytes.size()) {
      ROOFLINE_RETURN_IF_ERROR(dec.next(pos, bytes.size(), f));
      if (f.number >= 1 && f.number <= 4) ROOFLINE_RETURN_IF_ERROR(dec.expect(f, kLen, "XSpace field"));
      if (f.number == 1) planes.push_back(f.payload);
      else if (f.number == 2 || f.number == 3) notes.push_back(dec.view(f.payload.begin, f.payload.end));
      else if (f.number == 4) hostnames.push_back(dec.view(f.payload.begin, f.payload.end));
    }
  }
  // The planes' names, read from the wire once, where a choice below needs
  // them before pass 1 (empty otherwise: pass 1 reads them itself).
  std::vector<std::string_view> names(planes.size());
  bool names_read = false;
  const auto read_names = [&] {
    if (names_read) return;
    for (std::size_t i = 0; i < planes.size(); ++i) names[i] = dec.plane_name(planes[i]);
    names_read = true;
  };
  // Host planes past host_timelines_up_to_bytes, beside a device plane: read
  // as without host timelines (their lines unread).
  TraceReadOptions read = options;
  bool past_host_limit = false;
  if (options.host_timelines && options.host_timelines_up_to_bytes) {
    read_names();
    std::uint64_t host_bytes = 0;
    bool device_plane = false;
    for (std::size_t i = 0; i < planes.size(); ++i) {
      const PlaneKind k = classify_plane(names[i]);  // /host:metadata is neither host nor device
      if (k.is_host) host_bytes += planes[i].end - planes[i].begin;
      device_plane = device_plane || k.is_device;
    }
    past_host_limit = device_plane && host_bytes > *options.host_timelines_up_to_bytes;
    if (past_host_limit) read.host_timelines = false;
  }
  XPlaneAssembler a(std::string(origin), read, plan);
  for (std::string_view h : hostnames) a.add_hostname(h);
  // Without host timelines, whether a device plane exists decides whether
  // host planes' events are read at all: known from the names before pass 1.
  // So does a plan's choice of planes.
  if (!read.host_timelines || (plan != nullptr && (plan->skip_host_lines || plan->skip_device_lines))) {
    read_names();
    for (std::string_view n : names) a.note_plane_name(n);
  }
  std::vector<std::vector<Decoder::LineHeader>> lines(planes.size());
  for (std::size_t i = 0; i < planes.size(); ++i) {
    XPlaneView p;
    ROOFLINE_RETURN_IF_ERROR(dec.plane_pass1(planes[i], p, lines[i], a.reads_events(names[i])));
    a.add_plane(std::move(p));
  }
  // Pass 1 touched every page (line headers sit among the events); pass 2
  // drops them behind itself, line by line.
  if (release && !keep_pages_for_pass2(bytes.size(), lines, a)) release->release_all();
  std::vector<XStatView> stats;
  bool aggregated = false;
  for (std::size_t i = 0; i < planes.size(); ++i) {
    ROOFLINE_RETURN_IF_ERROR(a.begin_plane(i));
    // A plane whose events nothing reads (a TPU host's, two thirds of a pod
    // host's profile, in the report's read) has no lines here: pass 1 kept
    // none (XPlaneAssembler::reads_events).
    for (const Decoder::LineHeader& l : lines[i]) {
      ROOFLINE_RETURN_IF_ERROR(dec.line_events(l, a, stats, aggregated));
      if (release) release->release_before(l.span.end);
    }
    a.end_plane();
  }
  auto trace = a.finish();
  if (!trace.ok()) return trace.status();
  for (std::string_view n : notes) trace->warnings.push_back(cat(origin, ": profiler says: ", n));
  if (aggregated)
    trace->warnings.push_back(cat(origin, ": aggregated events (num_occurrences) have no time; skipped"));
  if (past_host_limit) {
    if (plan != nullptr) plan->hosts_past_limit = true;
    trace->warnings.push_back(cat(origin, ": host timelines not read: its host planes are past ",
                                  *options.host_timelines_up_to_bytes,
                                  " bytes (--host-timelines-up-to, TraceReadOptions::host_timelines_up_to_bytes), so "
                                  "idle gaps show no host activity and host events go unchecked"));
  }
  if (planes.empty())
    return absl::DataLossError(cat(origin, ": no XPlane in the file; not an XSpace profile"));
  return trace;
}

}  // namespace roofline::detail
