// Costs of XLA ops: by our HLO cost model when the instruction is known, by
// XLA's own recorded flops / bytes_accessed otherwise.
#include <string>

#include "roofline/collectives/collective.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/replica_groups.hpp"
#include "roofline/hlo/shape.hpp"
#include "roofline/ops/generic.hpp"
#include "src/report/op_cost.hpp"

namespace roofline::detail {
namespace {

bool contains(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

// jax names rematerialised computations "rematted_computation" / "checkpoint"
// in op_name; their FLOPs are hardware FLOPs, not model FLOPs.
bool rematerialised(const HloInstruction& i) {
  return contains(i.metadata.op_name, "remat") || contains(i.metadata.op_name, "checkpoint");
}

std::optional<CollectiveKind> collective_of(std::string_view category_or_opcode) {
  if (contains(category_or_opcode, "all-reduce")) return CollectiveKind::kAllReduce;
  if (contains(category_or_opcode, "all-gather")) return CollectiveKind::kAllGather;
  if (contains(category_or_opcode, "reduce-scatter")) return CollectiveKind::kReduceScatter;
  if (contains(category_or_opcode, "all-to-all")) return CollectiveKind::kAllToAll;
  if (contains(category_or_opcode, "collective-permute")) return CollectiveKind::kPermute;
  return std::nullopt;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The -done that completes an async -start, or nullptr.
const HloInstruction* done_of(const HloInstruction& start) {
  if (!start.parent) return nullptr;
  for (const HloInstruction& i : start.parent->instructions)
    if (ends_with(i.opcode_name, "-done"))
      for (const HloInstruction* o : i.operands)
        if (o == &start) return &i;
  return nullptr;
}

OpCost plain_cost(const HloInstruction& instruction);

}  // namespace

OpCost cost_from_hlo(const HloInstruction& instruction) {
  // An async pair's transfer is waited for at its -done, which is where a
  // profiler shows the time: the -done is charged the -start's cost and the
  // -start (a quick launch) nothing.
  if (ends_with(instruction.opcode_name, "-done") && instruction.operand_count() > 0 &&
      ends_with(instruction.operand(0).opcode_name, "-start")) {
    OpCost out = plain_cost(instruction.operand(0));
    out.async_done = true;
    out.shape = to_string_no_layout(instruction.shape);
    out.note = cat("async: the transfer of ", instruction.operand(0).name,
                   "; the time here is the exposed wait", out.note.empty() ? "" : "; ", out.note);
    return out;
  }
  if (ends_with(instruction.opcode_name, "-start"))
    if (const HloInstruction* done = done_of(instruction)) {
      OpCost out;
      out.source = MatchSource::kHloModule;
      out.hlo_category = std::string(category_name(cost(instruction).category));
      out.note = cat("async launch: its transfer is charged to ", done->name);
      out.predict = [](const Chip& chip) { return predict(CostedOp{}, chip); };
      return out;
    }
  return plain_cost(instruction);
}

namespace {

OpCost plain_cost(const HloInstruction& instruction) {
  const HloCost c = cost(instruction);
  OpCost out;
  out.hlo_category = std::string(category_name(c.category));
  out.shape = to_string_no_layout(instruction.shape);
  if (c.flags.unknown_custom_call) {
    out.note = cat("custom call '", instruction.attribute("custom_call_target"),
                   "' has no cost model (a kernel XLA cannot see into)");
    return out;
  }
  if (c.flags.unknown_opcode) {
    out.note = cat("opcode '", instruction.opcode_name, "' has no cost model");
    return out;
  }
  out.source = MatchSource::kHloModule;
  out.rematerialised = rematerialised(instruction);
  std::string note;
  if (c.flags.trip_count_unknown) note += "while loop without known_trip_count: body counted once; ";
  if (c.flags.collective_not_timed) note += "collective without a network model: T_ici not predicted; ";
  if (c.flags.conditional_max) note += "conditional: the costliest branch; ";
  if (c.flags.unbounded_dynamic_shape) note += "unbounded dynamic dimension counted as 0; ";
  if (c.host_bytes > 0) note += "host transfer timed over PCIe; ";
  if (!note.empty()) note.resize(note.size() - 2);
  out.note = note;
  const HloInstruction* i = &instruction;
  out.predict = [i](const Chip& chip) { return predict(*i, chip); };
  return out;
}

}  // namespace

OpCost cost_from_xla_stats(const OpInfo& op) {
  OpCost out;
  if (!op.flops && !op.bytes_accessed) {
    out.note = op.module.empty() && op.hlo_text.empty()
                   ? "no HLO module, Input Dims or cost figures for this op in the trace"
                   : "instruction not found in any HLO module, and the trace recorded no flops/bytes for it";
    return out;
  }
  out.source = MatchSource::kXlaStats;
  out.hlo_category = op.category;
  DType dt = DType::kF32;
  std::optional<Shape> shape;
  if (!op.shape_with_layout.empty())
    if (auto s = parse_shape(op.shape_with_layout); s.ok()) {
      shape = *s;
      if (s->is_array()) dt = s->element_type;
    }
  const double flops = static_cast<double>(op.flops.value_or(0));
  const double bytes = static_cast<double>(op.bytes_accessed.value_or(0));
  out.note = "XLA's recorded flops/bytes_accessed (instruction not found in an HLO module)";
  // A collective also needs its group size, which only the HLO text says.
  std::optional<CollectiveKind> kind = collective_of(op.category);
  if (!kind) kind = collective_of(op.name);
  if (kind && shape) {
    const std::string_view text = op.hlo_text;
    const std::size_t at = text.find("replica_groups=");
    std::int64_t group = 0;
    if (at != std::string_view::npos) {
      std::string_view rest = text.substr(at + 15);
      std::size_t end = rest.find(", ");
      if (end == std::string_view::npos) end = rest.size();
      if (auto g = parse_replica_groups(rest.substr(0, end)); g.ok()) group = g->group_size;
    }
    if (group > 1) {
      // V is the whole array: the result of an all-gather, the operand of
      // the others (the result shape is all the trace records; for a
      // reduce-scatter the operand is group x the result).
      double v = static_cast<double>(padded_bytes(*shape));
      if (*kind == CollectiveKind::kReduceScatter) v *= static_cast<double>(group);
      const CollectiveKind k = *kind;
      const int n = static_cast<int>(group);
      out.note = cat(collective_name(k), " over groups of ", n, " (replica_groups in the op's HLO text); ",
                     "HBM bytes from XLA's bytes_accessed");
      out.predict = [flops, bytes, dt, k, v, n](const Chip& chip) {
        const CollectiveTime t = collective_time_on_group(k, v, n, chip);
        return predict(CostedOp{.flops = flops, .hbm_bytes = bytes, .ici_bytes = t.bytes_per_link,
                                .t_ici_s = t.t_ici_s, .dtype = dt},
                       chip);
      };
      return out;
    }
    out.note += "; collective group size unknown: T_ici not predicted";
  }
  out.predict = [flops, bytes, dt](const Chip& chip) {
    return predict(CostedOp{.flops = flops, .hbm_bytes = bytes, .dtype = dt}, chip);
  };
  return out;
}

}  // namespace roofline::detail
