// HLO shape syntax (xla/hlo/parser/hlo_parser.cc ParseShape/ParseLayout, as
// described in docs/hlo.md): element types, dimensions, tuples, layouts with
// tiles, element size, memory space and the rarer sparse/split suffixes.
#include <string>

#include "roofline/detail/cat.hpp"
#include "roofline/hlo/shape.hpp"
#include "src/hlo/cursor.hpp"

namespace roofline {
namespace {

struct TypeName {
  std::string_view name;
  DType type;
};

constexpr TypeName kTypeNames[] = {
    {"pred", DType::kPred},         {"s2", DType::kS2},
    {"s4", DType::kS4},             {"s8", DType::kS8},
    {"s16", DType::kS16},           {"s32", DType::kS32},
    {"s64", DType::kS64},           {"u2", DType::kU2},
    {"u4", DType::kU4},             {"u8", DType::kU8},
    {"u16", DType::kU16},           {"u32", DType::kU32},
    {"u64", DType::kU64},           {"f16", DType::kF16},
    {"bf16", DType::kBF16},         {"f32", DType::kF32},
    {"f64", DType::kF64},           {"c64", DType::kC64},
    {"c128", DType::kC128},         {"f4e2m1fn", DType::kF4E2M1FN},
    {"f8e3m4", DType::kF8E3M4},     {"f8e4m3", DType::kF8E4M3},
    {"f8e4m3fn", DType::kF8E4M3FN}, {"f8e4m3b11fnuz", DType::kF8E4M3B11FNUZ},
    {"f8e4m3fnuz", DType::kF8E4M3FNUZ}, {"f8e5m2", DType::kF8E5M2},
    {"f8e5m2fnuz", DType::kF8E5M2FNUZ}, {"f8e8m0fnu", DType::kF8E8M0FNU},
};

}  // namespace

bool parse_hlo_element_type(std::string_view name, DType* out) {
  // Every shape starts with one: the common ones are decided without a table scan.
  DType common = DType::kToken;
  if (name == "f32") common = DType::kF32;
  else if (name == "bf16") common = DType::kBF16;
  else if (name == "s32") common = DType::kS32;
  if (common != DType::kToken) {
    *out = common;
    return true;
  }
  for (const TypeName& t : kTypeNames)
    if (t.name == name) {
      *out = t.type;
      return true;
    }
  return false;
}

namespace detail {
namespace {

constexpr int kMaxTupleDepth = 64;

// (n): one integer in parentheses, after the letter that introduced it.
bool paren_int(Cursor& c, std::int64_t* out, const char* what) {
  if (!c.expect('(', "'('")) return false;
  if (!c.integer(out, what)) return false;
  return c.expect(')', "')'");
}

// Skips "( ... )" whose content we keep no model of (D(...), SC(...), #(u32)).
bool skip_parens(Cursor& c) {
  if (!c.expect('(', "'('")) return false;
  std::string_view ignored;
  if (!c.balanced(&ignored, /*stop_at_newline=*/false)) return false;
  while (c.consume(',')) {
    if (!c.balanced(&ignored, false)) return false;
  }
  return c.expect(')', "')'");
}

bool parse_tile(Cursor& c, Tile* tile) {
  if (!c.expect('(', "'(' to open a tile")) return false;
  for (;;) {
    c.skip_space();
    std::int64_t v;
    if (c.consume('*')) {
      v = Tile::kCombine;
    } else {
      if (!c.integer(&v, "a tile size or '*'")) return false;
      if (v <= 0) return c.fail("a positive tile size");
    }
    if (tile->dims.size() >= kMaxShapeRank) return c.fail("a tile of at most 64 dimensions");
    tile->dims.push_back(v);
    c.skip_space();
    if (c.consume(')')) return true;
    if (!c.expect(',', "',' or ')' in the tile")) return false;
  }
}

// The items after ':' in a layout: T(..)(..) tiles, L(n), E(n), S(n), M(n)
// kept; SC(..), D(..), #(..), *(..) and P(shape) read and dropped.
bool parse_layout_items(Cursor& c, Layout& l, int depth) {
  for (;;) {
    c.skip_space();
    const char k = c.peek();
    if (k == '}' || c.at_end()) break;
    if (k == 'T') {
      c.advance();
      if (c.peek() != '(') return c.fail("'(' after T");
      while (c.peek() == '(') {
        Tile t;
        if (!parse_tile(c, &t)) return false;
        if (l.tiles.size() >= 8) return c.fail("at most 8 levels of tiling");
        l.tiles.push_back(std::move(t));
      }
    } else if (k == 'L') {
      c.advance();
      if (!paren_int(c, &l.tail_padding_alignment_in_elements, "an element count")) return false;
      if (l.tail_padding_alignment_in_elements < 1) return c.fail("a positive L(n)");
    } else if (k == 'E') {
      c.advance();
      if (!paren_int(c, &l.element_size_in_bits, "a bit width")) return false;
      if (l.element_size_in_bits < 0 || l.element_size_in_bits > 1024) return c.fail("an element size of 0..1024 bits");
    } else if (k == 'S' && c.peek(1) == 'C') {
      c.advance(2);
      if (!skip_parens(c)) return false;
    } else if (k == 'S') {
      c.advance();
      if (!paren_int(c, &l.memory_space, "a memory space")) return false;
      if (l.memory_space < 0) return c.fail("a non-negative memory space");
    } else if (k == 'M') {
      c.advance();
      if (!paren_int(c, &l.dynamic_shape_metadata_prefix_bytes, "a byte count")) return false;
      if (l.dynamic_shape_metadata_prefix_bytes < 0) return c.fail("a non-negative M(n)");
    } else if (k == 'D' || k == '#' || k == '*') {
      c.advance();
      if (!skip_parens(c)) return false;
    } else if (k == 'P') {
      c.advance();
      if (!c.expect('(', "'(' after P")) return false;
      Shape physical;
      if (!parse_shape_at(c, &physical, depth + 1)) return false;
      c.skip_space();
      if (!c.expect(')', "')' after the physical shape")) return false;
    } else {
      return c.fail("a layout item (T, L, E, S, M, D, SC, P, # or *) or '}'");
    }
  }
  return true;
}

bool parse_layout(Cursor& c, Shape* s, int depth) {
  Layout& l = s->layout;
  s->has_layout = true;
  c.advance();  // '{'
  c.skip_space();
  if (Cursor::is_digit(c.peek())) {
    for (;;) {
      std::int64_t d;
      const char* at = c.pos();
      if (!c.integer(&d, "a dimension number")) return false;
      if (d < 0 || d >= s->rank())
        return c.fail_message(detail::cat("layout names dimension ", d, " of a rank-", s->rank(), " shape"), at);
      if (l.minor_to_major.size() >= kMaxShapeRank) return c.fail("at most 64 layout dimensions");
      l.minor_to_major.push_back(d);
      c.skip_space();
      if (!c.consume(',')) break;
      c.skip_space();
    }
  }
  if (c.consume(':') && !parse_layout_items(c, l, depth)) return false;
  c.skip_space();
  if (!c.expect('}', "'}' to close the layout")) return false;
  if (s->rank() == 0 && l == Layout{}) s->has_layout = false;  // "f32[]{}" says nothing
  if (!l.minor_to_major.empty() || s->rank() > 0) {
    if (static_cast<int>(l.minor_to_major.size()) != s->rank())
      return c.fail_message(detail::cat("layout lists ", l.minor_to_major.size(), " dimensions of a rank-",
                                        s->rank(), " shape"),
                            c.pos() - 1);
    std::uint64_t seen = 0;
    for (std::int64_t d : l.minor_to_major) {
      if (seen & (std::uint64_t{1} << d))
        return c.fail_message(detail::cat("layout repeats dimension ", d), c.pos() - 1);
      seen |= std::uint64_t{1} << d;
    }
  }
  return true;
}

}  // namespace

bool parse_shape_at(Cursor& c, Shape* s, int depth) {
  if (depth > kMaxTupleDepth) return c.fail("a shape nested at most 64 deep");
  c.skip_space();
  if (c.consume('(')) {
    s->kind = ShapeKind::kTuple;
    c.skip_space();
    if (c.consume(')')) return true;
    for (;;) {
      s->tuple_shapes.emplace_back();
      if (!parse_shape_at(c, &s->tuple_shapes.back(), depth + 1)) return false;
      c.skip_space();
      if (c.consume(')')) return true;
      if (!c.expect(',', "',' or ')' in the tuple shape")) return false;
    }
  }
  const char* word_at = c.pos();
  const std::string_view w = c.word();
  if (w == "b" && c.peek() == '(') {
    c.advance();
    s->kind = ShapeKind::kBuffer;
    s->tuple_shapes.emplace_back();
    if (!parse_shape_at(c, &s->tuple_shapes.back(), depth + 1)) return false;
    c.skip_space();
    return c.expect(')', "')' after the buffer shape");
  }
  if (w == "token" || w == "opaque" || w == "opaque_type") {
    s->kind = w == "token" ? ShapeKind::kToken : ShapeKind::kOpaque;
    s->element_type = DType::kToken;
    if (!c.expect('[', "'['")) return false;
    return c.expect(']', "']'");
  }
  if (!parse_hlo_element_type(w, &s->element_type)) {
    c.set_pos(word_at);
    if (w == "s1" || w == "u1") return c.fail("an element type other than s1/u1 (not supported)");
    return c.fail("a shape (an element type such as f32 or bf16, or '(' for a tuple)");
  }
  s->kind = ShapeKind::kArray;
  if (!c.expect('[', "'[' after the element type")) return false;
  c.skip_space();
  if (!c.consume(']')) {
    for (;;) {
      c.skip_space();
      std::int64_t d = 0;
      const int i = s->rank();
      if (i >= kMaxShapeRank) return c.fail("a shape of rank at most 64");
      if (c.consume("<=")) {
        if (!c.integer(&d, "a dimension bound")) return false;
        s->dynamic_dims |= std::uint64_t{1} << i;
      } else if (c.consume('?')) {
        s->dynamic_dims |= std::uint64_t{1} << i;
        s->unbounded_dims |= std::uint64_t{1} << i;
      } else if (!c.integer(&d, "a dimension size")) {
        return false;
      }
      if (d < 0) return c.fail("a non-negative dimension size");
      s->dims.push_back(d);
      c.skip_space();
      if (c.consume(']')) break;
      if (!c.expect(',', "',' or ']' after a dimension")) return false;
    }
  }
  // A '{' right after the dimensions is a layout when it opens with a
  // dimension number, ':' or '}'; anything else (a computation body after a
  // program shape) is left for the caller.
  if (c.peek() == '{') {
    const char n = c.peek(1);
    if (Cursor::is_digit(n) || n == ':' || n == '}') return parse_layout(c, s, depth);
  }
  return true;
}

void Cursor::line_column(const char* at, int* line, int* column) const {
  int l = 1;
  const char* line_start = begin_;
  for (const char* q = begin_; q < at && q < end_; ++q)
    if (*q == '\n') {
      ++l;
      line_start = q + 1;
    }
  *line = l;
  *column = static_cast<int>(at - line_start) + 1;
}

absl::Status Cursor::error_status(std::string_view origin) const {
  int line, column;
  line_column(error_at_ ? error_at_ : p_, &line, &column);
  std::string msg = detail::cat(origin, origin.empty() ? "" : ":", line, ":", column, ": ");
  if (error_is_message_) {
    msg += error_what_;
  } else {
    msg += "expected ";
    msg += error_what_;
    const char* at = error_at_ ? error_at_ : p_;
    if (at >= end_) {
      msg += ", found the end of the input";
    } else {
      // Quote what was there, up to the end of its line, briefly.
      const char* e = at;
      while (e < end_ && *e != '\n' && e - at < 24) ++e;
      msg += detail::cat(", found '", std::string_view(at, static_cast<std::size_t>(e - at)), "'");
    }
  }
  return absl::InvalidArgumentError(msg);
}

}  // namespace detail

absl::StatusOr<Shape> parse_shape(std::string_view text) {
  detail::Cursor c(text);
  Shape s;
  if (!detail::parse_shape_at(c, &s)) return c.error_status("");
  c.skip_space();
  if (!c.at_end()) {
    c.fail("the end of the shape");
    return c.error_status("");
  }
  return s;
}

}  // namespace roofline
