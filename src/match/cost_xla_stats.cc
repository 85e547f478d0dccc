// XLA ops with no HLO instruction to cost: what XLA's own cost analysis
// recorded in the trace (flops, bytes_accessed), and for a collective the
// group size in the replica_groups of the op's HLO text.
#include <optional>
#include <string>
#include <string_view>

#include "roofline/detail/cat.hpp"
#include "roofline/hlo/replica_groups.hpp"
#include "roofline/hlo/shape.hpp"
#include "roofline/match/cost_source.hpp"

namespace roofline {
namespace {

using detail::cat;

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

std::optional<CollectiveKind> collective_of(std::string_view category_or_opcode) {
  if (contains(category_or_opcode, "all-reduce")) return CollectiveKind::kAllReduce;
  if (contains(category_or_opcode, "all-gather")) return CollectiveKind::kAllGather;
  if (contains(category_or_opcode, "reduce-scatter")) return CollectiveKind::kReduceScatter;
  if (contains(category_or_opcode, "all-to-all")) return CollectiveKind::kAllToAll;
  if (contains(category_or_opcode, "collective-permute")) return CollectiveKind::kPermute;
  return std::nullopt;
}

// The size of the replica groups written in an instruction's HLO text; 0
// when it names none or they do not parse.
std::int64_t replica_group_size(std::string_view hlo_text) {
  const std::size_t at = hlo_text.find("replica_groups=");
  if (at == std::string_view::npos) return 0;
  std::string_view rest = hlo_text.substr(at + 15);
  std::size_t end = rest.find(", ");
  if (end == std::string_view::npos) end = rest.size();
  if (auto g = parse_replica_groups(rest.substr(0, end)); g.ok()) return g->group_size;
  return 0;
}

}  // namespace

CostSource cost_from_xla_stats(const OpInfo& op) {
  CostSource out;
  if (!op.flops && !op.bytes_accessed) {
    out.note = op.module.empty() && op.hlo_text.empty()
                   ? "no HLO module, Input Dims or cost figures for this op in the trace"
                   : "instruction not found in any HLO module, and the trace recorded no flops/bytes for it";
    return out;
  }
  out.source = MatchSource::kXlaStats;
  out.hlo_category = op.category;
  XlaStatsModel m{.flops = static_cast<double>(op.flops.value_or(0)),
                  .hbm_bytes = static_cast<double>(op.bytes_accessed.value_or(0))};
  std::optional<Shape> shape;
  if (!op.shape_with_layout.empty())
    if (auto s = parse_shape(op.shape_with_layout); s.ok()) {
      shape = *s;
      if (s->is_array()) m.dtype = s->element_type;
    }
  out.note = "XLA's recorded flops/bytes_accessed (instruction not found in an HLO module)";
  std::optional<CollectiveKind> kind = collective_of(op.category);
  if (!kind) kind = collective_of(op.name);
  if (kind && shape) {
    const std::int64_t group = replica_group_size(op.hlo_text);
    if (group > 1) {
      // V is the whole array: the result of an all-gather, the operand of
      // the others (the result shape is all the trace records; for a
      // reduce-scatter the operand is group x the result).
      double v = static_cast<double>(padded_bytes(*shape));
      if (*kind == CollectiveKind::kReduceScatter) v *= static_cast<double>(group);
      m.collective = GroupCollective{.kind = *kind, .array_bytes = v, .group_size = static_cast<int>(group)};
      out.note = cat(collective_name(*kind), " over groups of ", static_cast<int>(group),
                     " (replica_groups in the op's HLO text); HBM bytes from XLA's bytes_accessed");
      out.model = m;
      return out;
    }
    out.note += "; collective group size unknown: T_ici not predicted";
  }
  out.model = m;
  return out;
}

}  // namespace roofline
