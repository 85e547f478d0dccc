// Transformer math, critical batch sizes and the training-step model
// (anchors.md 2.6, 2.7; training.md, transformers.md).
#include <catch2/catch.hpp>

#include <string>

#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/critical_batch.hpp"
#include "roofline/sharding/layers.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/training_step.hpp"
#include "tests/sharding/training_support.hpp"

using roofline::AttentionMask;
using roofline::AxisMask;
using roofline::chip;
using roofline::Mesh;
using roofline::ParallelLayout;
using roofline::TrainingConfig;
using roofline::TrainingStep;

namespace {

using roofline::testing::axes;
using roofline::testing::llama8b;
using roofline::testing::llama70b;
using roofline::testing::mesh;
using roofline::testing::part;
using roofline::testing::step;

// llama-3-8b, one layer: 3 x 4096 x 14336 (gated MLP) + 2 x 4096 x (32 + 8) x 128 (Q, K, V, O) + 2 x 4096 (norms).
constexpr double kLayer8b = 3.0 * 4096 * 14336 + 2.0 * 4096 * 40 * 128 + 2.0 * 4096;
constexpr double kTable8b = 128256.0 * 4096;

}  // namespace

TEST_CASE("layers: LLaMA-3 parameter counts match the published sizes") {
  // 32 x 218,112,000 + 2 x 525,336,576 (untied embed / unembed) + 4096 = 8,030,261,248 ("8B").
  CHECK(roofline::layer_params(llama8b()) == kLayer8b);
  CHECK(roofline::total_params(llama8b()) == 8030261248.0);
  // 80 x (3 x 8192 x 28672 + 2 x 8192 x 72 x 128 + 16384) + 2 x 1,050,673,152 + 8192 = 70,553,706,496 ("70B").
  CHECK(roofline::total_params(llama70b()) == 70553706496.0);
}

TEST_CASE("layers: the book's per-layer training FLOPs table") {
  const auto& m = llama8b();
  const double B = 4, T = 8192, D = 4096, F = 14336, N = 32, K = 8, H = 128;
  // Gated MLP: params 3DF, training FLOPs 6 x params x tokens = 18 BTDF.
  CHECK(6 * roofline::mlp_params(m) * B * T == Approx(18 * B * T * D * F));
  // Attention projections: params 2D(N+K)H, FLOPs 12 BTD(N+K)H.
  CHECK(6 * roofline::attention_params(m) * B * T == Approx(12 * B * T * D * (N + K) * H));
  // Dot-product attention: 12 B T^2 N H, half when causal.
  CHECK(roofline::attention_training_flops(m, B * T, T, AttentionMask::kFull) == Approx(12 * B * T * T * N * H));
  CHECK(roofline::attention_training_flops(m, B * T, T, AttentionMask::kCausal) == Approx(6 * B * T * T * N * H));
  // Model FLOPs: 6 x matmul params x tokens + attention; matmul params leave
  // out the embedding lookup and the norms.
  const double matmul_params = 32 * (3 * D * F + 2 * D * (N + K) * H) + D * 128256;
  CHECK(roofline::matmul_params(m) == matmul_params);
  CHECK(roofline::model_training_flops(m, B * T, T, AttentionMask::kCausal) ==
        Approx(6 * matmul_params * B * T + 32 * 6 * B * T * T * N * H));
}

TEST_CASE("critical batch: v5p data parallelism needs 2550 tokens per chip on one axis, 850 on three") {
  // training.md: B/X > C / W_ici; v5p C = 4.59e14, W = 2 x 9e10 -> 2550;
  // three axes triple W -> 850.
  const Mesh m = mesh("X=4,Y=4,Z=4", "tpu-v5p");
  const auto one = roofline::critical_batch(chip("tpu-v5p"), m, axes(m, "X"), axes(m, "Y"), 0, 32768,
                                            roofline::DType::kBF16);
  CHECK(*one.data_parallel_tokens_per_chip == Approx(4.59e14 / 1.8e11));
  CHECK(*one.data_parallel_tokens_per_chip == Approx(2550));
  const auto three = roofline::critical_batch(chip("tpu-v5p"), m, axes(m, "XYZ"), 0, 0, 32768,
                                              roofline::DType::kBF16);
  CHECK(*three.data_parallel_tokens_per_chip == Approx(850));
  // No model or DCN axes: those figures do not apply.
  CHECK_FALSE(three.tensor_parallel_max_ways.has_value());
  CHECK_FALSE(three.fsdp_tp_tokens_per_chip.has_value());
  CHECK_FALSE(three.dcn_tokens_per_slice.has_value());
}

TEST_CASE("critical batch: v5p FSDP + TP with F = 32768 goes down to about 99 tokens per chip") {
  // anchors.md 2.7: B/N > alpha^2 / (M_X M_Y F) = 2550^2 / (2 x 32768) = 99.2
  // with FSDP over two axes (M_X = 2) and TP over one (M_Y = 1).
  const Mesh m = mesh("X=4,Y=4,Z=4", "tpu-v5p");
  const auto cb = roofline::critical_batch(chip("tpu-v5p"), m, axes(m, "XY"), axes(m, "Z"), 0, 32768,
                                           roofline::DType::kBF16);
  CHECK(*cb.fsdp_tp_tokens_per_chip == Approx(2550.0 * 2550.0 / (2 * 32768)));
  CHECK(*cb.fsdp_tp_tokens_per_chip == Approx(99).epsilon(0.01));
  // TP stays compute-bound below Y = M_Y F / 2550 (F = 32768: 12.85 ways).
  CHECK(*cb.tensor_parallel_max_ways == Approx(32768 / 2550.0));
  // The optimal FSDP ways for N = 64, B = 48,000: sqrt(B N W_X / (F W_Y))
  // = sqrt(48000 x 64 x 2 / 32768) = 13.69. The book prints 13.9 (it rounds
  // F to 32k, 48000/32000 x 128 = 192 -> 13.86).
  const double wx = roofline::effective_bandwidth(m, axes(m, "XY"));
  const double wy = roofline::effective_bandwidth(m, axes(m, "Z"));
  CHECK(wx == Approx(2 * 1.8e11));
  CHECK(roofline::fsdp_tp_optimal_x(48000, 64, 32768, wx, wy) == Approx(std::sqrt(48000.0 * 64 * 2 / 32768)));
}

TEST_CASE("critical batch: v5e figures and DCN") {
  // v5e: C / W = 1.97e14 / 9e10 = 2189 on one wrapping axis, 1094 on two.
  const Mesh pod = mesh("X=16,Y=16", "tpu-v5e");
  const auto& v5e = chip("tpu-v5e");
  CHECK(roofline::critical_batch(v5e, pod, axes(pod, "X"), 0, 0, 1, roofline::DType::kBF16)
            .data_parallel_tokens_per_chip.value() == Approx(2188.9).epsilon(1e-4));
  CHECK(roofline::critical_batch(v5e, pod, axes(pod, "XY"), 0, 0, 1, roofline::DType::kBF16)
            .data_parallel_tokens_per_chip.value() == Approx(1094.4).epsilon(1e-4));
  // v5p across S slices: C / W_dcn x (S-1)/S per slice. The book's 73,440
  // (4.59e14 / 6.25e9) is the many-slice limit; two slices halve it.
  const Mesh two = mesh("S=2:dcn,X=4,Y=4,Z=4", "tpu-v5p");
  const auto& v5p = chip("tpu-v5p");
  const auto dcn2 = roofline::critical_batch(v5p, two, 0, 0, axes(two, "S"), 1, roofline::DType::kBF16);
  CHECK(dcn2.dcn_tokens_per_slice.value() == Approx(73440.0 / 2));
  const Mesh many = mesh("S=64:dcn,X=4,Y=4,Z=4", "tpu-v5p");
  const auto dcn64 = roofline::critical_batch(v5p, many, 0, 0, axes(many, "S"), 1, roofline::DType::kBF16);
  CHECK(dcn64.dcn_tokens_per_slice.value() == Approx(73440.0 * 63 / 64));
}

TEST_CASE("critical batch: H100 in-node data parallelism") {
  // gpus.md: 990e12 / 450e9 = 2200 drops the (N-1)/N of the all-gather; with
  // it, 8 GPUs: 989e12 / (450e9 x 8/7) = 1923.
  const Mesh node = mesh("X=8", "h100-sxm");
  CHECK(roofline::critical_batch(chip("h100-sxm"), node, axes(node, "X"), 0, 0, 1, roofline::DType::kBF16)
            .data_parallel_tokens_per_chip.value() == Approx(989e12 / (450e9 * 8 / 7)));
}

TEST_CASE("training step: data parallel all-reduces the gradients once per step") {
  // llama-3-8b on a v5p 4x4x4 as one data axis of 64 (three wrapping rings):
  // per layer AllReduce of the fp32 gradient (the default grads dtype),
  // V = 4 x 218,112,000 bytes, in 2V / (3 x 1.8e11); plus the embedding and
  // unembedding tables (4 x 128256 x 4096 bytes each).
  const Mesh m = mesh("X=64", "tpu-v5p");
  const auto s = step(llama8b(), "tpu-v5p", m, {.data = axes(m, "X")},
                      {.batch_tokens = 64 * 8192, .remat = roofline::Remat::kFull});
  const double w3 = 3 * 1.8e11;
  const double expected = 32 * 2 * (4 * kLayer8b) / w3 + 2 * 2 * (4 * kTable8b) / w3;
  CHECK(part(s, "gradient all-reduce").roofline.t_ici_s == Approx(expected));
  CHECK(part(s, "tensor-parallel collectives").roofline.t_ici_s == 0);
  CHECK(part(s, "fsdp collectives").roofline.t_ici_s == 0);
  CHECK(s.tokens_per_chip == 8192);
  // Pure DP keeps 8.03e9 params x (4 + 4 + 8) bytes (fp32 master weights,
  // fp32 gradients, two fp32 Adam moments) = 128.5 GB per chip: more than
  // v5p's 96 GB (the book: DP with Adam fits ~HBM/10 params, ~9B).
  CHECK(s.memory.params_bytes == Approx(4 * 8030261248.0));
  CHECK(s.memory.grads_bytes == Approx(4 * 8030261248.0));
  CHECK(s.memory.optimizer_bytes == Approx(8 * 8030261248.0));
  CHECK_FALSE(s.memory.fits);
}

TEST_CASE("training step: FSDP shards the state and gathers each layer's weights twice") {
  const Mesh m = mesh("X=64", "tpu-v5p");
  const auto x = axes(m, "X");
  const auto s = step(llama8b(), "tpu-v5p", m, {.data = x, .fsdp = x},
                      {.batch_tokens = 64 * 8192, .remat = roofline::Remat::kFull});
  // Per layer: AllGather forward + AllGather backward of the bf16 weights
  // (V = 2 x 218,112,000 bytes: each chip casts its fp32 shard before the
  // gather) + ReduceScatter of the fp32 gradient (V = 4 x 218,112,000),
  // each V / (3 W); tables: the embedding and unembedding gathered forward,
  // the unembedding again backward (3 x 2 x 128256 x 4096 bytes), both
  // gradients reduce-scattered (2 x 4 x 128256 x 4096).
  const double w3 = 3 * 1.8e11;
  const double expected = 32 * (2 * 2 + 4) * kLayer8b / w3 + (3 * 2 + 2 * 4) * kTable8b / w3;
  CHECK(part(s, "fsdp collectives").roofline.t_ici_s == Approx(expected));
  // Full remat gathers no weights more than none: the recomputed matmuls
  // use the backward's gathers (scripts/remat_collectives.py: 8 weight
  // gathers a layer of 4 matrices under every policy).
  const auto none = step(llama8b(), "tpu-v5p", m, {.data = x, .fsdp = x}, {.batch_tokens = 64 * 8192});
  CHECK(part(none, "fsdp collectives").roofline.t_ici_s == Approx(expected));
  CHECK(part(s, "gradient all-reduce").roofline.t_ici_s == 0);
  // fp32 master weights: 4 bytes x (the sharded parameters + the final norm's 4096, replicated).
  CHECK(s.memory.params_bytes == Approx(4 * (8030261248.0 - 4096) / 64 + 4 * 4096));
  // Two layers' weights gathered in bf16.
  CHECK(s.memory.gathered_weights_bytes == Approx(2 * 2 * kLayer8b));
  CHECK(s.memory.fits);
}

TEST_CASE("training step: matmuls cost 3x their forward FLOPs, 4x with remat") {
  const Mesh m = mesh("X=64", "tpu-v5p");
  const auto x = axes(m, "X");
  TrainingConfig cfg{.batch_tokens = 64 * 8192};
  const auto plain = step(llama8b(), "tpu-v5p", m, {.data = x, .fsdp = x}, cfg);
  cfg.remat = roofline::Remat::kFull;
  const auto remat = step(llama8b(), "tpu-v5p", m, {.data = x, .fsdp = x}, cfg);
  // Attention projections per chip: b = 8192 tokens, forward 2 b D (N + 2K) H
  // (x @ [Wq Wk Wv]) + 2 b N H D (attn @ Wo), times 3, times 32 layers.
  const double b = 8192, D = 4096, H = 128;
  const double fwd = 2 * b * D * (32 + 16) * H + 2 * b * 32 * H * D;
  CHECK(part(plain, "attention projections").roofline.flops == Approx(32 * 3 * fwd));
  CHECK(part(remat, "attention projections").roofline.flops == Approx(32 * 4 * fwd));
  // Causal attention core: 12 b T N H / 2 per layer.
  CHECK(part(plain, "attention core").roofline.flops == Approx(32 * 6 * b * 8192 * 32 * H));
  // Gated MLP: 18 b D F per layer, plus the SiLU-product's 4 + 8 FLOPs per element of [b, F].
  CHECK(part(plain, "mlp").roofline.flops == Approx(32 * (18 * b * D * 14336 + 12 * b * 14336)));
  // Remat keeps a layer input instead of every activation.
  CHECK(remat.memory.activations_bytes < plain.memory.activations_bytes);
  CHECK(remat.memory.activations_bytes == Approx(remat.memory.activations_remat_bytes));
  CHECK(plain.memory.activations_bytes == Approx(plain.memory.activations_no_remat_bytes));
}

TEST_CASE("training step: tensor parallelism gathers and scatters activations around every block") {
  // v5p X=16 (two wrapping rings), Y=4 (one): TP over Y. Per layer: forward
  // AllGather + ReduceScatter per block (2 + 2), backward AllGather dOut,
  // ReduceScatter dIn, AllGather In again per block (4 + 2); the unembedding
  // one more of each. V = b D 2 bytes with b = tokens / 16.
  const Mesh m = mesh("X=16,Y=4", "tpu-v5p");
  const auto s = step(llama8b(), "tpu-v5p", m, {.data = axes(m, "X"), .fsdp = axes(m, "X"), .model = axes(m, "Y")},
                      {.batch_tokens = 16 * 8192, .remat = roofline::Remat::kFull});
  // With full remat the recomputed forward's AllGathers are the backward's
  // gathers of the block inputs (AG 2 + 4), and of its ReduceScatters only
  // Wo's runs again, to rebuild the MLP block's input (RS 2 + 1 + 2): XLA's
  // counts, scripts/remat_collectives.py. The unembedding (outside the
  // rematerialised layers) AG 1, RS 1.
  const double v = 8192.0 * 4096 * 2;
  const double t = v / 1.8e11;  // one wrapping ring of 4: V / W_bidi (bandwidth-bound)
  CHECK(part(s, "tensor-parallel collectives").roofline.t_ici_s == Approx((32 * (6 + 5) + 2) * t));
  // The other policies (detail/training_remat.hpp, tp_collectives): AG 6
  // under every one; RS 4, and 5 where Wo runs again (save-qkv).
  const auto tp_s = [&](roofline::Remat r) {
    const auto p = step(llama8b(), "tpu-v5p", m,
                        {.data = axes(m, "X"), .fsdp = axes(m, "X"), .model = axes(m, "Y")},
                        {.batch_tokens = 16 * 8192, .remat = r});
    return part(p, "tensor-parallel collectives").roofline.t_ici_s;
  };
  CHECK(tp_s(roofline::Remat::kNone) == Approx((32 * (6 + 4) + 2) * t));
  CHECK(tp_s(roofline::Remat::kMinimal) == Approx((32 * (6 + 4) + 2) * t));
  CHECK(tp_s(roofline::Remat::kSaveDotExceptMlpwi) == Approx((32 * (6 + 4) + 2) * t));
  CHECK(tp_s(roofline::Remat::kSaveQkv) == Approx((32 * (6 + 5) + 2) * t));
}

TEST_CASE("training step: MFU follows the named convention and the step bounds") {
  const Mesh m = mesh("X=16,Y=4", "tpu-v5p");
  const auto s = step(llama8b(), "tpu-v5p", m, {.data = axes(m, "X"), .fsdp = axes(m, "X"), .model = axes(m, "Y")},
                      {.batch_tokens = 64 * 8192, .remat = roofline::Remat::kFull});
  const double model_flops =
      roofline::model_training_flops(llama8b(), 64 * 8192.0, 8192, AttentionMask::kCausal);
  CHECK(s.model_flops == Approx(model_flops));
  CHECK(s.mfu == Approx(model_flops / (s.step_time_s * 64 * 4.59e14)));
  CHECK(s.roofline.t_lower_s == Approx(std::max(s.t_compute_s, s.roofline.t_ici_s)));
  CHECK(s.roofline.t_upper_s == Approx(s.t_compute_s + s.roofline.t_ici_s));
  CHECK(s.step_time_s == s.roofline.t_lower_s);
  CHECK(s.mfu < 1);
  CHECK(s.mfu > 0.3);
}

TEST_CASE("training step: a pipeline adds a bubble and stage-boundary transfers") {
  const Mesh m = mesh("P=4,X=16", "tpu-v5p");
  const auto p = *m.index("P");
  const auto s = step(llama8b(), "tpu-v5p", m, {.data = axes(m, "X"), .fsdp = axes(m, "X"), .pipeline_axis = p},
                      {.batch_tokens = 64 * 8192, .remat = roofline::Remat::kFull, .microbatches = 4});
  // GPipe / 1F1B bubble: (M + P - 1) / M = 7 / 4.
  CHECK(s.bubble_factor == Approx(7.0 / 4.0));
  CHECK(part(s, "pipeline transfers").roofline.t_ici_s > 0);
  CHECK(part(s, "embedding").roofline.flops == 0);  // the last stage (unembedding) is the slowest; embedding is on stage 0
}

TEST_CASE("training step: LLaMA-3-70B does not fit on 8 v5e chips") {
  // 70.6e9 params x (4 + 4 + 8) bytes / 8 chips = 141 GB per chip > 16 GB.
  const Mesh m = mesh("X=8", "tpu-v5e");
  const auto s = step(llama70b(), "tpu-v5e", m, {.data = axes(m, "X"), .fsdp = axes(m, "X")},
                      {.batch_tokens = 8 * 8192, .remat = roofline::Remat::kFull});
  CHECK_FALSE(s.memory.fits);
  CHECK(s.memory.total_bytes > 1.0e11);
}

TEST_CASE("training step: inputs that do not divide are errors") {
  const Mesh m = mesh("P=3,X=4", "tpu-v5e");
  const auto p = *m.index("P");
  auto err = [&](ParallelLayout lay, TrainingConfig cfg) {
    auto s = roofline::predict_training_step(llama8b(), chip("tpu-v5e"), m, lay, cfg);
    REQUIRE_FALSE(s.ok());
    return std::string(s.status().message());
  };
  const auto x = axes(m, "X");
  CHECK(err({.data = x, .pipeline_axis = p}, {.batch_tokens = 4 * 8192, .microbatches = 3})
            .find("do not divide the model's 32 layers") != std::string::npos);
  CHECK(err({.data = x}, {.batch_tokens = 6 * 8192}).find("do not split evenly") != std::string::npos);
  CHECK(err({.data = x}, {.batch_tokens = 1000}).find("whole number") != std::string::npos);
  CHECK(err({.data = x, .model = x}, {.batch_tokens = 4 * 8192}).find("both a data and a tensor") !=
        std::string::npos);
  CHECK(err({.data = x}, {.batch_tokens = 4 * 8192, .microbatches = 2}).find("without one use 1") !=
        std::string::npos);
}

TEST_CASE("training: training_step() (core) is predict_training_step on valid input") {
  const Mesh m = mesh("X=16,Y=4", "tpu-v5p");
  const ParallelLayout lay{.data = 0b01, .fsdp = 0b01, .model = 0b10};
  const TrainingConfig cfg{.batch_tokens = 64 * 8192, .remat = roofline::Remat::kFull};
  CHECK(roofline::validate_training_step(llama70b(), chip("tpu-v5p"), m, lay, cfg).ok());
  const TrainingStep core = roofline::training_step(llama70b(), chip("tpu-v5p"), m, lay, cfg);
  const TrainingStep checked = step(llama70b(), "tpu-v5p", m, lay, cfg);
  CHECK(core.step_time_s == checked.step_time_s);
  CHECK(core.roofline.t_upper_s == checked.roofline.t_upper_s);
  CHECK(core.memory.total_bytes == checked.memory.total_bytes);
  REQUIRE(core.parts.size() == checked.parts.size());
  for (std::size_t i = 0; i < core.parts.size(); ++i) CHECK(core.parts[i].roofline.t_ici_s == checked.parts[i].roofline.t_ici_s);
}
