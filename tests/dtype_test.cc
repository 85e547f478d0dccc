#include <catch2/catch.hpp>

#include "roofline/dtype.hpp"

using roofline::DType;

TEST_CASE("dtype: HLO spellings round-trip") {
  for (int i = 0; i <= static_cast<int>(DType::kToken); ++i) {
    auto t = static_cast<DType>(i);
    auto back = roofline::parse_dtype(roofline::dtype_name(t));
    REQUIRE(back.has_value());
    CHECK(*back == t);
  }
}

TEST_CASE("dtype: sizes and peak classes") {
  CHECK(roofline::bytes_per_element(DType::kBF16) == 2);
  CHECK(roofline::bytes_per_element(DType::kF32) == 4);
  CHECK(roofline::bytes_per_element(DType::kS4) == 0.5);
  CHECK(roofline::bytes_per_element(DType::kC128) == 16);
  CHECK(roofline::bytes_per_element(DType::kPred) == 1);
  CHECK(roofline::peak_class(DType::kF8E4M3FN) == roofline::PeakClass::kFp8);
  CHECK(roofline::peak_class(DType::kS8) == roofline::PeakClass::kInt8);
  CHECK(roofline::peak_class(DType::kF32) == roofline::PeakClass::kFp32);
}

TEST_CASE("dtype: user spellings and mixed precision") {
  CHECK(roofline::parse_dtype("FP32") == DType::kF32);
  CHECK(roofline::parse_dtype("int8") == DType::kS8);
  CHECK(roofline::parse_dtype("bfloat16") == DType::kBF16);
  CHECK_FALSE(roofline::parse_dtype("bf17").has_value());
  // int8 weights with bf16 activations compute in bf16.
  CHECK(roofline::compute_dtype(DType::kBF16, DType::kS8) == DType::kBF16);
  CHECK(roofline::compute_dtype(DType::kS8, DType::kBF16) == DType::kBF16);
  CHECK(roofline::compute_dtype(DType::kF32, DType::kBF16) == DType::kF32);
}
