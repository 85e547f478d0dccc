// roofline plan: rank meshes and strategies for training a model, or
// evaluate one given layout (--mesh and --layout). Parses the arguments and
// prints the library's renderers (roofline/report/plan.hpp).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>

#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/report/plan.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/planner.hpp"
#include "src/cli/calibration_arg.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {
namespace {

using detail::cat;

// The command line, checked: what is asked, and how much to show.
struct PlanArgs {
  std::string format;
  PlanRequest request;
  long long top = 20;
  // --mesh and --layout: evaluate exactly this layout.
  std::optional<Mesh> mesh;
  ParallelLayout layout;
  Remat remat = Remat::kFull;
  int microbatches = 1;
};

// "full,minimal": each a policy parse_remat knows.
absl::StatusOr<std::vector<Remat>> remat_arg(const std::string& text) {
  std::vector<Remat> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string one = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::optional<Remat> r = parse_remat(one);
    if (!r)
      return absl::InvalidArgumentError(cat("--remat: unknown policy '", one, "' at column ", start + 1,
                                            "; policies are ", kRematPolicyNames));
    out.push_back(*r);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// A positive count option, or `fallback` when absent.
absl::StatusOr<int> count_arg(const Args& args, const char* name, int fallback) {
  auto v = args.get_int(name, fallback, {.min = fallback == 0 ? 0 : 1, .max = 1 << 24});
  if (!v.ok()) return v.status();
  return static_cast<int>(*v);
}

// The request's constraints from --slices, --remat, --no-pp / --max-pp,
// --slice and --max-microbatches.
absl::StatusOr<PlanConstraints> constraints_arg(const Args& args) {
  PlanConstraints c;
  auto slices = count_arg(args, "slices", 0);
  if (!slices.ok()) return slices.status();
  c.slices = *slices;
  if (auto remat = args.get("remat")) {
    auto r = remat_arg(*remat);
    if (!r.ok()) return r.status();
    c.remat = *std::move(r);
  }
  if (args.has("no-pp") && args.has("max-pp"))
    return absl::InvalidArgumentError("--no-pp and --max-pp: give one (--no-pp is --max-pp 1)");
  auto max_pp = count_arg(args, "max-pp", 0);
  if (!max_pp.ok()) return max_pp.status();
  c.max_pipeline_stages = args.has("no-pp") ? 1 : *max_pp;
  auto max_mb = count_arg(args, "max-microbatches", 0);
  if (!max_mb.ok()) return max_mb.status();
  c.max_microbatches = *max_mb;
  if (auto shape = args.get("slice")) {
    auto s = parse_slice_shape(*shape);
    if (!s.ok()) return absl::InvalidArgumentError(cat("--", std::string(s.status().message())));
    c.slice_shape = *std::move(s);
  }
  return c;
}

// --mesh, --layout, --remat (one policy) and --microbatches into `a`.
absl::Status layout_args(const Args& args, PlanArgs& a) {
  if (!args.has("layout")) {
    for (const char* only : {"mesh", "microbatches"})
      if (args.has(only)) return absl::InvalidArgumentError(cat("--", only, " goes with --layout"));
    return absl::OkStatus();
  }
  auto spec = args.require("mesh");
  if (!spec.ok()) return absl::InvalidArgumentError("--layout needs --mesh (the axes it names)");
  auto axes = parse_mesh_axes(*spec);
  if (!axes.ok()) return axes.status();
  auto mesh = make_mesh(*std::move(axes), a.request.chip, a.request.constraints.slice_shape);
  if (!mesh.ok()) return absl::InvalidArgumentError(cat("--mesh '", *spec, "': ", std::string(mesh.status().message())));
  auto layout = parse_layout(*args.get("layout"), *mesh);
  if (!layout.ok()) return layout.status();
  // One policy is evaluated: the one asked, else full (MaxText's default
  // remat_policy, and the one that fits the most layouts).
  if (a.request.constraints.remat.size() > 1)
    return absl::InvalidArgumentError("--layout evaluates one --remat policy; give one");
  if (!a.request.constraints.remat.empty()) a.remat = a.request.constraints.remat.front();
  // Without --microbatches: one per stage, the fewest the planner tries.
  auto mb = count_arg(args, "microbatches", pipeline_stages(*mesh, *layout));
  if (!mb.ok()) return mb.status();
  a.microbatches = *mb;
  if (!args.has("chips")) a.request.chips = mesh->device_count();
  a.mesh = *std::move(mesh);
  a.layout = *layout;
  return absl::OkStatus();
}

// Reads and checks every option; on a bad one, the exit code of its error.
std::variant<PlanArgs, int> parse_args(const Args& args) {
  auto fmt = args.format({"text", "json", "csv"});
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
  // Without --layout the chips are required; with it, the mesh gives them.
  auto chips = args.get_int("chips", args.has("layout") ? std::optional<long long>(0) : std::nullopt,
                            {.min = args.has("layout") ? 0 : 1, .max = 1 << 24});
  if (!chips.ok()) return fail(chips.status());
  auto batch = args.get_int("batch-tokens", std::nullopt, {.min = 1});
  if (!batch.ok()) return fail(batch.status());
  auto seq = args.get_int("seq", 0, {.min = 0});
  if (!seq.ok()) return fail(seq.status());
  auto top = args.get_int("top", 20, kIntRange);  // a negative --top shows no rows
  if (!top.ok()) return fail(top.status());
  const std::string dtype_text = args.get_or("dtype", "bf16");
  const std::optional<DType> dtype = parse_dtype(dtype_text);
  if (!dtype) return fail_usage("--dtype: unknown dtype '" + dtype_text + "'");
  const std::string attention_text = args.get_or("attention", "flash");
  const std::optional<AttentionKernel> attention = parse_attention_kernel(attention_text);
  if (!attention)
    return fail_usage("--attention: expected flash, flash-full-product or dot_product, got '" + attention_text + "'");
  auto constraints = constraints_arg(args);
  if (!constraints.ok()) return fail(constraints.status());
  PlanArgs a{.format = *fmt,
             .request = {.model = *model,
                         .chip = *chip,
                         .chips = static_cast<int>(*chips),
                         .batch_tokens = *batch,
                         .seq_len = *seq,
                         // --dtype is the compute dtype; what is kept between
                         // steps keeps the trainer defaults of TrainingDTypes.
                         .dtypes = {.compute = *dtype},
                         .attention = *attention,
                         .calibration = std::nullopt,
                         .constraints = *std::move(constraints)},
             .top = *top,
             .mesh = std::nullopt,
             .layout = {}};
  if (args.has("calibration")) {
    auto cal = calibration_arg(args, a.request.chip);
    if (!cal.ok()) return fail(cal.status());
    a.request.calibration = *std::move(cal);
  }
  if (absl::Status s = layout_args(args, a); !s.ok()) return fail(s);
  return a;
}

int evaluate(const Args& args, const PlanArgs& a) {
  auto ev = evaluate_layout(a.request, *a.mesh, a.layout, a.remat, a.microbatches);
  if (!ev.ok()) return fail(ev.status());
  if (a.format == "json") return write_output(args, evaluation_json(a.request, *ev).dump() + "\n");
  if (a.format == "csv") return write_output(args, evaluation_csv(*ev));
  return write_output(args, evaluation_text(a.request, *ev));
}

int run(const Args& args) {
  std::variant<PlanArgs, int> parsed = parse_args(args);
  if (const int* rc = std::get_if<int>(&parsed)) return *rc;
  const PlanArgs& a = std::get<PlanArgs>(parsed);
  if (a.mesh) return evaluate(args, a);
  auto plan = plan_training(a.request);
  if (!plan.ok()) return fail(plan.status());
  const std::size_t top = static_cast<std::size_t>(std::max<long long>(a.top, 0));
  if (a.format == "json") return write_output(args, plan_json(a.request, *plan, top).dump() + "\n");
  if (a.format == "csv") return write_output(args, plan_csv(*plan, top));
  return write_output(args, plan_text(a.request, *plan, {.top = top}));
}

ROOFLINE_CLI_COMMAND({
    .name = "plan",
    .usage = "roofline plan --model NAME|PATH --chip NAME|PATH --chips N --batch-tokens B [--seq L] [--dtype bf16] "
             "[--attention flash|flash-full-product|dot_product] [--slices N] [--remat P[,P...]] [--no-pp | --max-pp N] "
             "[--max-microbatches N] [--slice AxBxC] "
             "[--mesh AXES --layout ROLES [--microbatches N]] [--calibration FILE] [--top 20] "
             "[--format text|json|csv] [-o FILE]",
    .summary = "Rank meshes and parallelism strategies (DP, FSDP, TP, PP, DCN) for training a model, or "
               "evaluate one layout.",
    .options = {{"model", "NAME|PATH", "llama-3-8b, llama-3-70b, or a model config JSON file"},
                {"chip", "NAME|PATH", "embedded chip name or a chip spec JSON file"},
                {"chips", "N", "number of chips (with --layout: the mesh's by default)"},
                {"batch-tokens", "B", "global batch per step, in tokens"},
                {"seq", "L", "sequence length (default: the model's)"},
                {"dtype", "DTYPE", "compute dtype of activations and matmuls (default bf16)"},
                {"attention", "KERNEL", "attention core: flash (default), flash-full-product (a fused kernel "
                                        "without the causal skip) or dot_product (scores materialised in HBM)"},
                {"slices", "N", "slices (TPU) or nodes (GPU) across DCN (default: one up to the pod size)"},
                {"remat", "P[,P...]",
                 cat("remat policies: ", kRematPolicyNames, " (default: all; with --layout one, default full)")},
                {"no-pp", "", "no pipeline parallelism (--max-pp 1)"},
                {"max-pp", "N", "at most N pipeline stages"},
                {"max-microbatches", "N", "at most N pipeline microbatches"},
                {"slice", "AxBxC", "physical shape of each slice, e.g. 4x4x12"},
                {"mesh", "AXES", "with --layout: the mesh, e.g. data=16,model=4 or data=16,slice=2:dcn"},
                {"layout", "ROLES", "evaluate this layout, e.g. \"fsdp=data tp=model\" (roles dp, fsdp, tp, pp)"},
                {"microbatches", "N", "with --layout: pipeline microbatches (default: one per stage)"},
                kCalibrationOption,
                {"top", "K", "ranked layouts to print (default 20)"},
                {"format", "text|json|csv", "output format (default text)"},
                {"output", "FILE", "write to FILE instead of stdout", "o"}},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
