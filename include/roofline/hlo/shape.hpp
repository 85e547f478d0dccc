// HLO shapes: element type, dimensions (static, bounded-dynamic `<=N`,
// unbounded `?`), tuples, and the layout with TPU tiling, element size and
// memory space, as XLA prints them:
//
//   bf16[32,33,8000]{2,1,0:T(8,128)(2,1)}    (f32[8]{0}, s8[4194304]{0})
//   pred[8,8,8]{0,2,1:T(8,128)E(32)}         f32[]{:T(128)S(6)}
//
// Two sizes matter to a roofline. `logical_bytes` is what the values need at
// their type's own width (pred one byte, s4 half a byte), with no padding.
// `padded_bytes` is what the layout occupies in memory: the first tile rounds
// the most-minor physical dimensions up to multiples of the tile, L(n) rounds
// the element count, E(n) sets the bits per element (sub-byte types otherwise
// take a whole byte), and that is what an HBM read or write moves (docs/hlo.md,
// "Padded bytes").
//
//   auto s = roofline::parse_shape("bf16[32,33,8000]{2,1,0:T(8,128)(2,1)}");
//   padded_bytes(*s) == 32 * 40 * 8064 * 2;   logical_bytes(*s) == 32 * 33 * 8000 * 2
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "roofline/dtype.hpp"

namespace roofline {

enum class ShapeKind : std::uint8_t {
  kArray,   // element type + dimensions (a scalar is an array of rank 0)
  kTuple,   // `tuple_shapes` holds the elements
  kToken,   // token[]
  kOpaque,  // opaque[]
  kBuffer,  // b(shape): `tuple_shapes[0]` is the buffered shape (newest XLA)
};

// One level of tiling: `dims` are tile sizes from the most major tile
// dimension to the most minor, applied to a suffix of the physical dimensions.
struct Tile {
  // A `*` in a tile: this dimension is combined with the next more-minor one.
  static constexpr std::int64_t kCombine = std::numeric_limits<std::int64_t>::min();
  absl::InlinedVector<std::int64_t, 2> dims;

  friend bool operator==(const Tile&, const Tile&) = default;
};

// Memory spaces that change what a byte costs (XLA's numbering).
inline constexpr std::int64_t kMemorySpaceDevice = 0;  // HBM (printed as no S(n))
inline constexpr std::int64_t kMemorySpaceHost = 5;    // host memory (TPU host offload)

struct Layout {
  // Dimension numbers from fastest-varying to slowest.
  absl::InlinedVector<std::int64_t, 6> minor_to_major;
  // T(...)(...): the first tile sets the padded size; later ones subdivide it.
  absl::InlinedVector<Tile, 3> tiles;
  std::int64_t tail_padding_alignment_in_elements = 1;  // L(n)
  std::int64_t element_size_in_bits = 0;                // E(n); 0 = the type's own width
  std::int64_t memory_space = kMemorySpaceDevice;        // S(n)
  std::int64_t dynamic_shape_metadata_prefix_bytes = 0;  // M(n)

  friend bool operator==(const Layout&, const Layout&) = default;
};

struct Shape {
  ShapeKind kind = ShapeKind::kArray;
  DType element_type = DType::kF32;  // arrays only
  // Sizes per dimension; a dynamic dimension stores its upper bound, an
  // unbounded one (`?`) stores 0.
  absl::InlinedVector<std::int64_t, 6> dims;
  std::uint64_t dynamic_dims = 0;    // bit i: dimension i is dynamic (`<=N` or `?`)
  std::uint64_t unbounded_dims = 0;  // bit i: dimension i is `?`
  bool has_layout = false;
  Layout layout;
  std::vector<Shape> tuple_shapes;  // tuple elements; the inner shape of a buffer

  bool is_array() const { return kind == ShapeKind::kArray; }
  bool is_tuple() const { return kind == ShapeKind::kTuple; }
  int rank() const { return static_cast<int>(dims.size()); }
  std::int64_t memory_space() const { return has_layout ? layout.memory_space : kMemorySpaceDevice; }

  friend bool operator==(const Shape&, const Shape&) = default;
};

// Rank limit of the parser (the dynamic-dimension masks are 64 bits).
inline constexpr int kMaxShapeRank = 64;

// Elements of an array shape (1 for a scalar); 0 for token/opaque. For a tuple
// or buffer, the sum over its leaves. Saturates at INT64_MAX.
std::int64_t element_count(const Shape& shape);

// ceil(elements * bit_width(type) / 8): the values at their own width, no
// padding, no E(n). Tuples sum their leaves (the tuple's own pointer table is
// not counted).
std::int64_t logical_bytes(const Shape& shape);

// Bytes the shape occupies in its tiled layout (XLA's ShapeUtil::ArraySize
// rule, docs/hlo.md): the first tile pads the most-minor physical dimensions
// to multiples of its sizes, L(n) pads the element count, E(n) sets the bits
// per element (sub-byte types without E(n) take a byte each). Equals
// logical_bytes for whole-byte types without tiles, L(n) or E(n).
std::int64_t padded_bytes(const Shape& shape);

// The shape as HLO prints it, with its layout: "bf16[8,128]{1,0:T(8,128)(2,1)}".
std::string to_string(const Shape& shape);
// Without layouts: "bf16[8,128]", "(f32[], s32[4])".
std::string to_string_no_layout(const Shape& shape);

// Parses one shape in HLO syntax (the whole of `text`, surrounding blanks
// allowed). Errors say where: "1:9: expected ']' after the dimensions".
absl::StatusOr<Shape> parse_shape(std::string_view text);

// The HLO element-type names (`bf16`, `f8e4m3fn`, `pred`, ...); unlike
// parse_dtype it accepts no aliases. `s1`/`u1` are not DTypes and are refused.
bool parse_hlo_element_type(std::string_view name, DType* out);

}  // namespace roofline
