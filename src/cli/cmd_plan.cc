// roofline plan: rank meshes and strategies for training a model.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>

#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "roofline/report/json.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/planner.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {
namespace {

std::string memory_text(const MemoryPerChip& m) {
  return detail::cat(format_si(m.total_bytes, "B"), " / ", format_si(m.hbm_bytes, "B"));
}

// The command line, checked: what plan_training is asked, and how much to show.
struct PlanArgs {
  std::string format;
  PlanRequest request;
  std::int64_t seq_len = 0;  // the one the plan used (--seq, else the model's)
  long long top = 20;
};

// Reads and checks every option; on a bad one, the exit code of its error.
std::variant<PlanArgs, int> parse_args(const Args& args) {
  auto fmt = args.format({"text", "json"});
  if (!fmt.ok()) return fail(fmt.status());
  if (!args.positional().empty()) return fail_usage("plan: unexpected argument '" + args.positional()[0] + "'");
  auto model_name = args.require("model");
  if (!model_name.ok()) return fail(model_name.status());
  auto model = resolve_model(*model_name);
  if (!model.ok()) return fail(model.status());
  auto chip_name = args.require("chip");
  if (!chip_name.ok()) return fail(chip_name.status());
  auto chip = resolve_chip(*chip_name);
  if (!chip.ok()) return fail(chip.status());
  auto chips = args.get_int("chips", std::nullopt, kIntRange);
  if (!chips.ok()) return fail(chips.status());
  if (*chips < 1 || *chips > (1 << 24)) return fail_usage(detail::cat("--chips: expected 1 to 16777216, got ", *chips));
  auto batch = args.get_int("batch-tokens", std::nullopt);
  if (!batch.ok()) return fail(batch.status());
  auto seq = args.get_int("seq", 0);
  if (!seq.ok()) return fail(seq.status());
  if (*seq < 0) return fail_usage("--seq: expected a positive length");
  auto top = args.get_int("top", 20, kIntRange);
  if (!top.ok()) return fail(top.status());
  const std::string dtype_text = args.get_or("dtype", "bf16");
  const std::optional<DType> dtype = parse_dtype(dtype_text);
  if (!dtype) return fail_usage("--dtype: unknown dtype '" + dtype_text + "'");
  const std::int64_t seq_len = *seq > 0 ? *seq : model->seq_len;
  return PlanArgs{.format = *fmt,
                  .request = {.model = *model,
                              .chip = *chip,
                              .chips = static_cast<int>(*chips),
                              .batch_tokens = *batch,
                              .seq_len = *seq,
                              .dtypes = {.compute = *dtype, .params = *dtype, .grads = *dtype}},
                  .seq_len = seq_len,
                  .top = *top};
}

std::size_t rows_shown(const Plan& plan, long long top) {
  return std::min(plan.ranked.size(), static_cast<std::size_t>(std::max<long long>(top, 0)));
}

void print_json(const PlanArgs& a, const Plan& plan) {
  const PlanRequest& req = a.request;
  Json cands = Json::array();
  for (std::size_t i = 0; i < rows_shown(plan, a.top); ++i)
    cands.push_back(to_json(plan.ranked[i], static_cast<int>(i + 1)));
  Json j = Json::object({{"model", req.model.name},
                         {"params", total_params(req.model)},
                         {"chip", req.chip.name},
                         {"chips", req.chips},
                         {"batch_tokens", req.batch_tokens},
                         {"seq_len", a.seq_len},
                         {"dtype", dtype_name(req.dtypes.compute)},
                         {"considered", plan.considered},
                         {"evaluated", plan.evaluated},
                         {"dropped_memory", plan.dropped_memory},
                         {"skipped", plan.skipped},
                         {"fitting", plan.ranked.size()},
                         {"search_seconds", plan.search_seconds},
                         {"mfu_convention", kMfuConvention},
                         {"candidates", std::move(cands)}});
  if (plan.smallest_that_does_not_fit) j["smallest_that_does_not_fit"] = to_json(*plan.smallest_that_does_not_fit, 0);
  std::printf("%s\n", j.dump().c_str());
}

// No layout fits: say so, and how far the smallest footprint is from fitting.
void print_does_not_fit(const Plan& plan, const Chip& chip) {
  std::printf("\nDOES NOT FIT: no layout fits in %s of HBM per chip.\n", format_si(chip.hbm_bytes, "B").c_str());
  if (const auto& c = plan.smallest_that_does_not_fit) {
    const MemoryPerChip& m = c->step.memory;
    std::printf("smallest footprint: %s, mesh %s, remat %s: %s (params %s, grads %s, optimizer %s, "
                "activations %s)\n",
                c->strategy.c_str(), c->mesh.c_str(), std::string(remat_name(c->remat)).c_str(),
                memory_text(m).c_str(), format_si(m.params_bytes, "B").c_str(),
                format_si(m.grads_bytes, "B").c_str(), format_si(m.optimizer_bytes, "B").c_str(),
                format_si(m.activations_bytes, "B").c_str());
  }
}

void print_table(const Plan& plan, long long top) {
  TextTable table({{"#", TextTable::Align::kRight},
                   {"mesh"},
                   {"strategy"},
                   {"remat"},
                   {"step time", TextTable::Align::kRight},
                   {"MFU", TextTable::Align::kRight},
                   {"bound"},
                   {"T_math", TextTable::Align::kRight},
                   {"T_hbm", TextTable::Align::kRight},
                   {"T_ici", TextTable::Align::kRight},
                   {"HBM / chip", TextTable::Align::kRight}});
  for (std::size_t i = 0; i < rows_shown(plan, top); ++i) {
    const PlanCandidate& c = plan.ranked[i];
    const TrainingStep& s = c.step;
    table.add_row({std::to_string(i + 1), c.mesh, c.strategy, std::string(remat_name(c.remat)),
                   format_seconds(s.step_time_s), format_percent(s.mfu), std::string(bound_name(s.roofline.bound)),
                   format_seconds(s.roofline.t_math_s), format_seconds(s.roofline.t_hbm_s),
                   format_seconds(s.roofline.t_ici_s), memory_text(s.memory)});
  }
  std::printf("\n%s", table.render().c_str());
  std::printf("\nMFU: %s.\nStep time: lower bound (communication overlapped with compute); "
              "see --format json for upper bounds, parts and memory.\n",
              kMfuConvention);
}

void print_text(const PlanArgs& a, const Plan& plan) {
  const PlanRequest& req = a.request;
  std::printf("%s (%s params) on %d x %s, batch %lld tokens (%lld x %lld), %s\n", req.model.name.c_str(),
              format_si(total_params(req.model), "").c_str(), req.chips, req.chip.name.c_str(),
              static_cast<long long>(req.batch_tokens), static_cast<long long>(req.batch_tokens / a.seq_len),
              static_cast<long long>(a.seq_len), std::string(dtype_name(req.dtypes.compute)).c_str());
  std::printf("%d combinations: %d predicted, %d do not fit in HBM, %d skipped (shapes that do not divide); "
              "%zu fit; searched in %s\n",
              plan.considered, plan.evaluated, plan.dropped_memory, plan.skipped, plan.ranked.size(),
              format_seconds(plan.search_seconds).c_str());
  if (plan.ranked.empty()) print_does_not_fit(plan, req.chip);
  else print_table(plan, a.top);
}

int run(const Args& args) {
  std::variant<PlanArgs, int> parsed = parse_args(args);
  if (const int* rc = std::get_if<int>(&parsed)) return *rc;
  const PlanArgs& a = std::get<PlanArgs>(parsed);
  auto plan = plan_training(a.request);
  if (!plan.ok()) return fail(plan.status());
  if (a.format == "json") print_json(a, *plan);
  else print_text(a, *plan);
  return 0;
}

ROOFLINE_CLI_COMMAND({
    .name = "plan",
    .usage = "roofline plan --model NAME|PATH --chip NAME|PATH --chips N --batch-tokens B [--seq L] "
             "[--dtype bf16] [--top 20] [--format text|json]",
    .summary = "Rank meshes and parallelism strategies (DP, FSDP, TP, PP, DCN) for training a model.",
    .options = {{"model", "NAME|PATH", "llama-3-8b, llama-3-70b, or a model config JSON file"},
                {"chip", "NAME|PATH", "embedded chip name or a chip spec JSON file"},
                {"chips", "N", "number of chips"},
                {"batch-tokens", "B", "global batch per step, in tokens"},
                {"seq", "L", "sequence length (default: the model's)"},
                {"dtype", "DTYPE", "training dtype for params, activations and matmuls (default bf16)"},
                {"top", "K", "rows to print (default 20)"},
                {"format", "text|json", "output format (default text)"}},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
