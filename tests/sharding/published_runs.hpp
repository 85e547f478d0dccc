// Published training runs (tests/data/published_runs.json) held against the
// training-step model: what each run measured, converted to our MFU
// convention, beside the MFU our model gives its layout at the lower bound,
// expected and with nothing overlapping, and where the planner ranks the
// run's layout among those it would choose from. Used by
// published_runs_test.cc; published_runs_tables.hpp renders the rows as the
// tables docs/planner_validation.md shows.
//
//   auto runs = roofline::testing::load_published_runs(path);
//   for (const auto& run : *runs) rows.push_back(*roofline::testing::evaluate(run));
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "roofline/chip.hpp"
#include "roofline/chip_io.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/layers.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/planner.hpp"
#include "roofline/sharding/training_step.hpp"

namespace roofline::testing {

// How the publisher counted a step's FLOPs ("measured.flop_convention").
// MaxText changed its count several times (AI-Hypercomputer/maxtext
// MaxText/train.py, later maxtext_utils.py; docs/planner_validation.md):
// until 0e650131c (2023-06) 6 x all parameters x tokens; then plus the
// attention score and value matmuls in full, 12 x layers x tokens x seq x
// heads x head_dim; from 64ee4e938 (2023-11-29) that term halved for the
// causal mask, as kMfuConvention counts it (full again from 2024-05 to
// 2025-07). kTokens: the publisher gives tokens per second per chip, which
// needs no FLOP count.
enum class FlopConvention : unsigned char { k6N, k6NFullAttention, k6NCausalAttention, kTokens };

struct PublishedRun {
  std::string name;
  std::string source;  // "repo@commit path: row"
  ModelConfig model;
  std::string chip;
  int chips = 0;
  int slices = 1;
  std::vector<int> slice_shape;  // physical shape of one slice
  std::int64_t batch_tokens = 0;
  std::string mesh;              // our syntax: "slice=2:dcn,fsdp=64,model=4"
  std::vector<std::string> dp, fsdp, tp;
  std::string pp;                // empty: no pipeline
  Remat remat = Remat::kNone;
  AttentionKernel attention = AttentionKernel::kFlash;  // "attention"/"kernel": how the run's attention core ran
  TrainingDTypes dtypes;
  double tflops_per_chip = 0;    // as published, under `convention`; 0 for kTokens
  double tokens_per_s_per_chip = 0;  // kTokens only
  std::optional<double> reported_mfu;  // as published; none where the source gives only a rate
  // The publisher's peak behind reported_mfu; 0 without one (a
  // "peak_flops_per_s" beside a null MFU is not read).
  double reported_peak_flops_per_s = 0;
  FlopConvention convention = FlopConvention::k6N;
  // The scale-out rate per chip of the machines the run used, where it is
  // not the chip spec's ("network"/"dcn_bytes_per_s": a cloud VM's NICs
  // rather than the reference system's).
  std::optional<double> dcn_bytes_per_s;
};

// The chip as the run had it: the spec, with the run's scale-out rate. An
// achieved DCN rate measured on the spec's network would take precedence
// over the nominal one (collective.hpp), so it goes with it: the run's
// machines have no measured rate here.
inline Chip run_chip(const PublishedRun& r, const Chip& spec) {
  Chip c = spec;
  if (r.dcn_bytes_per_s) {
    c.dcn_bytes_per_s = *r.dcn_bytes_per_s;
    c.achieved.dcn_bytes_per_s = 0;
  }
  return c;
}

// The physical slice shape to lay the mesh on: the run's on a torus; none on
// a switch (an NVLink domain takes any layout; the case's shape names the
// node it ran on).
inline std::vector<int> slice_to_lay(const PublishedRun& r, const Chip& c) {
  return c.ici.topology == Topology::kSwitch ? std::vector<int>{} : r.slice_shape;
}

// The publisher's FLOP count of one step, all chips. "All parameters" is
// total_params (MaxText counts the parameter pytree: tied embedding once,
// norm scales included).
inline double published_step_flops(const PublishedRun& r) {
  const ModelConfig& m = r.model;
  const double tokens = static_cast<double>(r.batch_tokens);
  const double full_attention = m.layers * attention_training_flops(m, tokens, static_cast<double>(m.seq_len),
                                                                    AttentionMask::kFull);
  const double weights = 6.0 * total_params(m) * tokens;
  switch (r.convention) {
    case FlopConvention::k6N: return weights;
    case FlopConvention::k6NFullAttention: return weights + full_attention;
    case FlopConvention::k6NCausalAttention: return weights + full_attention / 2;
    case FlopConvention::kTokens: break;
  }
  return weights;
}

// The step time the published throughput implies: the publisher's FLOPs per
// chip over its TFLOP/s per chip, or the tokens per chip over the tokens/s.
inline double measured_step_time_s(const PublishedRun& r) {
  if (r.convention == FlopConvention::kTokens)
    return static_cast<double>(r.batch_tokens) / r.chips / r.tokens_per_s_per_chip;
  return published_step_flops(r) / r.chips / (r.tflops_per_chip * 1e12);
}

// The measured MFU in our convention: model_training_flops (causal) over the
// implied step time x chips x the chip's bf16 peak.
inline double measured_mfu(const PublishedRun& r, const Chip& c) {
  const double ours = model_training_flops(r.model, static_cast<double>(r.batch_tokens),
                                           static_cast<double>(r.model.seq_len), AttentionMask::kCausal);
  return ours / (measured_step_time_s(r) * r.chips * c.peak_flops_per_s_for(r.dtypes.compute));
}

// Where the planner puts the run's layout (issue 12: "the practitioner's
// layout among the planner's top three, or within 5% of the best expected
// step time").
struct PlannerPlacing {
  int rank = 0;               // 1-based in Plan::ranked; 0: not ranked
  int ranked = 0;             // candidates ranked
  double gap = 0;             // the run's expected step time / the best's - 1 (also when not ranked)
  std::string first_choice;   // the planner's first: strategy_name, remat
  std::string not_ranked_why; // when rank == 0: Plan::rejected's reason, or evaluate_layout's
  // Ranked in the top three, or within 5% of the best expected step time.
  bool meets_target() const { return rank > 0 && (rank <= 3 || gap <= 0.05); }
};

struct PublishedRunRow {
  std::string name;
  std::string chip;
  int chips = 0;
  std::string mesh;
  std::string remat;
  std::string attention;       // attention_kernel_name of the run's kernel
  double tflops_per_chip = 0;  // published; 0 where tokens/s was
  double tokens_per_s_per_chip = 0;  // published; 0 where TFLOP/s was
  std::optional<double> reported_mfu;  // published, publisher's convention; none where not published
  double step_time_s = 0;      // implied by the published throughput
  double measured_mfu = 0;     // ours
  double bound_mfu = 0;        // TrainingStep::mfu
  double expected_mfu = 0;     // TrainingStep::mfu_expected
  double expected_s = 0;
  double bound_s = 0;          // TrainingStep::step_time_s, the lower bound
  double no_overlap_mfu = 0;   // TrainingStep::mfu_no_overlap
  double model_compute_s = 0;  // TrainingStep::t_compute_s
  double model_ici_s = 0;      // the step's collectives one after another (roofline.t_ici_s)
  // The expected step's terms (detail/training_expected.hpp): C, the
  // calibrated compute times the bubble; E, what it exposes (TP and
  // pipeline transfers, the excess of the rest); H, the transfers it hides
  // (FSDP, gradient all-reduce, host offload), all of them; and of H the
  // gradient all-reduce (over DCN where the run has several slices).
  double expected_compute_s = 0;
  double expected_exposed_s = 0;
  double hidden_s = 0;
  double grad_sync_s = 0;
  std::vector<int> laid_shape;  // the slice shape make_mesh laid the mesh on
  std::vector<int> run_shape;   // the run's physical slice shape
  double memory_gib = 0;       // per chip, as modelled
  double hbm_gib = 0;
  bool fits = false;
  PlannerPlacing placing;       // remat fixed to the run's policy
  PlannerPlacing placing_free;  // every remat policy allowed
};

namespace detail_published {

inline absl::StatusOr<std::vector<std::string>> names(const nlohmann::json& j) {
  std::vector<std::string> out;
  if (j.is_null()) return out;
  for (const auto& e : j) out.push_back(e.get<std::string>());
  return out;
}

inline absl::StatusOr<DType> dtype_at(const nlohmann::json& d, const char* key, const std::string& where) {
  const std::string text = d.at(key).get<std::string>();
  const std::optional<DType> t = parse_dtype(text);
  if (!t) return absl::InvalidArgumentError(where + "/dtypes/" + key + ": unknown dtype '" + text + "'");
  return *t;
}

inline absl::StatusOr<PublishedRun> run_from_json(const nlohmann::json& c, const std::string& where) {
  PublishedRun r;
  r.name = c.at("name").get<std::string>();
  const auto& src = c.at("source");
  r.source = src.at("repo").get<std::string>() + "@" + src.at("commit").get<std::string>().substr(0, 9) + " " +
             src.at("table").get<std::string>() + ": " + src.at("row").get<std::string>();
  ROOFLINE_ASSIGN_OR_RETURN(r.model, parse_model_config(c.at("model").dump(), where + "/model"));
  r.chip = c.at("chip").get<std::string>();
  r.chips = c.at("chips").get<int>();
  r.slices = c.at("slices").get<int>();
  r.slice_shape = c.at("slice_shape").get<std::vector<int>>();
  r.batch_tokens = c.at("batch_tokens").get<std::int64_t>();
  r.mesh = c.at("mesh").get<std::string>();
  const auto& roles = c.at("roles");
  ROOFLINE_ASSIGN_OR_RETURN(r.dp, names(roles.at("dp")));
  ROOFLINE_ASSIGN_OR_RETURN(r.fsdp, names(roles.at("fsdp")));
  ROOFLINE_ASSIGN_OR_RETURN(r.tp, names(roles.at("tp")));
  if (!roles.at("pp").is_null()) r.pp = roles.at("pp").get<std::string>();
  const std::string remat = c.at("remat").get<std::string>();
  const std::optional<Remat> policy = parse_remat(remat);
  if (!policy) return absl::InvalidArgumentError(where + "/remat: unknown policy '" + remat + "'");
  r.remat = *policy;
  const std::string kernel = c.at("attention").at("kernel").get<std::string>();
  const std::optional<AttentionKernel> attention = parse_attention_kernel(kernel);
  if (!attention) return absl::InvalidArgumentError(where + "/attention/kernel: unknown kernel '" + kernel + "'");
  r.attention = *attention;
  const auto& d = c.at("dtypes");
  ROOFLINE_ASSIGN_OR_RETURN(r.dtypes.compute, dtype_at(d, "compute", where));
  ROOFLINE_ASSIGN_OR_RETURN(r.dtypes.params, dtype_at(d, "params", where));
  ROOFLINE_ASSIGN_OR_RETURN(r.dtypes.grads, dtype_at(d, "grads", where));
  ROOFLINE_ASSIGN_OR_RETURN(r.dtypes.optimizer, dtype_at(d, "optimizer", where));
  r.dtypes.optimizer_states = d.at("optimizer_states").get<int>();
  if (c.contains("network")) {
    r.dcn_bytes_per_s = c.at("network").at("dcn_bytes_per_s").get<double>();
    if (!(*r.dcn_bytes_per_s > 0))
      return absl::InvalidArgumentError(where + "/network/dcn_bytes_per_s: must be > 0");
  }
  const auto& m = c.at("measured");
  if (!m.at("mfu").is_null()) r.reported_mfu = m.at("mfu").get<double>();
  const std::string conv = m.at("flop_convention").get<std::string>();
  if (conv == "tokens") {
    r.convention = FlopConvention::kTokens;
    r.tokens_per_s_per_chip = m.at("tokens_per_s_per_chip").get<double>();
    return r;
  }
  r.tflops_per_chip = m.at("tflops_per_chip").get<double>();
  if (r.reported_mfu) r.reported_peak_flops_per_s = m.at("peak_flops_per_s").get<double>();
  if (conv == "6N") r.convention = FlopConvention::k6N;
  else if (conv == "6N+full-attn") r.convention = FlopConvention::k6NFullAttention;
  else if (conv == "6N+causal-attn") r.convention = FlopConvention::k6NCausalAttention;
  else return absl::InvalidArgumentError(where + "/measured/flop_convention: unknown '" + conv + "'");
  return r;
}

inline absl::StatusOr<AxisMask> mask_named(const Mesh& mesh, const std::vector<std::string>& axes,
                                           const std::string& where) {
  AxisMask m = 0;
  for (const std::string& a : axes) {
    ROOFLINE_ASSIGN_OR_RETURN(std::vector<int> idx, resolve_axes(mesh, a));
    if (idx.size() != 1) return absl::InvalidArgumentError(where + ": '" + a + "' names more than one axis");
    m |= AxisMask{1} << idx[0];
  }
  return m;
}

}  // namespace detail_published

// Reads the cases; errors name the file, the case index and the key.
inline absl::StatusOr<std::vector<PublishedRun>> load_published_runs(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(path + ": cannot open");
  std::vector<PublishedRun> runs;
  std::size_t i = 0;
  try {
    const nlohmann::json doc = nlohmann::json::parse(in);
    for (const auto& c : doc.at("cases")) {
      ROOFLINE_ASSIGN_OR_RETURN(PublishedRun r,
                                detail_published::run_from_json(c, path + ": /cases/" + std::to_string(i)));
      runs.push_back(std::move(r));
      ++i;
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(path + ": /cases/" + std::to_string(i) + ": " + e.what());
  }
  return runs;
}

// The run's mesh (on its physical slice shape) and layout.
struct PublishedLayout {
  Mesh mesh;
  ParallelLayout layout;
};

inline absl::StatusOr<PublishedLayout> published_layout(const PublishedRun& r, const Chip& c) {
  ROOFLINE_ASSIGN_OR_RETURN(std::vector<MeshAxis> axes, parse_mesh_axes(r.mesh));
  ROOFLINE_ASSIGN_OR_RETURN(Mesh mesh, make_mesh(std::move(axes), c, slice_to_lay(r, c)));
  if (mesh.device_count() != r.chips)
    return absl::InvalidArgumentError(r.name + ": mesh '" + r.mesh + "' has " + std::to_string(mesh.device_count()) +
                                      " chips, the run " + std::to_string(r.chips));
  ParallelLayout layout;
  ROOFLINE_ASSIGN_OR_RETURN(const AxisMask dp, detail_published::mask_named(mesh, r.dp, r.name + "/roles/dp"));
  ROOFLINE_ASSIGN_OR_RETURN(layout.fsdp, detail_published::mask_named(mesh, r.fsdp, r.name + "/roles/fsdp"));
  ROOFLINE_ASSIGN_OR_RETURN(layout.model, detail_published::mask_named(mesh, r.tp, r.name + "/roles/tp"));
  layout.data = dp | layout.fsdp;
  if (!r.pp.empty()) {
    ROOFLINE_ASSIGN_OR_RETURN(std::vector<int> idx, resolve_axes(mesh, r.pp));
    layout.pipeline_axis = idx.front();
  }
  return PublishedLayout{std::move(mesh), layout};
}

// A layout by what it does rather than what its axes are called: the ways
// of each role on ICI and on DCN. The run's mesh says fsdp/model/slice, the
// planner's data/model/stage/slice; equal shapes are the same layout.
struct LayoutShape {
  int ways[2][5] = {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}};  // [ICI, DCN][dp, fsdp, tp, pp, replicated]
  friend bool operator==(const LayoutShape&, const LayoutShape&) = default;
};

inline LayoutShape layout_shape(std::span<const MeshAxis> axes, const ParallelLayout& l) {
  LayoutShape s;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const AxisMask bit = AxisMask{1} << i;
    const int role = l.pipeline_axis == static_cast<int>(i) ? 3
                     : (l.model & bit)                      ? 2
                     : (l.fsdp & bit)                       ? 1
                     : (l.data & bit)                       ? 0
                                                            : 4;
    s.ways[axes[i].network == AxisNetwork::kDcn ? 1 : 0][role] *= axes[i].size;
  }
  return s;
}

// Whether the planner may pick the remat policy or must keep the run's.
enum class RematChoice : unsigned char { kRunsPolicy, kFree };

// The planner asked what a practitioner fixes for this run: model, chip,
// chips, batch, dtypes, the slice count and physical slice shape, and (with
// kRunsPolicy) the remat policy; the pipeline, the mesh and the roles are
// its to choose. The run's layout is found in the ranking by its shape.
inline absl::StatusOr<PlannerPlacing> place_in_plan(const PublishedRun& r, const Chip& c, const PublishedLayout& pub,
                                                    RematChoice remat) {
  PlanRequest req{.model = r.model,
                  .chip = c,
                  .chips = r.chips,
                  .batch_tokens = r.batch_tokens,
                  .dtypes = r.dtypes,
                  .attention = r.attention,
                  .constraints = {.slices = r.slices, .slice_shape = slice_to_lay(r, c)}};
  if (remat == RematChoice::kRunsPolicy) req.constraints.remat = {r.remat};
  ROOFLINE_ASSIGN_OR_RETURN(const Plan plan, plan_training(req));
  ROOFLINE_ASSIGN_OR_RETURN(const LayoutEvaluation ev, evaluate_layout(req, pub.mesh, pub.layout, r.remat, 1));
  PlannerPlacing p;
  p.ranked = static_cast<int>(plan.ranked.size());
  if (plan.ranked.empty()) {
    p.not_ranked_why = "the planner ranks nothing";
    return p;
  }
  const PlanCandidate& best = plan.ranked.front();
  p.first_choice = strategy_name(best) + ", " + std::string(remat_name(best.remat));
  p.gap = ranking_time_s(ev.candidate.step) / ranking_time_s(best.step) - 1;
  const LayoutShape want = layout_shape(pub.mesh.axes, pub.layout);
  for (std::size_t i = 0; i < plan.ranked.size(); ++i) {
    const PlanCandidate& k = plan.ranked[i];
    if (k.remat == r.remat && k.microbatches == 1 && layout_shape(k.mesh.axes, k.layout) == want) {
      p.rank = static_cast<int>(i) + 1;
      return p;
    }
  }
  for (const RejectedCandidate& k : plan.rejected)
    if ((!k.remat || *k.remat == r.remat) && layout_shape(k.axes, k.layout) == want) {
      p.not_ranked_why = std::string(reject_kind_name(k.kind)) + ": " + k.reason;
      return p;
    }
  p.not_ranked_why = ev.fits ? "not enumerated by the planner" : "not enumerated; " + ev.reason;
  return p;
}

// The run's mesh and layout on its chip, through the checked C++ API.
// The expected time of every transfer the expected step hides under
// compute (detail::step::overlap_of: FSDP, gradient all-reduce, host offload).
inline double hidden_s(const TrainingStep& step) {
  double h = 0;
  for (int i = 0; i < static_cast<int>(step.parts.size()); ++i)
    if (detail::step::overlap_of(i) == detail::step::Overlap::kHidden) h += step.parts[static_cast<std::size_t>(i)].expected_s;
  return h;
}

inline absl::StatusOr<PublishedRunRow> evaluate(const PublishedRun& r) {
  ROOFLINE_ASSIGN_OR_RETURN(const Chip* spec, find_chip(r.chip));
  const Chip c = run_chip(r, *spec);
  ROOFLINE_ASSIGN_OR_RETURN(const PublishedLayout pub, published_layout(r, c));
  const Mesh& mesh = pub.mesh;
  const TrainingConfig config{.batch_tokens = r.batch_tokens, .dtypes = r.dtypes, .remat = r.remat,
                              .attention = r.attention};
  ROOFLINE_ASSIGN_OR_RETURN(const TrainingStep step, predict_training_step(r.model, c, mesh, pub.layout, config));
  ROOFLINE_ASSIGN_OR_RETURN(PlannerPlacing placing, place_in_plan(r, c, pub, RematChoice::kRunsPolicy));
  ROOFLINE_ASSIGN_OR_RETURN(PlannerPlacing placing_free, place_in_plan(r, c, pub, RematChoice::kFree));
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return PublishedRunRow{.name = r.name,
                         .chip = r.chip,
                         .chips = r.chips,
                         .mesh = r.mesh,
                         .remat = std::string(remat_name(r.remat)),
                         .attention = std::string(attention_kernel_name(r.attention)),
                         .tflops_per_chip = r.tflops_per_chip,
                         .tokens_per_s_per_chip = r.tokens_per_s_per_chip,
                         .reported_mfu = r.reported_mfu,
                         .step_time_s = measured_step_time_s(r),
                         .measured_mfu = measured_mfu(r, c),
                         .bound_mfu = step.mfu,
                         .expected_mfu = step.mfu_expected,
                         .expected_s = step.expected_s,
                         .bound_s = step.step_time_s,
                         .no_overlap_mfu = step.mfu_no_overlap,
                         .model_compute_s = step.t_compute_s,
                         .model_ici_s = step.roofline.t_ici_s,
                         .expected_compute_s = step.expected_compute_s,
                         .expected_exposed_s = step.expected_exposed_s,
                         .hidden_s = hidden_s(step),
                         .grad_sync_s = step.parts[detail::step::kGradSync].expected_s,
                         .laid_shape = mesh.slice_shape,
                         .run_shape = r.slice_shape,
                         .memory_gib = step.memory.total_bytes / kGiB,
                         .hbm_gib = step.memory.hbm_bytes / kGiB,
                         .fits = step.memory.fits,
                         .placing = std::move(placing),
                         .placing_free = std::move(placing_free)};
}

}  // namespace roofline::testing
