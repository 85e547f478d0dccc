#include <catch2/catch.hpp>

#include "roofline/hlo/shape.hpp"

using roofline::DType;
using roofline::parse_shape;
using roofline::Shape;
using roofline::ShapeKind;

namespace {

Shape must_parse(const std::string& text) {
  auto s = parse_shape(text);
  INFO(text << ": " << s.status().message());
  REQUIRE(s.ok());
  return *s;
}

}  // namespace

TEST_CASE("shape: arrays, scalars and element types") {
  Shape s = must_parse("bf16[1024,4096]{1,0}");
  CHECK(s.kind == ShapeKind::kArray);
  CHECK(s.element_type == DType::kBF16);
  CHECK(s.dims == decltype(s.dims){1024, 4096});
  CHECK(s.has_layout);
  CHECK(s.layout.minor_to_major == decltype(s.layout.minor_to_major){1, 0});
  // 1024 * 4096 elements of 2 bytes.
  CHECK(roofline::logical_bytes(s) == 8388608);
  CHECK(roofline::padded_bytes(s) == 8388608);

  Shape scalar = must_parse("f32[]");
  CHECK(scalar.rank() == 0);
  CHECK(roofline::element_count(scalar) == 1);
  CHECK(roofline::logical_bytes(scalar) == 4);

  for (const char* t : {"pred[2]", "s2[2]", "s4[2]", "s8[2]", "s16[2]", "s32[2]", "s64[2]", "u2[2]", "u4[2]", "u8[2]",
                        "u16[2]", "u32[2]", "u64[2]", "f16[2]", "bf16[2]", "f32[2]", "f64[2]", "c64[2]", "c128[2]",
                        "f8e4m3fn[2]", "f8e5m2[2]", "f8e4m3[2]", "f8e3m4[2]", "f8e4m3b11fnuz[2]", "f8e4m3fnuz[2]",
                        "f8e5m2fnuz[2]", "f8e8m0fnu[2]", "f4e2m1fn[2]"})
    CHECK(parse_shape(t).ok());
}

TEST_CASE("shape: sub-byte types take a byte each unless E(n) packs them") {
  // s4[1024]: 1024 * 4 bits = 512 bytes of values; stored one per byte: 1024.
  Shape unpacked = must_parse("s4[1024]{0}");
  CHECK(roofline::logical_bytes(unpacked) == 512);
  CHECK(roofline::padded_bytes(unpacked) == 1024);
  // With E(4) two share a byte: ceil(1024 * 4 / 8) = 512.
  Shape packed = must_parse("s4[1024]{0:E(4)}");
  CHECK(roofline::padded_bytes(packed) == 512);
  // Odd count: ceil(3 * 4 / 8) = 2.
  CHECK(roofline::padded_bytes(must_parse("u4[3]{0:E(4)}")) == 2);
}

TEST_CASE("shape: dynamic dimensions keep their bound, unbounded ones count as zero") {
  Shape s = must_parse("f32[<=128,64,?]");
  CHECK(s.dims == decltype(s.dims){128, 64, 0});
  CHECK(s.dynamic_dims == 0b101);
  CHECK(s.unbounded_dims == 0b100);
  CHECK(roofline::to_string(s) == "f32[<=128,64,?]");
  Shape bounded = must_parse("bf16[<=16,8]");
  // The bound decides the size: 16 * 8 * 2 bytes.
  CHECK(roofline::padded_bytes(bounded) == 256);
}

TEST_CASE("shape: tuples nest, may be empty and may carry index comments") {
  Shape t = must_parse("(f32[16,256]{1,0}, f32[16,256]{1,0}, /*index=2*/s8[4194304]{0}, (), (pred[], token[]))");
  REQUIRE(t.kind == ShapeKind::kTuple);
  REQUIRE(t.tuple_shapes.size() == 5);
  CHECK(t.tuple_shapes[2].element_type == DType::kS8);
  CHECK(t.tuple_shapes[3].is_tuple());
  CHECK(t.tuple_shapes[3].tuple_shapes.empty());
  CHECK(t.tuple_shapes[4].tuple_shapes[1].kind == ShapeKind::kToken);
  // Leaves: 2 * 16*256*4 + 4194304 + 1 (pred) + 0 (token).
  CHECK(roofline::padded_bytes(t) == 2 * 16384 + 4194304 + 1);
  CHECK(must_parse("opaque[]").kind == ShapeKind::kOpaque);
  Shape b = must_parse("b(f32[8]{0})");
  CHECK(b.kind == ShapeKind::kBuffer);
  CHECK(roofline::padded_bytes(b) == 32);
}

TEST_CASE("shape: layout suffixes T, L, E, S, M and the sparse ones parse") {
  Shape s = must_parse("f32[5,1024,1024,256]{3,2,1,0:T(8,128)S(5)}");
  CHECK(s.layout.tiles.size() == 1);
  CHECK(s.layout.tiles[0].dims == decltype(s.layout.tiles[0].dims){8, 128});
  CHECK(s.layout.memory_space == 5);
  CHECK(s.memory_space() == roofline::kMemorySpaceHost);
  Shape all = must_parse("bf16[256]{0:T(1024)(128)(2,1)L(2048)E(16)S(1)M(8)}");
  CHECK(all.layout.tiles.size() == 3);
  CHECK(all.layout.tail_padding_alignment_in_elements == 2048);
  CHECK(all.layout.element_size_in_bits == 16);
  CHECK(all.layout.memory_space == 1);
  CHECK(all.layout.dynamic_shape_metadata_prefix_bytes == 8);
  CHECK(roofline::to_string(all) == "bf16[256]{0:T(1024)(128)(2,1)L(2048)E(16)S(1)M(8)}");
  CHECK(parse_shape("f32[8,8]{1,0:D(D,C)#(u32)*(u32)SC(0:4)P(f32[8,8]{1,0})}").ok());
  Shape combined = must_parse("f32[2,3,100]{2,1,0:T(*,128)}");
  CHECK(combined.layout.tiles[0].dims[0] == roofline::Tile::kCombine);
  // The '*' folds dim 1 (3) into dim 2 (100): 300 rounded up to 384, times 2.
  CHECK(roofline::padded_bytes(combined) == 2 * 384 * 4);
  CHECK(roofline::to_string(combined) == "f32[2,3,100]{2,1,0:T(*,128)}");
}

// formats.md section 5.3, every worked example.
TEST_CASE("shape: padded bytes of the worked TPU tiling examples") {
  struct Case {
    const char* shape;
    std::int64_t padded;
    std::int64_t logical;
  };
  const Case cases[] = {
      // 32*32*8192*2: 32 % 8 == 0 and 8192 % 128 == 0, nothing padded.
      {"bf16[32,32,8192]{2,1,0:T(8,128)(2,1)}", 16777216, 16777216},
      // 33 -> 40 (multiple of 8), 8000 -> 8064 (multiple of 128): 32*40*8064*2.
      {"bf16[32,33,8000]{2,1,0:T(8,128)(2,1)}", 20643840, 16896000},
      // Physical order d1=1, d0=8, d2=1280, d3=16384: already multiples.
      {"bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}", 335544320, 335544320},
      // Physical d1=2, d2=2, d0=4: minor 4 -> 128, second-minor 2 stays: 2*2*128*4.
      {"f32[4,2,2]{0,2,1:T(2,128)}", 2048, 64},
      // 3 -> 8, 5 -> 128: 8*128*2.
      {"bf16[3,5]{1,0:T(8,128)(2,1)}", 2048, 30},
      // 1 -> 4, 1 -> 128: 512 one-byte predicates.
      {"pred[1,1]{1,0:T(4,128)(4,1)}", 512, 1},
      // Physical d1, d2, d0 = 8, 8, 8: minor 8 -> 128: 8*8*128 elements of E(32) = 4 bytes.
      {"pred[8,8,8]{0,2,1:T(8,128)E(32)}", 32768, 512},
      // A scalar fills one 128-element tile of 4 bytes.
      {"s32[]{:T(128)}", 512, 4},
      // 128 -> 256 by the first tile; the (128)(2,1) sub-tiles add nothing.
      {"bf16[128]{0:T(256)(128)(2,1)}", 512, 256},
      // Observed in the v6e trace: 5*1024*1024*256*4, no padding.
      {"f32[5,1024,1024,256]{3,2,1,0:T(8,128)}", 5368709120, 5368709120},
  };
  for (const Case& c : cases) {
    INFO(c.shape);
    Shape s = must_parse(c.shape);
    CHECK(roofline::padded_bytes(s) == c.padded);
    CHECK(roofline::logical_bytes(s) == c.logical);
    CHECK(roofline::to_string(s) == c.shape);  // prints back as XLA does
  }
}

TEST_CASE("shape: L(n) rounds the tiled element count up") {
  // 100 elements, no tile, rounded to a multiple of 128: 128 * 4 bytes.
  CHECK(roofline::padded_bytes(must_parse("f32[100]{0:L(128)}")) == 512);
}

TEST_CASE("shape: sizes saturate instead of overflowing") {
  Shape s = must_parse("f32[9223372036854775807,4]");
  CHECK(roofline::element_count(s) == INT64_MAX);
  CHECK(roofline::padded_bytes(s) == INT64_MAX);
}

TEST_CASE("shape: malformed shapes are refused with the place and what was expected") {
  auto no_bracket = parse_shape("f32[8,");
  REQUIRE_FALSE(no_bracket.ok());
  CHECK(no_bracket.status().message() == "1:7: expected a dimension size, found the end of the input");
  auto bad_type = parse_shape("float[8]");
  REQUIRE_FALSE(bad_type.ok());
  CHECK(std::string(bad_type.status().message()).starts_with("1:1: expected a shape"));
  auto bad_layout = parse_shape("f32[8,8]{1,0:T(8,128)");
  REQUIRE_FALSE(bad_layout.ok());
  CHECK(std::string(bad_layout.status().message()).starts_with("1:22: expected"));
  auto wrong_rank = parse_shape("f32[8,8]{0}");
  REQUIRE_FALSE(wrong_rank.ok());
  CHECK(wrong_rank.status().message() == "1:11: layout lists 1 dimensions of a rank-2 shape");
  auto out_of_range = parse_shape("f32[8,8]{2,0}");
  REQUIRE_FALSE(out_of_range.ok());
  CHECK(out_of_range.status().message() == "1:10: layout names dimension 2 of a rank-2 shape");
  CHECK_FALSE(parse_shape("f32[8,8]{0,0}").ok());
  CHECK_FALSE(parse_shape("s1[8]").ok());
  CHECK_FALSE(parse_shape("f32[-1]").ok());
  CHECK_FALSE(parse_shape("f32[8] junk").ok());
  CHECK_FALSE(parse_shape("(f32[8]").ok());
  CHECK_FALSE(parse_shape("f32[8]{0:T(0)}").ok());
  CHECK_FALSE(parse_shape("f32[99999999999999999999]").ok());
}
