// Collectives over the dimensions of a network: torus rings, switch domains
// (NVLink, Infinity Fabric) and the scale-out network (TPU DCN, GPU
// cross-node InfiniBand). A mesh axis is laid on one or more of these
// dimensions (roofline/sharding/mesh.hpp); a collective over several mesh
// axes runs over all of their dimensions at once.
//
// Notation of the JAX scaling book (sharding.md, gpus.md): V is the size in
// bytes of the whole array over the collective's devices (gathered, or the
// full unreduced array), X the number of devices along a dimension, W the
// bandwidth of one link in one direction, T_min the per-hop latency.
//
// One torus ring of X devices, each holding V/X (s = stride, below):
//   all-gather / reduce-scatter, with wraparound (a bidirectional ring):
//       bytes per link = s * floor(X/2) * V/X, hops = s * floor(X/2)
//       -> T = V / W_bidi for even X, the book's "independent of X" result
//   without wraparound (the ring runs one way; a line of X chips):
//       bytes per link = s * (X-1) * V/X, hops = s * (X-1)   (~2x slower)
//   all-reduce = reduce-scatter + all-gather: twice both.
//   all-to-all, shortest paths, V/X^2 from every device to every other:
//       with wraparound bytes per link = s * floor(X^2/4) * V / (2 X^2)
//       (= V/8, T = V/(4 W_bidi): a quarter of an all-gather, the book's figure)
//       without: the middle link of the line carries floor(X/2)*ceil(X/2)
//       shards of V/X^2 (~V/4: twice the ring, as halving the bisection does)
//   permute (collective-permute, a cyclic shift by k): each device sends its
//       V/X shard k positions along; over the shorter way round a ring that
//       is d = min(k, X-k) hops, every link in that direction carrying d
//       shards (half each way when d = X/2); on a line the wrapped shards go
//       back X-k hops the other way.
// `stride` s > 1 when the mesh axis shares its physical dimension with a
// more minor axis: consecutive devices of the axis are s links apart and s
// interleaved rings share every link, so bytes per link and hops scale by s.
//
// Switch domain / scale-out group of N devices, E = one device's egress:
//   all-gather, reduce-scatter: V (N-1)/N leaves each device; all-reduce 2x
//   (no in-network reduction such as SHARP); all-to-all V (N-1)/N^2;
//   permute V/N. Hops count NCCL ring steps: N-1 per all-gather pass, 1 for
//   all-to-all and permute (direct sends).
//
// Several dimensions:
//   all-gather / reduce-scatter over torus rings split V across the rings in
//   proportion to their speed, so 1/T = sum 1/T_i (n equal rings: V/(n W),
//   the book's multi-axis formula) and the latency floor is the longest path,
//   T_min * sum of hops (the book's T_min * sum |X_i| / 2);
//   all-to-all runs dimension by dimension; along dimension i each device
//   exchanges V X_i / N, and the slowest dimension sets the time;
//   switch dimensions merge into one domain of N = prod X_i devices, as do
//   scale-out dimensions;
//   fast network + scale-out: hierarchical, one phase after the other:
//   all-gather = scale-out all-gather of V/N_fast, then fast all-gather of V;
//   reduce-scatter the reverse; all-reduce = fast reduce-scatter + scale-out
//   all-reduce of V/N_fast + fast all-gather.
//   Several torus dimensions without wraparound (each a line, or two chips)
//   in one all-gather, reduce-scatter or all-reduce: ONE one-way ring over the
//   whole group (a line of prod X_i chips, bytes per link (N-1) V/N), not
//   the split across dimensions. Evidence (docs/collectives.md): an FSDP
//   all-gather of bf16[8192,16384] over a v5e 2x4 slice measured about 6 ms
//   (a ring over 8: 5.2 ms; the split: 1.79 ms, below what 2 links can
//   receive). Wrapping rings keep the split (the book's v4 4x4x4 figures).
//   No torus phase is faster than its ingress limit: the bytes a chip must
//   receive (all-gather (N-1)/N V, all-reduce twice, all-to-all
//   (N-1)/N^2 V, permute V/N) over the links the least connected chip has
//   inside the group (a corner of a 2x4: 2), each at one direction's W.
// Each phase takes max(bandwidth term, latency floor), except a phase on
// the scale-out network alone, whose steps are messages that wait for each
// other: hops x latency + bandwidth term (the alpha-beta model); phases add.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "roofline/collectives/collective_kind.hpp"

namespace roofline {

enum class DimNetwork : unsigned char {
  kTorusRing,  // one dimension of a TPU torus (or a part of one)
  kSwitch,     // a GPU NVLink / Infinity Fabric domain: every peer one hop away
  kScaleOut,   // TPU DCN across slices, GPU InfiniBand across nodes
};

struct CollectiveDim {
  DimNetwork network = DimNetwork::kTorusRing;
  int size = 1;          // devices along the dimension
  bool wraps = false;    // torus: a wraparound link closes the ring
  int stride = 1;        // torus: links between consecutive devices of the axis
  double bytes_per_s = 0;  // torus: one link one way; switch / scale-out: a device's egress
  int links = 1;           // links bytes_per_s is spread over (to report bytes on one link)
  double hop_latency_s = 0;
};

namespace detail {

struct DimCost {
  double bytes_per_link = 0;
  double t_bandwidth_s = 0;
  int hops = 0;
};

inline DimCost torus_dim_cost(CollectiveKind kind, double v, const CollectiveDim& d, int shift) {
  const std::int64_t x = d.size;
  const double xd = static_cast<double>(x), s = d.stride;
  // A ring of two is a single link, wrap or not: the line formulas hold.
  const bool ring = d.wraps && x > 2;
  double per_link = 0;
  std::int64_t hops = 0;
  switch (kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllReduce: {
      const std::int64_t steps = ring ? x / 2 : x - 1;
      per_link = s * static_cast<double>(steps) * v / xd;
      hops = d.stride * steps;
      if (kind == CollectiveKind::kAllReduce) {
        per_link *= 2;
        hops *= 2;
      }
      break;
    }
    case CollectiveKind::kAllToAll: {
      const double shards = ring ? static_cast<double>(x * x / 4) / 2
                                 : static_cast<double>((x / 2) * ((x + 1) / 2));
      per_link = s * shards * v / (xd * xd);
      hops = d.stride * (ring ? x / 2 : x - 1);
      break;
    }
    case CollectiveKind::kPermute: {
      const std::int64_t k = ((shift % x) + x) % x;
      if (k == 0) break;
      const std::int64_t near = std::min(k, x - k);
      if (ring) {
        per_link = s * static_cast<double>(near) * v / xd * (2 * near == x ? 0.5 : 1.0);
        hops = d.stride * near;
      } else {
        per_link = s * static_cast<double>(near) * v / xd;
        hops = d.stride * std::max(k, x - k);
      }
      break;
    }
  }
  return {per_link, per_link / d.bytes_per_s, static_cast<int>(hops)};
}

inline DimCost group_dim_cost(CollectiveKind kind, double v, const CollectiveDim& d, int shift) {
  const std::int64_t n = d.size;
  const double nd = static_cast<double>(n);
  double egress = 0;
  std::int64_t hops = 0;
  switch (kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter: egress = v * (nd - 1) / nd; hops = n - 1; break;
    case CollectiveKind::kAllReduce: egress = 2 * v * (nd - 1) / nd; hops = 2 * (n - 1); break;
    case CollectiveKind::kAllToAll: egress = v * (nd - 1) / (nd * nd); hops = 1; break;
    case CollectiveKind::kPermute:
      if (((shift % n) + n) % n != 0) {
        egress = v / nd;
        hops = 1;
      }
      break;
  }
  return {egress / d.links, egress / d.bytes_per_s, static_cast<int>(hops)};
}

inline DimCost dim_cost(CollectiveKind kind, double v, const CollectiveDim& d, int shift) {
  if (d.size <= 1) return {};
  return d.network == DimNetwork::kTorusRing ? torus_dim_cost(kind, v, d, shift)
                                             : group_dim_cost(kind, v, d, shift);
}

// One phase: a set of dimensions of the same network used at once.
struct Phase {
  double t_bandwidth_s = 0;
  double t_latency_s = 0;
  double bytes_per_link = 0;
  int hops = 0;
  // Scale-out only: each step is a message through host NICs and switches
  // that starts when the previous one has landed, so latency and bytes add
  // (T = hops x latency + bytes / rate); on a torus or switch the hops
  // pipeline and the phase takes the larger of the two.
  bool latency_adds = false;
};

// all-gather-like (AG, RS) over fast dimensions at once: rates add.
inline Phase ring_phase(CollectiveKind kind, double v, std::span<const CollectiveDim> dims) {
  Phase p;
  double rate = 0;  // sum of 1/T_i
  for (const CollectiveDim& d : dims) {
    const DimCost c = dim_cost(kind, v, d, 1);
    if (c.t_bandwidth_s > 0) rate += 1 / c.t_bandwidth_s;
    p.hops += c.hops;
    p.t_latency_s += c.hops * d.hop_latency_s;
  }
  if (rate > 0) p.t_bandwidth_s = 1 / rate;
  // With the split in proportion to speed every link is busy for the whole
  // phase, so the busiest carries T times its own rate.
  for (const CollectiveDim& d : dims)
    if (d.size > 1)
      p.bytes_per_link = std::max(p.bytes_per_link, p.t_bandwidth_s * d.bytes_per_s / d.links);
  return p;
}

// all-to-all / permute: dimension by dimension, each exchanging V X_i / N.
inline Phase per_dim_phase(CollectiveKind kind, double v, double n_total,
                           std::span<const CollectiveDim> dims, int shift) {
  Phase p;
  int remaining = shift;
  // Mixed-radix digits of the shift, minor (last) dimension first.
  std::vector<int> digits(dims.size(), 0);
  for (std::size_t i = dims.size(); i-- > 0;) {
    const int x = std::max(dims[i].size, 1);
    digits[i] = remaining % x;
    remaining /= x;
  }
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const CollectiveDim& d = dims[i];
    const double vi = v * d.size / n_total;
    const DimCost c = dim_cost(kind, vi, d, kind == CollectiveKind::kPermute ? digits[i] : 1);
    p.t_bandwidth_s = std::max(p.t_bandwidth_s, c.t_bandwidth_s);
    p.bytes_per_link = std::max(p.bytes_per_link, c.bytes_per_link);
    p.hops += c.hops;
    p.t_latency_s += c.hops * d.hop_latency_s;
  }
  return p;
}

// Links the least connected chip of the group has on torus dimensions
// `dims` (a corner: one per line, two per wrapping ring of more than two).
inline int corner_links(std::span<const CollectiveDim> dims) {
  int links = 0;
  for (const CollectiveDim& d : dims)
    if (d.network == DimNetwork::kTorusRing && d.size > 1) links += d.wraps && d.size > 2 ? 2 : 1;
  return links;
}

// Bytes one chip of a group of n must receive (and send) for `kind`.
inline double ingress_bytes(CollectiveKind kind, double v, double n, int shift) {
  if (n <= 1) return 0;
  switch (kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter: return v * (n - 1) / n;
    case CollectiveKind::kAllReduce: return 2 * v * (n - 1) / n;
    case CollectiveKind::kAllToAll: return v * (n - 1) / (n * n);
    case CollectiveKind::kPermute: return shift % static_cast<int>(n) != 0 ? v / n : 0;
  }
  return 0;
}

// Torus dimensions without a ring (no wraparound, or two chips) that an
// all-gather-like collective uses together become one line over all their
// chips: the one-way ring over the whole group (see the header comment).
inline std::vector<CollectiveDim> merge_lines(std::vector<CollectiveDim> dims) {
  std::vector<CollectiveDim> out;
  CollectiveDim line;
  int lines = 0;
  for (const CollectiveDim& d : dims) {
    const bool is_line = d.network == DimNetwork::kTorusRing && d.size > 1 && !(d.wraps && d.size > 2);
    if (!is_line) {
      out.push_back(d);
      continue;
    }
    if (lines++ == 0) {
      line = d;
      line.wraps = false;
      continue;
    }
    line.size *= d.size;
    line.stride = std::max(line.stride, d.stride);
    line.bytes_per_s = std::min(line.bytes_per_s, d.bytes_per_s);
    line.hop_latency_s = std::max(line.hop_latency_s, d.hop_latency_s);
  }
  if (lines > 0) out.push_back(line);
  return out;
}

inline double product(std::span<const CollectiveDim> dims) {
  double n = 1;
  for (const CollectiveDim& d : dims) n *= d.size;
  return n;
}

// Switch (or scale-out) dimensions are one domain: merge them.
inline std::vector<CollectiveDim> merge_groups(std::span<const CollectiveDim> dims) {
  std::vector<CollectiveDim> out;
  for (const CollectiveDim& d : dims) {
    if (d.size <= 1) continue;
    if (d.network != DimNetwork::kTorusRing && !out.empty() && out.back().network == d.network) {
      out.back().size *= d.size;
      continue;
    }
    out.push_back(d);
  }
  return out;
}

}  // namespace detail

// Time of one collective over `dims` (the dimensions the collective's mesh
// axes are laid on, major first). `v_bytes` is V, the whole array over these
// devices. `shift` is the permute distance in devices (ignored otherwise).
inline CollectiveTime collective_time(CollectiveKind kind, double v_bytes,
                                      std::span<const CollectiveDim> dims, int shift = 1) {
  auto floored = [](detail::Phase p, double floor_s) {
    if (p.t_bandwidth_s < floor_s) p.t_bandwidth_s = floor_s;
    return p;
  };
  std::vector<CollectiveDim> fast, slow;
  for (const CollectiveDim& d : detail::merge_groups(dims))
    (d.network == DimNetwork::kScaleOut ? slow : fast).push_back(d);
  const double n_fast = detail::product(fast), n_slow = detail::product(slow);
  // The ingress limit of the torus part, from its dimensions as laid out
  // (before lines are merged): bytes per chip over the corner's links.
  const int torus_links = detail::corner_links(fast);
  double link_w = 0;
  for (const CollectiveDim& d : fast)
    if (d.network == DimNetwork::kTorusRing && d.size > 1)
      link_w = link_w > 0 ? std::min(link_w, d.bytes_per_s) : d.bytes_per_s;
  auto ingress_floor = [&](CollectiveKind k, double v) {
    if (torus_links == 0 || link_w <= 0) return 0.0;
    return detail::ingress_bytes(k, v, n_fast, shift) / (torus_links * link_w);
  };
  const bool ring_kind = kind == CollectiveKind::kAllGather || kind == CollectiveKind::kReduceScatter ||
                         kind == CollectiveKind::kAllReduce;
  if (ring_kind) fast = detail::merge_lines(std::move(fast));
  std::vector<detail::Phase> phases;
  switch (kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter:
      if (!slow.empty()) phases.push_back(detail::ring_phase(kind, v_bytes / n_fast, slow));
      if (!slow.empty()) phases.back().latency_adds = true;
      if (!fast.empty()) phases.push_back(floored(detail::ring_phase(kind, v_bytes, fast), ingress_floor(kind, v_bytes)));
      break;
    case CollectiveKind::kAllReduce: {
      const double floor_s = ingress_floor(CollectiveKind::kAllGather, v_bytes);
      if (!fast.empty())
        phases.push_back(floored(detail::ring_phase(CollectiveKind::kReduceScatter, v_bytes, fast), floor_s));
      if (!slow.empty()) phases.push_back(detail::ring_phase(kind, v_bytes / n_fast, slow));
      if (!slow.empty()) phases.back().latency_adds = true;
      if (!fast.empty()) phases.push_back(floored(detail::ring_phase(CollectiveKind::kAllGather, v_bytes, fast), floor_s));
      break;
    }
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kPermute: {
      std::vector<CollectiveDim> all = slow;
      all.insert(all.end(), fast.begin(), fast.end());
      detail::Phase p = detail::per_dim_phase(kind, v_bytes, n_fast * n_slow, all, shift);
      // With scale-out dimensions in the mix the per-chip figure is not the
      // torus's alone: the floor applies to torus-only collectives.
      if (slow.empty()) p = floored(p, ingress_floor(kind, v_bytes));
      phases.push_back(p);
      phases.back().latency_adds = fast.empty();
      break;
    }
  }
  CollectiveTime t;
  for (const detail::Phase& p : phases) {
    t.t_bandwidth_s += p.t_bandwidth_s;
    t.t_latency_s += p.t_latency_s;
    t.t_ici_s += p.latency_adds ? p.t_bandwidth_s + p.t_latency_s : std::max(p.t_bandwidth_s, p.t_latency_s);
    t.bytes_per_link = std::max(t.bytes_per_link, p.bytes_per_link);
    t.hops += p.hops;
  }
  return t;
}

}  // namespace roofline
