// Where a protobuf message stops being well-formed: libprotobuf only says
// that a parse failed; this walk says at which byte and why.
#include "src/hlo/proto_wire_error.hpp"

#include "roofline/detail/cat.hpp"

namespace roofline::detail {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

bool read_varint(const unsigned char* p, std::size_t end, std::size_t* pos, std::uint64_t* out) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= end) return false;
    const unsigned char b = p[(*pos)++];
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = v;
      return true;
    }
  }
  return false;
}

}  // namespace

bool find_wire_error(const unsigned char* p, std::size_t begin, std::size_t end, const Descriptor* d, int depth,
                     WireError* err) {
  if (depth > 100) {
    *err = {begin, "messages nested more than 100 deep"};
    return true;
  }
  std::size_t pos = begin;
  while (pos < end) {
    const std::size_t tag_at = pos;
    std::uint64_t tag;
    if (!read_varint(p, end, &pos, &tag)) {
      *err = {tag_at, "truncated or malformed field tag"};
      return true;
    }
    const std::uint64_t field = tag >> 3;
    const int wire = static_cast<int>(tag & 7);
    if (field == 0) {
      *err = {tag_at, "field number 0"};
      return true;
    }
    std::uint64_t v;
    switch (wire) {
      case 0:
        if (!read_varint(p, end, &pos, &v)) {
          *err = {tag_at, detail::cat("truncated varint in field ", field)};
          return true;
        }
        break;
      case 1:
      case 5: {
        const std::size_t n = wire == 1 ? 8 : 4;
        if (end - pos < n) {
          *err = {tag_at, detail::cat("truncated fixed", n * 8, " field ", field)};
          return true;
        }
        pos += n;
        break;
      }
      case 2: {
        if (!read_varint(p, end, &pos, &v) || v > end - pos) {
          *err = {tag_at, detail::cat("truncated length-delimited field ", field)};
          return true;
        }
        const FieldDescriptor* f = d ? d->FindFieldByNumber(static_cast<int>(field)) : nullptr;
        if (f && f->type() == FieldDescriptor::TYPE_MESSAGE &&
            find_wire_error(p, pos, pos + v, f->message_type(), depth + 1, err))
          return true;
        pos += v;
        break;
      }
      default:
        *err = {tag_at, detail::cat("unsupported wire type ", wire, " in field ", field)};
        return true;
    }
  }
  return false;
}

}  // namespace roofline::detail
