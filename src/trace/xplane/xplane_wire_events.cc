// Pass 2 of the XSpace wire decoder (xplane_wire.cc): each line's events,
// the usual shapes read as straight lines, anything else decoded field by
// field; and the times of a host event a host window may drop unread.
#include <limits>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "src/trace/xplane/xplane_wire_decoder.hpp"

namespace roofline::detail {

[[gnu::always_inline]] inline bool XSpaceDecoder::fast_stat(std::size_t pos, std::size_t end, XStatView& out) const {
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

[[gnu::always_inline]] inline bool XSpaceDecoder::fast_event(std::size_t pos, std::size_t end,
                                                             const XPlaneAssembler& a, RawEvent& ev,
                                                             std::vector<XStatView>& stats) const {
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

[[gnu::always_inline]] inline bool XSpaceDecoder::event_times(WireSpan s, const XPlaneAssembler& a, RawEvent& ev) const {
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

absl::Status XSpaceDecoder::slow_event(WireSpan s, const XPlaneAssembler& a, RawEvent& ev, std::vector<XStatView>& stats) const {
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

absl::Status XSpaceDecoder::line_events(const LineHeader& h, XPlaneAssembler& a, std::vector<XStatView>& stats,
                                        bool& warned_aggregated) const {
  const WireSpan s = h.span;
  a.begin_line(h.id, h.display_id, h.name, h.display_name, h.timestamp_ns);
  std::size_t pos = h.first_event;
  Field f;
  while (pos < s.end) {
    // An events field (tag 0x22) read here; any other field, or a broken
    // one, by the general reader.
    std::size_t at = pos, ep = pos + 1;
    std::uint64_t len;
    WireSpan payload;
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

}  // namespace roofline::detail
