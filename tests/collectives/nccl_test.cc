// NCCL's cost model (roofline/collectives/nccl.hpp) held against published
// nccl-tests bus bandwidths. These figures are held out: no constant of the
// model was set from them (every constant is NCCL v2.17.1's
// src/graph/tuning.cc or topo.h, or our chip spec's NVLink count). The
// issue's target: within 10%.
//
// nccl-tests reports busbw = algbw x 2(n-1)/n for an all-reduce, algbw =
// bytes / time (nccl-tests doc/PERFORMANCE.md); the model's time for the
// size gives the busbw it predicts.
#include <catch2/catch.hpp>

#include <cmath>

#include "roofline/collectives/nccl.hpp"

using roofline::chip;
using roofline::CollectiveKind;
using roofline::NcclAlgorithm;
using roofline::NcclProtocol;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The all-reduce busbw nccl-tests would print for the model's time.
double all_reduce_busbw_gb_s(const roofline::NcclTime& t, double bytes, int ranks) {
  return bytes / t.total_s() * 2.0 * (ranks - 1) / ranks / 1e9;
}

double off_by(double predicted, double published) { return std::abs(predicted / published - 1); }

}  // namespace

TEST_CASE("kernel names give the algorithm and protocol", "[nccl]") {
  using roofline::parse_nccl_kernel;
  const auto a = parse_nccl_kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)");
  CHECK(a.nccl);
  CHECK(a.algorithm == NcclAlgorithm::kRing);
  CHECK(a.protocol == NcclProtocol::kLL);
  const auto b = parse_nccl_kernel("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)");
  CHECK(b.algorithm == NcclAlgorithm::kRing);
  CHECK(b.protocol == NcclProtocol::kLL);
  const auto c = parse_nccl_kernel("ncclDevKernel_AllReduce_Sum_f32_TREE_LL128");
  CHECK(c.algorithm == NcclAlgorithm::kTree);
  CHECK(c.protocol == NcclProtocol::kLL128);
  const auto d = parse_nccl_kernel("void ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)");
  CHECK(d.protocol == NcclProtocol::kSimple);
  const auto e = parse_nccl_kernel("ncclDevKernel_AllReduce_Sum_bf16_NVLS_SIMPLE");
  CHECK(e.algorithm == NcclAlgorithm::kNvls);
  CHECK(parse_nccl_kernel("ncclDevKernel_AllReduce_Sum_f32_COLLNET_SIMPLE").unmodelled == "COLLNET");
  CHECK_FALSE(parse_nccl_kernel("ampere_sgemm_128x64_nn").nccl);
  const auto bare = parse_nccl_kernel("ncclDevKernel_Generic");
  CHECK(bare.nccl);
  CHECK_FALSE(bare.algorithm);
  CHECK_FALSE(bare.protocol);
}

TEST_CASE("the communicator of a chip", "[nccl]") {
  const auto h100 = roofline::nccl_system(chip("h100-sxm"), 8);
  REQUIRE(h100);
  CHECK(h100->nodes == 1);
  CHECK(h100->nvlink);
  CHECK(h100->nvls);
  CHECK(h100->compute_capability == 90);
  CHECK(h100->intra_bus_gb_s == Approx(18 * 22.0));  // 18 NVLinks at topo.h's 22 GB/s
  const auto across = roofline::nccl_system(chip("h100-sxm"), 16);
  REQUIRE(across);
  CHECK(across->nodes == 2);
  CHECK_FALSE(across->nvls);
  const auto l4 = roofline::nccl_system(chip("l4"), 4);
  REQUIRE(l4);
  CHECK_FALSE(l4->nvlink);
  CHECK(l4->intra_bus_gb_s == Approx(24.0));  // NCCL's Gen4 x16 rate: 3/4 of 32 GB/s
  CHECK_FALSE(roofline::nccl_system(chip("mi300x"), 8));  // RCCL: other tables
  CHECK_FALSE(roofline::nccl_system(chip("tpu-v6e"), 8));
  CHECK_FALSE(roofline::nccl_system(chip("h100-sxm"), 1));
}

TEST_CASE("ring LL on two A100s: the DDP trace's kernel", "[nccl]") {
  // tuning.cc 2.17.1: busBw = min(235 (Ampere cap), 12 x 22) = 235; ring LL
  // all-reduce: min(llMaxBw 87.7, 235 / 4) = 58.75 GB/s; ratio n / nsteps =
  // 2 / 2; latency baseLat 3.6 + 2 steps x hwLat .47 us.
  const auto sys = roofline::nccl_system(chip("a100-sxm-40gb"), 2);
  REQUIRE(sys);
  const auto t = roofline::nccl_time(CollectiveKind::kAllReduce, 26.55e6, *sys, NcclAlgorithm::kRing, NcclProtocol::kLL);
  REQUIRE(t);
  CHECK(t->algorithm_bytes_per_s == Approx(58.75e9));
  CHECK(t->latency_s == Approx(4.54e-6));
  CHECK(t->total_s() == Approx(4.54e-6 + 26.55e6 / 58.75e9));
}

TEST_CASE("the tuner's pick: LL for small messages, Simple or NVLS for large", "[nccl]") {
  const auto sys = roofline::nccl_system(chip("h100-sxm"), 8);
  REQUIRE(sys);
  const auto small = roofline::nccl_tuned_time(CollectiveKind::kAllReduce, 4096, *sys);
  REQUIRE(small);
  CHECK(small->protocol == NcclProtocol::kLL);
  const auto large = roofline::nccl_tuned_time(CollectiveKind::kAllReduce, 8 * kGiB, *sys);
  REQUIRE(large);
  CHECK(large->algorithm == NcclAlgorithm::kNvls);
  const auto gather = roofline::nccl_tuned_time(CollectiveKind::kAllGather, 8 * kGiB, *sys, NcclAlgorithm::kRing);
  REQUIRE(gather);
  CHECK(gather->algorithm == NcclAlgorithm::kRing);
  CHECK_FALSE(roofline::nccl_time(CollectiveKind::kAllGather, 1e6, *sys, NcclAlgorithm::kTree, NcclProtocol::kSimple));
  CHECK_FALSE(roofline::nccl_time(CollectiveKind::kAllReduce, 1e6, *sys, NcclAlgorithm::kNvls, NcclProtocol::kLL));
}

// NVIDIA/nccl-tests issue #212 (2024-05-06), S. Jeaugey (NVIDIA) on 8x H100
// SXM: "NCCL can get an effective NVLink bandwidth of 370GB/s, which you can
// observe as BusBw ... when running with NCCL_ALGO=RING"; "On 8 GPUs, you
// should reach a peak busBw of ~480GB/s (algbw ~275GB/s)" with NVLink SHARP,
// "256M is too small to reach peak bandwidth". Peak: 8 GiB, the largest size
// all_reduce_perf is commonly run to.
TEST_CASE("held out: 8x H100 ring all-reduce busbw 370 GB/s (nccl-tests #212)", "[nccl][published]") {
  const auto sys = roofline::nccl_system(chip("h100-sxm"), 8);
  REQUIRE(sys);
  const auto t = roofline::nccl_tuned_time(CollectiveKind::kAllReduce, 8 * kGiB, *sys, NcclAlgorithm::kRing);
  REQUIRE(t);
  const double busbw = all_reduce_busbw_gb_s(*t, 8 * kGiB, 8);
  INFO("model busbw " << busbw << " GB/s against 370");
  CHECK(off_by(busbw, 370) <= 0.10);
}

TEST_CASE("held out: 8x H100 NVLS all-reduce busbw 480 GB/s (nccl-tests #212)", "[nccl][published]") {
  const auto sys = roofline::nccl_system(chip("h100-sxm"), 8);
  REQUIRE(sys);
  const auto t = roofline::nccl_tuned_time(CollectiveKind::kAllReduce, 8 * kGiB, *sys);
  REQUIRE(t);
  CHECK(t->algorithm == NcclAlgorithm::kNvls);
  const double busbw = all_reduce_busbw_gb_s(*t, 8 * kGiB, 8);
  INFO("model busbw " << busbw << " GB/s against 480");
  CHECK(off_by(busbw, 480) <= 0.10);
  CHECK(off_by(8 * kGiB / t->total_s() / 1e9, 275) <= 0.10);  // the algbw quoted
}

// NVIDIA/nccl-tests issue #272 (2024-11-27): 8x H200 over NVLink 4,
// all_reduce_perf -b 64k -e 4G, NCCL 2.20.3: "peak bandwidth of 475 GB/s"
// (busbw, at 4 GiB).
TEST_CASE("held out: 8x H200 all-reduce busbw 475 GB/s (nccl-tests #272)", "[nccl][published]") {
  const auto sys = roofline::nccl_system(chip("h200"), 8);
  REQUIRE(sys);
  const auto t = roofline::nccl_tuned_time(CollectiveKind::kAllReduce, 4 * kGiB, *sys);
  REQUIRE(t);
  const double busbw = all_reduce_busbw_gb_s(*t, 4 * kGiB, 8);
  INFO("model busbw " << busbw << " GB/s against 475");
  CHECK(off_by(busbw, 475) <= 0.10);
}

// A known miss, kept so that it shows: NCCL 2.17.1's tuner caps an Ampere
// ring at 235 GB/s of bus bandwidth (tuning.cc), above what these A100s
// measured. NVIDIA/nccl-tests issue #178 (2023-11-17): two A100s joined by
// 12 NVLinks (NV12), all_reduce_perf -b 8 -e 12G: "Bus_BW: 208 GBps".
// NVIDIA/nccl-tests issue #149 (2023-06-27, hardware/a100-sxm.json):
// 8x A100-SXM4-80GB over NVSwitch, busbw about 200 GB/s at the run's
// largest size, 1 GB; NCCL's maintainer answered there (2023-07-05) that 12
// NVLinks give about 240 GB/s effective, other bottlenecks about 230, that
// the bandwidth was still rising at 512 MB and an 8 GB run "should reach
// 230 GB/s". The model gives 235 (+13%, +17%): [!shouldfail] passes while
// the model misses by more than 10%, and fails (to be updated) once it does
// not. Later NCCL releases' topo.h rate an Ampere NVLink 20 GB/s, not 22:
// 12 x 20 = 240 is still above the cap, so the model's figure would not
// move; no published mechanism we found lowers an A100 ring below 235 at
// these sizes, and an 8-GPU A100 node does reach it (#175, below).
TEST_CASE("held out: 2x A100 NV12 all-reduce busbw 208 GB/s (nccl-tests #178)", "[nccl][published][!shouldfail]") {
  const auto sys = roofline::nccl_system(chip("a100-sxm"), 2);
  REQUIRE(sys);
  const auto t = roofline::nccl_tuned_time(CollectiveKind::kAllReduce, 12 * kGiB, *sys);
  REQUIRE(t);
  const double busbw = all_reduce_busbw_gb_s(*t, 12 * kGiB, 2);
  INFO("model busbw " << busbw << " GB/s against 208");
  CHECK(off_by(busbw, 208) <= 0.10);
}

TEST_CASE("held out: 8x A100-80GB all-reduce busbw 200 GB/s (nccl-tests #149)", "[nccl][published][!shouldfail]") {
  const auto sys = roofline::nccl_system(chip("a100-sxm"), 8);
  REQUIRE(sys);
  const auto t = roofline::nccl_tuned_time(CollectiveKind::kAllReduce, 1 * kGiB, *sys);
  REQUIRE(t);
  const double busbw = all_reduce_busbw_gb_s(*t, 1 * kGiB, 8);
  INFO("model busbw " << busbw << " GB/s against 200");
  CHECK(off_by(busbw, 200) <= 0.10);
}

// NVIDIA/nccl-tests issue #175 (2023-10-29): one node of 8 A100s over
// NVSwitch, "./build/all_reduce_perf -b 8 -e 4G -f 2 -g 8, result:
// 232.54GB/s" (its largest size, 4 GiB).
TEST_CASE("held out: 8x A100 all-reduce busbw 232.5 GB/s at 4 GiB (nccl-tests #175)", "[nccl][published]") {
  const auto sys = roofline::nccl_system(chip("a100-sxm"), 8);
  REQUIRE(sys);
  const auto t = roofline::nccl_tuned_time(CollectiveKind::kAllReduce, 4 * kGiB, *sys);
  REQUIRE(t);
  const double busbw = all_reduce_busbw_gb_s(*t, 4 * kGiB, 8);
  INFO("model busbw " << busbw << " GB/s against 232.54");
  CHECK(off_by(busbw, 232.54) <= 0.10);
}
