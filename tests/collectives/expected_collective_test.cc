// The built-in expectation of a collective by its shape
// (roofline/collectives/expected.hpp): NCCL's model on an NVIDIA GPU, the
// published stretch of the link bound on a TPU, none elsewhere.
#include <catch2/catch.hpp>

#include "roofline/collectives/expected.hpp"

using roofline::chip;
using roofline::CollectiveKind;
using roofline::expected_collective;

TEST_CASE("an NCCL kernel is expected by NCCL's model for its algorithm and protocol", "[expected_collective]") {
  const roofline::CollectiveShape s{.kind = CollectiveKind::kAllReduce, .array_bytes = 26.55e6, .group_size = 2};
  const auto e = expected_collective(s, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
                                     chip("a100-sxm-40gb"), 1e-4);
  REQUIRE(e);
  CHECK(e->latency_s == Approx(4.54e-6));
  CHECK(e->transfer_s == Approx(26.55e6 / 58.75e9));
  CHECK(e->basis == "NCCL 2.17.1 cost model, ring/LL, 2 ranks over NVLink");
  // Unnamed protocol: the tuner's pick, said so.
  const auto tuned = expected_collective(s, "ncclDevKernel_Generic", chip("a100-sxm-40gb"), 1e-4);
  REQUIRE(tuned);
  CHECK(tuned->basis.find("the tuner's pick") != std::string::npos);
  CHECK(tuned->total_s() < e->total_s());  // Simple or LL128 beats LL at 26.6 MB
}

TEST_CASE("a TPU collective stretches the link bound by the published figures", "[expected_collective]") {
  const double t_link_s = 3.35e-3;
  const auto ar = expected_collective({.kind = CollectiveKind::kAllReduce, .array_bytes = 606e6, .group_size = 256},
                                      "all-reduce", chip("tpu-v6e"), t_link_s);
  REQUIRE(ar);
  // v6e-256 psum of 606 MB: 5.12 ms measured against 3.35 ms of link bound.
  CHECK(ar->total_s() == Approx(5.12e-3));
  const auto ag = expected_collective({.kind = CollectiveKind::kAllGather, .array_bytes = 64e6, .group_size = 8},
                                      "all-gather", chip("tpu-v6e"), 1e-3);
  REQUIRE(ag);
  CHECK(ag->total_s() == Approx(1e-3 / 0.95));
  CHECK_FALSE(expected_collective({.kind = CollectiveKind::kAllToAll, .array_bytes = 64e6, .group_size = 8},
                                  "all-to-all", chip("tpu-v6e"), 1e-3));
}

TEST_CASE("no published model: none", "[expected_collective]") {
  const roofline::CollectiveShape s{.kind = CollectiveKind::kAllReduce, .array_bytes = 1e6, .group_size = 8};
  CHECK_FALSE(expected_collective(s, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", chip("mi300x"), 1e-5));  // RCCL
  CHECK_FALSE(expected_collective(s, "all-reduce.1", chip("h100-sxm"), 1e-5));  // an XLA op on a GPU: no algorithm known
  CHECK_FALSE(expected_collective(s, "ncclDevKernel_AllReduce_Sum_f32_COLLNET_SIMPLE", chip("h100-sxm"), 1e-5));
  CHECK_FALSE(expected_collective({.kind = CollectiveKind::kAllReduce, .array_bytes = 1e6, .group_size = 1},
                                  "ncclKernel_AllReduce_RING_LL_Sum_float", chip("h100-sxm"), 0));
}
