// Collectives over one group of devices (collective_time_on_group) and over
// network dimensions directly. Expected figures: the scaling book's formulas
// (anchors.md 2.4, 2.9) with the chip specs in hardware/*.json.
#include <catch2/catch.hpp>

#include <vector>

#include "roofline/collectives/collective.hpp"

using roofline::chip;
using roofline::CollectiveDim;
using roofline::CollectiveKind;
using roofline::collective_time;
using roofline::collective_time_on_group;
using roofline::DimNetwork;

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
}

TEST_CASE("collective names round-trip and unknown names are refused") {
  for (CollectiveKind k : {CollectiveKind::kAllGather, CollectiveKind::kReduceScatter, CollectiveKind::kAllReduce,
                           CollectiveKind::kAllToAll, CollectiveKind::kPermute})
    CHECK(roofline::parse_collective(roofline::collective_name(k)) == k);
  CHECK(roofline::collective_name(CollectiveKind::kAllGather) == "all-gather");
  CHECK(roofline::collective_name(CollectiveKind::kPermute) == "permute");
  CHECK_FALSE(roofline::parse_collective("allgather").has_value());
  CHECK_FALSE(roofline::parse_collective("").has_value());
}

TEST_CASE("collective on group: a wrapping v5e axis of 16 all-gathers at V / W_bidi") {
  // v5e wraps only axes of 16 (tpus.md). Bidirectional ring: floor(16/2) = 8
  // hops, each link carries 8 shards of V/16 one way = V/2 -> V/2 / 4.5e10
  // = V / 9e10 (the book's T = V / W_ici with W_ici = 9e10 bidirectional).
  const double v = 8 * kMiB;
  const auto t = collective_time_on_group(CollectiveKind::kAllGather, v, 16, chip("tpu-v5e"));
  CHECK(t.t_bandwidth_s == Approx(v / 9e10));
  CHECK(t.t_ici_s == Approx(v / 9e10));
  CHECK(t.bytes_per_link == Approx(v / 2));
  CHECK(t.hops == 8);
  CHECK(t.t_latency_s == Approx(8e-6));  // 8 hops x 1 us
  CHECK(t.bound == roofline::Bound::kCommunication);
}

TEST_CASE("collective on group: without wraparound the ring runs one way, about twice as slow") {
  // v5e axis of 8: no wrap. Unidirectional: (X-1)/X x V over one 4.5e10 link.
  const double v = 8 * kMiB;
  const auto uni = collective_time_on_group(CollectiveKind::kAllGather, v, 8, chip("tpu-v5e"));
  CHECK(uni.t_bandwidth_s == Approx(v * 7.0 / 8.0 / 4.5e10));
  CHECK(uni.hops == 7);
  const auto bidi = collective_time_on_group(CollectiveKind::kAllGather, v, 16, chip("tpu-v5e"));
  // 7/8 x V/4.5e10 against V/9e10: 1.75x.
  CHECK(uni.t_ici_s / bidi.t_ici_s == Approx(1.75));
}

TEST_CASE("collective on group: reduce-scatter costs an all-gather, all-reduce twice that") {
  const double v = 64 * kMiB;
  const auto& v4 = chip("tpu-v4");
  const auto ag = collective_time_on_group(CollectiveKind::kAllGather, v, 4, v4);
  const auto rs = collective_time_on_group(CollectiveKind::kReduceScatter, v, 4, v4);
  const auto ar = collective_time_on_group(CollectiveKind::kAllReduce, v, 4, v4);
  CHECK(rs.t_ici_s == Approx(ag.t_ici_s));
  CHECK(ar.t_ici_s == Approx(2 * ag.t_ici_s));
  CHECK(ar.hops == 2 * ag.hops);
  // v4 axis of 4 wraps (a multiple of 4): V / W_bidi, W_bidi = 2 x 4.5e10.
  CHECK(ag.t_ici_s == Approx(v / 9e10));
}

TEST_CASE("collective on group: all-to-all on a bidirectional ring is a quarter of an all-gather") {
  // sharding.md: AllToAll = AllGather / 4 on a bidirectional ring (even X:
  // X^2/4 shards of V/X^2 per device split over both directions -> V/8 a link).
  const double v = 32 * kMiB;
  const auto& v5e = chip("tpu-v5e");
  const auto a2a = collective_time_on_group(CollectiveKind::kAllToAll, v, 16, v5e);
  const auto ag = collective_time_on_group(CollectiveKind::kAllGather, v, 16, v5e);
  CHECK(a2a.bytes_per_link == Approx(v / 8));
  CHECK(a2a.t_ici_s == Approx(ag.t_ici_s / 4));
  // Without wraparound the middle link carries floor(X/2) ceil(X/2) = 16
  // shards of V/64: V/4 one way, twice the ring (half the bisection).
  const auto line = collective_time_on_group(CollectiveKind::kAllToAll, v, 8, v5e);
  CHECK(line.bytes_per_link == Approx(v / 4));
}

TEST_CASE("collective on group: latency floor is hop latency times hops") {
  // v4 ring of 4, V = 256 bytes (bf16[128]): bandwidth term 2 x 64 B / 4.5e10
  // ~ 3 ns; 2 hops x 1 us = 2 us (sharding.md question 3: "roughly 2us").
  const auto t = collective_time_on_group(CollectiveKind::kAllGather, 256, 4, chip("tpu-v4"));
  CHECK(t.hops == 2);
  CHECK(t.t_latency_s == Approx(2e-6));
  CHECK(t.t_ici_s == Approx(2e-6));
  CHECK(t.t_bandwidth_s < 1e-8);
}

TEST_CASE("collective on group: GPU in-node forms are (N-1)/N over the egress bandwidth") {
  // H100 SXM: 18 NVLink4 links x 25 GB/s = 450 GB/s egress (gpus.md).
  const auto& h100 = chip("h100-sxm");
  const double v = 1e9;
  const auto ag = collective_time_on_group(CollectiveKind::kAllGather, v, 8, h100);
  CHECK(ag.t_bandwidth_s == Approx(v * 7.0 / 8.0 / 450e9));
  CHECK(ag.bytes_per_link == Approx(v * 7.0 / 8.0 / 18));  // egress bytes spread over 18 links
  const auto ar = collective_time_on_group(CollectiveKind::kAllReduce, v, 8, h100);
  CHECK(ar.t_bandwidth_s == Approx(2 * v * 7.0 / 8.0 / 450e9));
  // All-to-all: B (N-1) / (W N^2) (gpus.md), ~ B / (8 W) for N = 8.
  const auto a2a = collective_time_on_group(CollectiveKind::kAllToAll, v, 8, h100);
  CHECK(a2a.t_bandwidth_s == Approx(v * 7.0 / 64.0 / 450e9));
  // B200: 18 x 50 GB/s = 900 GB/s.
  const auto b200 = collective_time_on_group(CollectiveKind::kAllGather, v, 8, chip("b200"));
  CHECK(b200.t_bandwidth_s == Approx(v * 7.0 / 8.0 / 900e9));
}

TEST_CASE("collective on group: a GPU group larger than the NVLink domain crosses nodes") {
  // 16 H100s = 2 nodes of 8: all-gather over nodes of V/8 (each GPU's
  // 50 GB/s NIC, (2-1)/2 of it), then in-node all-gather of V.
  const auto& h100 = chip("h100-sxm");
  const double v = 1e9;
  const auto t = collective_time_on_group(CollectiveKind::kAllGather, v, 16, h100);
  const double cross = (v / 8) * 0.5 / 50e9;
  const double in_node = v * 7.0 / 8.0 / 450e9;
  CHECK(t.t_bandwidth_s == Approx(cross + in_node));
}

TEST_CASE("collective on group: one device or no bytes costs nothing") {
  CHECK(collective_time_on_group(CollectiveKind::kAllReduce, 1e9, 1, chip("tpu-v5e")).t_ici_s == 0);
  CHECK(collective_time_on_group(CollectiveKind::kAllReduce, 0, 16, chip("tpu-v5e")).t_ici_s == 0);
}

TEST_CASE("collectives over dimensions: n wrapping rings all-gather n times faster") {
  // Book multi-axis formula: T = max(T_min sum|X_i|/2, V / (W_ici n_axes)).
  const CollectiveDim ring{.network = DimNetwork::kTorusRing, .size = 4, .wraps = true, .bytes_per_s = 4.5e10,
                           .hop_latency_s = 1e-6};
  const std::vector<CollectiveDim> three = {ring, ring, ring};
  const double v = 16 * kMiB;
  const auto t = collective_time(CollectiveKind::kAllGather, v, three);
  CHECK(t.t_bandwidth_s == Approx(v / (9e10 * 3)));
  CHECK(t.hops == 6);  // 2 + 2 + 2
  CHECK(t.t_latency_s == Approx(6e-6));
}

TEST_CASE("collectives over dimensions: all-to-all over a torus is V max(X) / (4 N W)") {
  // sharding.md: ND AllToAll T = V max(A, B, ...) / (4 N W_ici).
  const CollectiveDim r4{.network = DimNetwork::kTorusRing, .size = 4, .wraps = true, .bytes_per_s = 4.5e10};
  const CollectiveDim r8{.network = DimNetwork::kTorusRing, .size = 8, .wraps = true, .bytes_per_s = 4.5e10};
  const std::vector<CollectiveDim> dims = {r4, r8};
  const double v = 64 * kMiB;
  const auto t = collective_time(CollectiveKind::kAllToAll, v, dims);
  CHECK(t.t_bandwidth_s == Approx(v * 8 / (4.0 * 32 * 9e10)));
}

TEST_CASE("collectives over dimensions: permute moves V/X per shard k hops along the ring") {
  const CollectiveDim ring{.network = DimNetwork::kTorusRing, .size = 8, .wraps = true, .bytes_per_s = 4.5e10,
                           .hop_latency_s = 1e-6};
  const std::vector<CollectiveDim> dims = {ring};
  const double v = 8 * kMiB;
  // Shift by 1: each link carries one shard of V/8.
  const auto one = collective_time(CollectiveKind::kPermute, v, dims, 1);
  CHECK(one.bytes_per_link == Approx(v / 8));
  CHECK(one.hops == 1);
  // Shift by 3: three shards share every link in that direction, 3 hops.
  const auto three = collective_time(CollectiveKind::kPermute, v, dims, 3);
  CHECK(three.bytes_per_link == Approx(3 * v / 8));
  CHECK(three.hops == 3);
  // Shift by 6 = back 2 the short way round.
  CHECK(collective_time(CollectiveKind::kPermute, v, dims, 6).hops == 2);
  // A line (no wrap): the shards that wrap go back X-k = 7 hops.
  CollectiveDim line = ring;
  line.wraps = false;
  const std::vector<CollectiveDim> ldims = {line};
  const auto l = collective_time(CollectiveKind::kPermute, v, ldims, 1);
  CHECK(l.bytes_per_link == Approx(v / 8));
  CHECK(l.hops == 7);
}

TEST_CASE("collectives over dimensions: a strided axis shares its links") {
  // An axis of 4 at stride 4 inside a physical ring of 16: every logical hop
  // is 4 links and 4 interleaved rings share each link -> 4x the ring's time.
  const CollectiveDim dense{.network = DimNetwork::kTorusRing, .size = 4, .wraps = true, .bytes_per_s = 4.5e10};
  CollectiveDim strided = dense;
  strided.stride = 4;
  const double v = kMiB;
  const std::vector<CollectiveDim> a = {dense}, b = {strided};
  CHECK(collective_time(CollectiveKind::kAllGather, v, b).t_bandwidth_s ==
        Approx(4 * collective_time(CollectiveKind::kAllGather, v, a).t_bandwidth_s));
  CHECK(collective_time(CollectiveKind::kAllGather, v, b).hops == 8);
}
