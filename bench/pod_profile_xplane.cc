// XPlane pod profile: the source XSpace copied at the protobuf wire level
// (field numbers of tsl/profiler/protobuf/xplane.proto, as in
// bench/xplane_bench.proto), each line's events written K times on a time
// axis shifted by a period per repeat. Event fields other than the times are
// copied as bytes; the times (XEvent.offset_ps, duration_ps and the
// device_offset_ps / device_duration_ps stats) are re-encoded. A message's
// length precedes it, so each plane is sized first (a pass that computes the
// times but writes nothing) and then written: memory is the source and its
// event table, whatever the output size.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "bench/pod_profile_common.hpp"
#include "roofline/detail/status_macros.hpp"

namespace roofline::pod {
namespace {

// XSpace{planes=1, hostnames=4}; XPlane{name=2, lines=3, event_metadata=4,
// stat_metadata=5}; XLine{name=2, timestamp_ns=3, events=4, duration_ps=9,
// display_name=11}; XEvent{metadata_id=1, offset_ps=2, duration_ps=3,
// stats=4}; XStat{metadata_id=1, uint64=3, int64=4}; map entries {key=1,
// value=2}; XEventMetadata{name=2, display_name=4}; XStatMetadata{name=2}.
struct Field {
  std::uint32_t number = 0;
  std::uint32_t type = 0;
  std::uint64_t value = 0;       // varint
  std::size_t begin = 0;         // the tag
  std::size_t payload = 0;       // length-delimited: first byte of the payload
  std::size_t end = 0;           // after the field
  std::string_view bytes;        // length-delimited payload
};

class Wire {
 public:
  Wire(std::string_view s, const std::string& path) : s_(s), path_(path) {}
  absl::Status error(std::size_t at, const std::string& what) const {
    return absl::InvalidArgumentError(path_ + ": byte " + std::to_string(at) + ": " + what);
  }
  absl::StatusOr<std::uint64_t> varint(std::size_t& i, std::size_t end) const {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (i >= end) return error(i, "truncated varint");
      const auto c = static_cast<unsigned char>(s_[i++]);
      v |= static_cast<std::uint64_t>(c & 0x7f) << shift;
      if (c < 0x80) return v;
    }
    return error(i, "varint longer than 10 bytes");
  }
  // The field at i (< end); i moves past it.
  absl::StatusOr<Field> next(std::size_t& i, std::size_t end) const {
    Field f;
    f.begin = i;
    ROOFLINE_ASSIGN_OR_RETURN(const std::uint64_t tag, varint(i, end));
    f.number = static_cast<std::uint32_t>(tag >> 3);
    f.type = static_cast<std::uint32_t>(tag & 7);
    switch (f.type) {
      case 0: {
        ROOFLINE_ASSIGN_OR_RETURN(f.value, varint(i, end));
        break;
      }
      case 1:
      case 5: {
        const std::size_t n = f.type == 1 ? 8 : 4;
        if (end - i < n) return error(f.begin, "truncated fixed-width field");
        i += n;
        break;
      }
      case 2: {
        ROOFLINE_ASSIGN_OR_RETURN(const std::uint64_t n, varint(i, end));
        if (n > end - i) return error(f.begin, "truncated length-delimited field (length " + std::to_string(n) + ")");
        f.payload = i;
        f.bytes = s_.substr(i, n);
        i += n;
        break;
      }
      default: return error(f.begin, "invalid wire type " + std::to_string(f.type));
    }
    f.end = i;
    return f;
  }

 private:
  std::string_view s_;
  const std::string& path_;
};

enum class XSlot : std::uint8_t { kRaw, kOffset, kDuration, kDevOffset, kDevDuration };

struct Part {
  std::uint32_t begin = 0, len = 0;  // kRaw: source bytes
  XSlot slot = XSlot::kRaw;
  std::uint32_t value_field = 0;     // kDev*: XStat field of the value (3 or 4)
  std::uint64_t stat_md = 0;         // kDev*: XStat.metadata_id
};

struct XEvent {
  std::uint32_t part_begin = 0, part_end = 0;
  std::uint64_t metadata_id = 0;
  bool has_offset = false, has_dev_offset = false, has_dev_duration = false;
  std::int64_t start_ps = 0, duration_ps = 0;  // start on the trace's axis: line timestamp + offset
  std::int64_t dev_offset_ps = 0, dev_duration_ps = 0;
  std::int64_t shift_ps = 0, extra_ps = 0;     // planted wait (hosts that are not the straggler)
};

struct XLine {
  std::vector<Part> header;  // every field but events and duration_ps, in order
  bool has_duration = false;
  std::int64_t duration_ps = 0;
  std::int64_t timestamp_ps = 0;
  std::uint32_t event_begin = 0, event_end = 0;
  std::string name;
};

struct Item {  // a field copied as bytes, or (index >= 0) a line / plane
  std::uint32_t begin = 0, len = 0;
  int index = -1;
};

struct XPlaneT {
  std::vector<Item> items;
  std::string name;
};

struct Source {
  std::string bytes;
  std::vector<Item> space;  // planes and other XSpace fields; hostnames dropped
  std::vector<XPlaneT> planes;
  std::vector<XLine> lines;
  std::vector<XEvent> events;
  std::vector<Part> parts;
  std::int64_t s0_ps = 0, span_ps = 0, period_ps = 0;
  std::uint64_t fixed_bytes = 0, repeat_bytes = 0;
  std::string planted;
};

std::string_view opcode_of_collective(std::string_view display_name, std::string_view hlo_text) {
  static constexpr std::string_view kOps[] = {"all-reduce",         "all-gather",           "reduce-scatter",
                                              "all-to-all",         "collective-permute",   "collective-broadcast",
                                              "ragged-all-to-all"};
  for (std::string_view op : kOps) {
    if (display_name.substr(0, op.size()) == op) return op;
    for (std::string_view tail : {"(", "-start("})
      if (hlo_text.find(std::string(" ") + std::string(op) + std::string(tail)) != std::string_view::npos) return op;
  }
  return {};
}

class Loader {
 public:
  Loader(Source& src, const std::string& path) : src_(src), w_(src.bytes, path), path_(path) {}

  absl::Status space() {
    std::size_t i = 0;
    const std::size_t end = src_.bytes.size();
    while (i < end) {
      ROOFLINE_ASSIGN_OR_RETURN(const Field f, w_.next(i, end));
      if (f.number == 1 && f.type == 2) {
        src_.space.push_back({0, 0, static_cast<int>(src_.planes.size())});
        ROOFLINE_RETURN_IF_ERROR(plane(f));
      } else if (f.number != 4) {
        src_.space.push_back(raw(f));
      }
    }
    if (src_.planes.empty()) return absl::InvalidArgumentError(path_ + ": no XPlanes (not an XSpace?)");
    return absl::OkStatus();
  }

 private:
  static Item raw(const Field& f) {
    return {static_cast<std::uint32_t>(f.begin), static_cast<std::uint32_t>(f.end - f.begin), -1};
  }

  absl::Status plane(const Field& pf) {
    XPlaneT p;
    std::vector<Field> line_fields;
    dev_offset_md_ = dev_duration_md_ = UINT64_MAX;
    collective_md_.clear();
    // Metadata first: stats are known by id, and maps may follow the lines.
    std::size_t i = pf.payload;
    while (i < pf.end) {
      ROOFLINE_ASSIGN_OR_RETURN(const Field f, w_.next(i, pf.end));
      if (f.number == 2 && f.type == 2) p.name = std::string(f.bytes);
      if (f.number == 3 && f.type == 2) {
        p.items.push_back({0, 0, static_cast<int>(src_.lines.size() + line_fields.size())});
        line_fields.push_back(f);
        continue;
      }
      if ((f.number == 4 || f.number == 5) && f.type == 2) ROOFLINE_RETURN_IF_ERROR(metadata(f));
      p.items.push_back(raw(f));
    }
    const bool device = p.name.rfind("/device:", 0) == 0;
    for (const Field& f : line_fields) ROOFLINE_RETURN_IF_ERROR(line(f, device, p.name));
    src_.planes.push_back(std::move(p));
    return absl::OkStatus();
  }

  // A map entry of event_metadata (4) or stat_metadata (5).
  absl::Status metadata(const Field& entry) {
    std::uint64_t key = 0;
    std::string_view name, display_name;
    std::size_t i = entry.payload;
    while (i < entry.end) {
      ROOFLINE_ASSIGN_OR_RETURN(const Field f, w_.next(i, entry.end));
      if (f.number == 1 && f.type == 0) key = f.value;
      if (f.number == 2 && f.type == 2) {
        std::size_t j = f.payload;
        while (j < f.end) {
          ROOFLINE_ASSIGN_OR_RETURN(const Field m, w_.next(j, f.end));
          if (m.number == 2 && m.type == 2) name = m.bytes;
          if (m.number == 4 && m.type == 2) display_name = m.bytes;
        }
      }
    }
    if (entry.number == 5) {
      if (name == "device_offset_ps") dev_offset_md_ = key;
      if (name == "device_duration_ps") dev_duration_md_ = key;
    } else if (!opcode_of_collective(display_name, name).empty()) {
      collective_md_.push_back(key);
    }
    return absl::OkStatus();
  }

  absl::Status line(const Field& lf, bool device_plane, const std::string& plane_name) {
    XLine l;
    l.event_begin = static_cast<std::uint32_t>(src_.events.size());
    std::size_t i = lf.payload;
    while (i < lf.end) {
      ROOFLINE_ASSIGN_OR_RETURN(const Field f, w_.next(i, lf.end));
      if (f.number == 4 && f.type == 2) {
        ROOFLINE_RETURN_IF_ERROR(event(f));
        continue;
      }
      if (f.number == 9 && f.type == 0) {
        l.has_duration = true;
        l.duration_ps = static_cast<std::int64_t>(f.value);
        continue;
      }
      if (f.number == 3 && f.type == 0) l.timestamp_ps = static_cast<std::int64_t>(f.value) * 1000;
      if (f.number == 2 && f.type == 2) l.name = std::string(f.bytes);
      const Item it = raw(f);
      l.header.push_back({it.begin, it.len, XSlot::kRaw, 0, 0});
    }
    l.event_end = static_cast<std::uint32_t>(src_.events.size());
    for (std::uint32_t e = l.event_begin; e < l.event_end; ++e) src_.events[e].start_ps += l.timestamp_ps;
    if (device_plane && l.name == "XLA Ops") plant(l, plane_name);
    src_.lines.push_back(std::move(l));
    return absl::OkStatus();
  }

  void add_part(const Part& p) {
    if (p.slot == XSlot::kRaw && !src_.parts.empty() && cur_event_parts_ > 0) {
      Part& last = src_.parts.back();
      if (last.slot == XSlot::kRaw && last.begin + last.len == p.begin) {
        last.len += p.len;
        return;
      }
    }
    src_.parts.push_back(p);
    ++cur_event_parts_;
  }

  absl::Status event(const Field& ef) {
    XEvent e;
    e.part_begin = static_cast<std::uint32_t>(src_.parts.size());
    cur_event_parts_ = 0;
    bool has_duration = false;
    std::int64_t duration = 0;
    std::size_t i = ef.payload;
    while (i < ef.end) {
      ROOFLINE_ASSIGN_OR_RETURN(const Field f, w_.next(i, ef.end));
      const Item it = raw(f);
      if (f.number == 1 && f.type == 0) e.metadata_id = f.value;
      if (f.number == 2 && f.type == 0) {
        e.has_offset = true;
        e.start_ps = static_cast<std::int64_t>(f.value);
        add_part({0, 0, XSlot::kOffset, 0, 0});
        continue;
      }
      if (f.number == 3 && f.type == 0) {
        has_duration = true;
        duration = static_cast<std::int64_t>(f.value);
        add_part({0, 0, XSlot::kDuration, 0, 0});
        continue;
      }
      if (f.number == 4 && f.type == 2) {
        std::uint64_t md = UINT64_MAX, value = 0;
        std::uint32_t value_field = 0;
        int fields = 0;
        std::size_t j = f.payload;
        while (j < f.end) {
          ROOFLINE_ASSIGN_OR_RETURN(const Field s, w_.next(j, f.end));
          ++fields;
          if (s.number == 1 && s.type == 0) md = s.value;
          if ((s.number == 3 || s.number == 4) && s.type == 0) value_field = s.number, value = s.value;
        }
        const auto v = static_cast<std::int64_t>(value);
        if (fields == 2 && value_field != 0 && v >= 0 && (md == dev_offset_md_ || md == dev_duration_md_)) {
          const bool off = md == dev_offset_md_;
          (off ? e.has_dev_offset : e.has_dev_duration) = true;
          (off ? e.dev_offset_ps : e.dev_duration_ps) = v;
          add_part({0, 0, off ? XSlot::kDevOffset : XSlot::kDevDuration, value_field, md});
          continue;
        }
      }
      add_part({it.begin, it.len, XSlot::kRaw, 0, 0});
    }
    e.duration_ps = has_duration ? duration : 0;
    e.part_end = static_cast<std::uint32_t>(src_.parts.size());
    src_.events.push_back(e);
    return absl::OkStatus();
  }

  // The first collective on this XLA Ops line (device clock where the event
  // has it, as the reader times it) waits on the hosts that are not the
  // straggler; the line's later events move by the wait. The wait itself is
  // known only once the whole span is: stored as -1 here, filled in later.
  void plant(const XLine& l, const std::string& plane_name) {
    auto key = [&](std::uint32_t e) {
      const XEvent& ev = src_.events[e];
      return ev.has_dev_offset ? ev.dev_offset_ps : ev.start_ps;
    };
    std::uint32_t first = l.event_end;
    for (std::uint32_t e = l.event_begin; e < l.event_end; ++e) {
      if (!src_.events[e].has_offset) continue;
      if (std::find(collective_md_.begin(), collective_md_.end(), src_.events[e].metadata_id) == collective_md_.end())
        continue;
      if (first == l.event_end || key(e) < key(first)) first = e;
    }
    if (first == l.event_end) return;
    planted_.push_back({first, plane_name});
    for (std::uint32_t e = l.event_begin; e < l.event_end; ++e)
      if (e != first && (key(e) > key(first) || (key(e) == key(first) && e > first))) src_.events[e].shift_ps = -1;
    src_.events[first].extra_ps = -1;
  }

 public:
  struct Planted {
    std::uint32_t event;
    std::string plane;
  };
  std::vector<Planted> planted_;

 private:
  Source& src_;
  Wire w_;
  const std::string& path_;
  std::uint64_t dev_offset_md_ = UINT64_MAX, dev_duration_md_ = UINT64_MAX;
  std::vector<std::uint64_t> collective_md_;
  std::size_t cur_event_parts_ = 0;
};

// The times of event `e` in repeat `r`.
struct Times {
  std::int64_t offset, duration, dev_offset, dev_duration;
};

Times times(const Source& s, const XEvent& e, std::int64_t line_ts_ps, std::int64_t r, bool slow) {
  const std::int64_t base = r * s.period_ps;
  if (!e.has_offset)  // no place in time (num_occurrences): copied as it is
    return {0, e.duration_ps, e.dev_offset_ps, e.dev_duration_ps};
  if (!slow)
    return {e.start_ps + base + e.shift_ps - line_ts_ps, e.duration_ps + e.extra_ps,
            e.dev_offset_ps + base + e.shift_ps, e.dev_duration_ps + e.extra_ps};
  const std::int64_t a = stretch(e.start_ps, s.s0_ps);
  Times t{a + base - line_ts_ps, stretch(e.start_ps + e.duration_ps, s.s0_ps) - a, 0, e.dev_duration_ps * 11 / 10};
  if (e.has_dev_offset) {
    const std::int64_t da = stretch(e.dev_offset_ps, s.s0_ps);
    t.dev_offset = da + base;
    t.dev_duration = stretch(e.dev_offset_ps + e.dev_duration_ps, s.s0_ps) - da;
  }
  return t;
}

std::uint64_t u64(std::int64_t v) { return static_cast<std::uint64_t>(v); }

std::size_t stat_size(const Part& p, std::int64_t v) {
  return 1 + static_cast<std::size_t>(varint_size(p.stat_md)) + 1 + static_cast<std::size_t>(varint_size(u64(v)));
}

std::size_t body_size(const Source& s, const XEvent& e, const Times& t) {
  std::size_t n = 0;
  for (std::uint32_t i = e.part_begin; i < e.part_end; ++i) {
    const Part& p = s.parts[i];
    switch (p.slot) {
      case XSlot::kRaw: n += p.len; break;
      case XSlot::kOffset: n += 1 + static_cast<std::size_t>(varint_size(u64(t.offset))); break;
      case XSlot::kDuration: n += 1 + static_cast<std::size_t>(varint_size(u64(t.duration))); break;
      case XSlot::kDevOffset:
      case XSlot::kDevDuration: {
        const std::size_t k = stat_size(p, p.slot == XSlot::kDevOffset ? t.dev_offset : t.dev_duration);
        n += 1 + static_cast<std::size_t>(varint_size(k)) + k;
        break;
      }
    }
  }
  return n;
}

void write_body(const Source& s, std::string_view bytes, const XEvent& e, const Times& t, OutputFile& out) {
  for (std::uint32_t i = e.part_begin; i < e.part_end; ++i) {
    const Part& p = s.parts[i];
    switch (p.slot) {
      case XSlot::kRaw: out.append(bytes.substr(p.begin, p.len)); break;
      case XSlot::kOffset:
        out.put_varint(0x10);
        out.put_varint(u64(t.offset));
        break;
      case XSlot::kDuration:
        out.put_varint(0x18);
        out.put_varint(u64(t.duration));
        break;
      case XSlot::kDevOffset:
      case XSlot::kDevDuration: {
        const std::int64_t v = p.slot == XSlot::kDevOffset ? t.dev_offset : t.dev_duration;
        out.put_varint(0x22);
        out.put_varint(stat_size(p, v));
        out.put_varint(0x08);
        out.put_varint(p.stat_md);
        out.put_varint(p.value_field << 3);
        out.put_varint(u64(v));
        break;
      }
    }
  }
}

absl::StatusOr<Source> load(const std::string& path, std::vector<Loader::Planted>& planted) {
  Source src;
  ROOFLINE_ASSIGN_OR_RETURN(src.bytes, read_source(path));
  if (src.bytes.size() >= (std::uint64_t{1} << 31)) return absl::InvalidArgumentError(path + ": over 2 GiB of XSpace");
  Loader loader(src, path);
  ROOFLINE_RETURN_IF_ERROR(loader.space());
  planted = std::move(loader.planted_);

  std::int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const XEvent& e : src.events) {
    if (!e.has_offset) continue;
    lo = std::min(lo, e.start_ps);
    hi = std::max(hi, e.start_ps + e.duration_ps);
    if (e.has_dev_offset) {
      lo = std::min(lo, e.dev_offset_ps);
      hi = std::max(hi, e.dev_offset_ps + e.dev_duration_ps);
    }
  }
  if (lo > hi) return absl::InvalidArgumentError(path + ": no timed XEvents");
  src.s0_ps = lo;
  src.span_ps = hi - lo;
  // Room for the straggler's 10% and a 1 ms gap, in whole microseconds.
  src.period_ps = (src.span_ps + src.span_ps / 10 + 1'000'000'000 + 999'999) / 1'000'000 * 1'000'000;
  const std::int64_t wait = src.span_ps / 10;
  for (XEvent& e : src.events) {
    if (e.shift_ps < 0) e.shift_ps = wait;
    if (e.extra_ps < 0) e.extra_ps = wait;
  }

  std::uint64_t event_bytes = 0;
  for (const XLine& l : src.lines)
    for (std::uint32_t i = l.event_begin; i < l.event_end; ++i) {
      const XEvent& e = src.events[i];
      const std::size_t n = body_size(src, e, {e.start_ps - l.timestamp_ps, e.duration_ps, e.dev_offset_ps, e.dev_duration_ps});
      event_bytes += 1 + static_cast<std::uint64_t>(varint_size(n)) + n;
    }
  src.repeat_bytes = event_bytes;
  src.fixed_bytes = src.bytes.size() > event_bytes ? src.bytes.size() - event_bytes : 0;
  std::string where;
  for (const Loader::Planted& p : planted) where += (where.empty() ? "" : ", ") + p.plane;
  src.planted = std::to_string(planted.size()) + " XLA Ops lines have a collective that waits " +
                std::to_string(wait) + " ps (10% of the span) on the other hosts" +
                (where.empty() ? std::string() : " (" + where + ")");
  return src;
}

class Writer {
 public:
  Writer(const Source& s, std::string_view bytes, const PodOptions& o, std::int64_t repeats, int host, OutputFile& out)
      : s_(s), bytes_(bytes), o_(o), k_(repeats), host_(host), out_(out) {}

  void file() {
    for (const Item& it : s_.space) {
      if (it.index < 0) {
        out_.append(bytes_.substr(it.begin, it.len));
        continue;
      }
      const XPlaneT& p = s_.planes[static_cast<std::size_t>(it.index)];
      std::vector<std::uint64_t> line_sizes;
      std::uint64_t plane_size = 0;
      for (const Item& pi : p.items) {
        if (pi.index < 0) {
          plane_size += pi.len;
          continue;
        }
        const std::uint64_t n = line_size(s_.lines[static_cast<std::size_t>(pi.index)]);
        line_sizes.push_back(n);
        plane_size += 1 + static_cast<std::uint64_t>(varint_size(n)) + n;
      }
      out_.put_varint(0x0A);
      out_.put_varint(plane_size);
      std::size_t li = 0;
      for (const Item& pi : p.items) {
        if (pi.index < 0) {
          out_.append(bytes_.substr(pi.begin, pi.len));
          continue;
        }
        out_.put_varint(0x1A);
        out_.put_varint(line_sizes[li++]);
        line(s_.lines[static_cast<std::size_t>(pi.index)]);
      }
    }
    const std::string name = host_name(host_, o_.hosts);
    out_.put_varint(0x22);
    out_.put_varint(name.size());
    out_.append(name);
  }

 private:
  std::int64_t line_duration(const XLine& l) const { return l.duration_ps + (k_ - 1) * s_.period_ps; }

  std::uint64_t line_size(const XLine& l) const {
    std::uint64_t n = 0;
    for (const Part& p : l.header) n += p.len;
    if (l.has_duration) n += 1 + static_cast<std::uint64_t>(varint_size(u64(line_duration(l))));
    for (std::int64_t r = 0; r < k_; ++r) {
      const bool slow = straggler_host(r, o_) == host_;
      for (std::uint32_t i = l.event_begin; i < l.event_end; ++i) {
        const std::size_t b = body_size(s_, s_.events[i], times(s_, s_.events[i], l.timestamp_ps, r, slow));
        n += 1 + static_cast<std::uint64_t>(varint_size(b)) + b;
      }
    }
    return n;
  }

  void line(const XLine& l) {
    for (const Part& p : l.header) out_.append(bytes_.substr(p.begin, p.len));
    if (l.has_duration) {
      out_.put_varint(0x48);
      out_.put_varint(u64(line_duration(l)));
    }
    for (std::int64_t r = 0; r < k_; ++r) {
      const bool slow = straggler_host(r, o_) == host_;
      for (std::uint32_t i = l.event_begin; i < l.event_end; ++i) {
        const XEvent& e = s_.events[i];
        const Times t = times(s_, e, l.timestamp_ps, r, slow);
        out_.put_varint(0x22);
        out_.put_varint(body_size(s_, e, t));
        write_body(s_, bytes_, e, t, out_);
      }
    }
  }

  const Source& s_;
  std::string_view bytes_;
  const PodOptions& o_;
  std::int64_t k_;
  int host_;
  OutputFile& out_;
};

}  // namespace

absl::Status write_xplane_pod(const PodOptions& o, PodSummary& summary) {
  std::vector<Loader::Planted> planted;
  ROOFLINE_ASSIGN_OR_RETURN(const Source src, load(o.source_path, planted));
  const std::uint64_t need = o.bytes_per_host > src.fixed_bytes ? o.bytes_per_host - src.fixed_bytes : 0;
  summary.repeats = std::max<std::int64_t>(1, static_cast<std::int64_t>((need + src.repeat_bytes - 1) / src.repeat_bytes));
  summary.events_per_repeat = src.events.size();
  summary.planted = src.planted + "; period " + std::to_string(src.period_ps / 1'000'000) + " us";
  for (int h = 0; h < o.hosts; ++h) {
    ROOFLINE_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create(o.out_dir + "/" + host_name(h, o.hosts) + ".xplane.pb"));
    Writer(src, src.bytes, o, summary.repeats, h, out).file();
    summary.bytes_written += out.bytes_written();
    ROOFLINE_RETURN_IF_ERROR(out.close());
  }
  return absl::OkStatus();
}

}  // namespace roofline::pod
