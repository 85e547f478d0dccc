// The built-in expectation of one collective by its size, group and
// algorithm, where a published model applies (docs/collectives.md,
// "Expected time of a collective"):
//  - an NCCL kernel on an NVIDIA GPU: NCCL's own cost model
//    (collectives/nccl.hpp) for the algorithm and protocol the kernel's
//    name gives, else the ones NCCL's tuner picks for that size;
//  - a TPU collective: the link bound T_ici stretched by what published
//    measurements reach: all-gathers and reduce-scatters about 95% of the
//    link bound, all-reduces 5.12 / 3.35 = 1.53x it (a v6e-256 psum of
//    606 MB), both as quoted in issue 37 from the JAX scaling book.
// A collective no trace names (the planning outputs) is expected as NCCL's
// tuner would run it on an NVIDIA GPU (expected_planned_collective).
// Elsewhere (RCCL, a traced GPU collective whose kernel is not NCCL's,
// all-to-all and permutes on a TPU) none applies and the collective class's curve times the op
// (calibration.hpp).
//
//   auto e = roofline::expected_collective({.kind = roofline::CollectiveKind::kAllReduce,
//                                           .array_bytes = 26.6e6, .group_size = 2},
//                                          "ncclKernel_AllReduce_RING_LL_Sum_float",
//                                          roofline::chip("a100-sxm-40gb"), 0);
//   // e->total_s(): 4.5 us + 26.6 MB / 58.75 GB/s = 457 us
//
// Part of roofline::core (header-only).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "roofline/chip.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/collectives/nccl.hpp"

namespace roofline {

// One collective as a trace gives it: which, V (the whole array, bytes),
// the devices of its group.
struct CollectiveShape {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  double array_bytes = 0;
  int group_size = 1;
};

struct CollectiveExpectation {
  double latency_s = 0;   // the fixed part (NCCL's latency; 0 on a TPU)
  double transfer_s = 0;  // the bytes at the rate the model gives
  std::string basis;      // "NCCL 2.17.1 ring/LL, 2 ranks over NVLink", "TPU all-reduce: 1.53 x T_ici"
  double total_s() const { return latency_s + transfer_s; }
};

// A TPU collective's published stretch of the link bound: 1 / 0.95 for the
// gather family, 5.12 / 3.35 for an all-reduce; 0 where none is published.
inline double tpu_collective_stretch(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllGather:
    case CollectiveKind::kReduceScatter: return 1 / 0.95;
    case CollectiveKind::kAllReduce: return 5.12 / 3.35;
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kPermute: return 0;
  }
  return 0;
}

// `name`: what the op's kernel name says (parse_nccl_kernel); `t_link_s`:
// its roofline's link term (Prediction::t_ici_s), which a TPU's figures
// stretch.
inline std::optional<CollectiveExpectation> expected_collective(const CollectiveShape& c, const NcclKernelName& name,
                                                                const Chip& chip, double t_link_s) {
  if (c.group_size < 2 || !(c.array_bytes > 0)) return std::nullopt;
  if (chip.kind == ChipKind::kTpu) {
    const double stretch = tpu_collective_stretch(c.kind);
    if (!(stretch > 0) || !(t_link_s > 0)) return std::nullopt;
    char factor[16];
    std::snprintf(factor, sizeof factor, "%.2f", stretch);
    return CollectiveExpectation{
        .transfer_s = t_link_s * stretch,
        .basis = std::string("published TPU ") + std::string(collective_name(c.kind)) + ": " + factor + " x the link bound"};
  }
  if (!name.nccl || !name.unmodelled.empty()) return std::nullopt;
  const std::optional<NcclSystem> sys = nccl_system(chip, c.group_size);
  if (!sys) return std::nullopt;
  const std::optional<NcclTime> t = nccl_tuned_time(c.kind, c.array_bytes, *sys, name.algorithm, name.protocol);
  if (!t) return std::nullopt;
  std::string basis = std::string("NCCL 2.17.1 cost model, ") + std::string(nccl_algorithm_name(t->algorithm)) + "/" +
                      std::string(nccl_protocol_name(t->protocol));
  if (!name.algorithm || !name.protocol) basis += " (the tuner's pick for this size)";
  basis += ", " + std::to_string(sys->ranks) + " ranks over " + (sys->nodes > 1 ? "the network" : sys->nvlink ? "NVLink" : "PCIe");
  return CollectiveExpectation{.latency_s = t->latency_s, .transfer_s = t->transfer_s, .basis = std::move(basis)};
}

// `kernel`: the op's name in the trace.
inline std::optional<CollectiveExpectation> expected_collective(const CollectiveShape& c, std::string_view kernel,
                                                                const Chip& chip, double t_link_s) {
  return expected_collective(c, parse_nccl_kernel(kernel), chip, t_link_s);
}

// A collective no kernel names (roofline predict collective, an HLO
// module's rows, the sharded-matmul planner): on an NVIDIA GPU it runs
// through NCCL, as PyTorch's and XLA's collectives do there, with the
// algorithm and protocol NCCL's tuner picks for its size: the figure the
// report gives an NCCL kernel whose name leaves both open.
inline std::optional<CollectiveExpectation> expected_planned_collective(const CollectiveShape& c, const Chip& chip,
                                                                        double t_link_s) {
  NcclKernelName unnamed;
  unnamed.nccl = nccl_compute_capability(chip).has_value();
  return expected_collective(c, unnamed, chip, t_link_s);
}

}  // namespace roofline
