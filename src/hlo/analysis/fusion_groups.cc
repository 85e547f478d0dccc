// Fusion groups of an unfused computation (fusion_groups.hpp). A union-find
// over producer -> consumer edges, taken in program order, with the few
// rules that keep a group something XLA's TPU and GPU pipelines build:
// element-wise ops, data movement that only re-indexes, and reductions fuse
// with each other; a dot or convolution takes element-wise neighbours
// (bias, activation, convert, scale) but not a second dot nor a reduction.
// Everything else (collectives, custom calls, loops, calls, sort, scatter,
// gather, existing fusions) is a boundary whose operands and results live
// in HBM.
#include "src/hlo/analysis/fusion_groups.hpp"

#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "roofline/hlo/cost.hpp"
#include "src/hlo/cost/handlers.hpp"

namespace roofline::detail {
namespace {

enum class Role : std::uint8_t { kNone, kFusible, kReduce, kDot };

Role role(const HloInstruction& i) {
  if (!i.shape.is_array()) return Role::kNone;
  if (i.shape.memory_space() != kMemorySpaceDevice) return Role::kNone;  // host arrays move over PCIe
  switch (i.opcode) {
    case HloOpcode::kDot: case HloOpcode::kConvolution:
      return Role::kDot;
    case HloOpcode::kReduce: case HloOpcode::kReduceWindow:
      return Role::kReduce;
    case HloOpcode::kBroadcast: case HloOpcode::kReshape: case HloOpcode::kTranspose: case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice: case HloOpcode::kDynamicUpdateSlice: case HloOpcode::kConcatenate:
    case HloOpcode::kPad: case HloOpcode::kIota: case HloOpcode::kReverse: case HloOpcode::kCopy:
      return Role::kFusible;
    default:
      return is_elementwise(i.opcode) ? Role::kFusible : Role::kNone;
  }
}

class UnionFind {
 public:
  explicit UnionFind(std::size_t n) : parent_(n), dots_(n, 0), reduces_(n, 0) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void mark(std::size_t x, Role r) {
    dots_[x] = r == Role::kDot;
    reduces_[x] = r == Role::kReduce;
  }
  // Joins the groups of a and b unless the result would hold two dots or a
  // dot and a reduction.
  void join(std::size_t a, std::size_t b) {
    a = find(a), b = find(b);
    if (a == b) return;
    const int dots = dots_[a] + dots_[b];
    const int reduces = reduces_[a] + reduces_[b];
    if (dots > 1 || (dots > 0 && reduces > 0)) return;
    parent_[b] = a;
    dots_[a] = dots;
    reduces_[a] = reduces;
  }

 private:
  std::vector<std::size_t> parent_;
  std::vector<int> dots_;
  std::vector<int> reduces_;
};

// The bytes a member reads of an operand from outside its group: a slice
// or dynamic-slice the slice; a dynamic-update-slice nothing of the array it
// updates in place; a constant of one element nothing (an immediate).
double outside_read(const HloInstruction& user, std::size_t n, const HloInstruction& o) {
  if (o.opcode == HloOpcode::kConstant && element_count(o.shape) <= 1) return 0;
  if (n == 0 && (user.opcode == HloOpcode::kSlice || user.opcode == HloOpcode::kDynamicSlice))
    return hbm_bytes_of(user.shape);
  if (n == 0 && user.opcode == HloOpcode::kDynamicUpdateSlice) return 0;
  return hbm_bytes_of(o.shape);
}

}  // namespace

FusionGroups fuse_computation(const HloComputation& comp) {
  const std::vector<HloInstruction>& ins = comp.instructions;
  const std::size_t n = ins.size();
  absl::flat_hash_map<const HloInstruction*, std::size_t> index;
  index.reserve(n);
  for (std::size_t k = 0; k < n; ++k) index.emplace(&ins[k], k);
  std::vector<Role> roles(n);
  UnionFind uf(n);
  for (std::size_t k = 0; k < n; ++k) uf.mark(k, roles[k] = role(ins[k]));

  // Producer -> consumer edges, in program order.
  for (std::size_t k = 0; k < n; ++k) {
    if (roles[k] == Role::kNone) continue;
    for (const HloInstruction* o : ins[k].operands) {
      auto it = index.find(o);
      if (it == index.end() || roles[it->second] == Role::kNone) continue;
      if (roles[k] == Role::kDot && roles[it->second] == Role::kDot) continue;
      uf.join(it->second, k);
    }
  }

  // Groups of two or more get ids; a lone instruction keeps its own bytes.
  std::vector<int> size(n, 0);
  for (std::size_t k = 0; k < n; ++k)
    if (roles[k] != Role::kNone) ++size[uf.find(k)];
  FusionGroups out{.group = std::vector<int>(n, -1), .bytes_read = std::vector<double>(n, 0),
                   .bytes_written = std::vector<double>(n, 0), .count = 0};
  std::vector<int> id(n, -1);
  for (std::size_t k = 0; k < n; ++k) {
    if (roles[k] == Role::kNone || size[uf.find(k)] < 2) continue;
    int& g = id[uf.find(k)];
    if (g < 0) g = out.count++;
    out.group[k] = g;
  }
  if (out.count == 0) return out;

  // Reads: each outside value once per group (slices aside). Writes: a
  // member's result when anything outside its group uses it, or it is the root.
  std::vector<bool> used_outside(n, false);
  for (std::size_t k = 0; k < n; ++k) {
    for (const HloInstruction* o : ins[k].operands) {
      auto it = index.find(o);
      if (it == index.end()) continue;
      const int g = out.group[it->second];
      if (g >= 0 && out.group[k] != g) used_outside[it->second] = true;
    }
  }
  absl::flat_hash_set<std::pair<int, const HloInstruction*>> read;
  for (std::size_t k = 0; k < n; ++k) {
    const int g = out.group[k];
    if (g < 0) continue;
    const HloInstruction& i = ins[k];
    for (std::size_t m = 0; m < i.operands.size(); ++m) {
      const HloInstruction* o = i.operands[m];
      auto it = index.find(o);
      if (it != index.end() && out.group[it->second] == g) continue;
      const bool part = m == 0 && (i.opcode == HloOpcode::kSlice || i.opcode == HloOpcode::kDynamicSlice ||
                                   i.opcode == HloOpcode::kDynamicUpdateSlice);
      if (!part && !read.insert({g, o}).second) continue;  // the group read it already
      out.bytes_read[k] += outside_read(i, m, *o);
    }
    if (used_outside[k] || i.is_root || &i == comp.root) {
      // A dynamic-update-slice of an array from outside the group updates it in place.
      bool in_place = i.opcode == HloOpcode::kDynamicUpdateSlice && i.operands.size() > 1;
      if (in_place) {
        auto it = index.find(i.operands[0]);
        in_place = it == index.end() || out.group[it->second] != g;
      }
      out.bytes_written[k] = in_place ? hbm_bytes_of(i.operands[1]->shape) : hbm_bytes_of(i.shape);
    }
  }
  return out;
}

}  // namespace roofline::detail
