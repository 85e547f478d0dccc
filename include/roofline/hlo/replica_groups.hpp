// The device groups of an HLO collective, from any spelling XLA prints:
//   explicit   replica_groups={{0,1},{2,3}}     ({} = one group of every device)
//   iota       replica_groups=[4,2]<=[2,4]T(1,0)
//   mesh axes  replica_groups=mesh['a'=2,'b'=4] {'b'}
//              replica_groups=mesh['a'=2,'b'=4], device_ids=([4,2]T(1,0)) {'a','b':(1)2}
// The iota form lists G groups of S devices: iota(prod dims) reshaped to
// `dims`, transposed by T(...) when present, read row-major into a [G,S] table:
// [2,4]<=[8] -> {0,1,2,3},{4,5,6,7}; [4,2]<=[2,4]T(1,0) -> {0,4},{1,5},{2,6},{3,7}.
// The mesh form (XLA's MeshAxesReplicaGroupList, what Shardy-partitioned JAX
// programs carry) groups the devices that differ only along the listed axes
// (`a:(pre)size` is a sub-axis: `size` steps of stride `pre` within a):
// mesh['a'=2,'b'=4] {'b'} -> {0,1,2,3},{4,5,6,7}; {'a'} -> {0,4},{1,5},{2,6},{3,7}.
// The mesh's devices are iota(N) in row-major order unless device_ids= gives
// them (an iota `[dims]T(perm)` or every id).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace roofline {

struct ReplicaGroups {
  // Every group's devices; empty for `{}` or when the iota table is too
  // large to list (more than 2^20 devices): the sizes below still hold.
  std::vector<std::vector<std::int64_t>> groups;
  std::int64_t num_groups = 0;
  // Devices per group; 0 for `{}`, which means "all devices" and takes its
  // size from the module (replica_count / num_partitions).
  std::int64_t group_size = 0;
  bool all_devices = false;
};

// Parses the attribute value (the text after `replica_groups=`). Errors say
// what was expected at which offset: "offset 7: expected ']'".
absl::StatusOr<ReplicaGroups> parse_replica_groups(std::string_view text);

// `{{0,1},{1,2}}` as in source_target_pairs: a list of integer lists.
absl::StatusOr<std::vector<std::vector<std::int64_t>>> parse_int_lists(std::string_view text);

}  // namespace roofline
