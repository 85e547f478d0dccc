#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "roofline/roofline.hpp"

using roofline::Bound;
using roofline::DType;
using roofline::bound_of;

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

TEST_CASE("predict: invalid input never passes as a number") {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  // A negative dimension: NaN times and the "invalid" bound, whatever the
  // signs multiply to (m = -5, k = -1 gives positive FLOPs).
  for (const roofline::Matmul& mm : {roofline::Matmul{.m = -5, .k = 8192, .n = 8192},
                                     roofline::Matmul{.m = -5, .k = -1, .n = 8192}}) {
    const roofline::Prediction p = roofline::predict(mm, v5e);
    CHECK(p.bound == Bound::kInvalid);
    CHECK(!p.valid());
    CHECK(std::isnan(p.t_math_s));
    CHECK(std::isnan(p.t_lower_s));
    CHECK(std::isnan(p.t_upper_s));
    CHECK(roofline::bound_name(p.bound) == "invalid");
    CHECK(!roofline::validate(mm, v5e).ok());
  }
  // fp8 on a chip with no fp8 unit (v5e lists none): no silent "memory".
  const roofline::Prediction fp8 =
      roofline::predict(roofline::Matmul{.m = 4096, .k = 4096, .n = 4096, .dtype = DType::kF8E4M3FN}, v5e);
  CHECK(fp8.bound == Bound::kInvalid);
  CHECK(std::isnan(fp8.t_lower_s));
  CHECK(!fp8.peak.available());
  CHECK(roofline::peak_label(fp8.peak, v5e) == "no fp8 peak");
  // The README's checked form says why.
  CHECK(std::string(roofline::validate(roofline::Matmul{.m = 4096, .k = 4096, .n = 4096, .dtype = DType::kF8E4M3FN}, v5e)
                        .message()) == "tpu-v5e has no fp8 peak");
  // A negative element count.
  CHECK(roofline::predict(roofline::Elementwise{.elements = -1}, v5e).bound == Bound::kInvalid);
  // An empty matmul is an ordinary op (an MoE expert that got no tokens):
  // no arithmetic; the formula still charges W[8192, 8192] bf16 once.
  const roofline::Prediction empty = roofline::predict(roofline::Matmul{.m = 0, .k = 8192, .n = 8192}, v5e);
  CHECK(empty.valid());
  CHECK(empty.t_math_s == 0);
  CHECK(empty.t_lower_s == Approx(8192.0 * 8192 * 2 / 8.2e11));
}

TEST_CASE("select_peak: the precision is an input and every fallback is named") {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  const roofline::Chip& h100 = roofline::chip("h100-sxm");
  const roofline::Chip& v100 = roofline::chip("v100-sxm2");
  using roofline::PeakClass;
  using roofline::PeakSearch;
  // bf16 on a v5e: its own unit, 1.97e14 (hardware/tpu-v5e.json).
  const roofline::PeakChoice bf16 = roofline::select_peak(v5e, PeakClass::kBf16);
  CHECK(!bf16.fallback());
  CHECK(bf16.flops_per_s == 1.97e14);
  CHECK(roofline::peak_label(bf16, v5e) == "bf16 peak");
  // fp32 on a TPU runs on the bf16 MXU (one pass at XLA's default
  // precision); the spec holds no fp32 figure, the choice says so.
  const roofline::PeakChoice f32 = roofline::select_peak(v5e, PeakClass::kFp32);
  CHECK(f32.fallback());
  CHECK(f32.used == PeakClass::kBf16);
  CHECK(f32.flops_per_s == 1.97e14);
  CHECK(roofline::peak_label(f32, v5e) == "bf16 MXU peak for fp32 (XLA's default precision: one bf16 pass)");
  // A predicted f32 matmul carries that choice.
  const roofline::Prediction p =
      roofline::predict(roofline::Matmul{.m = 8192, .k = 8192, .n = 8192, .dtype = DType::kF32}, v5e);
  CHECK(p.peak.fallback());
  CHECK(p.t_math_s == Approx(2.0 * 8192 * 8192 * 8192 / 1.97e14));
  // tf32 on an H100 has its own unit; fp32 its own (non-tensor) rate.
  CHECK(roofline::select_peak(h100, PeakClass::kTf32).used == PeakClass::kTf32);
  CHECK(roofline::select_peak(h100, PeakClass::kFp32).flops_per_s == 6.7e13);
  // bf16 on a V100: no unit. The exact rule refuses; the upcast rule (used
  // for whole HLO programs) times it on fp32 and names it.
  CHECK(!roofline::select_peak(v100, PeakClass::kBf16).available());
  const roofline::PeakChoice up = roofline::select_peak(v100, PeakClass::kBf16, PeakSearch::kUpcast);
  CHECK(up.used == PeakClass::kFp32);
  CHECK(roofline::peak_label(up, v100) == "fp32 peak for bf16 (no bf16 unit: run upcast)");
}

TEST_CASE("bound_of: one rule for ops, sums and steps") {
  CHECK(bound_of(2, 1, 1, 1) == Bound::kCompute);
  CHECK(bound_of(1, 1, 0, 0) == Bound::kCompute);  // a tie at the ridge is compute, as the scaling book
  CHECK(bound_of(1, 2, 2, 2) == Bound::kMemory);   // memory before either link on a tie
  CHECK(bound_of(1, 1, 3, 0) == Bound::kCommunication);
  CHECK(bound_of(1, 1, 3, 3) == Bound::kCommunication);  // the interconnect before the host link on a tie
  CHECK(bound_of(1, 1, 3, 4) == Bound::kHostLink);
  CHECK(bound_of(1, 2, 0, 1.5) == Bound::kMemory);
  CHECK(bound_of(0, 0, 0, 0) == Bound::kMemory);   // an empty op only touches its operands
  CHECK(bound_of(std::nan(""), 1, 0, 0) == Bound::kInvalid);
  CHECK(bound_of(1, 1, 0, std::nan("")) == Bound::kInvalid);
  CHECK(roofline::bound_name(Bound::kHostLink) == "host link");
  // A sum adds both bounds term by term: two ops, one compute-, one
  // memory-bound, overlap each their own terms only.
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  const roofline::Prediction a = roofline::predict(roofline::Matmul{.m = 8192, .k = 8192, .n = 8192}, v5e);
  const roofline::Prediction b = roofline::predict(roofline::Matmul{.m = 8, .k = 8192, .n = 8192}, v5e);
  roofline::Prediction sum;
  roofline::accumulate(sum, a);
  roofline::accumulate(sum, b, 2);
  roofline::settle_sum(sum, DType::kBF16, roofline::select_peak(v5e, roofline::PeakClass::kBf16), v5e);
  CHECK(sum.t_lower_s == Approx(a.t_math_s + 2 * b.t_hbm_s));
  CHECK(sum.t_upper_s == Approx(a.t_upper_s + 2 * b.t_upper_s));
  CHECK(sum.flops == a.flops + 2 * b.flops);
  CHECK(sum.bound == bound_of(sum.t_math_s, sum.t_hbm_s, sum.t_ici_s, sum.t_host_s));
}

TEST_CASE("add_host_link: a host transfer is its own term, not the interconnect's") {
  // 1 GB to host memory over H100's 64 GB/s PCIe (hardware/h100-sxm.json),
  // read once from HBM at 3.35e12 B/s: 15.6 ms on the host link, 0.3 ms in HBM.
  const roofline::Chip& h100 = roofline::chip("h100-sxm");
  roofline::Prediction p = roofline::make_prediction(0, 1e9, 0, 0, DType::kU8, h100);
  roofline::add_host_link(p, 1e9, h100);
  CHECK(p.host_bytes == 1e9);
  CHECK(p.t_host_s == Approx(1e9 / 64e9));
  CHECK(p.ici_bytes == 0);
  CHECK(p.t_ici_s == 0);
  CHECK(p.bound == Bound::kHostLink);
  CHECK(p.t_lower_s == p.t_host_s);
  CHECK(p.t_upper_s == Approx(p.t_hbm_s + p.t_host_s));
  // A sum keeps the host link apart; run three times, every count and time triples.
  roofline::Prediction sum;
  roofline::accumulate(sum, p, 2);
  CHECK(sum.host_bytes == 2e9);
  CHECK(sum.t_host_s == Approx(2 * p.t_host_s));
  CHECK(sum.ici_bytes == 0);
  const roofline::Prediction three = roofline::repeated(p, 3);
  CHECK(three.host_bytes == 3e9);
  CHECK(three.t_host_s == Approx(3 * p.t_host_s));
  CHECK(three.t_lower_s == Approx(3 * p.t_lower_s));
  CHECK(three.bound == Bound::kHostLink);
  // A negative count is invalid input.
  roofline::Prediction bad = roofline::make_prediction(0, 1e9, 0, 0, DType::kU8, h100);
  roofline::add_host_link(bad, -1, h100);
  CHECK_FALSE(bad.valid());
  CHECK(std::isnan(bad.t_host_s));
}

// Memory tiers (predict.hpp, select_memory_tier): an op's unique bytes are
// timed at the fastest tier that holds a working set between kernels and
// fits them. The V100 case of issue 11: an in-place fp32 add_ of two
// [256,256,3,3] tensors moves 2 x 589,824 x 4 = 4,718,592 unique bytes,
// which fit the 6.144 MB L2 (3.133e12 B/s); written out of place (three
// tensors, 7,077,888 B) they do not, and HBM (9e11 B/s) times them.
TEST_CASE("memory tiers: an op that fits in a GPU's L2 is timed at L2 bandwidth") {
  const roofline::Chip& v100 = roofline::chip("v100-sxm2");
  const roofline::Prediction fits = roofline::make_prediction(589'824, 4'718'592, 0, 0, DType::kF32, v100);
  REQUIRE(fits.memory_tier >= 0);
  CHECK(roofline::memory_tier_name(fits.memory_tier, v100) == "l2");
  CHECK(fits.memory_bytes_per_s == 3.133e12);
  CHECK(fits.t_hbm_s == Approx(4'718'592.0 / 3.133e12));  // 1.506 us, not 5.243 us
  CHECK(fits.ridge_flops_per_byte == Approx(1.57e13 / 3.133e12));
  CHECK(fits.bound == Bound::kMemory);

  const roofline::Prediction spills = roofline::make_prediction(589'824, 7'077'888, 0, 0, DType::kF32, v100);
  CHECK(spills.memory_tier == roofline::kHbmTier);
  CHECK(roofline::memory_tier_name(spills.memory_tier, v100) == "hbm");
  // Past the 6.144 MB L2, at most its capacity is served there: max((bytes -
  // L2) / HBM, bytes / L2) = max(1.04 us, 2.26 us), not 7'077'888 / 9e11 = 7.86 us.
  CHECK(spills.t_hbm_s == Approx(std::max((7'077'888.0 - 6.144e6) / 9e11, 7'077'888.0 / 3.133e12)));
  CHECK(spills.memory_bytes_per_s == Approx(3.133e12));
  // Far past it the rate tends to HBM's: 1 GB is timed (1e9 - 6.144e6) / 9e11.
  CHECK(roofline::make_prediction(0, 1e9, 0, 0, DType::kF32, v100).t_hbm_s == Approx((1e9 - 6.144e6) / 9e11));

  // Exactly the L2's capacity still fits; one byte more does not.
  CHECK(roofline::select_memory_tier(v100, 6.144e6).tier == fits.memory_tier);
  CHECK(roofline::select_memory_tier(v100, 6.144e6 + 1).tier == roofline::kHbmTier);
}

TEST_CASE("memory tiers: TPU VMEM and tiers without a bandwidth never time an op") {
  // 1 MB fits v5e's 128 MiB VMEM, but XLA fills VMEM from HBM inside each op.
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  const roofline::Prediction p = roofline::make_prediction(0, 1e6, 0, 0, DType::kBF16, v5e);
  CHECK(p.memory_tier == roofline::kHbmTier);
  CHECK(p.t_hbm_s == Approx(1e6 / 8.2e11));
  // B200's L2 holds a working set but has no published bandwidth.
  const roofline::Chip& b200 = roofline::chip("b200");
  CHECK(roofline::make_prediction(0, 1e6, 0, 0, DType::kBF16, b200).memory_bytes_per_s == b200.hbm_bytes_per_s);
  // MI300X: 100 MB passes its per-XCD L2s (which hold nothing across
  // kernels) but fits the 256 MiB Infinity Cache at 1.7e13 B/s; 300 MB does not.
  const roofline::Chip& mi300x = roofline::chip("mi300x");
  const roofline::Prediction ic = roofline::make_prediction(0, 1e8, 0, 0, DType::kBF16, mi300x);
  CHECK(roofline::memory_tier_name(ic.memory_tier, mi300x) == "infinity_cache");
  CHECK(ic.t_hbm_s == Approx(1e8 / 1.7e13));
  CHECK(roofline::make_prediction(0, 3e8, 0, 0, DType::kBF16, mi300x).memory_tier == roofline::kHbmTier);
}

TEST_CASE("memory tiers: a sum over tiers is mixed, at its effective rate") {
  const roofline::Chip& v100 = roofline::chip("v100-sxm2");
  const roofline::Prediction l2 = roofline::make_prediction(0, 4e6, 0, 0, DType::kF32, v100);
  const roofline::Prediction hbm = roofline::make_prediction(0, 9e7, 0, 0, DType::kF32, v100);
  roofline::Prediction same;
  roofline::accumulate(same, l2, 3);
  roofline::settle_sum(same, DType::kF32, roofline::select_peak(v100, roofline::PeakClass::kFp32), v100);
  CHECK(same.memory_tier == l2.memory_tier);
  CHECK(same.memory_bytes_per_s == Approx(3.133e12));
  roofline::Prediction mixed;
  roofline::accumulate(mixed, l2, 3);
  roofline::accumulate(mixed, hbm);
  roofline::settle_sum(mixed, DType::kF32, roofline::select_peak(v100, roofline::PeakClass::kFp32), v100);
  CHECK(mixed.memory_tier == roofline::kMixedTiers);
  CHECK(roofline::memory_tier_name(mixed.memory_tier, v100) == "mixed");
  // 1.02e8 B in 3 x 4e6 / 3.133e12 + (9e7 - 6.144e6) / 9e11 s (the 9e7 B op
  // past L2, select_memory_tier) = 9.700e-5 s: 1.0515e12 B/s.
  const double t = 3 * 4e6 / 3.133e12 + (9e7 - 6.144e6) / 9e11;
  CHECK(mixed.t_hbm_s == Approx(t));
  CHECK(mixed.memory_bytes_per_s == Approx(1.02e8 / t));
  CHECK(mixed.ridge_flops_per_byte == Approx(1.57e13 / mixed.memory_bytes_per_s));
}
