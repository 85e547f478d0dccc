// The training-step model: every op of one chip's share of a step, as
// rooflines, plus the collectives each strategy needs on the mesh.
#include "roofline/sharding/training_step.hpp"

#include <algorithm>
#include <cmath>

#include "roofline/detail/cat.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/sharding/mesh_collective.hpp"

namespace roofline {
namespace {

bool overlaps(AxisMask a, AxisMask b) { return (a & b) != 0; }

// Adds ops to one part of the step.
class PartBuilder {
 public:
  PartBuilder(StepPart& part, const Chip& chip, DType dtype) : p_(part), chip_(chip), dtype_(dtype) {}

  // [m, k] @ [k, n], `times` times.
  void matmul(std::int64_t m, std::int64_t k, std::int64_t n, double times) {
    if (times <= 0 || m <= 0 || k <= 0 || n <= 0) return;
    accumulate(p_.roofline, predict(Matmul{.m = m, .k = k, .n = n, .dtype = dtype_}, chip_), times);
  }
  // A forward matmul X[m, k] @ W[k, n] run `forward_runs` times (2 with
  // remat) and its two backward matmuls dX = dY W^T and dW = X^T dY.
  void training_matmul(std::int64_t m, std::int64_t k, std::int64_t n, double forward_runs, double times) {
    matmul(m, k, n, forward_runs * times);
    matmul(m, n, k, times);
    matmul(k, m, n, times);
  }
  // Memory-bound work given by its FLOPs and bytes.
  void stream(double flops, double bytes, double times) {
    if (times <= 0) return;
    accumulate(p_.roofline, make_prediction(flops, bytes, 0, 0, dtype_, chip_), times);
  }
  void collective(const CollectiveTime& t, double times) {
    p_.roofline.t_ici_s += times * t.t_ici_s;
    p_.roofline.ici_bytes += times * t.bytes_per_link;
  }

 private:
  StepPart& p_;
  const Chip& chip_;
  DType dtype_;
};

struct Shapes {
  std::int64_t D, F, H, T, Dl, Fl, Vl, nl, kl;
  int Y;
  double mlp_matrices;
  double layer_params_local_tp;  // one layer's parameters on one chip after tensor parallelism
  double embed_params_local_tp;  // the embedding (or unembedding) table after tensor parallelism
};

Shapes shapes(const ModelConfig& m, const Mesh& mesh, const ParallelLayout& lay, std::int64_t seq_len) {
  Shapes s;
  s.Y = mesh.size(lay.model);
  s.D = m.d_model;
  s.F = m.d_ff;
  s.H = m.head_dim;
  s.T = seq_len;
  s.Dl = m.d_model / s.Y;
  s.Fl = m.d_ff / s.Y;
  s.Vl = (m.vocab + s.Y - 1) / s.Y;
  s.nl = m.heads / s.Y;
  // GQA with fewer kv heads than tensor-parallel ways: each chip keeps the
  // one kv head its query heads use (computed redundantly).
  s.kl = m.kv_heads % s.Y == 0 ? m.kv_heads / s.Y : 1;
  s.mlp_matrices = m.mlp == MlpKind::kGated ? 3 : 2;
  s.layer_params_local_tp = static_cast<double>(s.D) * static_cast<double>((s.nl + 2 * s.kl) * s.H) +
                            static_cast<double>(s.nl * s.H) * static_cast<double>(s.D) +
                            s.mlp_matrices * static_cast<double>(s.D) * static_cast<double>(s.Fl) +
                            2.0 * static_cast<double>(s.D);
  s.embed_params_local_tp = static_cast<double>(s.Vl) * static_cast<double>(s.D);
  return s;
}

}  // namespace

std::string_view remat_name(Remat r) { return r == Remat::kFull ? "full" : "none"; }

absl::Status validate_training_step(const ModelConfig& model, const Chip& chip, const Mesh& mesh,
                                    const ParallelLayout& lay, const TrainingConfig& cfg) {
  if (absl::Status s = validate(model); !s.ok()) return s;
  if (!chip.has(cfg.dtype))
    return absl::InvalidArgumentError(
        detail::cat(chip.name, " has no ", peak_class_name(peak_class(cfg.dtype)), " peak"));
  const AxisMask all = mesh.all_axes();
  if ((lay.data | lay.fsdp | lay.model) & ~all)
    return absl::InvalidArgumentError("layout names axes the mesh does not have");
  if (overlaps(lay.data, lay.model))
    return absl::InvalidArgumentError("a mesh axis cannot be both a data and a tensor-parallel axis");
  if (lay.fsdp & ~lay.data) return absl::InvalidArgumentError("FSDP axes must also be data axes");
  int stages = 1;
  if (lay.pipeline_axis >= 0) {
    if (lay.pipeline_axis >= static_cast<int>(mesh.axes.size()))
      return absl::InvalidArgumentError("the pipeline axis is not a mesh axis");
    const AxisMask pm = AxisMask{1} << lay.pipeline_axis;
    if (overlaps(pm, lay.data | lay.model))
      return absl::InvalidArgumentError("the pipeline axis cannot also be a data or tensor-parallel axis");
    stages = mesh.axes[static_cast<std::size_t>(lay.pipeline_axis)].size;
  }
  if (model.layers % stages != 0)
    return absl::InvalidArgumentError(
        detail::cat(stages, " pipeline stages do not divide the model's ", model.layers, " layers"));
  if (cfg.microbatches < 1) return absl::InvalidArgumentError("microbatches must be >= 1");
  if (stages == 1 && cfg.microbatches != 1)
    return absl::InvalidArgumentError("microbatches apply to a pipeline; without one use 1");
  const std::int64_t seq = cfg.seq_len > 0 ? cfg.seq_len : model.seq_len;
  if (cfg.batch_tokens <= 0 || cfg.batch_tokens % seq != 0)
    return absl::InvalidArgumentError(
        detail::cat("the batch of ", cfg.batch_tokens, " tokens is not a whole number of ", seq, "-token sequences"));
  const std::int64_t sequences = cfg.batch_tokens / seq;
  const int x = mesh.size(lay.data);
  if (sequences % (static_cast<std::int64_t>(x) * cfg.microbatches) != 0)
    return absl::InvalidArgumentError(detail::cat(sequences, " sequences do not split evenly over ", x,
                                                  " data shards x ", cfg.microbatches, " microbatches"));
  const int y = mesh.size(lay.model);
  if (model.heads % y != 0 || model.d_ff % y != 0 || model.d_model % y != 0)
    return absl::InvalidArgumentError(detail::cat(y, "-way tensor parallelism needs heads (", model.heads,
                                                  "), d_ff and d_model divisible by ", y));
  if (model.kv_heads % y != 0 && y % model.kv_heads != 0)
    return absl::InvalidArgumentError(
        detail::cat(y, "-way tensor parallelism and ", model.kv_heads, " kv heads: one must divide the other"));
  if (!(cfg.optimizer_bytes_per_param >= 0))
    return absl::InvalidArgumentError("optimizer bytes per parameter must be >= 0");
  return absl::OkStatus();
}

namespace detail {

TrainingStep training_step_unchecked(const ModelConfig& model, const Chip& chip, const Mesh& mesh,
                                     const ParallelLayout& lay, const TrainingConfig& cfg) {
  const std::int64_t seq = cfg.seq_len > 0 ? cfg.seq_len : model.seq_len;
  const Shapes s = shapes(model, mesh, lay, seq);
  const DType dt = cfg.dtype;
  const double bytes = bytes_per_element(dt);
  const int X = mesh.size(lay.data), Xf = mesh.size(lay.fsdp);
  const int P = lay.pipeline_axis >= 0 ? mesh.axes[static_cast<std::size_t>(lay.pipeline_axis)].size : 1;
  const int M = cfg.microbatches;
  const AxisMask dp_only = lay.data & ~lay.fsdp;
  const std::int64_t b = cfg.batch_tokens / X;  // tokens per chip per step
  const std::int64_t t = b / M;                 // tokens per chip per microbatch
  const double L_s = static_cast<double>(model.layers) / P;
  const double fwd_runs = cfg.remat == Remat::kFull ? 2 : 1;
  const double per_layer = L_s * M;  // layer executions per step on one chip (per microbatch each)

  TrainingStep st;
  st.chips = mesh.device_count();
  st.tokens_per_chip = static_cast<double>(b);
  enum Part { kAttnProj, kAttnCore, kMlp, kNorms, kEmbed, kUnembed, kTp, kFsdp, kGradSync, kPipe, kParts };
  st.parts.resize(kParts);
  static constexpr std::string_view kNames[kParts] = {
      "attention projections", "attention core", "mlp", "norms and residuals", "embedding",
      "unembedding and loss", "tensor-parallel collectives", "fsdp collectives", "gradient all-reduce",
      "pipeline transfers"};
  for (int i = 0; i < kParts; ++i) st.parts[i].name = kNames[i];
  auto part = [&](Part p) { return PartBuilder(st.parts[p], chip, dt); };

  // --- per layer (and per microbatch) ---
  {
    PartBuilder ap = part(kAttnProj);
    ap.training_matmul(t, s.D, (s.nl + 2 * s.kl) * s.H, fwd_runs, per_layer);  // x @ [Wq Wk Wv]
    ap.training_matmul(t, s.nl * s.H, s.D, fwd_runs, per_layer);               // attn @ Wo
  }
  {
    // Flash-style attention: Q, K, V and O cross HBM once (forward), and
    // Q, K, V, O, dO in and dQ, dK, dV out (backward). FLOPs: QK^T and PV,
    // 2 x 2 x t x T x H per query head forward, twice that backward.
    PartBuilder ac = part(kAttnCore);
    const double causal = cfg.mask == AttentionMask::kCausal ? 0.5 : 1.0;
    const double fwd_flops = 4.0 * static_cast<double>(t) * static_cast<double>(s.T) *
                             static_cast<double>(s.nl * s.H) * causal;
    const double qkvo = static_cast<double>(t * s.H) * bytes;
    ac.stream(fwd_flops, qkvo * static_cast<double>(2 * s.nl + 2 * s.kl), fwd_runs * per_layer);
    ac.stream(2 * fwd_flops, qkvo * static_cast<double>(4 * s.nl + 4 * s.kl), per_layer);
  }
  {
    PartBuilder mlp = part(kMlp);
    const bool gated = model.mlp == MlpKind::kGated;
    mlp.training_matmul(t, s.D, (gated ? 2 : 1) * s.Fl, fwd_runs, per_layer);  // x @ [W_gate W_up]
    mlp.training_matmul(t, s.Fl, s.D, fwd_runs, per_layer);                    // h @ W_down
    // Activation: gated silu(g) * u reads g, u and writes h (4 FLOPs an
    // element: sigmoid's add and divide, two multiplies; the exp is a
    // transcendental); its backward reads g, u, dh and writes dg, du.
    const double el = static_cast<double>(t * s.Fl);
    if (gated) {
      mlp.stream(4 * el, 3 * el * bytes, fwd_runs * per_layer);
      mlp.stream(8 * el, 5 * el * bytes, per_layer);
    } else {
      mlp.stream(4 * el, 2 * el * bytes, fwd_runs * per_layer);
      mlp.stream(8 * el, 3 * el * bytes, per_layer);
    }
  }
  {
    // Two RMS norms (square, sum, scale, multiply: 4 FLOPs an element) on the
    // [t, D/Y] residual shard, read and written once each way, and two
    // residual adds (read 2, write 1).
    PartBuilder n = part(kNorms);
    const double el = static_cast<double>(t * s.Dl);
    n.stream(2 * 4 * el, 2 * 2 * el * bytes, fwd_runs * per_layer);
    n.stream(2 * 8 * el, 2 * 3 * el * bytes, per_layer);
    n.stream(2 * el, 2 * 3 * el * bytes, fwd_runs * per_layer);
  }
  if (s.Y > 1) {
    // Book's TP: AllGather_Y In[B, D_Y] before each block, ReduceScatter_Y
    // after; backward: AllGather_Y dOut, ReduceScatter_Y dIn, and the
    // block's input gathered again for its weight gradient.
    PartBuilder tp = part(kTp);
    const double v = static_cast<double>(t * s.D) * bytes;
    const CollectiveTime ag = collective_time(mesh, CollectiveKind::kAllGather, lay.model, v);
    const CollectiveTime rs = collective_time(mesh, CollectiveKind::kReduceScatter, lay.model, v);
    tp.collective(ag, 2 * fwd_runs * per_layer + 4 * per_layer);
    tp.collective(rs, 2 * fwd_runs * per_layer + 2 * per_layer);
  }
  const double layer_weight_bytes = s.layer_params_local_tp * bytes;
  if (Xf > 1) {
    // ZeRO-3: gather a layer's weights before its forward and again before
    // its backward (per microbatch), reduce-scatter its gradient.
    PartBuilder f = part(kFsdp);
    f.collective(collective_time(mesh, CollectiveKind::kAllGather, lay.fsdp, layer_weight_bytes), 2 * per_layer);
    f.collective(collective_time(mesh, CollectiveKind::kReduceScatter, lay.fsdp, layer_weight_bytes), per_layer);
  }
  if (dp_only) {
    // Pure data parallelism: the gradient (its FSDP shard) is all-reduced
    // once per step, off the critical path.
    PartBuilder g = part(kGradSync);
    g.collective(collective_time(mesh, CollectiveKind::kAllReduce, dp_only, layer_weight_bytes / Xf), L_s);
  }

  // --- embedding (first stage) and unembedding + loss (last stage) ---
  const double embed_bytes = s.embed_params_local_tp * bytes;
  const bool has_embed = P == 1;  // with a pipeline the slowest stage is the last one
  if (has_embed) {
    PartBuilder e = part(kEmbed);
    const double el = static_cast<double>(t * s.Dl);
    e.stream(0, 2 * el * bytes, M);  // gather rows: read and write [t, D/Y]
    e.stream(el, 3 * el * bytes, M);  // scatter-add the gradient rows
  }
  {
    PartBuilder u = part(kUnembed);
    u.training_matmul(t, s.D, s.Vl, fwd_runs, M);
    // Softmax cross-entropy on [t, V/Y]: read the logits, keep fp32
    // probabilities, write their gradient (5 FLOPs an element: max, subtract,
    // sum, divide, subtract; the exp is a transcendental).
    const double el = static_cast<double>(t * s.Vl);
    u.stream(5 * el, el * (2 * bytes + 2 * 4.0), M);
  }
  if (s.Y > 1) {
    // The unembedding needs [t, D] whole: gather it, reduce-scatter dX.
    PartBuilder tp = part(kTp);
    const double v = static_cast<double>(t * s.D) * bytes;
    tp.collective(collective_time(mesh, CollectiveKind::kAllGather, lay.model, v), fwd_runs * M);
    tp.collective(collective_time(mesh, CollectiveKind::kReduceScatter, lay.model, v), M);
  }
  const double tables = (has_embed && !model.tied_embeddings) ? 2 : 1;
  if (Xf > 1) {
    PartBuilder f = part(kFsdp);
    f.collective(collective_time(mesh, CollectiveKind::kAllGather, lay.fsdp, embed_bytes), (tables + 1) * M);
    f.collective(collective_time(mesh, CollectiveKind::kReduceScatter, lay.fsdp, embed_bytes), tables * M);
  }
  if (dp_only) {
    PartBuilder g = part(kGradSync);
    g.collective(collective_time(mesh, CollectiveKind::kAllReduce, dp_only, embed_bytes / Xf), tables);
  }
  if (P > 1) {
    // Activations forward and their gradients backward cross each stage
    // boundary once per microbatch: a shift by one along the pipeline axis.
    PartBuilder pp = part(kPipe);
    const AxisMask pm = AxisMask{1} << lay.pipeline_axis;
    const double shard = static_cast<double>(t * s.Dl) * bytes;
    pp.collective(collective_time(mesh, CollectiveKind::kPermute, pm, shard * P, 1), 2.0 * M);
  }

  // --- totals ---
  st.bubble_factor = static_cast<double>(M + P - 1) / M;
  Prediction& r = st.roofline;
  double compute = 0;
  for (const StepPart& p : st.parts) {
    accumulate(r, p.roofline);
    compute += p.roofline.t_lower_s;
  }
  r.t_math_s *= st.bubble_factor;
  r.t_hbm_s *= st.bubble_factor;
  st.t_compute_s = compute * st.bubble_factor;
  r.t_lower_s = std::max(st.t_compute_s, r.t_ici_s);
  r.t_upper_s = st.t_compute_s + r.t_ici_s;
  settle_sum(r, dt, select_peak(chip, peak_class(dt)), chip);
  st.step_time_s = r.t_lower_s;
  st.model_flops = model_training_flops(model, static_cast<double>(cfg.batch_tokens), static_cast<double>(seq),
                                        cfg.mask);
  const double peak = chip.peak_flops_per_s_for(dt);
  st.mfu = st.step_time_s > 0 ? st.model_flops / (st.step_time_s * st.chips * peak) : 0;

  // --- memory per chip: the fuller of the first and last pipeline stage ---
  MemoryPerChip& mem = st.memory;
  mem.hbm_bytes = chip.hbm_bytes;
  const bool gated = model.mlp == MlpKind::kGated;
  // Saved for the backward pass, per token per layer (elements): the two
  // norm inputs [D/Y], the gathered block inputs [D] (QKV and MLP), Q, K, V
  // and the attention output, softmax statistics (fp32, one per head), and
  // the MLP's gate, up and product (gated) or pre-activation and activation.
  const double saved_elems = 2.0 * static_cast<double>(s.Dl) + 2.0 * static_cast<double>(s.D) +
                             static_cast<double>((2 * s.nl + 2 * s.kl) * s.H) +
                             static_cast<double>(s.nl) * 4.0 / bytes +
                             (gated ? 3.0 : 2.0) * static_cast<double>(s.Fl);
  const double layer_act_per_token = saved_elems * bytes;
  const double logits_bytes = static_cast<double>(t * s.Vl) * (bytes + 4.0);
  for (int stage : {0, P - 1}) {
    const bool first = stage == 0, last = stage == P - 1;
    double params = L_s * s.layer_params_local_tp / Xf + static_cast<double>(s.D);
    const int stage_tables = (first ? 1 : 0) + (last ? 1 : 0);
    params += s.embed_params_local_tp / Xf * ((model.tied_embeddings && first && last) ? 1 : stage_tables);
    // 1F1B: stage s holds the activations of min(M, P - s) microbatches.
    const double in_flight = static_cast<double>(std::min(M, P - stage)) * static_cast<double>(t);
    const double no_remat = L_s * in_flight * layer_act_per_token + (last ? logits_bytes : 0);
    const double remat = L_s * in_flight * static_cast<double>(s.Dl) * bytes +
                         static_cast<double>(t) * layer_act_per_token + (last ? logits_bytes : 0);
    const double acts = cfg.remat == Remat::kFull ? remat : no_remat;
    const double gathered = Xf > 1 ? 2 * layer_weight_bytes : 0;
    const double total = params * (2 * bytes + cfg.optimizer_bytes_per_param) + gathered + acts;
    if (total >= mem.total_bytes) {
      mem.params_bytes = params * bytes;
      mem.grads_bytes = params * bytes;
      mem.optimizer_bytes = params * cfg.optimizer_bytes_per_param;
      mem.gathered_weights_bytes = gathered;
      mem.activations_bytes = acts;
      mem.activations_no_remat_bytes = no_remat;
      mem.activations_remat_bytes = remat;
      mem.total_bytes = total;
    }
  }
  mem.fits = mem.total_bytes <= mem.hbm_bytes;
  return st;
}

}  // namespace detail

absl::StatusOr<TrainingStep> predict_training_step(const ModelConfig& model, const Chip& chip, const Mesh& mesh,
                                                   const ParallelLayout& layout, const TrainingConfig& config) {
  if (absl::Status s = validate_training_step(model, chip, mesh, layout, config); !s.ok()) return s;
  return detail::training_step_unchecked(model, chip, mesh, layout, config);
}

std::string strategy_name(const Mesh& mesh, const ParallelLayout& lay, int microbatches) {
  auto axes = [&](AxisMask m) {
    std::string s;
    for (std::size_t i = 0; i < mesh.axes.size(); ++i)
      if (m & (AxisMask{1} << i)) s += detail::cat(s.empty() ? "" : ",", mesh.axes[i].name, "=", mesh.axes[i].size);
    return s;
  };
  AxisMask ici = 0, dcn = 0;
  for (std::size_t i = 0; i < mesh.axes.size(); ++i)
    (mesh.axes[i].network == AxisNetwork::kDcn ? dcn : ici) |= AxisMask{1} << i;
  std::vector<std::string> parts;
  const AxisMask fsdp_ici = lay.fsdp & ici, fsdp_dcn = lay.fsdp & dcn;
  const AxisMask dp_ici = lay.data & ~lay.fsdp & ici, dp_dcn = lay.data & ~lay.fsdp & dcn;
  if (fsdp_ici) parts.push_back(detail::cat("FSDP(", axes(fsdp_ici), ")"));
  if (dp_ici) parts.push_back(detail::cat("DP(", axes(dp_ici), ")"));
  if (lay.model) parts.push_back(detail::cat("TP(", axes(lay.model), ")"));
  if (lay.pipeline_axis >= 0) {
    const MeshAxis& a = mesh.axes[static_cast<std::size_t>(lay.pipeline_axis)];
    parts.push_back(detail::cat("PP(", a.name, "=", a.size, a.network == AxisNetwork::kDcn ? " over DCN" : "", ", ",
                                microbatches, " microbatches)"));
  }
  if (fsdp_dcn) parts.push_back(detail::cat("FSDP over DCN(", axes(fsdp_dcn), ")"));
  if (dp_dcn) parts.push_back(detail::cat("DP over DCN(", axes(dp_dcn), ")"));
  if (parts.empty()) return "single device";
  std::string out;
  for (const std::string& p : parts) out += detail::cat(out.empty() ? "" : " + ", p);
  return out;
}

}  // namespace roofline
