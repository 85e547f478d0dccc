// T_ici of one collective over a group of devices when all that is known is
// the group's size (an HLO collective's replica groups). For collectives over
// named mesh axes see roofline/sharding/mesh_collective.hpp; the formulas are
// in roofline/collectives/network_dim.hpp and docs/collectives.md.
//
//   auto t = roofline::collective_time_on_group(roofline::CollectiveKind::kAllGather,
//                                               /*array_bytes=*/8 << 20, 16, roofline::chip("tpu-v5e"));
//   // 16 wraps on v5e: a bidirectional ring, t.t_ici_s = V / (2 x 4.5e10) = 93.2 us
#pragma once

#include <numeric>
#include <vector>

#include "roofline/chip.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/collectives/network_dim.hpp"

namespace roofline {

// One dimension of `size` devices on `chip`'s scale-out network (TPU DCN
// between slices, GPU InfiniBand between nodes): the rate a collective
// reaches there when the spec has a measurement of it (achieved
// dcn_bytes_per_s; host NICs and switches never run a ring at line rate),
// else the line rate, and the spec's per-step latency (0: not modelled),
// which a scale-out phase adds to its bytes (network_dim.hpp).
inline CollectiveDim scale_out_dim(int size, const Chip& chip) {
  const double rate = chip.achieved.dcn_bytes_per_s > 0 ? chip.achieved.dcn_bytes_per_s : chip.dcn_bytes_per_s;
  return {.network = DimNetwork::kScaleOut, .size = size, .bytes_per_s = rate, .links = 1,
          .hop_latency_s = chip.dcn_latency_s};
}

// The network dimensions a group of `group_size` devices forming one ring
// axis of `chip`'s interconnect runs over:
//   TPU torus: one ring, bidirectional iff chip.ici.wraps(group_size);
//   switch (GPU): one domain while it fits the NVLink domain; a larger group
//   is gcd(group, domain) GPUs per node times the rest across nodes.
inline std::vector<CollectiveDim> group_dims(int group_size, const Chip& chip) {
  const Interconnect& ici = chip.ici;
  if (ici.topology != Topology::kSwitch)
    return {{.network = DimNetwork::kTorusRing,
             .size = group_size,
             .wraps = ici.wraps(group_size),
             .bytes_per_s = ici.link_bytes_per_s,
             .hop_latency_s = ici.hop_latency_s}};
  const int domain = std::max(ici.domain_chips(), 1);
  const int in_node = group_size <= domain ? group_size : std::gcd(group_size, domain);
  std::vector<CollectiveDim> dims;
  if (group_size / in_node > 1)
    dims.push_back(scale_out_dim(group_size / in_node, chip));
  dims.push_back({.network = DimNetwork::kSwitch,
                  .size = in_node,
                  .bytes_per_s = ici.egress_bytes_per_s(),
                  .links = std::max(ici.links_per_chip, 1),
                  .hop_latency_s = ici.hop_latency_s});
  return dims;
}

// A collective over `group_size` devices forming ONE ring axis of the chip's
// interconnect: TPU torus: bidirectional ring if chip.ici.wraps(group_size)
// else unidirectional (about 2x slower); switch (GPU): the (N-1)/N forms over
// the per-GPU egress bandwidth. `array_bytes` is V, the size of the whole
// (gathered / unreduced full) array in bytes. `permute_shift` is how many
// positions a permute moves each shard (1: to the neighbour).
inline CollectiveTime collective_time_on_group(CollectiveKind kind, double array_bytes,
                                               int group_size, const Chip& chip,
                                               int permute_shift = 1) {
  if (group_size <= 1 || array_bytes <= 0) return {};
  const std::vector<CollectiveDim> dims = group_dims(group_size, chip);
  return collective_time(kind, array_bytes, dims, permute_shift);
}

}  // namespace roofline
