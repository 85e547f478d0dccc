// Pass 1 of the XSpace wire decoder (xplane_wire.cc): a plane's metadata,
// stats and line headers, in place from the file's bytes.
#include <utility>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "src/trace/xplane/xplane_wire_decoder.hpp"

namespace roofline::detail {

absl::Status XSpaceDecoder::stat(WireSpan s, XStatView& out) const {
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

absl::Status XSpaceDecoder::event_metadata(WireSpan s, XEventMetadataView& m) const {
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

absl::Status XSpaceDecoder::map_entry(WireSpan s, std::int64_t& key, WireSpan& value, bool& has_value) const {
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

absl::Status XSpaceDecoder::line_header(WireSpan s, LineHeader& h) const {
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

std::string_view XSpaceDecoder::plane_name(WireSpan s) const {
  std::size_t pos = s.begin;
  WireField w;
  std::string_view name;
  while (pos < s.end) {
    if (read_wire_field(base_, pos, s.end, w) != WireFault::kNone) return {};
    if (w.number == 2 && w.type == kLen) name = view(w.begin, w.end);
  }
  return name;
}

absl::Status XSpaceDecoder::plane_pass1(WireSpan s, XPlaneView& p, std::vector<LineHeader>& lines, bool read_lines) const {
  std::size_t pos = s.begin;
  Field f;
  std::vector<WireSpan> event_meta;
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
        WireSpan value;
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
  for (const WireSpan& e : event_meta) {
    std::int64_t key;
    WireSpan value;
    bool has;
    ROOFLINE_RETURN_IF_ERROR(map_entry(e, key, value, has));
    XEventMetadataView m;
    if (has) ROOFLINE_RETURN_IF_ERROR(event_metadata(value, m));
    m.id = key;  // the map key is authoritative
    p.event_metadata.push_back(std::move(m));
  }
  return absl::OkStatus();
}

}  // namespace roofline::detail
