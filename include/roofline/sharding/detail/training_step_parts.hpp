// Implementation of roofline/sharding/training_step.hpp: every op of one
// chip's share of a step, as rooflines, plus the collectives each strategy
// needs on the mesh. Included at the end of training_step.hpp; not a public
// header.
//
// training_step() runs these in order, each adding to its parts:
//   layer_compute        attention projections and core, MLP, norms
//   layer_collectives    tensor-parallel, FSDP and gradient collectives of the layers
//   embedding_and_loss   embedding (first stage), unembedding and loss (last
//                        stage) and the collectives of their tables
//   pipeline_transfers   activations across stage boundaries
//   host_offload         the copies to host memory and back (Remat::kOffload, kOffloadQkv)
//   step_totals          the step's bounds and expected time, bubble, MFU
//                        (detail/training_expected.hpp)
//   memory_per_chip      what the fuller of the first and last stage holds
//                        (detail/training_memory.hpp)
// What each remat policy runs twice and keeps: detail/training_remat.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "roofline/calibration.hpp"
#include "roofline/collectives/expected.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/predict.hpp"
#include "roofline/sharding/layers.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/detail/training_remat.hpp"
#include "roofline/sharding/training_step.hpp"

namespace roofline::detail::step {

// Which pass of the step the ops added next run in: the forward, or the
// backward (where jax's remat runs its recomputed forward work too).
enum class Pass { kForward, kBackward };

// A collective over mesh axes: its shape (the array, the devices of its
// group), which picks its expected time, and its roofline on the mesh.
struct MeshCollective {
  CollectiveShape shape;
  CollectiveTime time;
  // Whether a published model covers the group: the TPU figures are of
  // collectives over ICI, not DCN; NCCL's model (nccl_system) takes a group
  // of n ranks as min(n, the NVLink domain) a node, so a GPU group over DCN
  // axes whose ICI axes do not fill a node (data parallelism across nodes:
  // one rank a node) would be timed over NVLink. Such a group keeps the
  // collective curve, which collective_time prices at the DCN's bandwidth.
  // `roofline predict collective` knows the group by its size alone and
  // takes the model there too.
  bool shape_model_fits = true;
};

// Adds ops to one part of the step: each op's roofline into the part's
// roofline and its calibrated expected time (roofline::expected_s with the
// op's cost class) into the part's expected_s (and expected_forward_s for
// the forward pass's), `times` occurrences each. Ops run in the forward
// pass unless added after backward().
class PartBuilder {
 public:
  PartBuilder(StepPart& part, const Chip& chip, DType dtype, const ChipCalibration& cal)
      : p_(part), chip_(chip), dtype_(dtype), cal_(cal) {}

  PartBuilder& forward() { pass_ = Pass::kForward; return *this; }
  PartBuilder& backward() { pass_ = Pass::kBackward; return *this; }

  // [m, k] @ [k, n], `times` times.
  void matmul(std::int64_t m, std::int64_t k, std::int64_t n, double times) { matmul_in(pass_, m, k, n, times); }
  // A forward matmul X[m, k] @ W[k, n] run `forward_runs` times (2 when the
  // remat policy recomputes it: once in the forward pass, again in the
  // backward) and its two backward matmuls dX = dY W^T and dW = X^T dY.
  void training_matmul(std::int64_t m, std::int64_t k, std::int64_t n, double forward_runs, double times) {
    matmul_in(Pass::kForward, m, k, n, times);
    matmul_in(Pass::kBackward, m, k, n, (forward_runs - 1) * times);
    matmul_in(Pass::kBackward, m, n, k, times);
    matmul_in(Pass::kBackward, k, m, n, times);
  }
  // Work given by its FLOPs and bytes: element-wise work (kMemory) or a
  // fused kernel on the matrix units (kMatmul: flash attention).
  void stream(double flops, double bytes, double times, CostClass c = CostClass::kMemory) {
    stream_in(pass_, flops, bytes, times, c);
  }
  // Forward work run `runs` times per occurrence (2: the remat policy runs
  // it again in the backward pass).
  void forward_stream(double flops, double bytes, double runs, double times, CostClass c = CostClass::kMemory) {
    stream_in(Pass::kForward, flops, bytes, times, c);
    stream_in(Pass::kBackward, flops, bytes, (runs - 1) * times, c);
  }
  // One collective of shape `c` whose roofline is `t`, `times` times: its
  // link terms into the roofline, and its expected time as every other
  // path takes a collective no trace names (expected_collective_s in
  // roofline/expected/expected.hpp: `roofline predict collective`, hlo
  // rows, sharded-matmul strategies): the published model of its shape
  // (expected_planned_collective) where the calibration takes one
  // (ChipCalibration::collective_shape_model) and one applies, else the
  // collective class's curve. That function is compiled (roofline::roofline)
  // and this header is roofline::core, so its two lines are repeated here;
  // tests/sharding/step_collective_test.cc holds them equal.
  // `shape_model` false: no published model covers the group
  // (MeshCollective::shape_model_fits); the curve times it.
  void collective(const CollectiveShape& c, const CollectiveTime& t, double times, bool shape_model = true) {
    if (times <= 0) return;
    Prediction one;
    one.ici_bytes = t.bytes_per_link;
    one.t_ici_s = t.t_ici_s;
    if (shape_model && cal_.collective_shape_model)
      if (const std::optional<CollectiveExpectation> e = expected_planned_collective(c, chip_, t.t_ici_s)) {
        add_link(one, times);
        add_expected(pass_, times * e->total_s());
        return;
      }
    transfer(one, CostClass::kCollective, times);
  }
  void collective(const MeshCollective& c, double times) { collective(c.shape, c.time, times, c.shape_model_fits); }
  // A copy of `bytes` between HBM and host memory over the host link.
  void host_copy(double bytes, double times) {
    Prediction one;
    one.host_bytes = bytes;
    one.t_host_s = bytes / chip_.pcie_bytes_per_s;
    transfer(one, CostClass::kHostLink, times);
  }

 private:
  void matmul_in(Pass pass, std::int64_t m, std::int64_t k, std::int64_t n, double times) {
    if (times <= 0 || m <= 0 || k <= 0 || n <= 0) return;
    add(pass, predict(Matmul{.m = m, .k = k, .n = n, .dtype = dtype_}, chip_), CostClass::kMatmul, times);
  }
  void stream_in(Pass pass, double flops, double bytes, double times, CostClass c) {
    if (times <= 0) return;
    add(pass, make_prediction(flops, bytes, 0, 0, dtype_, chip_), c, times);
  }
  void add(Pass pass, const Prediction& p, CostClass c, double times) {
    accumulate(p_.roofline, p, times);
    add_expected(pass, times * expected_s(p, c, cal_));
  }
  void add_expected(Pass pass, double s) {
    p_.expected_s += s;
    if (pass == Pass::kForward) p_.expected_forward_s += s;
  }
  // Transfers add only their link terms (`one` has no others): the step
  // overlaps them with the compute of their pass (training_expected.hpp),
  // not op by op.
  void transfer(Prediction one, CostClass c, double times) {
    if (times <= 0) return;
    add_link(one, times);
    settle_bounds(one);
    add_expected(pass_, times * expected_s(one, c, cal_));
  }
  void add_link(const Prediction& one, double times) {
    p_.roofline.t_ici_s += times * one.t_ici_s;
    p_.roofline.ici_bytes += times * one.ici_bytes;
    p_.roofline.t_host_s += times * one.t_host_s;
    p_.roofline.host_bytes += times * one.host_bytes;
  }

  StepPart& p_;
  const Chip& chip_;
  DType dtype_;
  const ChipCalibration& cal_;
  Pass pass_ = Pass::kForward;
};

enum Part {
  kAttnProj, kAttnCore, kMlp, kNorms, kEmbed, kUnembed, kTp, kFsdp, kGradSync, kPipe, kHostOffload, kParts
};

inline constexpr std::string_view kPartNames[kParts] = {
    "attention projections", "attention core", "mlp", "norms and residuals", "embedding",
    "unembedding and loss", "tensor-parallel collectives", "fsdp collectives", "gradient all-reduce",
    "pipeline transfers", "host offload"};

// How the step's expected time treats each part (training_expected.hpp).
enum class Overlap { kCompute, kExposed, kHidden };
constexpr Overlap overlap_of(int part) {
  switch (part) {
    case kTp:
    case kPipe: return Overlap::kExposed;
    case kFsdp:
    case kGradSync:
    case kHostOffload: return Overlap::kHidden;
    default: return Overlap::kCompute;
  }
}

// The model's sizes on one chip after tensor parallelism over Y ways.
struct Shapes {
  std::int64_t D, F, H, T, Dl, Fl, Vl, nl, kl;
  int Y;
  double mlp_matrices;
  double layer_params_local_tp;  // one layer's parameters on one chip after tensor parallelism
  double embed_params_local_tp;  // the embedding (or unembedding) table after tensor parallelism
};

inline Shapes shapes(const ModelConfig& m, const Mesh& mesh, const ParallelLayout& lay, std::int64_t seq_len) {
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

// The policy a step runs under `r` with attention `kernel`.
// minimal-with-context keeps what the attention core names 'context' inside
// its forward (MaxText's splash kernel, residual_checkpoint_name; Transformer
// Engine's fused attention); a materialised core (MaxText's dot-product
// path) names nothing so, and the policy runs as minimal there.
constexpr Remat remat_with_kernel(Remat r, AttentionKernel kernel) {
  return r == Remat::kMinimalWithContext && kernel == AttentionKernel::kMaterialized ? Remat::kMinimal : r;
}

// What every part of the step is computed from: the inputs, the local
// shapes, and the counts per chip.
struct Context {
  const ModelConfig& model;
  const Chip& chip;
  const Mesh& mesh;
  const ParallelLayout& lay;
  const TrainingConfig& cfg;
  const ChipCalibration& cal;
  std::int64_t seq;           // sequence length
  Shapes s;
  DType dt;                   // the compute dtype
  double bytes;               // bytes per element of dt
  double grad_bytes;          // bytes per element of the gradients
  int X, Xf;                  // data ways, FSDP ways
  int P;                      // pipeline stages
  int M;                      // microbatches
  AxisMask dp_only;           // data axes without FSDP
  std::int64_t b;             // tokens per chip per step
  std::int64_t t;             // tokens per chip per microbatch
  double L_s;                 // layers per stage
  RematRuns runs;             // how often each piece of a layer's forward runs
  double per_layer;           // layer executions per step on one chip (per microbatch each)
  double layer_weight_bytes;  // one layer's weights on one chip after tensor parallelism, compute dtype
  double embed_bytes;         // one embedding table on one chip after tensor parallelism, compute dtype
  bool has_embed;             // the slowest stage holds the embedding (no pipeline)

  PartBuilder part(TrainingStep& st, Part p) const { return PartBuilder(st.parts[p], chip, dt, cal); }
  // `kind` of `v_bytes` over `axes`, as `roofline predict collective` takes
  // it: V the whole array, the group every chip of the axes.
  MeshCollective collective(CollectiveKind kind, AxisMask axes, double v_bytes, int shift = 1) const {
    int ici = 1, dcn = 1;
    for (std::size_t i = 0; i < mesh.axes.size(); ++i)
      if (axes & (AxisMask{1} << i)) (mesh.axes[i].network == AxisNetwork::kDcn ? dcn : ici) *= mesh.axes[i].size;
    return {.shape = {.kind = kind, .array_bytes = v_bytes, .group_size = mesh.size(axes)},
            .time = collective_time(mesh, kind, axes, v_bytes, shift),
            .shape_model_fits = dcn == 1 || (chip.kind == ChipKind::kGpu && ici >= chip.ici.domain_chips())};
  }
  double layer_grad_bytes() const { return s.layer_params_local_tp * grad_bytes; }
  // One layer's activations per token under policy `r` (training_remat.hpp).
  LayerActivations activations(Remat r) const {
    return layer_activations(remat_with_kernel(r, cfg.attention), model.mlp, static_cast<double>(s.D),
                             static_cast<double>(s.Dl), static_cast<double>(s.Fl), static_cast<double>(s.nl * s.H),
                             static_cast<double>(s.kl * s.H), static_cast<double>(s.nl), bytes,
                             cfg.attention == AttentionKernel::kMaterialized
                                 ? static_cast<double>(s.nl) * static_cast<double>(s.T)
                                 : 0.0);
  }
  double embed_grad_bytes() const { return s.embed_params_local_tp * grad_bytes; }
};

inline Context context(const ModelConfig& model, const Chip& chip, const Mesh& mesh, const ParallelLayout& lay,
                       const TrainingConfig& cfg, const ChipCalibration& cal) {
  const std::int64_t seq = cfg.seq_len > 0 ? cfg.seq_len : model.seq_len;
  const Shapes s = shapes(model, mesh, lay, seq);
  const double bytes = bytes_per_element(cfg.dtypes.compute);
  const int X = mesh.size(lay.data);
  const int P = lay.pipeline_axis >= 0 ? mesh.axes[static_cast<std::size_t>(lay.pipeline_axis)].size : 1;
  const int M = cfg.microbatches;
  const std::int64_t b = cfg.batch_tokens / X;
  const double L_s = static_cast<double>(model.layers) / P;
  return Context{.model = model, .chip = chip, .mesh = mesh, .lay = lay, .cfg = cfg, .cal = cal,
                 .seq = seq, .s = s, .dt = cfg.dtypes.compute, .bytes = bytes,
                 .grad_bytes = bytes_per_element(cfg.dtypes.grads),
                 .X = X, .Xf = mesh.size(lay.fsdp), .P = P, .M = M,
                 .dp_only = lay.data & ~lay.fsdp, .b = b, .t = b / M, .L_s = L_s,
                 .runs = remat_runs(remat_with_kernel(cfg.remat, cfg.attention)), .per_layer = L_s * M,
                 .layer_weight_bytes = s.layer_params_local_tp * bytes,
                 .embed_bytes = s.embed_params_local_tp * bytes,
                 // With a pipeline the slowest stage is the last one.
                 .has_embed = P == 1};
}

// The attention core of every layer (per microbatch): QK^T, softmax, PV
// and their backward, as TrainingConfig::attention runs them. Per query
// head and token, QK^T and PV are 2 x T x H FLOPs each forward, and the
// backward runs four such products (dP = dO V^T, dV = P^T dO, dQ = dS K,
// dK = dS^T Q). A fused kernel skips the blocks a causal mask removes
// (half the product); kFlashFullProduct and kMaterialized compute all of it.
inline void attention_core(const Context& c, TrainingStep& st) {
  const Shapes& s = c.s;
  PartBuilder ac = c.part(st, kAttnCore);
  const AttentionKernel kernel = c.cfg.attention;
  const double skipped = kernel == AttentionKernel::kFlash && c.cfg.mask == AttentionMask::kCausal ? 0.5 : 1.0;
  // One T x H product over all local query heads: 2 x t x T x H x N_l.
  const double product = 2.0 * static_cast<double>(c.t) * static_cast<double>(s.T) *
                         static_cast<double>(s.nl * s.H) * skipped;
  const double q_bytes = static_cast<double>(c.t * s.nl * s.H) * c.bytes;  // Q, O, dO, dQ: [t, N_l H]
  const double kv_bytes = static_cast<double>(c.t * s.kl * s.H) * c.bytes;  // K, V, dK, dV: [t, K_l H]
  if (kernel != AttentionKernel::kMaterialized) {
    // Q, K, V and O cross HBM once forward; Q, K, V, O, dO in and dQ, dK,
    // dV out backward. The products run on the matrix units: calibrated as
    // matmuls.
    ac.forward_stream(2 * product, 2 * q_bytes + 2 * kv_bytes, c.runs.attn_core, c.per_layer, CostClass::kMatmul);
    ac.backward().stream(4 * product, 4 * q_bytes + 4 * kv_bytes, c.per_layer, CostClass::kMatmul);
    return;
  }
  // Materialised ("dot_product"): each product is its own matmul and the
  // [t, N_l, T] scores, probabilities and their gradients cross HBM in the
  // compute dtype (MaxText's float32_logits=False: the einsum's output and
  // jax.nn.softmax stay bf16). Passes over [t, N_l, T] (e elements):
  //   forward   write S (QK^T), read S and write P (softmax), read P (PV): 4
  //   backward  write dP (dO V^T), read P (dV = P^T dO), read P and dP and
  //             write dS (softmax backward), read dS twice (dQ, dK): 7
  // Softmax: 5 FLOPs an element forward (max, subtract, sum, divide, the
  // mask's add; the exp is a transcendental), 4 backward (multiply, sum,
  // subtract, multiply). The mask, [B, 1, T, T] broadcast over the heads,
  // is not counted: N_l times smaller than the scores.
  const double e = static_cast<double>(c.t) * static_cast<double>(s.nl) * static_cast<double>(s.T);
  const double e_bytes = e * c.bytes;
  const double runs = c.runs.attn_core;
  ac.forward_stream(product, q_bytes + kv_bytes + e_bytes, runs, c.per_layer, CostClass::kMatmul);  // S = Q K^T
  ac.forward_stream(5 * e, 2 * e_bytes, runs, c.per_layer);                                        // P = softmax(S + mask)
  ac.forward_stream(product, e_bytes + kv_bytes + q_bytes, runs, c.per_layer, CostClass::kMatmul);  // O = P V
  ac.backward();
  ac.stream(product, q_bytes + kv_bytes + e_bytes, c.per_layer, CostClass::kMatmul);          // dP = dO V^T
  ac.stream(product, e_bytes + q_bytes + kv_bytes, c.per_layer, CostClass::kMatmul);          // dV = P^T dO
  ac.stream(4 * e, 3 * e_bytes, c.per_layer);                                                   // dS
  ac.stream(product, e_bytes + kv_bytes + q_bytes, c.per_layer, CostClass::kMatmul);          // dQ = dS K
  ac.stream(product, e_bytes + q_bytes + kv_bytes, c.per_layer, CostClass::kMatmul);          // dK = dS^T Q
}

// The compute of every layer (per microbatch): attention projections and
// core, the MLP and its activation, norms and residual adds.
inline void layer_compute(const Context& c, TrainingStep& st) {
  const Shapes& s = c.s;
  const std::int64_t t = c.t;
  {
    PartBuilder ap = c.part(st, kAttnProj);
    ap.training_matmul(t, s.D, (s.nl + 2 * s.kl) * s.H, c.runs.qkv_proj, c.per_layer);  // x @ [Wq Wk Wv]
    ap.training_matmul(t, s.nl * s.H, s.D, c.runs.out_proj, c.per_layer);               // attn @ Wo
  }
  attention_core(c, st);
  {
    PartBuilder mlp = c.part(st, kMlp);
    const bool gated = c.model.mlp == MlpKind::kGated;
    mlp.training_matmul(t, s.D, (gated ? 2 : 1) * s.Fl, c.runs.mlp_in, c.per_layer);  // x @ [W_gate W_up]
    mlp.training_matmul(t, s.Fl, s.D, 1, c.per_layer);                                // h @ W_down, never again
    // Activation: gated silu(g) * u reads g, u and writes h (4 FLOPs an
    // element: sigmoid's add and divide, two multiplies; the exp is a
    // transcendental); its backward reads g, u, dh and writes dg, du.
    const double el = static_cast<double>(t * s.Fl);
    if (gated) {
      mlp.forward_stream(4 * el, 3 * el * c.bytes, c.runs.elementwise, c.per_layer);
      mlp.backward().stream(8 * el, 5 * el * c.bytes, c.per_layer);
    } else {
      mlp.forward_stream(4 * el, 2 * el * c.bytes, c.runs.elementwise, c.per_layer);
      mlp.backward().stream(8 * el, 3 * el * c.bytes, c.per_layer);
    }
  }
  {
    // Two RMS norms (square, sum, scale, multiply: 4 FLOPs an element) on the
    // [t, D/Y] residual shard, read and written once each way, and two
    // residual adds (read 2, write 1).
    PartBuilder n = c.part(st, kNorms);
    const double el = static_cast<double>(t * s.Dl);
    n.forward_stream(2 * 4 * el, 2 * 2 * el * c.bytes, c.runs.elementwise, c.per_layer);
    n.forward_stream(2 * el, 2 * 3 * el * c.bytes, c.runs.elementwise, c.per_layer);
    n.backward().stream(2 * 8 * el, 2 * 3 * el * c.bytes, c.per_layer);
  }
}

// The collectives of every layer: tensor parallelism's activation gathers
// and reductions, FSDP's weight gathers, and the data-parallel gradient
// all-reduce.
inline void layer_collectives(const Context& c, TrainingStep& st) {
  if (c.s.Y > 1) {
    // Book's TP: AllGather_Y In[B, D_Y] before each block, ReduceScatter_Y
    // after; backward: AllGather_Y dOut, ReduceScatter_Y dIn, and the
    // block's input gathered again for its weight gradient; how many with
    // the remat policy's recompute: tp_collectives.
    PartBuilder tp = c.part(st, kTp);
    const double v = static_cast<double>(c.t * c.s.D) * c.bytes;
    const MeshCollective ag = c.collective(CollectiveKind::kAllGather, c.lay.model, v);
    const MeshCollective rs = c.collective(CollectiveKind::kReduceScatter, c.lay.model, v);
    const TpCollectives n = tp_collectives(c.runs);
    tp.forward().collective(ag, n.forward_all_gathers * c.per_layer);
    tp.forward().collective(rs, n.forward_reduce_scatters * c.per_layer);
    tp.backward().collective(ag, (n.all_gathers - n.forward_all_gathers) * c.per_layer);
    tp.backward().collective(rs, (n.reduce_scatters - n.forward_reduce_scatters) * c.per_layer);
  }
  if (c.Xf > 1) {
    // ZeRO-3: gather a layer's weights before its forward and again before
    // its backward (per microbatch), reduce-scatter its gradient. The
    // gathers move the compute dtype (each chip casts its master shard
    // first, where XLA's partitioner puts the convert), the
    // reduce-scatter the gradient dtype.
    PartBuilder f = c.part(st, kFsdp);
    // Under every remat policy: a recomputed matmul uses the weights the
    // backward gathers anyway (scripts/remat_collectives.py).
    const MeshCollective gather = c.collective(CollectiveKind::kAllGather, c.lay.fsdp, c.layer_weight_bytes);
    f.forward().collective(gather, c.per_layer);
    f.backward().collective(gather, c.per_layer);
    f.collective(c.collective(CollectiveKind::kReduceScatter, c.lay.fsdp, c.layer_grad_bytes()),
                 c.per_layer);
  }
  if (c.dp_only) {
    // Pure data parallelism: the gradient (its FSDP shard, in the gradient
    // dtype) is all-reduced once per step, a layer at a time in the
    // backward pass (scripts/dcn_collectives.py), behind its compute.
    PartBuilder g = c.part(st, kGradSync);
    g.backward().collective(c.collective(CollectiveKind::kAllReduce, c.dp_only, c.layer_grad_bytes() / c.Xf),
                            c.L_s);
  }
}

// The embedding (first stage) and the unembedding and loss (last stage),
// with the collectives of their tables.
inline void embedding_and_loss(const Context& c, TrainingStep& st) {
  const Shapes& s = c.s;
  const std::int64_t t = c.t;
  if (c.has_embed) {
    PartBuilder e = c.part(st, kEmbed);
    const double el = static_cast<double>(t * s.Dl);
    e.stream(0, 2 * el * c.bytes, c.M);             // gather rows: read and write [t, D/Y]
    e.backward().stream(el, 3 * el * c.bytes, c.M);  // scatter-add the gradient rows
  }
  {
    // Outside the rematerialised layers: its forward runs once under every
    // policy.
    PartBuilder u = c.part(st, kUnembed);
    u.training_matmul(t, s.D, s.Vl, 1, c.M);
    // Softmax cross-entropy on [t, V/Y]: read the logits, keep fp32
    // probabilities, write their gradient (5 FLOPs an element: max, subtract,
    // sum, divide, subtract; the exp is a transcendental). At the turn of
    // the two passes; counted with the forward.
    const double el = static_cast<double>(t * s.Vl);
    u.stream(5 * el, el * (2 * c.bytes + 2 * 4.0), c.M);
  }
  if (s.Y > 1) {
    // The unembedding needs [t, D] whole: gather it, reduce-scatter dX.
    PartBuilder tp = c.part(st, kTp);
    const double v = static_cast<double>(t * s.D) * c.bytes;
    tp.forward().collective(c.collective(CollectiveKind::kAllGather, c.lay.model, v), c.M);
    tp.backward().collective(c.collective(CollectiveKind::kReduceScatter, c.lay.model, v), c.M);
  }
  const double tables = (c.has_embed && !c.model.tied_embeddings) ? 2 : 1;
  if (c.Xf > 1) {
    PartBuilder f = c.part(st, kFsdp);
    // Each table gathered for the forward, the unembedding again for its
    // backward (the embedding's backward is a scatter-add into its gradient).
    const MeshCollective gather = c.collective(CollectiveKind::kAllGather, c.lay.fsdp, c.embed_bytes);
    f.forward().collective(gather, tables * c.M);
    f.backward().collective(gather, c.M);
    f.collective(c.collective(CollectiveKind::kReduceScatter, c.lay.fsdp, c.embed_grad_bytes()),
                 tables * c.M);
  }
  if (c.dp_only) {
    PartBuilder g = c.part(st, kGradSync);
    g.backward().collective(c.collective(CollectiveKind::kAllReduce, c.dp_only, c.embed_grad_bytes() / c.Xf),
                            tables);
  }
}

// Activations forward and their gradients backward cross each stage
// boundary once per microbatch: a shift by one along the pipeline axis.
inline void pipeline_transfers(const Context& c, TrainingStep& st) {
  if (c.P <= 1) return;
  PartBuilder pp = c.part(st, kPipe);
  const AxisMask pm = AxisMask{1} << c.lay.pipeline_axis;
  const double shard = static_cast<double>(c.t * c.s.Dl) * c.bytes;
  const MeshCollective shift = c.collective(CollectiveKind::kPermute, pm, shard * c.P, 1);
  pp.forward().collective(shift, c.M);   // activations to the next stage
  pp.backward().collective(shift, c.M);  // their gradients back
}

// Remat::kOffload and kOffloadQkv: what each layer keeps in host memory
// (LayerActivations::host_bytes: none's set less the layer input, or Q, K
// and V) goes there after the layer's forward and comes back before its
// backward, one copy each way per layer per microbatch, over the host link
// (Chip::pcie_bytes_per_s, one direction; the two directions run at
// different times).
inline void host_offload(const Context& c, TrainingStep& st) {
  const LayerActivations a = c.activations(c.cfg.remat);
  if (a.host_bytes <= 0) return;
  PartBuilder h = c.part(st, kHostOffload);
  h.forward().host_copy(static_cast<double>(c.t) * a.host_bytes, c.per_layer);   // out after the forward
  h.backward().host_copy(static_cast<double>(c.t) * a.host_bytes, c.per_layer);  // back before the backward
}

// The last two steps, each in its own header (included at the end of this
// one).
inline void step_totals(const Context& c, TrainingStep& st);      // training_expected.hpp
inline void memory_per_chip(const Context& c, TrainingStep& st);  // training_memory.hpp

}  // namespace roofline::detail::step

namespace roofline {

inline TrainingStep training_step(const ModelConfig& model, const Chip& chip, const Mesh& mesh,
                                  const ParallelLayout& layout, const TrainingConfig& config,
                                  const ChipCalibration* calibration) {
  namespace step = detail::step;
  std::optional<ChipCalibration> built_in;
  if (calibration == nullptr) calibration = &built_in.emplace(default_calibration(chip));
  const step::Context c = step::context(model, chip, mesh, layout, config, *calibration);
  TrainingStep st;
  st.chips = mesh.device_count();
  st.tokens_per_chip = static_cast<double>(c.b);
  st.parts.resize(step::kParts);
  for (int i = 0; i < step::kParts; ++i) st.parts[i].name = step::kPartNames[i];
  step::layer_compute(c, st);
  step::layer_collectives(c, st);
  step::embedding_and_loss(c, st);
  step::pipeline_transfers(c, st);
  step::host_offload(c, st);
  step::step_totals(c, st);
  step::memory_per_chip(c, st);
  return st;
}

inline std::string strategy_name(const Mesh& mesh, const ParallelLayout& lay, int microbatches) {
  using detail::cat;
  auto axes = [&](AxisMask m) {
    std::string s;
    for (std::size_t i = 0; i < mesh.axes.size(); ++i)
      if (m & (AxisMask{1} << i)) s += cat(s.empty() ? "" : ",", mesh.axes[i].name, "=", mesh.axes[i].size);
    return s;
  };
  AxisMask ici = 0, dcn = 0;
  for (std::size_t i = 0; i < mesh.axes.size(); ++i)
    (mesh.axes[i].network == AxisNetwork::kDcn ? dcn : ici) |= AxisMask{1} << i;
  std::vector<std::string> parts;
  const AxisMask fsdp_ici = lay.fsdp & ici, fsdp_dcn = lay.fsdp & dcn;
  const AxisMask dp_ici = lay.data & ~lay.fsdp & ici, dp_dcn = lay.data & ~lay.fsdp & dcn;
  if (fsdp_ici) parts.push_back(cat("FSDP(", axes(fsdp_ici), ")"));
  if (dp_ici) parts.push_back(cat("DP(", axes(dp_ici), ")"));
  if (lay.model) parts.push_back(cat("TP(", axes(lay.model), ")"));
  if (lay.pipeline_axis >= 0) {
    const MeshAxis& a = mesh.axes[static_cast<std::size_t>(lay.pipeline_axis)];
    parts.push_back(cat("PP(", a.name, "=", a.size, a.network == AxisNetwork::kDcn ? " over DCN" : "", ", ",
                        microbatches, " microbatches)"));
  }
  if (fsdp_dcn) parts.push_back(cat("FSDP over DCN(", axes(fsdp_dcn), ")"));
  if (dp_dcn) parts.push_back(cat("DP over DCN(", axes(dp_dcn), ")"));
  if (parts.empty()) return "single device";
  std::string out;
  for (const std::string& p : parts) out += cat(out.empty() ? "" : " + ", p);
  return out;
}

}  // namespace roofline

#include "roofline/sharding/detail/training_expected.hpp"
#include "roofline/sharding/detail/training_memory.hpp"
