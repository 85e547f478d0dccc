// The training-step model's remat policies, dtypes and expected step time
// (training_step.hpp; detail/training_remat.hpp, training_memory.hpp,
// training_expected.hpp; docs/layers.md).
#include <catch2/catch.hpp>

#include <string>

#include "roofline/calibration.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/layers.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/training_step.hpp"
#include "tests/sharding/training_support.hpp"

using roofline::AxisMask;
using roofline::chip;
using roofline::ChipCalibration;
using roofline::CostClass;
using roofline::Mesh;
using roofline::ParallelLayout;
using roofline::Remat;
using roofline::TrainingConfig;
using roofline::TrainingStep;

namespace {

using roofline::testing::axes;
using roofline::testing::llama8b;
using roofline::testing::mesh;
using roofline::testing::part;
using roofline::testing::step;

// llama-3-8b FSDP over a v5p 4x4x4 as one axis of 64, 8192 tokens a chip
// (one sequence), no tensor parallelism: t = T = 8192, D = 4096,
// F = 14336, q = N H = 4096, kv = K H = 1024, N = 32.
TrainingStep fsdp64(Remat remat) {
  static const Mesh m = mesh("X=64", "tpu-v5p");
  const AxisMask x = axes(m, "X");
  return step(llama8b(), "tpu-v5p", m, {.data = x, .fsdp = x}, {.batch_tokens = 64 * 8192, .remat = remat});
}

constexpr double t = 8192, T = 8192, D = 4096, F = 14336, q = 4096, kv = 1024;

// Forward FLOPs of one layer's pieces (docs/layers.md).
constexpr double kQkvFwd = 2 * t * D * (q + 2 * kv);      // x @ [Wq Wk Wv]
constexpr double kOutFwd = 2 * t * q * D;                 // attn @ Wo
constexpr double kMlpInFwd = 2 * t * D * 2 * F;          // x @ [W_gate W_up]
constexpr double kCoreFwd = 4 * t * T * q / 2;            // QK^T and PV, causal
constexpr double kElemFwd = 4 * t * F + 2 * 4 * t * D + 2 * t * D;  // SiLU product, 2 norms, 2 residual adds

}  // namespace

TEST_CASE("remat: each policy runs exactly its listed forward work twice") {
  const TrainingStep none = fsdp64(Remat::kNone), minimal = fsdp64(Remat::kMinimal),
                     save_dot = fsdp64(Remat::kSaveDotExceptMlpwi), save_qkv = fsdp64(Remat::kSaveQkv),
                     full = fsdp64(Remat::kFull), offload = fsdp64(Remat::kOffload),
                     with_context = fsdp64(Remat::kMinimalWithContext);
  // minimal-with-context: the element-wise work alone (the attention core's
  // output and statistics are kept).
  CHECK(with_context.roofline.flops - none.roofline.flops == Approx(32 * kElemFwd));
  // minimal: the attention core and the element-wise work.
  CHECK(minimal.roofline.flops - none.roofline.flops == Approx(32 * (kCoreFwd + kElemFwd)));
  // save-dot-except-mlpwi: minimal's and x @ [W_gate W_up], not h @ W_down.
  CHECK(save_dot.roofline.flops - none.roofline.flops == Approx(32 * (kCoreFwd + kElemFwd + kMlpInFwd)));
  // save-qkv: everything but the QKV projection and h @ W_down, whose
  // output (the layer's) no backward reads: jax leaves it out of the
  // recomputed forward (scripts/remat_collectives.py counts the matmuls).
  CHECK(save_qkv.roofline.flops - none.roofline.flops ==
        Approx(32 * (kCoreFwd + kElemFwd + kOutFwd + kMlpInFwd)));
  // full: the whole layer forward but h @ W_down.
  CHECK(full.roofline.flops - none.roofline.flops ==
        Approx(32 * (kCoreFwd + kElemFwd + kOutFwd + kMlpInFwd + kQkvFwd)));
  CHECK(offload.roofline.flops == Approx(none.roofline.flops));
  // Hence the ordering of compute time.
  CHECK(none.t_compute_s < with_context.t_compute_s);
  CHECK(with_context.t_compute_s < minimal.t_compute_s);
  CHECK(minimal.t_compute_s < save_dot.t_compute_s);
  CHECK(save_dot.t_compute_s < save_qkv.t_compute_s);
  CHECK(save_qkv.t_compute_s < full.t_compute_s);
  // The model FLOPs (MFU convention) leave recompute out: the same for all.
  CHECK(full.model_flops == none.model_flops);
}

TEST_CASE("remat: activation memory per policy, element by element") {
  // Elements per token per layer (detail/training_remat.hpp):
  //   none      2D + 2D + (q + 2kv) + q + N x 4/2 (fp32 stats) + 3F = 69,696
  //   minimal-with-context  minimal's + q + N x 4/2                = 47,168
  //   minimal   D + (q + 2kv) + D + 2F (D_l = D: no TP)           = 43,008
  //   save-dot-except-mlpwi  D + (q + 2kv) + D                     = 14,336
  //   save-qkv  D + (q + 2kv)                                      = 10,240
  //   full      D                                                  =  4,096
  // in bf16 (2 bytes), over 32 layers x 8192 tokens; the layer whose
  // backward runs holds its whole set for 8192 tokens, of which its kept
  // part is counted with the 32 (none: no more, its block inputs are kept
  // unsharded here); the last stage the logits, 8192 x 128256 x (2 + 4)
  // bytes.
  const double all = 2 * D + 2 * D + (q + 2 * kv) + q + 32 * 4.0 / 2 + 3 * F;
  REQUIRE(all == 69696);
  const double logits = t * 128256 * 6;
  const auto acts = [&](double kept, bool recompute) {
    return 32 * t * kept * 2 + (recompute ? t * (all - kept) * 2 : 0) + logits;
  };
  const TrainingStep none = fsdp64(Remat::kNone), minimal = fsdp64(Remat::kMinimal),
                     save_dot = fsdp64(Remat::kSaveDotExceptMlpwi), save_qkv = fsdp64(Remat::kSaveQkv),
                     full = fsdp64(Remat::kFull), offload = fsdp64(Remat::kOffload);
  CHECK(none.memory.activations_bytes == Approx(acts(all, false)));
  CHECK(minimal.memory.activations_bytes == Approx(acts(D + (q + 2 * kv) + D + 2 * F, true)));
  const TrainingStep with_context = fsdp64(Remat::kMinimalWithContext);
  REQUIRE(D + (q + 2 * kv) + D + 2 * F + q + 32 * 4.0 / 2 == 47168);
  CHECK(with_context.memory.activations_bytes == Approx(acts(47168, true)));
  CHECK(none.memory.activations_bytes > with_context.memory.activations_bytes);
  CHECK(with_context.memory.activations_bytes > minimal.memory.activations_bytes);
  REQUIRE(D + (q + 2 * kv) + D == 14336);
  CHECK(save_dot.memory.activations_bytes == Approx(acts(14336, true)));
  CHECK(save_qkv.memory.activations_bytes == Approx(acts(D + (q + 2 * kv), true)));
  CHECK(full.memory.activations_bytes == Approx(acts(D, true)));
  CHECK(none.memory.activations_bytes > minimal.memory.activations_bytes);
  CHECK(minimal.memory.activations_bytes > save_dot.memory.activations_bytes);
  CHECK(save_dot.memory.activations_bytes > save_qkv.memory.activations_bytes);
  CHECK(save_qkv.memory.activations_bytes > full.memory.activations_bytes);
  // The none / full figures beside every policy's.
  CHECK(minimal.memory.activations_no_remat_bytes == Approx(none.memory.activations_bytes));
  CHECK(minimal.memory.activations_remat_bytes == Approx(full.memory.activations_bytes));
  // offload keeps full's HBM and holds the rest of none's set in host memory.
  CHECK(offload.memory.activations_bytes == Approx(full.memory.activations_bytes));
  CHECK(offload.memory.host_activations_bytes == Approx(32 * t * (all - D) * 2));
  CHECK(none.memory.host_activations_bytes == 0);
}

TEST_CASE("remat: with tensor parallelism none keeps the gathered block inputs as their shards") {
  // llama-3-8b on a v5p X=16 x Y=4, 8192 tokens a data shard: per token and
  // layer D_l = 1024, q = 1024, kv = 256 (8 kv heads / 4), 8 local heads,
  // F_l = 3584. The backward reads both block inputs gathered (2 D), but
  // the scan over layers carries them to it as [t, D/Y] shards (its forward
  // loop stacks the shards; the backward gathers them again:
  // scripts/remat_collectives.py), so none keeps 2 D_l of them, and offload
  // sends that set less the layer input to the host.
  const Mesh m = mesh("X=16,Y=4", "tpu-v5p");
  const auto run = [&](Remat r) {
    return step(llama8b(), "tpu-v5p", m, {.data = axes(m, "X"), .fsdp = axes(m, "X"), .model = axes(m, "Y")},
                {.batch_tokens = 16 * 8192, .remat = r});
  };
  const double Dl = 1024, Fl = 3584, ql = 1024, kvl = 256;
  const double all = 2 * Dl + 2 * D + (ql + 2 * kvl) + ql + 8 * 4.0 / 2 + 3 * Fl;
  const double saved = all - 2 * (D - Dl);
  const double logits = t * (128256.0 / 4) * 6;
  const TrainingStep none = run(Remat::kNone), offload = run(Remat::kOffload), full = run(Remat::kFull);
  // The layer whose backward runs holds its block inputs gathered again.
  CHECK(none.memory.activations_bytes == Approx(32 * t * saved * 2 + t * 2 * (D - Dl) * 2 + logits));
  // Every other policy also holds the rest of that layer's whole set (what
  // it does not keep), gathered inputs included.
  CHECK(full.memory.activations_bytes == Approx(32 * t * Dl * 2 + t * (all - Dl) * 2 + logits));
  CHECK(offload.memory.host_activations_bytes == Approx(32 * t * (saved - Dl) * 2));
  CHECK(part(offload, "host offload").roofline.host_bytes == Approx(2 * 32 * t * (saved - Dl) * 2));
}

TEST_CASE("remat: offload sends the saved activations over the host link and back") {
  const TrainingStep none = fsdp64(Remat::kNone), offload = fsdp64(Remat::kOffload);
  // Per layer, one copy each way of 8192 tokens x (69,696 - 4,096) elements
  // x 2 bytes = 1,074,790,400 bytes, at v5p's 1.6e10 B/s host link.
  const double copy = t * (69696 - 4096) * 2;
  CHECK(part(offload, "host offload").roofline.host_bytes == Approx(2 * 32 * copy));
  CHECK(part(offload, "host offload").roofline.t_host_s == Approx(2 * 32 * copy / 1.6e10));
  // The host link is not the interconnect: the copies are in neither
  // ici_bytes nor t_ici_s.
  CHECK(part(offload, "host offload").roofline.ici_bytes == 0);
  CHECK(part(offload, "host offload").roofline.t_ici_s == 0);
  CHECK(offload.roofline.t_host_s == Approx(2 * 32 * copy / 1.6e10));
  CHECK(offload.roofline.t_ici_s == Approx(none.roofline.t_ici_s));
  // Every transfer off the chip runs one after another (training_expected.hpp).
  CHECK(offload.roofline.t_upper_s ==
        Approx(offload.t_compute_s + offload.roofline.t_ici_s + offload.roofline.t_host_s));
  CHECK(part(none, "host offload").roofline.t_host_s == 0);
  CHECK(none.roofline.t_host_s == 0);
}

TEST_CASE("remat: offload-qkv runs save-qkv's recompute and sends Q, K, V over the host link") {
  // MaxText's qkv_proj_offloaded: jax compiles the same matmuls and
  // collectives as save_qkv_proj (scripts/remat_collectives.py); Q, K and V
  // go to host memory, the layer input (the scan's carry) stays in HBM.
  const TrainingStep save_qkv = fsdp64(Remat::kSaveQkv), offload_qkv = fsdp64(Remat::kOffloadQkv),
                     full = fsdp64(Remat::kFull);
  CHECK(offload_qkv.roofline.flops == Approx(save_qkv.roofline.flops));
  CHECK(offload_qkv.t_compute_s == Approx(save_qkv.t_compute_s));
  // HBM keeps full's set: the layer input D and one layer's whole set.
  CHECK(offload_qkv.memory.activations_bytes == Approx(full.memory.activations_bytes));
  // Host memory: q + 2 kv = 6,144 elements per token and layer, 32 layers x
  // 8192 tokens x 2 bytes; one copy out and one back per layer.
  const double qkv = t * (q + 2 * kv) * 2;
  CHECK(offload_qkv.memory.host_activations_bytes == Approx(32 * qkv));
  CHECK(part(offload_qkv, "host offload").roofline.host_bytes == Approx(2 * 32 * qkv));
  CHECK(offload_qkv.roofline.t_host_s == Approx(2 * 32 * qkv / 1.6e10));
  CHECK(save_qkv.roofline.t_host_s == 0);
  CHECK(roofline::parse_remat("qkv_proj_offloaded") == Remat::kOffloadQkv);
  CHECK(roofline::parse_remat("offload-qkv") == Remat::kOffloadQkv);
  CHECK(roofline::offloads_to_host(Remat::kOffloadQkv));
  CHECK_FALSE(roofline::offloads_to_host(Remat::kSaveQkv));
}

TEST_CASE("remat: with a pipeline the host memory is the first stage's, which holds the most microbatches") {
  // llama-3-8b over P=4 stages (8 layers each) x X=16 FSDP on 64 v5p, 4
  // microbatches of 8192 tokens a data shard. 1F1B: stage s holds
  // min(M, P - s) microbatches, the first 4, the last 1; offload-qkv keeps
  // Q, K, V (6,144 elements per token and layer, bf16) of each in host
  // memory.
  const Mesh m = mesh("P=4,X=16", "tpu-v5p");
  const TrainingStep pp = step(llama8b(), "tpu-v5p", m,
                               {.data = axes(m, "X"), .fsdp = axes(m, "X"), .pipeline_axis = *m.index("P")},
                               {.batch_tokens = 64 * 8192, .remat = Remat::kOffloadQkv, .microbatches = 4});
  const double per_microbatch = 8 * t * (q + 2 * kv) * 2;
  CHECK(pp.memory.host_activations_bytes == Approx(4 * per_microbatch));
}

TEST_CASE("dtypes: the defaults keep 4 + 4 + 8 = 16 bytes of state per parameter") {
  // A small gated MHA model: per layer 4 D^2 (Q, K, V, O) + 3 D F + 2 D =
  // 262,144 + 393,216 + 512 = 655,872; 2 layers, embedding and unembedding
  // 2 x 1000 x 256, the final norm 256: 1,824,000 parameters.
  const roofline::ModelConfig small{.name = "small", .layers = 2, .d_model = 256, .d_ff = 512, .heads = 4,
                                    .kv_heads = 4, .head_dim = 64, .vocab = 1000, .seq_len = 128};
  REQUIRE(roofline::total_params(small) == 1824000);
  const Mesh m = mesh("X=4", "tpu-v5p");
  const TrainingStep s = step(small, "tpu-v5p", m, {.data = axes(m, "X")}, {.batch_tokens = 4 * 128});
  CHECK(TrainingConfig{}.dtypes.state_bytes_per_param() == 16);
  CHECK(s.memory.params_bytes == 4 * 1824000.0);     // fp32 master weights
  CHECK(s.memory.grads_bytes == 4 * 1824000.0);      // fp32 gradients
  CHECK(s.memory.optimizer_bytes == 8 * 1824000.0);  // two fp32 Adam moments
  // Master weights in fp32, compute in bf16: two layers' bf16 copies.
  CHECK(s.memory.gathered_weights_bytes == 2 * 2 * 655872.0);
  // bf16 everywhere halves params and grads and drops the cast copies.
  TrainingConfig bf16{.batch_tokens = 4 * 128};
  bf16.dtypes.params = bf16.dtypes.grads = roofline::DType::kBF16;
  const TrainingStep b = step(small, "tpu-v5p", m, {.data = axes(m, "X")}, bf16);
  CHECK(b.memory.params_bytes + b.memory.grads_bytes + b.memory.optimizer_bytes == 12 * 1824000.0);
  CHECK(b.memory.gathered_weights_bytes == 0);
}

TEST_CASE("expected: a roofline calibration hides FSDP under compute and exposes tensor parallelism") {
  // Efficiency 1 and no floors: every op is expected at its roofline, so
  // the compute is t_compute_s and each transfer its t_ici_s.
  const ChipCalibration exact;
  const Mesh m = mesh("X=64", "tpu-v5p");
  const AxisMask x = axes(m, "X");
  const TrainingStep f = step(llama8b(), "tpu-v5p", m, {.data = x, .fsdp = x},
                              {.batch_tokens = 64 * 8192, .remat = Remat::kFull}, &exact);
  CHECK(f.expected_compute_s == Approx(f.t_compute_s));
  // FSDP only: each pass's FSDP traffic fits under its compute, so the
  // expectation is the compute, the lower bound itself.
  CHECK(f.expected_s == Approx(f.step_time_s));
  // With TP: compute (FSDP hidden in both passes, as max(compute, FSDP) would
  // have it) + TP, between the bounds.
  const Mesh mt = mesh("X=16,Y=4", "tpu-v5p");
  const TrainingStep tp = step(llama8b(), "tpu-v5p", mt,
                               {.data = axes(mt, "X"), .fsdp = axes(mt, "X"), .model = axes(mt, "Y")},
                               {.batch_tokens = 64 * 8192, .remat = Remat::kFull}, &exact);
  const double fsdp = part(tp, "fsdp collectives").roofline.t_ici_s;
  const double tpc = part(tp, "tensor-parallel collectives").roofline.t_ici_s;
  REQUIRE(tpc > 0);
  CHECK(tp.expected_s == Approx(std::max(tp.t_compute_s, fsdp) + tpc));
  CHECK(tp.expected_s >= tp.step_time_s);
  CHECK(tp.expected_s <= tp.roofline.t_upper_s * (1 + 1e-12));
  CHECK(tp.mfu_no_overlap <= tp.mfu_expected);
  // With a pipeline the bubble stretches the compute and the TP collectives
  // inside each microbatch's slot; the stage-boundary shifts are exposed.
  const Mesh mp = mesh("P=4,X=4,Y=4", "tpu-v5p");
  const TrainingStep pp = step(llama8b(), "tpu-v5p", mp,
                               {.data = axes(mp, "X"), .fsdp = axes(mp, "X"), .model = axes(mp, "Y"),
                                .pipeline_axis = *mp.index("P")},
                               {.batch_tokens = 64 * 8192, .remat = Remat::kFull, .microbatches = 4}, &exact);
  REQUIRE(pp.bubble_factor == Approx(7.0 / 4.0));
  const double pipe = part(pp, "pipeline transfers").roofline.t_ici_s;
  REQUIRE(pipe > 0);
  CHECK(pp.expected_s == Approx(std::max(pp.t_compute_s, part(pp, "fsdp collectives").roofline.t_ici_s) +
                                7.0 / 4.0 * part(pp, "tensor-parallel collectives").roofline.t_ici_s + pipe));
}

TEST_CASE("expected: half the matmul efficiency doubles the matmul parts' expected time") {
  ChipCalibration exact, half;
  half.curve(CostClass::kMatmul).math_efficiency = 0.5;
  const Mesh m = mesh("X=64", "tpu-v5p");
  const AxisMask x = axes(m, "X");
  const TrainingConfig cfg{.batch_tokens = 64 * 8192};
  const TrainingStep e = step(llama8b(), "tpu-v5p", m, {.data = x, .fsdp = x}, cfg, &exact);
  const TrainingStep h = step(llama8b(), "tpu-v5p", m, {.data = x, .fsdp = x}, cfg, &half);
  // The projections' matmuls ([8192, 4096] @ [4096, 6144] and the like) are
  // compute-bound, so each one's expected time is T_math / 0.5.
  const auto& proj_e = part(e, "attention projections");
  const auto& proj_h = part(h, "attention projections");
  REQUIRE(proj_e.roofline.t_lower_s == Approx(proj_e.roofline.t_math_s));
  CHECK(proj_e.expected_s == Approx(proj_e.roofline.t_lower_s));
  CHECK(proj_h.expected_s == Approx(2 * proj_e.expected_s));
  CHECK(part(h, "mlp").expected_s > 1.9 * part(e, "mlp").expected_s);  // its SiLU stream is kMemory
  // The norms are memory work: untouched.
  CHECK(part(h, "norms and residuals").expected_s == Approx(part(e, "norms and residuals").expected_s));
  CHECK(h.mfu_expected < e.mfu_expected);
  CHECK(h.mfu == e.mfu);  // the bound does not depend on the calibration
  // The checked entry point passes the calibration through.
  const auto checked = roofline::predict_training_step(llama8b(), chip("tpu-v5p"), m, {.data = x, .fsdp = x}, cfg,
                                                       &half);
  REQUIRE(checked.ok());
  CHECK(checked->expected_s == h.expected_s);
}

TEST_CASE("expected: never below the lower bound, for every policy and a calibration above the peaks") {
  ChipCalibration fast;
  for (auto& k : fast.classes) k.math_efficiency = k.memory_efficiency = k.link_efficiency = 2;
  const Mesh m = mesh("X=16,Y=4", "tpu-v5p");
  const ParallelLayout lay{.data = axes(m, "X"), .fsdp = axes(m, "X"), .model = axes(m, "Y")};
  for (Remat r : roofline::kAllRemats) {
    INFO(roofline::remat_name(r));
    const TrainingConfig cfg{.batch_tokens = 64 * 8192, .remat = r};
    const TrainingStep d = step(llama8b(), "tpu-v5p", m, lay, cfg);  // v5p's built-in: matmuls at 95%
    CHECK(d.expected_s >= d.step_time_s);
    CHECK(d.mfu_expected <= d.mfu);
    CHECK(d.mfu_no_overlap <= d.mfu);
    CHECK(d.mfu_expected < d.mfu);  // 95% matmuls cannot reach the bound
    const TrainingStep f = step(llama8b(), "tpu-v5p", m, lay, cfg, &fast);
    CHECK(f.expected_s == Approx(f.step_time_s));
  }
}

TEST_CASE("validate: training dtypes, optimizer states and the host link offload needs") {
  const Mesh m = mesh("X=4", "tpu-v5p");
  const ParallelLayout lay{.data = axes(m, "X")};
  const auto err = [&](const roofline::Chip& c, const TrainingConfig& cfg) {
    const absl::Status s = roofline::validate_training_step(llama8b(), c, m, lay, cfg);
    REQUIRE_FALSE(s.ok());
    return std::string(s.message());
  };
  TrainingConfig cfg{.batch_tokens = 4 * 8192};
  cfg.dtypes.grads = roofline::DType::kS8;
  CHECK(err(chip("tpu-v5p"), cfg).find("grads is s8; expected a floating-point type") != std::string::npos);
  cfg.dtypes.grads = roofline::DType::kF32;
  cfg.dtypes.optimizer_states = -1;
  CHECK(err(chip("tpu-v5p"), cfg).find(">= 0 states") != std::string::npos);
  cfg.dtypes.optimizer_states = 0;  // plain SGD keeps none: valid
  CHECK(roofline::validate_training_step(llama8b(), chip("tpu-v5p"), m, lay, cfg).ok());
  cfg.remat = Remat::kOffload;
  roofline::Chip no_host = chip("tpu-v5p");
  no_host.pcie_bytes_per_s = 0;
  CHECK(err(no_host, cfg).find("remat offload needs a host link: tpu-v5p has no pcie_bytes_per_s") !=
        std::string::npos);
  cfg.remat = Remat::kOffloadQkv;
  CHECK(err(no_host, cfg).find("remat offload-qkv needs a host link") != std::string::npos);
  cfg.remat = static_cast<Remat>(17);
  CHECK(err(chip("tpu-v5p"), cfg).find("remat policy 17") != std::string::npos);
}

TEST_CASE("remat: every policy's name parses back, MaxText's names too, and the listed names hold them all") {
  for (Remat r : roofline::kAllRemats) {
    INFO(roofline::remat_name(r));
    CHECK(roofline::parse_remat(roofline::remat_name(r)) == r);
    CHECK(std::string(roofline::kRematPolicyNames).find(roofline::remat_name(r)) != std::string::npos);
  }
  CHECK(roofline::parse_remat("save_dot_except_mlpwi") == Remat::kSaveDotExceptMlpwi);
  CHECK(roofline::parse_remat("save_qkv_proj") == Remat::kSaveQkv);
  CHECK(roofline::parse_remat("minimal_with_context") == Remat::kMinimalWithContext);
  CHECK(roofline::parse_remat("minimal_flash") == Remat::kMinimalWithContext);
  CHECK(roofline::parse_remat("save_dot_except_mlp") == std::nullopt);  // not modelled
}

TEST_CASE("expected: each pass's transfers hide under that pass's compute only") {
  // Without a pipeline the forward pass gathers weights and copies to the
  // host, the backward gathers again, reduces the gradients and copies back
  // (scripts/dcn_collectives.py: a layer's gradient reduction sits in the
  // backward loop); each pass's traffic hides under its own compute.
  const Mesh m = mesh("X=64", "tpu-v5p");
  const AxisMask x = axes(m, "X");
  for (Remat r : {Remat::kNone, Remat::kFull, Remat::kOffload, Remat::kOffloadQkv}) {
    INFO(roofline::remat_name(r));
    const TrainingStep s = step(llama8b(), "tpu-v5p", m, {.data = x, .fsdp = x}, {.batch_tokens = 64 * 8192, .remat = r});
    double c = 0, cf = 0, h = 0, hf = 0, e = 0;
    for (const roofline::StepPart& p : s.parts) {
      CHECK(p.expected_forward_s >= 0);
      CHECK(p.expected_forward_s <= p.expected_s * (1 + 1e-12));
      if (p.name == "tensor-parallel collectives" || p.name == "pipeline transfers") e += p.expected_s;
      else if (p.name == "fsdp collectives" || p.name == "gradient all-reduce" || p.name == "host offload")
        h += p.expected_s, hf += p.expected_forward_s;
      else c += p.expected_s, cf += p.expected_forward_s;
    }
    CHECK(part(s, "gradient all-reduce").expected_forward_s == 0);
    // One copy out after each layer's forward, one back before its backward.
    CHECK(part(s, "host offload").expected_forward_s == Approx(part(s, "host offload").expected_s / 2));
    CHECK(s.expected_compute_s == Approx(c));
    CHECK(s.expected_exposed_s == Approx(e + std::max(0.0, hf - cf) + std::max(0.0, (h - hf) - (c - cf))));
  }
  // Without remat a weight matmul runs once forward and twice backward, the
  // three of one FLOP count: compute-bound, a third of the projections'
  // time is the forward's. Full remat runs Q/K/V's again in the backward.
  const TrainingStep none = step(llama8b(), "tpu-v5p", m, {.data = x, .fsdp = x}, {.batch_tokens = 64 * 8192});
  const roofline::StepPart& proj = part(none, "attention projections");
  CHECK(proj.expected_forward_s == Approx(proj.expected_s / 3).epsilon(1e-3));
  const TrainingStep full =
      step(llama8b(), "tpu-v5p", m, {.data = x, .fsdp = x}, {.batch_tokens = 64 * 8192, .remat = Remat::kFull});
  CHECK(part(full, "attention projections").expected_forward_s == Approx(proj.expected_forward_s));
  CHECK(part(full, "attention projections").expected_s > proj.expected_s);
  // MaxText's 2023 32B model on a v5e-256 (docs/planner_validation.md), 8192
  // tokens a chip, with host offload of all of none's set: the copies out
  // take longer than the forward's compute and the copies back less than
  // the backward's. The whole step's compute could hold all of them (the
  // rule before 2026-11-28 exposed only H - C), but the forward's excess
  // cannot wait for the backward.
  const roofline::ModelConfig scale32{.name = "maxtext-2023-scale32", .layers = 32, .d_model = 10240,
                                      .d_ff = 32768, .heads = 32, .kv_heads = 32, .head_dim = 256,
                                      .vocab = 32768, .seq_len = 2048, .mlp = roofline::MlpKind::kPlain,
                                      .tied_embeddings = true};
  const Mesh v5e = mesh("X=256", "tpu-v5e");
  const AxisMask all = axes(v5e, "X");
  const TrainingStep off =
      step(scale32, "tpu-v5e", v5e, {.data = all, .fsdp = all}, {.batch_tokens = 256 * 8192, .remat = Remat::kOffload});
  double c = 0, cf = 0, h = 0, hf = 0;
  for (const roofline::StepPart& p : off.parts) {
    if (p.name == "fsdp collectives" || p.name == "gradient all-reduce" || p.name == "host offload")
      h += p.expected_s, hf += p.expected_forward_s;
    else if (p.name != "tensor-parallel collectives" && p.name != "pipeline transfers")
      c += p.expected_s, cf += p.expected_forward_s;
  }
  REQUIRE(hf > cf);
  REQUIRE(h - hf < c - cf);
  CHECK(off.expected_exposed_s == Approx(hf - cf));
  CHECK(off.expected_exposed_s > std::max(0.0, h - c) + 0.3);
}

TEST_CASE("expected: which pass each transfer runs in") {
  // Expected at the roofline (efficiency 1, no floors) and gradients in
  // bf16, so an all-gather and a reduce-scatter of one layer take the same
  // time, and a vocabulary of 128 leaves the tables' transfers a rounding
  // error beside the layers'.
  const ChipCalibration exact;
  roofline::ModelConfig small_vocab = llama8b();
  small_vocab.vocab = 128;
  TrainingConfig cfg{.batch_tokens = 64 * 8192};
  cfg.dtypes.grads = roofline::DType::kBF16;
  const Mesh m = mesh("S=2,X=16,Y=2", "tpu-v5p");
  const ParallelLayout lay{.data = axes(m, "S,X"), .fsdp = axes(m, "X"), .model = axes(m, "Y")};
  const TrainingStep s = step(small_vocab, "tpu-v5p", m, lay, cfg, &exact);
  // FSDP: a layer's weights gathered before its forward and again before its
  // backward, its gradient reduce-scattered in the backward: a third forward.
  const roofline::StepPart& fsdp = part(s, "fsdp collectives");
  CHECK(fsdp.expected_forward_s == Approx(fsdp.expected_s / 3).epsilon(1e-3));
  // The data-parallel all-reduce over S: all of it in the backward.
  REQUIRE(part(s, "gradient all-reduce").expected_s > 0);
  CHECK(part(s, "gradient all-reduce").expected_forward_s == 0);
  // TP without remat, each of one [t, D] array: the forward's 2 gathers and
  // 2 reduce-scatters of the 6 + 4 a layer (tp_collectives), over 32 layers,
  // and the unembedding's gather (its reduce-scatter is the backward's).
  const roofline::StepPart& tp = part(s, "tensor-parallel collectives");
  CHECK(tp.expected_forward_s == Approx((4 * 32 + 1) / (10 * 32 + 2.0) * tp.expected_s));

  // One layer and a vocabulary of 128,256 untied: the tables dominate. The
  // embedding and the unembedding gathered for the forward, the unembedding
  // again for its backward, both gradients reduce-scattered: 2 of 5.
  roofline::ModelConfig one_layer = llama8b();
  one_layer.layers = 1;
  const Mesh mx = mesh("X=64", "tpu-v5p");
  const AxisMask x = axes(mx, "X");
  const TrainingStep t = step(one_layer, "tpu-v5p", mx, {.data = x, .fsdp = x}, cfg, &exact);
  const roofline::StepPart& tables = part(t, "fsdp collectives");
  CHECK(tables.expected_forward_s / tables.expected_s == Approx(0.4).epsilon(0.05));
  CHECK(tables.expected_forward_s / tables.expected_s < 0.45);
}

TEST_CASE("expected: with a pipeline, transfers hide under all of a stage's compute") {
  // 1F1B runs one microbatch's forward beside another's backward on each
  // stage, and the bubble leaves it idle with transfers to run: the host
  // copies out of MaxText's 2023 32B model (v5e, offload), which outlast
  // the forward passes, still hide under the stage's whole compute.
  const roofline::ModelConfig scale32{.name = "maxtext-2023-scale32", .layers = 32, .d_model = 10240,
                                      .d_ff = 32768, .heads = 32, .kv_heads = 32, .head_dim = 256,
                                      .vocab = 32768, .seq_len = 2048, .mlp = roofline::MlpKind::kPlain,
                                      .tied_embeddings = true};
  const Mesh m = mesh("P=2,X=128", "tpu-v5e");
  const ParallelLayout lay{.data = axes(m, "X"), .fsdp = axes(m, "X"), .pipeline_axis = *m.index("P")};
  const TrainingStep s = step(scale32, "tpu-v5e", m, lay,
                              {.batch_tokens = 256 * 8192, .remat = Remat::kOffload, .microbatches = 4});
  double c = 0, cf = 0, h = 0, hf = 0, e = 0;
  for (const roofline::StepPart& p : s.parts) {
    if (p.name == "tensor-parallel collectives") e += p.expected_s * s.bubble_factor;
    else if (p.name == "pipeline transfers") e += p.expected_s;
    else if (p.name == "fsdp collectives" || p.name == "gradient all-reduce" || p.name == "host offload")
      h += p.expected_s, hf += p.expected_forward_s;
    else c += p.expected_s, cf += p.expected_forward_s;
  }
  const double per_pass = std::max(0.0, hf - cf) + std::max(0.0, (h - hf) - (c - cf));
  const double whole = std::max(0.0, h - c * s.bubble_factor);
  REQUIRE(per_pass > whole + 0.1);  // the two rules differ here
  CHECK(s.expected_compute_s == Approx(c * s.bubble_factor));
  CHECK(s.expected_exposed_s == Approx(e + whole));
}
