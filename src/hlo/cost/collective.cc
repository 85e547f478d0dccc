// Collectives: the bytes each device reads and writes, and what the
// collective model (roofline/collectives/collective.hpp) needs to time the
// network: the kind, the array size V and the devices per group.
#include <algorithm>
#include <vector>

#include "src/hlo/cost/handlers.hpp"
#include "src/hlo/int_math.hpp"

namespace roofline::detail {
namespace {

// Devices per group: explicit or iota replica_groups, or, for `{}` (all
// devices), the module's replica count / partition count by XLA's group
// modes (channel_id set: partitions; with use_global_device_ids: both).
void replica_group(const OpView& v, HloCollective* col, HloCostFlags* flags) {
  const HloTypedAttributes& t = v.attrs();
  if (!t.replica_groups) {
    flags->collective_not_timed = true;
    return;
  }
  const HloModuleConfig* m = v.ins->parent ? v.ins->parent->module : nullptr;
  const std::int64_t replicas = m ? m->replica_count : 1;
  const std::int64_t partitions = m ? m->num_partitions : 1;
  std::int64_t all = replicas;
  if (t.channel_id > 0) all = t.use_global_device_ids ? sat_mul(replicas, partitions) : partitions;
  col->num_groups = t.replica_groups->num_groups;
  col->group_size = t.replica_groups->all_devices ? all : t.replica_groups->group_size;
}

// collective-permute: the group is every device in source_target_pairs; the
// shift is the first pair's that moves data, in positions among them.
void permute_group(const OpView& v, HloCollective* col, HloCostFlags* flags) {
  if (!v.attrs().source_target_pairs) {
    flags->collective_not_timed = true;
    return;
  }
  const std::span<const std::span<const std::int64_t>> pairs = *v.attrs().source_target_pairs;
  std::vector<std::int64_t> devices;
  for (std::span<const std::int64_t> p : pairs) devices.insert(devices.end(), p.begin(), p.end());
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  col->group_size = static_cast<std::int64_t>(devices.size());
  col->num_groups = 1;
  for (std::span<const std::int64_t> p : pairs) {
    if (p.size() != 2 || p[0] == p[1]) continue;
    auto pos = [&](std::int64_t d) { return std::lower_bound(devices.begin(), devices.end(), d) - devices.begin(); };
    const auto n = static_cast<std::int64_t>(devices.size());
    col->permute_shift = static_cast<int>(((pos(p[1]) - pos(p[0])) % n + n) % n);
    break;
  }
}

}  // namespace

// all-reduce (-start, cross-replica-sum)  V = the operands; FLOPs =
//              elements(result), XLA's "2 replicas" convention.
// all-gather (-start)        V = the gathered result.
// reduce-scatter             V = the unreduced input.
// all-to-all, ragged-all-to-all  V = group size x the per-device input
//              (operand 0 of a ragged one).
// collective-permute (-start)  V = participants x the per-device input.
// send, recv, collective-broadcast, ...  bytes only, not timed; a host
//              transfer (is_host_transfer) moves its array over PCIe.
//              Bytes of all: operands read, result written.
void collective(const OpView& v, Costing&, Arith* a, HloCost* c) {
  if (v.op == HloOpcode::kAllReduce) a->flops += elements(*v.out);  // one add per result element
  if (c == nullptr) return;
  c->category = HloCategory::kCollective;
  c->dtype = array_type(*v.out);
  default_bytes(v, c);
  double in_bytes = 0;
  for (const Shape* s : v.in) in_bytes += static_cast<double>(padded_bytes(*s));
  HloCollective col;
  switch (v.op) {
    case HloOpcode::kAllReduce:
      col.kind = CollectiveKind::kAllReduce;
      col.array_bytes = in_bytes;
      replica_group(v, &col, &c->flags);
      break;
    case HloOpcode::kAllGather:
      col.kind = CollectiveKind::kAllGather;
      col.array_bytes = static_cast<double>(padded_bytes(*v.out));
      replica_group(v, &col, &c->flags);
      break;
    case HloOpcode::kReduceScatter:
      col.kind = CollectiveKind::kReduceScatter;
      col.array_bytes = in_bytes;
      replica_group(v, &col, &c->flags);
      break;
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
      col.kind = CollectiveKind::kAllToAll;
      replica_group(v, &col, &c->flags);
      // Each device holds V/X: the whole array is X times what it sends.
      col.array_bytes = (v.op == HloOpcode::kRaggedAllToAll && !v.in.empty() ? static_cast<double>(padded_bytes(*v.in[0]))
                                                                               : in_bytes) *
                        static_cast<double>(std::max<std::int64_t>(col.group_size, 1));
      break;
    case HloOpcode::kCollectivePermute:
      col.kind = CollectiveKind::kPermute;
      permute_group(v, &col, &c->flags);
      col.array_bytes = (v.in.empty() ? 0 : static_cast<double>(padded_bytes(*v.in[0]))) *
                        static_cast<double>(std::max<std::int64_t>(col.group_size, 1));
      break;
    default:
      // send/recv, collective-broadcast: bytes only, no network model.
      if (v.attrs().is_host_transfer) {
        c->host_bytes += v.op == HloOpcode::kSend && !v.in.empty() ? hbm_bytes_of(*v.in[0]) : hbm_bytes_of(first_array(*v.out));
      } else {
        c->flags.collective_not_timed = true;
      }
      return;
  }
  c->collective = col;
}

}  // namespace roofline::detail
