#include <catch2/catch.hpp>

#include "roofline/roofline.hpp"

using roofline::Bound;
using roofline::DType;

TEST_CASE("matmul: the call site from the README compiles and predicts 89.3 ms") {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  roofline::Matmul mm{.m = 32768, .k = 8192, .n = 32768};  // bf16 by default
  roofline::Prediction p = roofline::predict(mm, v5e);
  // x[32,1024,8192] @ W[8192,32768]: FLOPs = 2 * (32*1024) * 8192 * 32768
  //   = 17,592,186,044,416 = 17.59 TFLOPs; T_math = 17.59e12 / 1.97e14 = 89.30 ms.
  CHECK(p.flops == 17'592'186'044'416.0);
  CHECK(p.t_math_s == Approx(17'592'186'044'416.0 / 1.97e14));
  CHECK(p.t_math_s == Approx(0.0893).epsilon(5e-4));
  // Bytes: x 32768*8192*2 + W 8192*32768*2 + out 32768*32768*2 = 3,221,225,472.
  CHECK(p.hbm_bytes == 3'221'225'472.0);
  CHECK(p.t_hbm_s == Approx(3'221'225'472.0 / 8.2e11));
  CHECK(p.bound == Bound::kCompute);
  CHECK(p.t_lower_s == p.t_math_s);
  CHECK(p.t_upper_s == Approx(p.t_math_s + p.t_hbm_s));
  CHECK(p.intensity_flops_per_byte == Approx(17'592'186'044'416.0 / 3'221'225'472.0));
  CHECK(p.ridge_flops_per_byte == Approx(1.97e14 / 8.2e11));
  // The seed article measured 94.1 ms for this op: 89.3 / 94.1 = 95% of the roofline.
  CHECK(p.t_math_s / 0.0941 == Approx(0.949).epsilon(1e-2));
}

TEST_CASE("matmul: decode-shaped (m = 8) is memory-bound at the spec's HBM bandwidth") {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  roofline::Matmul mm{.m = 8, .k = 8192, .n = 32768};
  roofline::Prediction p = roofline::predict(mm, v5e);
  // Bytes = 8*8192*2 + 8192*32768*2 + 8*32768*2 = 537,526,272; T_hbm = bytes / 8.2e11.
  CHECK(p.hbm_bytes == 537'526'272.0);
  CHECK(p.t_hbm_s == Approx(537'526'272.0 / 8.2e11));
  CHECK(p.t_math_s == Approx(2.0 * 8 * 8192 * 32768 / 1.97e14));
  CHECK(p.bound == Bound::kMemory);
  // Intensity ~ m = 8 FLOPs/byte, far below the ridge of 240.
  CHECK(p.intensity_flops_per_byte == Approx(7.99).epsilon(1e-2));
}

TEST_CASE("matmul: the compute/memory crossover sits at a token batch near the ridge") {
  // For bf16 [B,D]@[D,F] with B << D,F intensity ~ B, so the crossover on v5e
  // is at B ~ 240 (scaling book, roofline chapter).
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  auto bound_at = [&](std::int64_t b) {
    return roofline::predict(roofline::Matmul{.m = b, .k = 16384, .n = 16384}, v5e).bound;
  };
  CHECK(bound_at(200) == Bound::kMemory);
  CHECK(bound_at(300) == Bound::kCompute);
}

TEST_CASE("matmul: batch, dtype pairs and output dtype") {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  roofline::Matmul bmm{.batch = 4, .m = 128, .k = 256, .n = 512, .dtype = DType::kS8,
                       .rhs_dtype = DType::kBF16, .out_dtype = DType::kF32};
  roofline::Prediction p = roofline::predict(bmm, v5e);
  CHECK(p.flops == 2.0 * 4 * 128 * 256 * 512);
  CHECK(p.hbm_bytes == 4.0 * (128 * 256 * 1 + 256 * 512 * 2 + 128 * 512 * 4));
  // Mixed int8 x bf16 runs at the bf16 peak.
  CHECK(p.dtype == DType::kBF16);
  CHECK(p.t_math_s == Approx(p.flops / 1.97e14));
  // Pure int8 runs at the int8 peak, twice bf16 on v5e.
  roofline::Matmul i8{.m = 4096, .k = 4096, .n = 4096, .dtype = DType::kS8};
  CHECK(roofline::predict(i8, v5e).t_math_s == Approx(2.0 * 4096 * 4096 * 4096 / 3.94e14));
}

TEST_CASE("matmul: validate refuses non-positive dims and missing dtypes") {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  CHECK_FALSE(roofline::validate(roofline::Matmul{.m = 0, .k = 1, .n = 1}, v5e).ok());
  CHECK(roofline::validate(roofline::Matmul{.m = 1, .k = 1, .n = 1}, v5e).ok());
  // No TPU in our table publishes an fp64 peak.
  CHECK_FALSE(roofline::validate(roofline::Matmul{.m = 1, .k = 1, .n = 1, .dtype = DType::kF64}, v5e).ok());
}

TEST_CASE("elementwise: bytes are inputs plus output, memory-bound") {
  const roofline::Chip& v6e = roofline::chip("tpu-v6e");
  // f32[5,1024,1024,256] + scalar-broadcast: one input streamed, one output.
  const std::int64_t n = 5LL * 1024 * 1024 * 256;
  roofline::Elementwise add{.elements = n, .inputs = 1, .dtype = DType::kF32};
  roofline::Prediction p = roofline::predict(add, v6e);
  CHECK(p.hbm_bytes == 8.0 * n);
  CHECK(p.flops == static_cast<double>(n));
  CHECK(p.t_hbm_s == Approx(8.0 * n / v6e.hbm_bytes_per_s));
  CHECK(p.bound == Bound::kMemory);
  roofline::Elementwise tanh{.elements = 1000, .inputs = 1, .flops_per_element = 0,
                             .transcendentals_per_element = 1};
  CHECK(roofline::predict(tanh, v6e).transcendentals == 1000);
}

TEST_CASE("generic op: communication-bound when the link time dominates") {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  roofline::CostedOp op{.flops = 1e9, .hbm_bytes = 1e6, .ici_bytes = 4.5e8, .t_ici_s = 0.01};
  roofline::Prediction p = roofline::predict(op, v5e);
  CHECK(p.bound == Bound::kCommunication);
  CHECK(p.t_lower_s == 0.01);
  CHECK(p.t_upper_s == Approx(0.01 + 1e9 / 1.97e14 + 1e6 / 8.2e11));
}
