// A few lines of protobuf wire encoding, so tests can build XSpaces with
// exactly the oddities they need (field numbers from xplane.proto).
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>

namespace roofline::testing {

class Pb {
 public:
  Pb& varint(int field, std::uint64_t v) {
    tag(field, 0);
    put_varint(v);
    return *this;
  }
  Pb& sint(int field, std::int64_t v) { return varint(field, static_cast<std::uint64_t>(v)); }
  Pb& fixed64(int field, double d) {
    tag(field, 1);
    char b[8];
    std::memcpy(b, &d, 8);
    s_.append(b, 8);
    return *this;
  }
  Pb& bytes(int field, std::string_view v) {
    tag(field, 2);
    put_varint(v.size());
    s_.append(v);
    return *this;
  }
  Pb& msg(int field, const Pb& m) { return bytes(field, m.str()); }
  Pb& raw(std::string_view v) {
    s_.append(v);
    return *this;
  }
  const std::string& str() const { return s_; }

 private:
  void tag(int field, int type) {
    put_varint((static_cast<std::uint64_t>(field) << 3) | static_cast<unsigned>(type));
  }
  void put_varint(std::uint64_t v) {
    while (v >= 0x80) {
      s_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    s_.push_back(static_cast<char>(v));
  }
  std::string s_;
};

// XStat messages: metadata id and one value.
inline Pb stat_int(std::int64_t id, std::int64_t v) { return Pb().sint(1, id).sint(4, v); }
inline Pb stat_uint(std::int64_t id, std::uint64_t v) { return Pb().sint(1, id).varint(3, v); }
inline Pb stat_double(std::int64_t id, double v) { return Pb().sint(1, id).fixed64(2, v); }
inline Pb stat_str(std::int64_t id, std::string_view v) { return Pb().sint(1, id).bytes(5, v); }
inline Pb stat_ref(std::int64_t id, std::uint64_t ref) { return Pb().sint(1, id).varint(7, ref); }

// A map<int64, XStatMetadata> entry (XPlane field 5).
inline Pb stat_metadata(std::int64_t id, std::string_view name) {
  return Pb().sint(1, id).msg(2, Pb().sint(1, id).bytes(2, name));
}

// A map<int64, XEventMetadata> entry (XPlane field 4); `stats` holds
// XEventMetadata.stats fields (5) already wrapped.
inline Pb event_metadata(std::int64_t id, std::string_view name, std::string_view display_name = {},
                         const Pb& stats = Pb()) {
  Pb m;
  m.sint(1, id).bytes(2, name);
  if (!display_name.empty()) m.bytes(4, display_name);
  m.raw(stats.str());
  return Pb().sint(1, id).msg(2, m);
}

// An XEvent message; `stats` holds XEvent.stats fields (4) already wrapped.
inline Pb event(std::int64_t metadata_id, std::int64_t offset_ps, std::int64_t duration_ps,
                const Pb& stats = Pb()) {
  return Pb().sint(1, metadata_id).sint(2, offset_ps).sint(3, duration_ps).raw(stats.str());
}

// An XSpace of these planes on host "tpu-host".
inline std::string xspace(std::initializer_list<Pb> planes) {
  Pb s;
  for (const Pb& p : planes) s.msg(1, p);
  s.bytes(4, "tpu-host");
  return s.str();
}

// `text` gzip'd, as a profiler's .gz files are.
inline std::string gzip_of(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, text.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace roofline::testing
