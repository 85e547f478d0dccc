#include "roofline/hlo/predict.hpp"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_set.h"

#include "roofline/collectives/collective.hpp"

namespace roofline {
namespace {

constexpr int kMaxDepth = 64;
// Inlining stops past this many rows (a computation called from many loops
// is listed once per call site); what is not inlined is one summary row.
constexpr std::size_t kMaxRows = std::size_t{1} << 20;

PeakChoice peak_for(DType t, const Chip& chip) {
  return select_peak(chip, peak_class(t), PeakSearch::kUpcast);
}

Prediction sum(const std::vector<HloPredictionRow>& rows, std::size_t from, double scale) {
  Prediction p;
  for (std::size_t k = from; k < rows.size(); ++k) {
    const HloPredictionRow& r = rows[k];
    if (!r.aggregate) accumulate(p, r.prediction, r.executions * scale);
  }
  return p;
}

// The dtype that carries the most FLOPs of a module (bf16 when none has
// any): the one its total is quoted against.
DType dominant_dtype(const std::vector<HloPredictionRow>& rows) {
  std::map<DType, double> flops;
  for (const HloPredictionRow& r : rows)
    if (!r.aggregate) flops[r.cost.dtype] += r.prediction.flops * r.executions;
  DType top = DType::kBF16;
  double most = 0;
  for (const auto& [t, f] : flops)
    if (f > most) most = f, top = t;
  return top;
}

class Flattener {
 public:
  Flattener(const Chip& chip, std::vector<HloPredictionRow>* rows, const HloCollectivePlan* plan = nullptr)
      : chip_(chip), rows_(rows), plan_(plan) {}

  // Appends rows for every instruction `comp` runs, `executions` times each.
  void computation(const HloComputation* comp, double executions, int depth) {
    if (comp == nullptr || depth > kMaxDepth) return;
    inlining_.insert(comp);
    for (const HloInstruction& i : comp->instructions) instruction(i, executions, depth);
    inlining_.erase(comp);
  }

  void instruction(const HloInstruction& i, double executions, int depth) {
    const bool is_async_wrapper = i.opcode == HloOpcode::kAsyncStart && i.called("calls") != nullptr;
    bool control = i.opcode == HloOpcode::kWhile || i.opcode == HloOpcode::kCall || is_async_wrapper;
    // A computation that (in a malformed module) calls itself, deep nesting or
    // too many rows: summarize instead of inlining.
    for (const CalledComputation& c : i.called_computations) control &= !inlining_.contains(c.computation);
    control &= depth < kMaxDepth && rows_->size() < kMaxRows;
    HloPredictionRow row{.instruction = &i, .cost = cost(i), .prediction = {}, .executions = executions};
    if (plan_ != nullptr) plan_->apply(i, &row.cost);  // mesh and accelerator rewrites
    if (!control) {
      row.prediction = predict(row.cost, chip_);
      rows_->push_back(row);
      return;
    }
    // A summary row first, then what it runs.
    row.aggregate = true;
    const std::size_t at = rows_->size();
    rows_->push_back(row);
    if (i.opcode == HloOpcode::kWhile) {
      const double n = static_cast<double>(row.cost.trip_count);
      computation(i.called("condition"), executions * (n + 1), depth + 1);
      computation(i.called("body"), executions * n, depth + 1);
    } else {
      computation(i.called(i.opcode == HloOpcode::kCall ? "to_apply" : "calls"), executions, depth + 1);
    }
    Prediction& summary = (*rows_)[at].prediction;
    summary = sum(*rows_, at + 1, 1.0 / (executions > 0 ? executions : 1));
    settle_sum(summary, row.cost.dtype, peak_for(row.cost.dtype, chip_), chip_);
  }

 private:
  const Chip& chip_;
  std::vector<HloPredictionRow>* rows_;
  const HloCollectivePlan* plan_ = nullptr;
  absl::flat_hash_set<const HloComputation*> inlining_;
};

}  // namespace

Prediction predict(const HloCost& c, const Chip& chip) {
  double t_ici = 0;
  double link_bytes = 0;
  if (c.collective && c.collective->timed) {
    t_ici = c.collective->timed->t_ici_s;
    link_bytes = c.collective->timed->bytes_per_link;
  } else if (c.collective && c.collective->group_size > 1 && c.collective->array_bytes > 0) {
    const CollectiveTime t =
        collective_time_on_group(c.collective->kind, c.collective->array_bytes,
                                 static_cast<int>(std::min<std::int64_t>(c.collective->group_size, 1 << 30)), chip,
                                 std::max(c.collective->permute_shift, 1));
    t_ici = t.t_ici_s;
    link_bytes = t.bytes_per_link;
  }
  if (c.host_bytes > 0 && chip.pcie_bytes_per_s > 0) {
    // Host memory is reached over PCIe: the transfer is bounded by that link.
    t_ici += c.host_bytes / chip.pcie_bytes_per_s;
    link_bytes += c.host_bytes;
  }
  Prediction p = make_prediction(c.flops, c.hbm_bytes(), link_bytes, t_ici, c.dtype, peak_for(c.dtype, chip), chip);
  p.transcendentals = c.transcendentals;
  return p;
}

Prediction predict(const HloInstruction& instruction, const Chip& chip) {
  const bool control = instruction.opcode == HloOpcode::kWhile || instruction.opcode == HloOpcode::kCall ||
                       (instruction.opcode == HloOpcode::kAsyncStart && instruction.called("calls") != nullptr);
  if (!control) return predict(cost(instruction), chip);
  std::vector<HloPredictionRow> rows;
  Flattener(chip, &rows).instruction(instruction, 1, 0);
  return rows.front().prediction;
}

HloModulePrediction predict(const HloModule& module, const Chip& chip) {
  // Without a mesh the plan cannot fail.
  return *predict(module, chip, HloCollectiveOptions{});
}

absl::StatusOr<HloModulePrediction> predict(const HloModule& module, const Chip& chip,
                                            const HloCollectiveOptions& options) {
  absl::StatusOr<HloCollectivePlan> plan = plan_collectives(module, chip, options);
  if (!plan.ok()) return plan.status();
  HloModulePrediction out;
  out.collective_rewrites = plan->counts();
  Flattener(chip, &out.rows, &*plan).computation(&module.entry(), 1, 0);
  out.total = sum(out.rows, 0, 1);
  const DType dtype = dominant_dtype(out.rows);
  settle_sum(out.total, dtype, peak_for(dtype, chip), chip);
  for (const HloPredictionRow& r : out.rows) {
    if (r.aggregate) {
      if (r.cost.flags.trip_count_unknown && r.instruction->opcode == HloOpcode::kWhile) ++out.unknown_trip_count_loops;
      continue;
    }
    out.host_bytes += r.cost.host_bytes * r.executions;
    if (r.cost.flags.unknown_custom_call || r.cost.flags.unknown_opcode) ++out.unknown_cost_instructions;
  }
  return out;
}

}  // namespace roofline
