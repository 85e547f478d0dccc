#include "roofline/hlo/predict.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <unordered_map>

#include "absl/container/flat_hash_set.h"

#include "roofline/collectives/collective.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/hlo/trip_count.hpp"
#include "src/hlo/analysis/fusion_groups.hpp"

namespace roofline {
namespace {

constexpr int kMaxDepth = 64;
// Inlining stops past this many rows (a computation called from many loops
// is listed once per call site); what is not inlined is one summary row.
constexpr std::size_t kMaxRows = std::size_t{1} << 20;

PeakChoice peak_for(DType t, const Chip& chip) {
  return select_peak(chip, peak_class(t), PeakSearch::kUpcast);
}

// The rows from `from` on, each times its executions x `scale`. A fusion
// group is one kernel: its members' times add up within it and the group
// takes max(T_math, T_hbm, T_ici, T_host) of those sums. Groups are keyed in an
// ordered map so the sum's rounding does not depend on hashing.
Prediction sum(const std::vector<HloPredictionRow>& rows, std::size_t from, double scale) {
  Prediction p;
  std::map<std::int64_t, std::pair<Prediction, double>> groups;
  for (std::size_t k = from; k < rows.size(); ++k) {
    const HloPredictionRow& r = rows[k];
    if (r.aggregate) continue;
    if (r.fusion_group < 0) {
      accumulate(p, r.prediction, r.executions * scale);
      continue;
    }
    auto& [g, executions] = groups[r.fusion_group];
    accumulate(g, r.prediction);
    executions = r.executions;
  }
  for (auto& [id, ge] : groups) {
    Prediction& g = ge.first;
    g.t_lower_s = std::max({g.t_math_s, g.t_hbm_s, g.t_ici_s, g.t_host_s});
    accumulate(p, g, ge.second * scale);
  }
  return p;
}

// The sum of the rows as if nothing were fused: each its own bytes.
Prediction sum_unfused(const std::vector<HloPredictionRow>& rows, const Chip& chip) {
  Prediction p;
  for (const HloPredictionRow& r : rows) {
    if (r.aggregate) continue;
    if (r.hbm_bytes_unfused == r.cost.hbm_bytes()) {
      accumulate(p, r.prediction, r.executions);
      continue;
    }
    HloCost c = r.cost;
    c.bytes_read = r.hbm_bytes_unfused;
    c.bytes_written = 0;
    accumulate(p, predict(c, chip), r.executions);
  }
  return p;
}

// Whether XLA has fused the module already (any fusion instruction): the
// fusion pass then leaves it as it is.
bool fused_by_xla(const HloModule& module) {
  for (const HloComputation& c : module.computations())
    for (const HloInstruction& i : c.instructions)
      if (i.opcode == HloOpcode::kFusion) return true;
  return false;
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

// Whether the Flattener groups ops as an accelerator's compiler fuses them.
enum class FusionPass : std::uint8_t { kOff, kOn };

// Where the fusion pass put an instruction, for one inlined run of its computation.
struct Fused {
  bool fused = false;       // its bytes are the pass's
  std::int64_t group = -1;  // module-wide
  double bytes_read = 0;
  double bytes_written = 0;
};

class Flattener {
 public:
  Flattener(const Chip& chip, std::vector<HloPredictionRow>* rows, FusionPass pass,
            std::vector<HloLoopWarning>* warnings = nullptr, const HloCollectivePlan* plan = nullptr)
      : chip_(chip), rows_(rows), fuse_(pass == FusionPass::kOn), warnings_(warnings), plan_(plan) {}

  // Appends rows for every instruction `comp` runs, `executions` times each.
  void computation(const HloComputation* comp, double executions, int depth) {
    if (comp == nullptr || depth > kMaxDepth) return;
    const detail::FusionGroups* groups = nullptr;
    std::int64_t base = 0;
    if (fuse_) {
      auto it = groups_.find(comp);
      if (it == groups_.end()) it = groups_.emplace(comp, detail::fuse_computation(*comp)).first;
      groups = &it->second;
      base = next_group_;  // each inlined run of the computation has groups of its own
      next_group_ += groups->count;
    }
    inlining_.insert(comp);
    for (std::size_t k = 0; k < comp->instructions.size(); ++k) {
      Fused f;
      if (groups != nullptr && groups->fused[k])
        f = Fused{.fused = true, .group = groups->group[k] >= 0 ? base + groups->group[k] : -1,
                  .bytes_read = groups->bytes_read[k], .bytes_written = groups->bytes_written[k]};
      instruction(comp->instructions[k], executions, depth, f);
    }
    inlining_.erase(comp);
  }

  void instruction(const HloInstruction& i, double executions, int depth, const Fused& fused = {}) {
    const bool is_async_wrapper = i.opcode == HloOpcode::kAsyncStart && i.called("calls") != nullptr;
    bool control = i.opcode == HloOpcode::kWhile || i.opcode == HloOpcode::kCall || is_async_wrapper;
    // A computation that (in a malformed module) calls itself, deep nesting or
    // too many rows: summarize instead of inlining.
    for (const CalledComputation& c : i.called_computations) control &= !inlining_.contains(c.computation);
    control &= depth < kMaxDepth && rows_->size() < kMaxRows;
    HloPredictionRow row{.instruction = &i, .cost = cost(i), .prediction = {}, .executions = executions};
    if (plan_ != nullptr) plan_->apply(i, &row.cost);  // mesh and accelerator rewrites
    row.hbm_bytes_unfused = row.cost.hbm_bytes();
    if (i.opcode == HloOpcode::kWhile && row.cost.flags.trip_count_unknown)
      warn(i, HloLoopWarning::Kind::kTripCountUnknown, while_trip_count(i).why_unknown);
    if (!control) {
      if (fused.fused) {
        row.cost.bytes_read = fused.bytes_read;
        row.cost.bytes_written = fused.bytes_written;
        row.fusion_group = fused.group;
      }
      row.prediction = predict(row.cost, chip_);
      rows_->push_back(row);
      return;
    }
    // A summary row first, then what it runs.
    row.aggregate = true;
    const std::size_t at = rows_->size();
    rows_->push_back(row);
    if (i.opcode == HloOpcode::kWhile) {
      double n = static_cast<double>(row.cost.trip_count);
      if (!(executions * (n + 1) <= kMaxLoopRuns)) {
        // Nested counts whose product no double holds (issue 38): one trip
        // per run of the enclosing loops, and a warning that says so.
        warn(i, HloLoopWarning::Kind::kRunsOverflow,
             detail::cat("its ", row.cost.trip_count, " trips times the ", runs_words(executions),
                         " runs of the loops around it pass 1e270 runs (a double holds up to 1.8e308): "
                         "counted as one trip per run of the loops around it"));
        n = 1;
        (*rows_)[at].runs_capped = true;
      }
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
  static std::string runs_words(double runs) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", runs);
    return buf;
  }

  void warn(const HloInstruction& i, HloLoopWarning::Kind kind, std::string reason) {
    if (warnings_ == nullptr) return;
    for (const HloLoopWarning& w : *warnings_)
      if (w.instruction == &i && w.kind == kind) return;  // a computation inlined twice warns once
    warnings_->push_back(HloLoopWarning{.instruction = &i, .kind = kind, .reason = std::move(reason)});
  }

  const Chip& chip_;
  std::vector<HloPredictionRow>* rows_;
  bool fuse_ = false;
  std::vector<HloLoopWarning>* warnings_ = nullptr;
  const HloCollectivePlan* plan_ = nullptr;
  absl::flat_hash_set<const HloComputation*> inlining_;
  // Node-based: computation() keeps a pointer into it while inlining adds entries.
  std::unordered_map<const HloComputation*, detail::FusionGroups> groups_;
  std::int64_t next_group_ = 0;
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
  Prediction p = make_prediction(c.flops, c.hbm_bytes(), link_bytes, t_ici, c.dtype, peak_for(c.dtype, chip), chip);
  p.transcendentals = c.transcendentals;
  // Host memory is reached over PCIe: the transfer is bounded by that link.
  if (c.host_bytes > 0) add_host_link(p, c.host_bytes, chip);
  return p;
}

Prediction predict(const HloInstruction& instruction, const Chip& chip) {
  const bool control = instruction.opcode == HloOpcode::kWhile || instruction.opcode == HloOpcode::kCall ||
                       (instruction.opcode == HloOpcode::kAsyncStart && instruction.called("calls") != nullptr);
  if (!control) return predict(cost(instruction), chip);
  std::vector<HloPredictionRow> rows;
  Flattener(chip, &rows, FusionPass::kOff).instruction(instruction, 1, 0);
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
  const FusionPass pass = fused_by_xla(module) ? FusionPass::kOff : FusionPass::kOn;
  Flattener(chip, &out.rows, pass, &out.loop_warnings, &*plan).computation(&module.entry(), 1, 0);
  out.total = sum(out.rows, 0, 1);
  out.unfused = sum_unfused(out.rows, chip);
  const DType dtype = dominant_dtype(out.rows);
  settle_sum(out.total, dtype, peak_for(dtype, chip), chip);
  settle_sum(out.unfused, dtype, peak_for(dtype, chip), chip);
  absl::flat_hash_set<std::int64_t> groups;
  for (const HloPredictionRow& r : out.rows)
    if (r.fusion_group >= 0) groups.insert(r.fusion_group);
  out.fusion_groups = static_cast<int>(groups.size());
  for (const HloPredictionRow& r : out.rows) {
    if (r.aggregate) {
      if (r.cost.flags.trip_count_unknown && r.instruction->opcode == HloOpcode::kWhile) ++out.unknown_trip_count_loops;
      continue;
    }
    if (r.cost.flags.unknown_custom_call || r.cost.flags.unknown_opcode) ++out.unknown_cost_instructions;
  }
  return out;
}

}  // namespace roofline
