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

  absl::Status plane_pass1(Span s, XPlaneView& p, std::vector<LineHeader>& lines) const {
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

  // Pass 2 over one line, whose header pass 1 read.
  absl::Status line_events(const LineHeader& h, XPlaneAssembler& a, std::vector<XStatView>& stats,
                           bool& warned_aggregated) const {
    const Span s = h.span;
    a.begin_line(h.id, h.display_id, h.name, h.display_name, h.timestamp_ns);
    std::size_t pos = h.first_event;
    Field f, g;
    while (pos < s.end) {
      ROOFLINE_RETURN_IF_ERROR(next(pos, s.end, f));
      if (f.number != 4) continue;
      std::int64_t metadata_id = 0, offset_ps = 0, duration_ps = 0;
      bool aggregated = false;
      stats.clear();
      std::size_t ep = f.payload.begin;
      while (ep < f.payload.end) {
        ROOFLINE_RETURN_IF_ERROR(next(ep, f.payload.end, g));
        switch (g.number) {
          case 1:
            ROOFLINE_RETURN_IF_ERROR(expect(g, kVarint, "XEvent.metadata_id"));
            metadata_id = static_cast<std::int64_t>(g.value);
            break;
          case 2:
            ROOFLINE_RETURN_IF_ERROR(expect(g, kVarint, "XEvent.offset_ps"));
            offset_ps = static_cast<std::int64_t>(g.value);
            aggregated = false;
            break;
          case 5:
            ROOFLINE_RETURN_IF_ERROR(expect(g, kVarint, "XEvent.num_occurrences"));
            aggregated = true;
            break;
          case 3:
            ROOFLINE_RETURN_IF_ERROR(expect(g, kVarint, "XEvent.duration_ps"));
            duration_ps = static_cast<std::int64_t>(g.value);
            break;
          case 4: {
            ROOFLINE_RETURN_IF_ERROR(expect(g, kLen, "XEvent.stats"));
            stats.emplace_back();
            ROOFLINE_RETURN_IF_ERROR(stat(g.payload, stats.back()));
            break;
          }
          default: break;
        }
      }
      if (aggregated) {
        // Aggregated planes count occurrences instead of placing events in time.
        warned_aggregated = true;
        continue;
      }
      ROOFLINE_RETURN_IF_ERROR(a.add_event(metadata_id, offset_ps, duration_ps, stats, f.at));
    }
    return absl::OkStatus();
  }

 private:
  const std::uint8_t* base_;
  std::size_t size_;
  std::string origin_;
};

}  // namespace

absl::StatusOr<Trace> decode_xplane(std::string_view bytes, std::string_view origin,
                                    const TraceReadOptions& options, MappedFile* release) {
  Decoder dec(bytes, std::string(origin));
  XPlaneAssembler a(std::string(origin), options);
  if (bytes.empty()) return absl::DataLossError(cat(origin, ": empty file, not an XSpace"));

  std::vector<Span> planes;
  std::vector<std::string_view> notes;
  {
    std::size_t pos = 0;
    Decoder::Field f;
    while (pos < bytes.size()) {
      ROOFLINE_RETURN_IF_ERROR(dec.next(pos, bytes.size(), f));
      if (f.number >= 1 && f.number <= 4) ROOFLINE_RETURN_IF_ERROR(dec.expect(f, kLen, "XSpace field"));
      if (f.number == 1) planes.push_back(f.payload);
      else if (f.number == 2 || f.number == 3) notes.push_back(dec.view(f.payload.begin, f.payload.end));
      else if (f.number == 4) a.add_hostname(dec.view(f.payload.begin, f.payload.end));
    }
  }
  std::vector<std::vector<Decoder::LineHeader>> lines(planes.size());
  for (std::size_t i = 0; i < planes.size(); ++i) {
    XPlaneView p;
    ROOFLINE_RETURN_IF_ERROR(dec.plane_pass1(planes[i], p, lines[i]));
    a.add_plane(std::move(p));
  }
  // Pass 1 touched every page (line headers sit among the events); pass 2
  // faults them back in one line at a time and drops them behind itself.
  if (release) release->release_all();
  std::vector<XStatView> stats;
  bool aggregated = false;
  for (std::size_t i = 0; i < planes.size(); ++i) {
    ROOFLINE_RETURN_IF_ERROR(a.begin_plane(i));
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
  if (planes.empty())
    return absl::DataLossError(cat(origin, ": no XPlane in the file; not an XSpace profile"));
  return trace;
}

}  // namespace roofline::detail
