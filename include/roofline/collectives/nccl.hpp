// NCCL's own cost model of one collective: the latency and bus bandwidth
// its tuner assigns to each algorithm and protocol, as NVIDIA/nccl
// v2.17.1-1 writes them in src/graph/tuning.cc (ncclTopoTuneModel and
// ncclTopoGetAlgoTime; 2.17.1 is the version the A100 DDP trace of
// ../shared/data/real records). A kernel that ran names its algorithm and
// protocol ("ncclKernel_AllReduce_RING_LL_Sum_float",
// "ncclDevKernel_AllGather_RING_LL"); where it names neither, the one the
// tuner picks (the least time) is taken. docs/collectives.md, "NCCL's cost
// model", lists every constant and what NCCL's topology search would give
// that we assume instead.
//
//   auto sys = roofline::nccl_system(roofline::chip("h100-sxm"), 8);
//   auto t = roofline::nccl_time(roofline::CollectiveKind::kAllReduce, 8e9, *sys,
//                                roofline::NcclAlgorithm::kRing, roofline::NcclProtocol::kSimple);
//   // t->total_s(): 56 us + 8e9 / (370 GB/s x 8/14)
//
// Part of roofline::core (header-only).
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "roofline/chip.hpp"
#include "roofline/collectives/collective_kind.hpp"

namespace roofline {

enum class NcclAlgorithm : unsigned char { kTree, kRing, kNvls };
enum class NcclProtocol : unsigned char { kLL, kLL128, kSimple };

constexpr std::string_view nccl_algorithm_name(NcclAlgorithm a) {
  switch (a) {
    case NcclAlgorithm::kTree: return "tree";
    case NcclAlgorithm::kRing: return "ring";
    case NcclAlgorithm::kNvls: return "NVLS";
  }
  return "?";
}
constexpr std::string_view nccl_protocol_name(NcclProtocol p) {
  switch (p) {
    case NcclProtocol::kLL: return "LL";
    case NcclProtocol::kLL128: return "LL128";
    case NcclProtocol::kSimple: return "Simple";
  }
  return "?";
}

// What a kernel's name says: its algorithm and protocol, each where named.
// "ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_AllGather_RING_LL",
// "ncclDevKernel_AllReduce_Sum_f32_RING_LL128", "ncclKernel_SendRecv_RING_SIMPLE".
// An algorithm this model lacks (COLLNET, NVLSTREE, PAT) sets `unmodelled`.
struct NcclKernelName {
  bool nccl = false;  // the name is an NCCL / RCCL kernel's
  std::optional<NcclAlgorithm> algorithm;
  std::optional<NcclProtocol> protocol;
  std::string unmodelled;  // the algorithm token, where not one of ours
};

inline NcclKernelName parse_nccl_kernel(std::string_view name) {
  NcclKernelName out;
  if (name.starts_with("void ")) name.remove_prefix(5);
  if (!name.starts_with("nccl")) return out;
  out.nccl = true;
  name = name.substr(0, std::min(name.find_first_of("(<"), name.size()));
  std::size_t at = 0;
  while (at <= name.size()) {
    const std::size_t end = std::min(name.find('_', at), name.size());
    const std::string_view tok = name.substr(at, end - at);
    if (tok == "RING") out.algorithm = NcclAlgorithm::kRing;
    else if (tok == "TREE") out.algorithm = NcclAlgorithm::kTree;
    else if (tok == "NVLS") out.algorithm = NcclAlgorithm::kNvls;
    else if (tok == "COLLNET" || tok == "NVLSTREE" || tok == "PAT" || tok == "CollNetDirect" ||
             tok == "CollNetChain")
      out.unmodelled = std::string(tok);
    else if (tok == "LL") out.protocol = NcclProtocol::kLL;
    else if (tok == "LL128") out.protocol = NcclProtocol::kLL128;
    else if (tok == "SIMPLE") out.protocol = NcclProtocol::kSimple;
    at = end + 1;
  }
  return out;
}

// The CUDA compute capability NCCL's tuner keys its tables by, from our
// chip name (hardware/*.json); nullopt for a chip NCCL does not run on
// (AMD's run RCCL, whose tables differ; TPUs).
inline std::optional<int> nccl_compute_capability(const Chip& chip) {
  if (chip.vendor != "nvidia") return std::nullopt;
  const std::string& n = chip.name;
  const auto is = [&](std::string_view prefix) { return n.starts_with(prefix); };
  if (is("v100")) return 70;
  if (is("t4")) return 75;
  if (is("a100")) return 80;
  if (is("a10g")) return 86;
  if (is("l4") || is("l40s") || is("rtx-4090")) return 89;
  if (is("h100") || is("h200") || is("gh200")) return 90;
  if (is("b200") || is("b300") || is("gb200")) return 100;
  return std::nullopt;
}

// What ncclTopoTuneModel reads of a communicator: its ranks and nodes,
// the GPU generation's row of each table, whether ranks meet over NVLink
// or PCI, the graph's channels and bus bandwidth.
struct NcclSystem {
  int ranks = 1;
  int nodes = 1;
  int compute_capability = 80;
  bool nvlink = true;   // intra-node hardware: NVLink, else PCI
  bool nvls = false;    // NVLink SHARP available (Hopper and later, NVSwitch, one node)
  int channels = 1;
  // nChannels x bwIntra and nChannels x bwInter, GB/s as NCCL counts them
  // (1e9 B/s).
  double intra_bus_gb_s = 0;
  double inter_bus_gb_s = 0;
};

namespace detail {
// topo.h v2.17.1, ncclTopoNVLinkBw: GB/s of one NVLink as the topology
// search rates it (SM60 18, SM70/SM80 22, SM86 12).
inline double nccl_nvlink_gb_s(int cc) {
  return cc == 86 ? 12.0 : cc >= 70 ? 22.0 : 18.0;
}
}  // namespace detail

// The communicator of `ranks` GPUs of `chip`: a group within the chip's
// NVLink (or PCIe) domain is one node, a larger one spans ranks / domain
// nodes. Assumed where NCCL searches the real topology: the ring graph
// uses every NVLink of the GPU (nChannels x bwIntra = links x NCCL's rate
// of one link), one channel per link; without NVLink, two channels over
// PCIe at NCCL's rate of it (12 GB/s for Gen3 x16 in topo.h, 24 for Gen4:
// 3/4 of the one-way PCIe rate); between nodes the GPU's NIC
// (dcn_bytes_per_s).
inline std::optional<NcclSystem> nccl_system(const Chip& chip, int ranks) {
  const std::optional<int> cc = nccl_compute_capability(chip);
  if (!cc || ranks < 2) return std::nullopt;
  NcclSystem s;
  s.ranks = ranks;
  s.compute_capability = *cc;
  const int domain = std::max(chip.ici.domain_chips(), 1);
  const int per_node = std::min(ranks, domain);
  s.nodes = std::max(1, (ranks + per_node - 1) / per_node);
  s.nvlink = chip.ici.link_bytes_per_s > 0 && chip.pcie_bytes_per_s > 0
                 ? chip.ici.egress_bytes_per_s() > chip.pcie_bytes_per_s
                 : chip.ici.links_per_chip > 1;
  if (s.nvlink) {
    s.channels = std::max(chip.ici.links_per_chip, 1);
    s.intra_bus_gb_s = s.channels * detail::nccl_nvlink_gb_s(*cc);
  } else {
    s.channels = 2;
    s.intra_bus_gb_s = 0.75 * chip.pcie_bytes_per_s / 1e9;
  }
  s.inter_bus_gb_s = chip.dcn_bytes_per_s / 1e9;
  s.nvls = *cc >= 90 && s.nvlink && s.nodes == 1 && domain > 2;
  return s;
}

// One (algorithm, protocol) on one communicator: NCCL's latency (us in the
// source, seconds here) and the time the bytes take at its algorithm
// bandwidth.
struct NcclTime {
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  NcclProtocol protocol = NcclProtocol::kSimple;
  double latency_s = 0;
  double transfer_s = 0;
  double algorithm_bytes_per_s = 0;  // bytes / transfer_s
  double bus_bytes_per_s = 0;        // NCCL's busBw before the algorithm ratio
  double total_s() const { return latency_s + transfer_s; }
};

// ncclTopoTuneModel + ncclTopoGetAlgoTime of v2.17.1 for one collective of
// `bytes` (NCCL's nBytes: the whole array V, an all-gather's output and a
// reduce-scatter's input, as ncclInfo counts it) with one pipelined op.
// nullopt where NCCL would not run the combination (tree for a gather,
// NVLS without NVLink SHARP, LL128 where 2.17.1 leaves it off: other than
// Volta, Ampere (cc 80) and Hopper over NVLink).
inline std::optional<NcclTime> nccl_time(CollectiveKind kind, double bytes, const NcclSystem& s,
                                         NcclAlgorithm a, NcclProtocol p) {
  if (kind == CollectiveKind::kPermute || kind == CollectiveKind::kAllToAll) return std::nullopt;
  const bool all_reduce = kind == CollectiveKind::kAllReduce;
  if (a == NcclAlgorithm::kTree && !all_reduce) return std::nullopt;
  if (a == NcclAlgorithm::kNvls && (p != NcclProtocol::kSimple || !s.nvls)) return std::nullopt;
  if (p == NcclProtocol::kLL128 &&
      !(s.nvlink && (s.compute_capability == 70 || s.compute_capability == 80 || s.compute_capability == 90)))
    return std::nullopt;
  const int n = s.ranks, nodes = s.nodes;
  // Tables of tuning.cc (index: Volta, Ampere, Hopper).
  const int gen = s.compute_capability >= 90 ? 2 : s.compute_capability >= 80 ? 1 : 0;
  constexpr double kBaseLatUs[3][3] = {{4.4, 4.4, 0}, {3.6, 10.0, 8.4}, {0, 0, 40.0}};  // tree, ring, NVLS
  constexpr double kHwLatUs[3][2][3] = {
      {{.52, 1.25, 28}, {.47, 1.9, 3.4}},  // NVLink: tree, ring (LL, LL128, Simple)
      {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}},   // PCI
      {{5.0, 8.5, 28}, {2.7, 4.0, 9.6}}};  // network
  constexpr double kLl128MaxBwPerCh[3] = {20.0, 20.0, 36.7};
  constexpr double kLlMaxBws[3][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}};
  constexpr double kPerChMaxTreeBws[3][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 33.0}};
  const int ai = a == NcclAlgorithm::kTree ? 0 : a == NcclAlgorithm::kRing ? 1 : 2;
  const int pi = static_cast<int>(p);
  const int index2 = nodes <= 2 ? nodes - 1 : 2;
  // LL: one node reads the GPU's row; several nodes the CPU's (Intel's taken).
  const double ll_max_bw = kLlMaxBws[nodes == 1 ? gen : 0][index2];
  const double per_ch_max_tree_bw = kPerChMaxTreeBws[gen][index2];
  const double ppn = static_cast<double>(n) / nodes;

  double bus = (nodes <= 2 ? s.intra_bus_gb_s : s.inter_bus_gb_s);
  if (gen == 1) bus = std::min(bus, 235.0);
  if (gen == 2) bus = std::min(bus, 370.0);
  if (a == NcclAlgorithm::kRing && p == NcclProtocol::kLL)
    bus = std::min(ll_max_bw, bus * ((nodes > 1 || all_reduce) ? 1.0 / 4.0 : 1.0 / 3.0));
  if (a == NcclAlgorithm::kRing && p == NcclProtocol::kLL128)
    bus = std::min(bus * (ppn < 2 ? 0.7 : 0.92), kLl128MaxBwPerCh[gen] * s.channels);
  if (a == NcclAlgorithm::kTree) bus = std::min(bus * .92, s.channels * per_ch_max_tree_bw);
  if (a == NcclAlgorithm::kTree && p == NcclProtocol::kLL) bus = std::min(bus * 1.0 / 3.8, ll_max_bw);
  if (a == NcclAlgorithm::kTree && p == NcclProtocol::kLL128)
    bus = std::min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), kLl128MaxBwPerCh[gen] * s.channels);

  const int nsteps = all_reduce ? 2 * (n - 1) : n - 1;
  const int inter_steps = all_reduce ? (nodes > 1 ? 2 * nodes : 0) : nodes - 1;
  const double ratio = a == NcclAlgorithm::kRing ? static_cast<double>(n) / nsteps
                       : a == NcclAlgorithm::kNvls ? .75
                                                   : .5;
  double algbw_gb_s = bus * ratio;

  const int intra_hw = s.nvlink ? 0 : 1;
  double lat_us = kBaseLatUs[ai][pi];
  if (a != NcclAlgorithm::kNvls) {
    double intra_lat = kHwLatUs[intra_hw][ai][pi];
    const double inter_lat = kHwLatUs[2][ai][pi];
    if (nodes > 1 && p == NcclProtocol::kLL) intra_lat *= 1.8;
    if (a == NcclAlgorithm::kRing) {
      lat_us += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
    } else {
      lat_us += 2 * ((n / nodes - 1) * intra_lat + std::floor(std::log2(nodes)) * inter_lat);
    }
  }
  // ncclTopoGetAlgoTime: the tree's correction by size (powers of two from
  // 64 B), and the ring plateau across nodes.
  if (a == NcclAlgorithm::kTree) {
    constexpr double kTreeCorrection[3][23] = {
        {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
        {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
        {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
    const double chunks = std::max(1.0, std::floor(bytes / 64));
    const int log_size = static_cast<int>(std::floor(std::log2(chunks)));
    if (log_size < 23) algbw_gb_s *= kTreeCorrection[pi][std::max(0, log_size)];
  }
  if (a == NcclAlgorithm::kRing && p == NcclProtocol::kSimple && nodes > 1 && all_reduce &&
      bytes >= n / 16.0 * 65536)
    lat_us *= s.compute_capability < 90 ? 1.9 : 1.5;
  if (!(algbw_gb_s > 0)) return std::nullopt;
  NcclTime t{.algorithm = a, .protocol = p};
  t.latency_s = lat_us * 1e-6;
  t.algorithm_bytes_per_s = algbw_gb_s * 1e9;
  t.bus_bytes_per_s = bus * 1e9;
  t.transfer_s = bytes / t.algorithm_bytes_per_s;
  return t;
}

// The combination NCCL's tuner would run (least total time; ties: the
// first in tree, ring, NVLS x LL, LL128, Simple order, as getAlgoInfo
// scans), among those the name leaves open.
inline std::optional<NcclTime> nccl_tuned_time(CollectiveKind kind, double bytes, const NcclSystem& s,
                                               std::optional<NcclAlgorithm> algorithm = std::nullopt,
                                               std::optional<NcclProtocol> protocol = std::nullopt) {
  std::optional<NcclTime> best;
  for (NcclAlgorithm a : {NcclAlgorithm::kTree, NcclAlgorithm::kRing, NcclAlgorithm::kNvls}) {
    if (algorithm && *algorithm != a) continue;
    for (NcclProtocol p : {NcclProtocol::kLL, NcclProtocol::kLL128, NcclProtocol::kSimple}) {
      if (protocol && *protocol != p) continue;
      const std::optional<NcclTime> t = nccl_time(kind, bytes, s, a, p);
      if (t && (!best || t->total_s() < best->total_s())) best = t;
    }
  }
  return best;
}

}  // namespace roofline
