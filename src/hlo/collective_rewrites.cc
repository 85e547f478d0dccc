// The collective plan of a module: replica groups laid on a mesh, and the
// accelerator pipelines' reduce-scatter and all-reduce-combining rewrites
// (roofline/hlo/collective_rewrites.hpp has the rules and their sources).
#include "roofline/hlo/collective_rewrites.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "roofline/collectives/collective.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/hlo/replica_groups.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/mesh_collective.hpp"

namespace roofline {
namespace {

bool is_scheduled(const HloModule& m) {
  for (const HloAttribute& a : m.attributes())
    if (a.key == "is_scheduled") return a.value == "true";
  return false;
}

// The devices of the first replica group (all of them for `{}`), or of a
// permute's source_target_pairs; empty when the text cannot be read (a
// module read from a proto without the text form): then the group size alone
// times it.
std::vector<std::int64_t> group_devices(const HloInstruction& i, std::int64_t all_devices) {
  std::vector<std::int64_t> out;
  if (i.opcode == HloOpcode::kCollectivePermute || i.opcode == HloOpcode::kCollectivePermuteStart) {
    absl::StatusOr<std::vector<std::vector<std::int64_t>>> pairs = parse_int_lists(i.attribute("source_target_pairs"));
    if (!pairs.ok()) return out;
    for (const auto& p : *pairs) out.insert(out.end(), p.begin(), p.end());
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }
  const std::string_view text = i.attribute("replica_groups");
  if (text.empty()) return out;
  absl::StatusOr<ReplicaGroups> g = parse_replica_groups(text);
  if (!g.ok()) return out;
  if (g->all_devices) {
    for (std::int64_t d = 0; d < all_devices; ++d) out.push_back(d);
    return out;
  }
  if (!g->groups.empty()) out = g->groups.front();
  return out;
}

// The mesh axes a group spans, when it is exactly the devices along them
// around its first device; nullopt otherwise (a sub-axis, a strided subset).
std::optional<AxisMask> axes_of(std::span<const std::int64_t> devices, const Mesh& mesh) {
  if (devices.size() < 2) return std::nullopt;
  const std::size_t n_axes = mesh.axes.size();
  auto coords = [&](std::int64_t d) {
    std::vector<std::int64_t> c(n_axes);
    for (std::size_t a = n_axes; a-- > 0;) {
      const std::int64_t s = mesh.axes[a].size;
      c[a] = d % s;
      d /= s;
    }
    return c;
  };
  const std::vector<std::int64_t> first = coords(devices[0]);
  AxisMask mask = 0;
  for (std::int64_t d : devices) {
    const std::vector<std::int64_t> c = coords(d);
    for (std::size_t a = 0; a < n_axes; ++a)
      if (c[a] != first[a]) mask |= AxisMask{1} << a;
  }
  if (mask == 0 || static_cast<std::size_t>(mesh.size(mask)) != devices.size()) return std::nullopt;
  return mask;
}

// Whether `i` (an index of a dynamic-slice) is computed from this device's
// id: partition-id or replica-id within a few ops (the partitioner writes
// dynamic-slice(constant table, partition-id) -> reshape, or arithmetic on
// the id).
bool from_device_id(const HloInstruction& i, int depth) {
  if (i.opcode == HloOpcode::kPartitionId || i.opcode == HloOpcode::kReplicaId) return true;
  if (depth == 0) return false;
  for (const HloInstruction* o : i.operands)
    if (o != nullptr && from_device_id(*o, depth - 1)) return true;
  return false;
}

// The dynamic-slice that is the only use of all-reduce `ar`, keeping
// 1/group of it at this device's offset; nullptr otherwise.
const HloInstruction* shard_slice(const HloInstruction& ar, std::int64_t group,
                                  const std::vector<const HloInstruction*>& users) {
  if (users.size() != 1 || ar.is_root || group < 2) return nullptr;
  const HloInstruction& ds = *users[0];
  if (ds.opcode != HloOpcode::kDynamicSlice || ds.operands.empty() || ds.operands[0] != &ar) return nullptr;
  if (!ar.shape.is_array() || !ds.shape.is_array()) return nullptr;
  const std::int64_t whole = element_count(ar.shape), part = element_count(ds.shape);
  if (part <= 0 || whole != part * group) return nullptr;
  for (std::size_t k = 1; k < ds.operands.size(); ++k)
    if (ds.operands[k] != nullptr && from_device_id(*ds.operands[k], 6)) return &ds;
  return nullptr;
}

// What AllReduceCombiner keys on (xla/service/all_reduce_key.cc): reduction,
// element type, replica groups, channel kind, global device ids.
using CombineKey = std::tuple<HloOpcode, DType, std::string_view, bool, bool>;

CombineKey combine_key(const HloInstruction& i) {
  const HloComputation* reducer = i.called("to_apply");
  const HloOpcode red = reducer && reducer->root ? reducer->root->opcode : HloOpcode::kUnknown;
  const DType t = i.shape.is_array() ? i.shape.element_type : DType::kF32;
  return {red, t, i.attribute("replica_groups"), i.typed->channel_id > 0, i.typed->use_global_device_ids};
}

bool is_collective(const HloInstruction& i) {
  switch (i.opcode == HloOpcode::kAsyncStart ? i.wrapped_opcode : i.opcode) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart: return true;
    default: return false;
  }
}

CollectiveTime scaled(CollectiveTime t, double share) {
  t.t_ici_s *= share;
  t.t_bandwidth_s *= share;
  t.t_latency_s *= share;
  t.bytes_per_link *= share;
  return t;
}

class Planner {
 public:
  Planner(const HloModule& m, const Chip& chip, const HloCollectiveOptions& o) : module_(m), chip_(chip), o_(o) {
    const HloModuleConfig& c = m.config();
    devices_ = std::max<std::int64_t>(c.replica_count, 1) * std::max<std::int64_t>(c.num_partitions, 1);
  }

  std::int64_t devices() const { return devices_; }

  // The time of `col` on the devices of `i`'s first group.
  absl::StatusOr<CollectiveTime> time(const HloInstruction& i, const HloCollective& col, bool* on_mesh) const {
    *on_mesh = false;
    if (col.group_size <= 1 || col.array_bytes <= 0) return CollectiveTime{};
    const int shift = std::max(col.permute_shift, 1);
    if (o_.mesh != nullptr) {
      const std::vector<std::int64_t> devices = group_devices(i, devices_);
      for (std::int64_t d : devices)
        if (d < 0 || d >= o_.mesh->device_count())
          return absl::InvalidArgumentError(detail::cat(module_.config().origin, ": ", i.name, ": device ", d,
                                                        " is not in the mesh of ", o_.mesh->device_count(),
                                                        " devices"));
      if (const std::optional<AxisMask> mask = axes_of(devices, *o_.mesh)) {
        *on_mesh = true;
        return collective_time(*o_.mesh, col.kind, *mask, col.array_bytes, shift);
      }
    }
    return collective_time_on_group(col.kind, col.array_bytes,
                                    static_cast<int>(std::min<std::int64_t>(col.group_size, 1 << 30)), chip_, shift);
  }

 private:
  const HloModule& module_;
  const Chip& chip_;
  const HloCollectiveOptions& o_;
  std::int64_t devices_ = 1;
};

}  // namespace

void HloCollectivePlan::apply(const HloInstruction& instruction, HloCost* cost) const {
  const auto it = entries_.find(&instruction);
  if (it == entries_.end() || !cost->collective) return;
  cost->collective = it->second.collective;
  if (it->second.bytes_written >= 0) cost->bytes_written = it->second.bytes_written;
}

absl::StatusOr<HloCollectivePlan> plan_collectives(const HloModule& module, const Chip& chip,
                                                   const HloCollectiveOptions& options) {
  HloCollectivePlan plan;
  Planner planner(module, chip, options);
  if (options.mesh != nullptr) {
    if (options.mesh->chip_name != chip.name)
      return absl::InvalidArgumentError(detail::cat("the mesh was laid on ", options.mesh->chip_name, ", not ",
                                                    chip.name));
    if (options.mesh->device_count() != planner.devices())
      return absl::InvalidArgumentError(detail::cat(module.config().origin, ": the mesh has ",
                                                    options.mesh->device_count(), " devices but the module runs on ",
                                                    planner.devices(), " (replica_count x num_partitions)"));
  }
  const bool rewrite = options.rewrites == HloCollectiveRewrites::kAccelerator ||
                       (options.rewrites == HloCollectiveRewrites::kAuto && !is_scheduled(module));
  plan.counts_.applied = rewrite;

  for (const HloComputation& comp : module.computations()) {
    // Users within the computation (the root counts as used by the caller).
    absl::flat_hash_map<const HloInstruction*, std::vector<const HloInstruction*>> users;
    for (const HloInstruction& i : comp.instructions)
      for (const HloInstruction* o : i.operands) users[o].push_back(&i);
    // Program position of each instruction, and the latest all-reduce each
    // depends on (to keep dependent all-reduces apart when combining).
    absl::flat_hash_map<const HloInstruction*, int> position, latest_ar;
    int pos = 0;
    struct Open {
      std::vector<const HloInstruction*> members;
      int first_position = 0;
      double bytes = 0;
    };
    std::map<CombineKey, Open> open;
    std::vector<std::vector<const HloInstruction*>> combines;
    auto close = [&](Open& g) {
      if (g.members.size() >= 2) combines.push_back(g.members);
      g = Open{};
    };
    for (const HloInstruction& i : comp.instructions) {
      const int here = pos++;
      position[&i] = here;
      int dep = -1;
      for (const HloInstruction* o : i.operands) {
        const auto p = position.find(o);
        if (p == position.end()) {  // used before it is defined: assume the worst
          dep = std::numeric_limits<int>::max();
          break;
        }
        const auto l = latest_ar.find(o);
        if (l != latest_ar.end()) dep = std::max(dep, l->second);
      }
      if (dep >= 0) latest_ar[&i] = dep;

      if (!is_collective(i)) continue;
      const HloCost c = cost(i);
      if (!c.collective) continue;
      HloCollectivePlan::Entry e{.collective = *c.collective};
      const auto u = users.find(&i);
      const std::vector<const HloInstruction*> none;
      const std::vector<const HloInstruction*>& my_users = u == users.end() ? none : u->second;
      if (rewrite && i.opcode == HloOpcode::kAllReduce && shard_slice(i, e.collective.group_size, my_users)) {
        e.collective.kind = CollectiveKind::kReduceScatter;
        e.collective.from_all_reduce = true;
        e.bytes_written = c.bytes_written / static_cast<double>(e.collective.group_size);
        ++plan.counts_.reduce_scatters;
      }
      bool on_mesh = false;
      absl::StatusOr<CollectiveTime> t = planner.time(i, e.collective, &on_mesh);
      if (!t.ok()) return t.status();
      e.collective.timed = *t;
      plan.counts_.mesh_timed += on_mesh ? 1 : 0;
      const bool combinable = rewrite && i.opcode == HloOpcode::kAllReduce && !e.collective.from_all_reduce &&
                              e.collective.group_size > 1 && e.collective.array_bytes > 0;
      plan.entries_[&i] = e;
      if (i.opcode == HloOpcode::kAllReduce) latest_ar[&i] = here;
      if (!combinable) continue;
      Open& g = open[combine_key(i)];
      const bool fits = !g.members.empty() && dep < g.first_position &&
                        g.bytes + e.collective.array_bytes <= options.combine_threshold_bytes &&
                        static_cast<int>(g.members.size()) < options.combine_threshold_count;
      if (!fits) {
        close(g);
        g.first_position = here;
      }
      g.members.push_back(&i);
      g.bytes += e.collective.array_bytes;
    }
    for (auto& [key, g] : open) close(g);

    // Each combined all-reduce is timed once over its summed bytes; members
    // share that time in proportion to their bytes.
    for (const std::vector<const HloInstruction*>& members : combines) {
      HloCollectivePlan::Entry& head = plan.entries_[members.front()];
      HloCollective whole = head.collective;
      whole.array_bytes = 0;
      for (const HloInstruction* m : members) whole.array_bytes += plan.entries_[m].collective.array_bytes;
      bool on_mesh = false;
      absl::StatusOr<CollectiveTime> t = planner.time(*members.front(), whole, &on_mesh);
      if (!t.ok()) return t.status();
      for (const HloInstruction* m : members) {
        HloCollective& col = plan.entries_[m].collective;
        col.timed = scaled(*t, col.array_bytes / whole.array_bytes);
        col.combined_ops = static_cast<int>(members.size());
      }
      plan.counts_.combined_all_reduces += static_cast<int>(members.size());
      ++plan.counts_.all_reduce_combines;
    }
  }
  return plan;
}

}  // namespace roofline
