// The collectives of an HLO module as an accelerator will run them: where
// each replica group sits on the chip's torus, and the rewrites XLA's TPU and
// GPU pipelines make after SPMD partitioning, which the partitioned
// (pre-optimisation) module that roofline.jax.predict costs has not had yet.
//
//   Mesh. A replica group names devices (partition ids); with a mesh the
//   ids are read as positions in the mesh, row-major (jax: the flattened
//   Mesh.devices, which is the SPMD program's device assignment), and a
//   group that spans whole mesh axes is timed as the collective over those
//   axes (collective_time(mesh, ...), the same figure `Collective` and
//   `roofline predict collective` give). Without a mesh, or for a group that
//   is not whole axes, the group is one ring of its size
//   (collective_time_on_group).
//
//   Reduce-scatter. An all-reduce whose only use is a dynamic-slice that
//   keeps 1/group of it at an offset computed from partition-id or
//   replica-id (this device's shard: the partitioner's output for an FSDP
//   weight gradient) is costed as a reduce-scatter of the same array (half
//   the ring all-reduce's bytes), writing only the shard: XLA's
//   ReduceScatterCreator makes that rewrite in the GPU and TPU pipelines.
//
//   Combining. All-reduces of one computation with the same element type,
//   reduction, replica groups and channel kind, none depending on another,
//   are combined in program order into one all-reduce of their summed
//   bytes while the sum stays within kXlaAllReduceCombineThresholdBytes and
//   the count within kXlaAllReduceCombineThresholdCount: XLA's
//   AllReduceCombiner with its GPU defaults (xla/service/collective_utils.h
//   kDefaultAllReduceCombineThreshold = 30 MiB + 7 bytes, the default of
//   --xla_gpu_all_reduce_combine_threshold_bytes; count 256 in
//   xla/service/gpu/gpu_compiler.cc). libtpu's TPU thresholds are not
//   public; the GPU ones stand in for them. Each member keeps its share of
//   the combined op's time, in proportion to its bytes.
//
// docs/collectives.md ("HLO collectives on a mesh") has the evidence.
#pragma once

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "roofline/chip.hpp"
#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/module.hpp"

namespace roofline {

struct Mesh;

inline constexpr double kXlaAllReduceCombineThresholdBytes = 30.0 * 1024 * 1024 + 7;
inline constexpr int kXlaAllReduceCombineThresholdCount = 256;

enum class HloCollectiveRewrites : unsigned char {
  kAuto,         // the accelerator's rewrites for a module not yet scheduled
                 // (no is_scheduled=true: a partitioned, pre-optimisation
                 // module); none for a compiled one, which has had them
  kAccelerator,  // always
  kNone,         // cost every collective as written
};

struct HloCollectiveOptions {
  // The devices of the SPMD program laid on the chip (lay_out_mesh /
  // make_mesh on the same chip); nullptr: every group is one ring.
  const Mesh* mesh = nullptr;
  HloCollectiveRewrites rewrites = HloCollectiveRewrites::kAuto;
  double combine_threshold_bytes = kXlaAllReduceCombineThresholdBytes;
  int combine_threshold_count = kXlaAllReduceCombineThresholdCount;
};

// What the rewrites did to one module, for reports.
struct HloCollectiveRewriteCounts {
  bool applied = false;            // the rewrites ran (kAuto decided yes, or kAccelerator)
  int reduce_scatters = 0;         // all-reduce + dynamic-slice costed as reduce-scatter
  int combined_all_reduces = 0;    // all-reduces that went into a combined one (groups of 2 or more)
  int all_reduce_combines = 0;     // the combined all-reduces they became
  int mesh_timed = 0;              // collectives timed over mesh axes
};

class HloCollectivePlan {
 public:
  // Sets cost->collective's timing and rewrite fields for `instruction`
  // (nothing for an instruction the plan does not hold).
  void apply(const HloInstruction& instruction, HloCost* cost) const;
  const HloCollectiveRewriteCounts& counts() const { return counts_; }

 private:
  friend absl::StatusOr<HloCollectivePlan> plan_collectives(const HloModule&, const Chip&,
                                                            const HloCollectiveOptions&);
  struct Entry {
    HloCollective collective;
    double bytes_written = -1;  // >= 0: the shard a rewritten reduce-scatter writes
  };
  absl::flat_hash_map<const HloInstruction*, Entry> entries_;
  HloCollectiveRewriteCounts counts_;
};

// Plans every collective of `module`. Errors: a mesh laid on another chip,
// or one whose device count is not the module's (replica_count x
// num_partitions), or a group naming a device beyond the mesh.
absl::StatusOr<HloCollectivePlan> plan_collectives(const HloModule& module, const Chip& chip,
                                                   const HloCollectiveOptions& options);

}  // namespace roofline
