// Sizes and printing of HLO shapes. The padded-size rule is XLA's
// ShapeUtil::ArraySize (only the first tile pads; later tiles subdivide it),
// worked through in docs/hlo.md.
#include <string>

#include "roofline/detail/cat.hpp"
#include "roofline/hlo/shape.hpp"
#include "src/hlo/int_math.hpp"

namespace roofline {
namespace {

using detail::ceil_div;
using detail::round_up;
using detail::sat_add;
using detail::sat_mul;

std::int64_t array_elements(const Shape& s) {
  std::int64_t n = 1;
  for (std::int64_t d : s.dims) n = sat_mul(n, d);
  return n;
}

// Bits one element occupies in memory: E(n) when the layout sets it, else
// the type's width with sub-byte types widened to a byte (XLA stores s4/u4
// one per byte unless packed with E(4)).
std::int64_t storage_bits(const Shape& s) {
  if (s.has_layout && s.layout.element_size_in_bits > 0) return s.layout.element_size_in_bits;
  const int bits = bit_width(s.element_type);
  return bits > 0 && bits < 8 ? 8 : bits;
}

std::int64_t bytes_of_elements(std::int64_t elements, std::int64_t bits) {
  if (bits % 8 == 0) return sat_mul(elements, bits / 8);
  return ceil_div(sat_mul(elements, bits), 8);
}

std::int64_t array_padded_bytes(const Shape& s) {
  const std::int64_t bits = storage_bits(s);
  const bool tiled = s.has_layout && !s.layout.tiles.empty();
  std::int64_t elements;
  if (!tiled) {
    elements = array_elements(s);
  } else {
    const Tile& tile = s.layout.tiles.front();
    const int rank = s.rank();
    const int k = static_cast<int>(tile.dims.size());
    // Physical dimensions from the most minor, each with the tile size that
    // applies to it (0 = untiled). A '*' tile size folds its dimension into
    // the next more-minor one before rounding.
    absl::InlinedVector<std::int64_t, 8> dims;
    absl::InlinedVector<std::int64_t, 8> tiles;
    const int n = rank > k ? rank : k;
    for (int i = 0; i < n; ++i) {
      const std::int64_t d = i < rank ? s.dims[static_cast<std::size_t>(s.layout.minor_to_major[static_cast<std::size_t>(i)])] : 1;
      const std::int64_t t = i < k ? tile.dims[static_cast<std::size_t>(k - 1 - i)] : 0;
      if (t == Tile::kCombine && !dims.empty()) {
        dims.back() = sat_mul(dims.back(), d);
        continue;
      }
      dims.push_back(d);
      tiles.push_back(t == Tile::kCombine ? 0 : t);
    }
    elements = 1;
    for (std::size_t i = 0; i < dims.size(); ++i)
      elements = sat_mul(elements, tiles[i] > 0 ? round_up(dims[i], tiles[i]) : dims[i]);
  }
  if (s.has_layout) elements = round_up(elements, s.layout.tail_padding_alignment_in_elements);
  std::int64_t bytes = bytes_of_elements(elements, bits);
  if (s.has_layout) bytes = sat_add(bytes, s.layout.dynamic_shape_metadata_prefix_bytes);
  return bytes;
}

void append_dims(std::string& out, const Shape& s) {
  out += dtype_name(s.element_type);
  out += '[';
  for (int i = 0; i < s.rank(); ++i) {
    if (i) out += ',';
    const std::uint64_t bit = std::uint64_t{1} << i;
    if (s.unbounded_dims & bit) {
      out += '?';
      continue;
    }
    if (s.dynamic_dims & bit) out += "<=";
    out += detail::cat(s.dims[static_cast<std::size_t>(i)]);
  }
  out += ']';
}

void append_layout(std::string& out, const Layout& l, int rank) {
  std::string items;
  for (const Tile& t : l.tiles) {
    if (&t == &l.tiles.front()) items += 'T';
    items += '(';
    for (std::size_t i = 0; i < t.dims.size(); ++i) {
      if (i) items += ',';
      if (t.dims[i] == Tile::kCombine) items += '*';
      else items += detail::cat(t.dims[i]);
    }
    items += ')';
  }
  if (l.tail_padding_alignment_in_elements > 1) items += detail::cat("L(", l.tail_padding_alignment_in_elements, ")");
  if (l.element_size_in_bits > 0) items += detail::cat("E(", l.element_size_in_bits, ")");
  if (l.memory_space != 0) items += detail::cat("S(", l.memory_space, ")");
  if (l.dynamic_shape_metadata_prefix_bytes > 0) items += detail::cat("M(", l.dynamic_shape_metadata_prefix_bytes, ")");
  if (rank == 0 && items.empty()) return;  // XLA never prints {} on a scalar
  out += '{';
  for (std::size_t i = 0; i < l.minor_to_major.size(); ++i) {
    if (i) out += ',';
    out += detail::cat(l.minor_to_major[i]);
  }
  if (!items.empty()) {
    out += ':';
    out += items;
  }
  out += '}';
}

void append(std::string& out, const Shape& s, bool with_layout) {
  switch (s.kind) {
    case ShapeKind::kTuple:
      out += '(';
      for (std::size_t i = 0; i < s.tuple_shapes.size(); ++i) {
        if (i) out += ", ";
        append(out, s.tuple_shapes[i], with_layout);
      }
      out += ')';
      return;
    case ShapeKind::kToken: out += "token[]"; return;
    case ShapeKind::kOpaque: out += "opaque[]"; return;
    case ShapeKind::kBuffer:
      out += "b(";
      if (!s.tuple_shapes.empty()) append(out, s.tuple_shapes.front(), with_layout);
      out += ')';
      return;
    case ShapeKind::kArray:
      append_dims(out, s);
      if (with_layout && s.has_layout) append_layout(out, s.layout, s.rank());
      return;
  }
}

}  // namespace

std::int64_t element_count(const Shape& s) {
  switch (s.kind) {
    case ShapeKind::kArray: return array_elements(s);
    case ShapeKind::kTuple:
    case ShapeKind::kBuffer: {
      std::int64_t n = 0;
      for (const Shape& e : s.tuple_shapes) n = sat_add(n, element_count(e));
      return n;
    }
    default: return 0;
  }
}

std::int64_t logical_bytes(const Shape& s) {
  switch (s.kind) {
    case ShapeKind::kArray: return bytes_of_elements(array_elements(s), bit_width(s.element_type));
    case ShapeKind::kTuple:
    case ShapeKind::kBuffer: {
      std::int64_t n = 0;
      for (const Shape& e : s.tuple_shapes) n = sat_add(n, logical_bytes(e));
      return n;
    }
    default: return 0;
  }
}

std::int64_t padded_bytes(const Shape& s) {
  switch (s.kind) {
    case ShapeKind::kArray: return array_padded_bytes(s);
    case ShapeKind::kTuple:
    case ShapeKind::kBuffer: {
      std::int64_t n = 0;
      for (const Shape& e : s.tuple_shapes) n = sat_add(n, padded_bytes(e));
      return n;
    }
    default: return 0;
  }
}

std::string to_string(const Shape& s) {
  std::string out;
  append(out, s, true);
  return out;
}

std::string to_string_no_layout(const Shape& s) {
  std::string out;
  append(out, s, false);
  return out;
}

}  // namespace roofline
