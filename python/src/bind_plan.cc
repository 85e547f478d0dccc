// plan(): `roofline plan` as a function. The planner ranks every layout of a
// model's training over N chips; with mesh= and layout= it evaluates that
// one layout instead. The result keeps its request so that to_text(),
// to_json() and to_csv() print exactly what the CLI prints for it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.hpp"
#include "python/src/status.hpp"
#include "roofline/report/plan.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/planner.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace roofline::python {
namespace {

// A ranked plan with the request it answers.
struct PlanResult {
  PlanRequest request;
  Plan plan;
};

// One evaluated layout with the request it answers.
struct EvaluationResult {
  PlanRequest request;
  LayoutEvaluation evaluation;
};

ModelConfig model_from(const nb::handle& model) {
  if (nb::isinstance<ModelConfig>(model)) {
    const ModelConfig& m = nb::cast<const ModelConfig&>(model);
    check(validate(m));
    return m;
  }
  const std::string name = path_from(model);
  const bool path = name.find('/') != std::string::npos || name.ends_with(".json");
  return value(resolve_model(name), path ? &name : nullptr);
}

Remat remat_from(const std::string& text) {
  if (const std::optional<Remat> r = parse_remat(text)) return *r;
  throw nb::value_error(("remat: unknown policy '" + text + "'; policies are " + std::string(kRematPolicyNames))
                            .c_str());
}

// "full", "full,minimal" or ["full", "minimal"].
std::vector<Remat> remats_from(const nb::object& remat) {
  std::vector<Remat> out;
  if (remat.is_none()) return out;
  std::vector<std::string> names;
  if (nb::isinstance<nb::str>(remat)) {
    const std::string text = nb::cast<std::string>(remat);
    for (std::size_t start = 0;;) {
      const std::size_t comma = text.find(',', start);
      names.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  } else {
    names = nb::cast<std::vector<std::string>>(remat);
  }
  for (const std::string& n : names) out.push_back(remat_from(n));
  return out;
}

int count_from(const char* name, long long v, long long min) {
  if (v < min || v > (1 << 24))
    throw nb::value_error((std::string(name) + ": expected " + std::to_string(min) + " to 16777216, got " +
                           std::to_string(v)).c_str());
  return static_cast<int>(v);
}

std::vector<int> slice_shape_from(const nb::object& shape) {
  if (shape.is_none()) return {};
  if (nb::isinstance<nb::str>(shape)) return value(parse_slice_shape(nb::cast<std::string>(shape)));
  return nb::cast<std::vector<int>>(shape);
}

nb::object plan(const nb::handle& model_arg, const Chip& chip, std::optional<long long> chips,
                std::optional<long long> batch_tokens, long long seq_len, const std::string& dtype,
                const std::string& attention, long long slices, const nb::object& remat, long long max_pipeline_stages,
                bool no_pp, long long max_microbatches, const nb::object& slice_shape, const nb::object& calibration,
                const nb::object& mesh_arg, std::optional<std::string> layout_arg, std::optional<long long> microbatches) {
  if (!batch_tokens) throw nb::type_error("plan: batch_tokens (the global batch per step, in tokens) is required");
  if (*batch_tokens < 1) throw nb::value_error(("batch_tokens: expected 1 or more, got " + std::to_string(*batch_tokens)).c_str());
  if (seq_len < 0) throw nb::value_error(("seq_len: expected 0 (the model's) or more, got " + std::to_string(seq_len)).c_str());
  const std::optional<AttentionKernel> kernel = parse_attention_kernel(attention);
  if (!kernel)
    throw nb::value_error(("attention: expected flash, flash-full-product or dot_product, got '" + attention + "'").c_str());
  if (no_pp && max_pipeline_stages != 0)
    throw nb::value_error("no_pp and max_pipeline_stages: give one (no_pp is max_pipeline_stages=1)");
  const bool evaluate = layout_arg.has_value();
  if (!evaluate) {
    if (!mesh_arg.is_none()) throw nb::value_error("mesh goes with layout (the roles of its axes)");
    if (microbatches) throw nb::value_error("microbatches goes with layout");
    if (!chips) throw nb::type_error("plan: chips is required (without layout=, which takes them from its mesh)");
  } else if (mesh_arg.is_none()) {
    throw nb::value_error("layout needs mesh (the axes it names)");
  }

  PlanRequest req{.model = model_from(model_arg),
                  .chip = chip,
                  .chips = chips ? count_from("chips", *chips, evaluate ? 0 : 1) : 0,
                  .batch_tokens = *batch_tokens,
                  .seq_len = seq_len,
                  // dtype is the compute dtype; what is kept between steps keeps
                  // the trainer defaults of TrainingDTypes, as the CLI's --dtype.
                  .dtypes = {.compute = dtype_from(dtype)},
                  .attention = *kernel,
                  .calibration = std::nullopt,
                  .constraints = {.slices = count_from("slices", slices, 0),
                                  .remat = remats_from(remat),
                                  .max_pipeline_stages = no_pp ? 1 : count_from("max_pipeline_stages", max_pipeline_stages, 0),
                                  .slice_shape = slice_shape_from(slice_shape),
                                  .max_microbatches = count_from("max_microbatches", max_microbatches, 0)}};
  if (!calibration.is_none()) req.calibration = calibration_for(chip, calibration);

  if (!evaluate) {
    Plan p = value(plan_training(req));
    return nb::cast(PlanResult{.request = std::move(req), .plan = std::move(p)});
  }
  // One layout: the mesh as given (a Mesh laid on this chip) or as text,
  // laid with the slice shape asked for.
  Mesh mesh;
  if (nb::isinstance<Mesh>(mesh_arg)) {
    mesh = nb::cast<Mesh>(mesh_arg);
    check(check_mesh_chip(mesh, chip));
  } else {
    const std::string spec = nb::cast<std::string>(mesh_arg);
    mesh = value(make_mesh(value(parse_mesh_axes(spec)), chip, req.constraints.slice_shape));
  }
  const ParallelLayout layout = value(parse_layout(*layout_arg, mesh));
  // One policy is evaluated: the one asked, else full (MaxText's default
  // remat_policy, and the one that fits the most layouts), as the CLI does.
  if (req.constraints.remat.size() > 1) throw nb::value_error("layout evaluates one remat policy; give one");
  const Remat policy = req.constraints.remat.empty() ? Remat::kFull : req.constraints.remat.front();
  // Without microbatches: one per stage, the fewest the planner tries.
  const int mb = microbatches ? count_from("microbatches", *microbatches, 1) : pipeline_stages(mesh, layout);
  if (!chips) req.chips = mesh.device_count();
  LayoutEvaluation ev = value(evaluate_layout(req, mesh, layout, policy, mb));
  return nb::cast(EvaluationResult{.request = std::move(req), .evaluation = std::move(ev)});
}

nb::object optional_number(const std::optional<double>& v) { return v ? nb::cast(*v) : nb::none(); }

}  // namespace

void bind_plan(nb::module_& m) {
  nb::class_<ModelConfig>(m, "ModelConfig",
                          "A decoder-only transformer's shape (the planner's model; the JSON of --model FILE).")
      .def(
          "__init__",
          [](ModelConfig* self, const std::string& name, int layers, std::int64_t d_model, std::int64_t d_ff, int heads,
             std::optional<int> kv_heads, std::optional<std::int64_t> head_dim, std::int64_t vocab, std::int64_t seq_len,
             const std::string& mlp, bool tied_embeddings) {
            if (mlp != "gated" && mlp != "plain")
              throw nb::value_error(("mlp: expected 'gated' or 'plain', got '" + mlp + "'").c_str());
            ModelConfig c{.name = name,
                          .layers = layers,
                          .d_model = d_model,
                          .d_ff = d_ff,
                          .heads = heads,
                          .kv_heads = kv_heads.value_or(heads),
                          .head_dim = head_dim.value_or(heads > 0 ? d_model / heads : 0),
                          .vocab = vocab,
                          .seq_len = seq_len,
                          .mlp = mlp == "gated" ? MlpKind::kGated : MlpKind::kPlain,
                          .tied_embeddings = tied_embeddings};
            check(validate(c));
            new (self) ModelConfig(std::move(c));
          },
          nb::kw_only(), "name"_a, "layers"_a, "d_model"_a, "d_ff"_a, "heads"_a, "kv_heads"_a = nb::none(),
          "head_dim"_a = nb::none(), "vocab"_a, "seq_len"_a, "mlp"_a = "gated", "tied_embeddings"_a = false)
      .def_ro("name", &ModelConfig::name)
      .def_ro("layers", &ModelConfig::layers)
      .def_ro("d_model", &ModelConfig::d_model)
      .def_ro("d_ff", &ModelConfig::d_ff)
      .def_ro("heads", &ModelConfig::heads)
      .def_ro("kv_heads", &ModelConfig::kv_heads)
      .def_ro("head_dim", &ModelConfig::head_dim)
      .def_ro("vocab", &ModelConfig::vocab)
      .def_ro("seq_len", &ModelConfig::seq_len)
      .def_prop_ro("mlp", [](const ModelConfig& c) { return c.mlp == MlpKind::kGated ? "gated" : "plain"; })
      .def_ro("tied_embeddings", &ModelConfig::tied_embeddings)
      .def("__repr__", [](const ModelConfig& c) { return "ModelConfig('" + c.name + "', layers=" + std::to_string(c.layers) + ")"; });
  m.def("model", &model_from, "name_or_path"_a, "A built-in model ('llama-3-8b', 'llama-3-70b') or a model config JSON file.");

  nb::class_<StepPart>(m, "StepPart", "One part of a training step: its roofline and expected seconds.")
      .def_prop_ro("name", [](const StepPart& p) { return std::string(p.name); })
      .def_ro("roofline", &StepPart::roofline)
      .def_ro("expected_s", &StepPart::expected_s)
      .def_ro("expected_forward_s", &StepPart::expected_forward_s,
              "The share of expected_s the forward pass runs (the rest: the backward, with its recompute).");
  nb::class_<MemoryPerChip>(m, "MemoryPerChip", "HBM per chip of a training step, by what holds it.")
      .def_ro("params_bytes", &MemoryPerChip::params_bytes)
      .def_ro("grads_bytes", &MemoryPerChip::grads_bytes)
      .def_ro("optimizer_bytes", &MemoryPerChip::optimizer_bytes)
      .def_ro("gathered_weights_bytes", &MemoryPerChip::gathered_weights_bytes)
      .def_ro("activations_bytes", &MemoryPerChip::activations_bytes)
      .def_ro("activations_no_remat_bytes", &MemoryPerChip::activations_no_remat_bytes)
      .def_ro("activations_remat_bytes", &MemoryPerChip::activations_remat_bytes)
      .def_ro("host_activations_bytes", &MemoryPerChip::host_activations_bytes)
      .def_ro("total_bytes", &MemoryPerChip::total_bytes)
      .def_ro("hbm_bytes", &MemoryPerChip::hbm_bytes, "The chip's capacity.")
      .def_ro("fits", &MemoryPerChip::fits);
  nb::class_<TrainingStep>(m, "TrainingStep",
                           "One training step: its parts, the roofline of the whole, the lower bound, the expected "
                           "time, MFU at each, memory per chip.")
      .def_ro("parts", &TrainingStep::parts)
      .def_ro("roofline", &TrainingStep::roofline)
      .def_ro("t_compute_s", &TrainingStep::t_compute_s)
      .def_prop_ro("t_host_s", [](const TrainingStep& s) { return s.roofline.t_host_s; })
      .def_ro("bubble_factor", &TrainingStep::bubble_factor)
      .def_ro("step_time_s", &TrainingStep::step_time_s, "The lower bound (roofline.t_lower_s).")
      .def_ro("expected_s", &TrainingStep::expected_s)
      .def_ro("expected_compute_s", &TrainingStep::expected_compute_s)
      .def_ro("expected_exposed_s", &TrainingStep::expected_exposed_s)
      .def_ro("model_flops", &TrainingStep::model_flops)
      .def_ro("mfu", &TrainingStep::mfu, "At the lower bound: the most MFU the layout can reach.")
      .def_ro("mfu_expected", &TrainingStep::mfu_expected)
      .def_ro("mfu_no_overlap", &TrainingStep::mfu_no_overlap)
      .def_ro("tokens_per_chip", &TrainingStep::tokens_per_chip)
      .def_ro("memory", &TrainingStep::memory)
      .def_ro("chips", &TrainingStep::chips);
  nb::class_<CriticalBatch>(m, "CriticalBatch",
                            "Where each kind of parallelism on this mesh turns compute-bound (None: no such axis).")
      .def_prop_ro("data_parallel_tokens_per_chip", [](const CriticalBatch& c) { return optional_number(c.data_parallel_tokens_per_chip); })
      .def_prop_ro("tensor_parallel_max_ways", [](const CriticalBatch& c) { return optional_number(c.tensor_parallel_max_ways); })
      .def_prop_ro("fsdp_tp_tokens_per_chip", [](const CriticalBatch& c) { return optional_number(c.fsdp_tp_tokens_per_chip); })
      .def_prop_ro("dcn_tokens_per_slice", [](const CriticalBatch& c) { return optional_number(c.dcn_tokens_per_slice); });

  nb::class_<PlanCandidate>(m, "PlanCandidate", "One layout predicted: mesh, roles, remat, microbatches, step.")
      .def_ro("mesh", &PlanCandidate::mesh)
      .def_prop_ro("mesh_text", [](const PlanCandidate& c) { return mesh_text(c.mesh); })
      .def_prop_ro("layout", [](const PlanCandidate& c) { return layout_text(c.mesh, c.layout); },
                   "'fsdp=data tp=model': what plan(..., layout=) reads back.")
      .def_prop_ro("strategy", [](const PlanCandidate& c) { return strategy_name(c); })
      .def_prop_ro("remat", [](const PlanCandidate& c) { return std::string(remat_name(c.remat)); })
      .def_ro("microbatches", &PlanCandidate::microbatches)
      .def_prop_ro("slices", [](const PlanCandidate& c) { return slice_count(c.mesh); })
      .def_prop_ro("pipeline_stages", [](const PlanCandidate& c) { return pipeline_stages(c.mesh, c.layout); })
      .def_ro("step", &PlanCandidate::step)
      .def_ro("critical", &PlanCandidate::critical)
      .def_prop_ro("ranking_s", [](const PlanCandidate& c) { return ranking_time_s(c.step); },
                   "What the plan ranks by: step.expected_s, or the lower bound where that is not modelled.")
      .def("__repr__", [](const PlanCandidate& c) {
        return "PlanCandidate('" + mesh_text(c.mesh) + "', '" + layout_text(c.mesh, c.layout) + "', remat='" +
               std::string(remat_name(c.remat)) + "', microbatches=" + std::to_string(c.microbatches) + ")";
      });
  nb::class_<RejectedCandidate>(m, "RejectedCandidate", "A combination not ranked, and why.")
      .def_prop_ro("mesh", [](const RejectedCandidate& r) { return mesh_text(r.axes); })
      .def_prop_ro("layout", [](const RejectedCandidate& r) { return layout_text(r.axes, r.layout); })
      .def_prop_ro("remat",
                   [](const RejectedCandidate& r) -> std::optional<std::string> {
                     if (!r.remat) return std::nullopt;  // rejected for every policy
                     return std::string(remat_name(*r.remat));
                   })
      .def_ro("microbatches", &RejectedCandidate::microbatches, "0: rejected for every count.")
      .def_prop_ro("kind", [](const RejectedCandidate& r) { return std::string(reject_kind_name(r.kind)); },
                   "'memory', 'constraint' or 'shape'.")
      .def_ro("memory", &RejectedCandidate::memory, "Filled for kind 'memory'.")
      .def_ro("reason", &RejectedCandidate::reason)
      .def("__repr__", [](const RejectedCandidate& r) {
        return "RejectedCandidate('" + mesh_text(r.axes) + "', " + std::string(reject_kind_name(r.kind)) + ": " + r.reason + ")";
      });

  nb::class_<PlanResult>(m, "Plan", "Every layout the planner ranked (best first) and every one it rejected.")
      .def_prop_ro("candidates", [](const PlanResult& p) { return p.plan.ranked; })
      .def_prop_ro("rejected", [](const PlanResult& p) { return p.plan.rejected; })
      .def_prop_ro("slices", [](const PlanResult& p) { return p.plan.slices; })
      .def_prop_ro("considered", [](const PlanResult& p) { return p.plan.considered; })
      .def_prop_ro("evaluated", [](const PlanResult& p) { return p.plan.evaluated; })
      .def_prop_ro("rejected_memory", [](const PlanResult& p) { return p.plan.rejected_memory; })
      .def_prop_ro("rejected_constraint", [](const PlanResult& p) { return p.plan.rejected_constraint; })
      .def_prop_ro("rejected_shape", [](const PlanResult& p) { return p.plan.rejected_shape; })
      .def_prop_ro("search_seconds", [](const PlanResult& p) { return p.plan.search_seconds; })
      .def(
          "to_text",
          [](const PlanResult& p, std::size_t top, std::size_t rejected_shown) {
            return plan_text(p.request, p.plan, {.top = top, .rejected_shown = rejected_shown});
          },
          "top"_a = 20, "rejected_shown"_a = 5, "What `roofline plan` prints (--top 20 by default).")
      .def("to_json", [](const PlanResult& p, std::size_t top) { return plan_json(p.request, p.plan, top).dump(); },
           "top"_a = 20, "The line `roofline plan --format json` prints (without its newline).")
      .def("to_csv", [](const PlanResult& p, std::size_t top) { return plan_csv(p.plan, top); }, "top"_a = 20,
           "What `roofline plan --format csv` prints.")
      .def("__len__", [](const PlanResult& p) { return p.plan.ranked.size(); })
      .def("__repr__", [](const PlanResult& p) {
        return "Plan(" + std::to_string(p.plan.ranked.size()) + " ranked, " + std::to_string(p.plan.rejected.size()) +
               " rejected)";
      });

  nb::class_<EvaluationResult>(m, "LayoutEvaluation", "One given layout: predicted, and whether the planner would rank it.")
      .def_prop_ro("fits", [](const EvaluationResult& e) { return e.evaluation.fits; },
                   "In HBM and within the request's constraints.")
      .def_prop_ro("reason", [](const EvaluationResult& e) { return e.evaluation.reason; }, "Why not ('' when it fits).")
      .def_prop_ro("candidate", [](const EvaluationResult& e) { return e.evaluation.candidate; })
      .def("to_text", [](const EvaluationResult& e) { return evaluation_text(e.request, e.evaluation); })
      .def("to_json", [](const EvaluationResult& e) { return evaluation_json(e.request, e.evaluation).dump(); },
           "The line `roofline plan --mesh ... --layout ... --format json` prints (without its newline).")
      .def("to_csv", [](const EvaluationResult& e) { return evaluation_csv(e.evaluation); })
      .def("__repr__", [](const EvaluationResult& e) {
        return "LayoutEvaluation(fits=" + std::string(e.evaluation.fits ? "True" : "False") +
               (e.evaluation.fits ? "" : ", reason='" + e.evaluation.reason + "'") + ")";
      });

  m.def("plan", &plan, "model"_a, "chip"_a, "chips"_a = nb::none(), "batch_tokens"_a = nb::none(), nb::kw_only(),
        "seq_len"_a = 0, "dtype"_a = "bf16", "attention"_a = "flash", "slices"_a = 0, "remat"_a = nb::none(),
        "max_pipeline_stages"_a = 0, "no_pp"_a = false, "max_microbatches"_a = 0, "slice_shape"_a = nb::none(),
        "calibration"_a = nb::none(), "mesh"_a = nb::none(), "layout"_a = nb::none(), "microbatches"_a = nb::none(),
        "`roofline plan`: every layout of `model`'s training over `chips` chips, ranked (a Plan); with mesh= and "
        "layout=, that one layout evaluated (a LayoutEvaluation). Keywords are the CLI's options: seq_len (0: the "
        "model's), dtype (compute), attention, slices, remat (one policy, 'a,b' or a list), max_pipeline_stages "
        "or no_pp, max_microbatches, slice_shape ('4x4x12'), calibration, microbatches (with layout).");
}

}  // namespace roofline::python
