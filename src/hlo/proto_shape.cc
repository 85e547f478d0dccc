// Shapes and layouts of an HloProto (xla.ShapeProto, xla.LayoutProto),
// decoded into the model's Shape (src/hlo/proto_fields.hpp).
#include <string>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "src/hlo/proto_fields.hpp"

namespace roofline::detail::hlo_proto {
namespace {

DType dtype_of(int primitive_type, bool* ok) {
  *ok = true;
  switch (primitive_type) {
    case 1: return DType::kPred;
    case 26: return DType::kS2;
    case 21: return DType::kS4;
    case 2: return DType::kS8;
    case 3: return DType::kS16;
    case 4: return DType::kS32;
    case 5: return DType::kS64;
    case 27: return DType::kU2;
    case 22: return DType::kU4;
    case 6: return DType::kU8;
    case 7: return DType::kU16;
    case 8: return DType::kU32;
    case 9: return DType::kU64;
    case 10: return DType::kF16;
    case 11: return DType::kF32;
    case 16: return DType::kBF16;
    case 12: return DType::kF64;
    case 19: return DType::kF8E5M2;
    case 28: return DType::kF8E4M3;
    case 20: return DType::kF8E4M3FN;
    case 23: return DType::kF8E4M3B11FNUZ;
    case 29: return DType::kF8E3M4;
    case 24: return DType::kF8E5M2FNUZ;
    case 25: return DType::kF8E4M3FNUZ;
    case 32: return DType::kF4E2M1FN;
    case 33: return DType::kF8E8M0FNU;
    case 15: return DType::kC64;
    case 18: return DType::kC128;
    default: *ok = false; return DType::kF32;
  }
}

// One shape and its nested tuple shapes, each error naming the file.
class ShapeReader {
 public:
  ShapeReader(const Wire& w, std::string_view origin) : w_(w), origin_(origin) {}

  absl::Status layout(const std::vector<Span>& spans, Shape* s, const std::string& where) {
    IntList minor_to_major;
    std::vector<Span> tiles;
    std::int64_t element_size_in_bits = 0, memory_space = 0, prefix_bytes = 0, tail_padding = 0;
    for (Span l : spans)
      w_.fields(l, [&](const WireField& f) {
        switch (f.number) {
          case 1: w_.ints(f, &minor_to_major); break;
          case 6: if (is_len(f)) tiles.push_back(span(f)); break;
          case 7: set(f, &element_size_in_bits); break;
          case 8: set(f, &memory_space); break;
          case 15: set(f, &prefix_bytes); break;
          case 16: set(f, &tail_padding); break;
          default: break;
        }
      });
    s->has_layout = true;
    Layout& out = s->layout;
    if (static_cast<int>(minor_to_major.size()) != s->rank())
      return error(detail::cat(where, ": layout lists ", minor_to_major.size(), " dimensions of a rank-", s->rank(),
                               " shape"));
    std::uint64_t seen = 0;
    for (std::int64_t m : minor_to_major) {
      if (m < 0 || m >= s->rank() || (seen & (std::uint64_t{1} << m))) return error(where + ": layout is not a permutation");
      seen |= std::uint64_t{1} << m;
      out.minor_to_major.push_back(m);
    }
    if (tiles.size() > 8) return error(where + ": more than 8 levels of tiling");
    for (Span t : tiles) {
      IntList dims;
      w_.fields(t, [&](const WireField& f) {
        if (f.number == 1) w_.ints(f, &dims);
      });
      Tile& tile = out.tiles.emplace_back();
      if (dims.size() > kMaxShapeRank) return error(where + ": tile of rank above 64");
      for (std::int64_t v : dims) {
        if (v <= 0 && v != Tile::kCombine) return error(detail::cat(where, ": tile size ", v));
        tile.dims.push_back(v);
      }
    }
    if (element_size_in_bits < 0 || element_size_in_bits > 1024) return error(where + ": bad element size");
    out.element_size_in_bits = element_size_in_bits;
    out.memory_space = memory_space < 0 ? 0 : memory_space;
    out.tail_padding_alignment_in_elements = tail_padding > 0 ? tail_padding : 1;
    out.dynamic_shape_metadata_prefix_bytes = prefix_bytes > 0 ? prefix_bytes : 0;
    return absl::OkStatus();
  }

  absl::Status shape(const std::vector<Span>& spans, Shape* s, const std::string& where, int depth) {
    if (depth > kMaxShapeRank) return error(where + ": shape nested too deep");
    std::int32_t element_type = 0;
    IntList dims, dynamic;
    std::vector<Span> tuple, layouts;
    for (Span p : spans)
      w_.fields(p, [&](const WireField& f) {
        switch (f.number) {
          case 2: set(f, &element_type); break;
          case 3: w_.ints(f, &dims); break;
          case 4: if (is_len(f)) tuple.push_back(span(f)); break;
          case 5: if (is_len(f)) layouts.push_back(span(f)); break;
          case 6: w_.ints(f, &dynamic); break;
          default: break;
        }
      });
    switch (element_type) {
      case 13: s->kind = ShapeKind::kTuple; break;
      case 14:
        s->kind = ShapeKind::kOpaque;
        s->element_type = DType::kToken;
        return absl::OkStatus();
      case 17:
        s->kind = ShapeKind::kToken;
        s->element_type = DType::kToken;
        return absl::OkStatus();
      case 34: s->kind = ShapeKind::kBuffer; break;
      default: {
        bool ok;
        s->element_type = dtype_of(element_type, &ok);
        if (!ok) return error(detail::cat(where, ": unsupported element type ", element_type));
      }
    }
    if (s->kind == ShapeKind::kTuple || s->kind == ShapeKind::kBuffer) {
      for (Span e : tuple) {
        s->tuple_shapes.emplace_back();
        ROOFLINE_RETURN_IF_ERROR(shape({e}, &s->tuple_shapes.back(), where, depth + 1));
      }
      return absl::OkStatus();
    }
    if (dims.size() > kMaxShapeRank) return error(where + ": rank above 64");
    for (std::size_t i = 0; i < dims.size(); ++i) {
      const std::int64_t dim = dims[i];
      const bool is_dynamic = i < dynamic.size() && dynamic[i] != 0;
      if (dim < 0 && !is_dynamic) return error(detail::cat(where, ": negative dimension ", dim));
      if (is_dynamic) {
        s->dynamic_dims |= std::uint64_t{1} << i;
        if (dim < 0) s->unbounded_dims |= std::uint64_t{1} << i;
      }
      s->dims.push_back(dim < 0 ? 0 : dim);
    }
    if (layouts.empty()) return absl::OkStatus();
    return layout(layouts, s, where);
  }

 private:
  absl::Status error(const std::string& message) const {
    return absl::InvalidArgumentError(detail::cat(origin_, ": ", message));
  }

  const Wire& w_;
  std::string_view origin_;
};

}  // namespace

absl::Status read_shape(const Wire& w, const std::vector<Span>& spans, Shape* s, std::string_view origin,
                        const std::string& where) {
  return ShapeReader(w, origin).shape(spans, s, where, 0);
}

}  // namespace roofline::detail::hlo_proto
