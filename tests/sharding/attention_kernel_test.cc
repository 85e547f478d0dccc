// How the attention core runs (TrainingConfig::attention,
// AttentionKernel; detail/training_step_parts.hpp attention_core,
// detail/training_remat.hpp; docs/layers.md "Attention kernels").
#include <catch2/catch.hpp>

#include <string>

#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/layers.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/training_step.hpp"

using roofline::AttentionKernel;
using roofline::Remat;
using roofline::TrainingStep;

namespace {

// llama-3-8b FSDP over a v5p 4x4x4 as one axis of 64, one 8192-token
// sequence a chip, no tensor parallelism: t = T = 8192, N = 32 query heads
// of H = 128 (q = N H = 4096), kv = K H = 1024, 32 layers, bf16.
TrainingStep fsdp64(AttentionKernel kernel, Remat remat) {
  const roofline::ModelConfig& model = *roofline::find_builtin_model("llama-3-8b");
  const roofline::Chip& chip = roofline::chip("tpu-v5p");
  auto m = roofline::parse_mesh("X=64", chip);
  REQUIRE(m.ok());
  const roofline::AxisMask x = roofline::mask_of(*roofline::resolve_axes(*m, "X"));
  const roofline::ParallelLayout lay{.data = x, .fsdp = x};
  const roofline::TrainingConfig cfg{.batch_tokens = 64 * 8192, .remat = remat, .attention = kernel};
  const absl::Status ok = roofline::validate_training_step(model, chip, *m, lay, cfg);
  INFO(std::string(ok.message()));
  REQUIRE(ok.ok());
  return roofline::training_step(model, chip, *m, lay, cfg);
}

const roofline::StepPart& core(const TrainingStep& s) {
  for (const auto& p : s.parts)
    if (p.name == "attention core") return p;
  FAIL("no attention core part");
  return s.parts.front();
}

constexpr double L = 32, t = 8192, T = 8192, N = 32, q = 4096, kv = 1024, bf16 = 2;
constexpr double kProduct = 2 * t * T * q;  // one full T x H product over all query heads
constexpr double e = t * N * T;             // elements of the scores [t, N, T]
constexpr double qb = t * q * bf16, kvb = t * kv * bf16, eb = e * bf16;

}  // namespace

TEST_CASE("attention kernel: a fused kernel skips the causal half, a full-product one does not") {
  const TrainingStep flash = fsdp64(AttentionKernel::kFlash, Remat::kNone);
  const TrainingStep full = fsdp64(AttentionKernel::kFlashFullProduct, Remat::kNone);
  // Forward QK^T and PV, backward four products: 6 products a layer.
  CHECK(core(flash).roofline.flops == Approx(L * 6 * kProduct / 2));
  CHECK(core(full).roofline.flops == Approx(L * 6 * kProduct));
  // Q K V O once forward, Q K V O dO in and dQ dK dV out backward.
  CHECK(core(flash).roofline.hbm_bytes == Approx(L * (6 * qb + 6 * kvb)));
  CHECK(core(full).roofline.hbm_bytes == Approx(core(flash).roofline.hbm_bytes));
}

TEST_CASE("attention kernel: materialised scores cross HBM 4 times forward, 7 backward") {
  const TrainingStep mat = fsdp64(AttentionKernel::kMaterialized, Remat::kNone);
  // Six full products, softmax 5 FLOPs an element forward and 4 backward.
  CHECK(core(mat).roofline.flops == Approx(L * (6 * kProduct + 9 * e)));
  // Forward: S = QK^T (Q, K in, S out), softmax (S in, P out), O = PV (P, V
  // in, O out). Backward: dP = dO V^T, dV = P^T dO, dS (P, dP in, dS out),
  // dQ = dS K, dK = dS^T Q. 11 passes over the scores in all.
  CHECK(core(mat).roofline.hbm_bytes == Approx(L * (6 * qb + 6 * kvb + 11 * eb)));
  // Every policy but none runs the forward again (minimal-with-context
  // too, below): its 2 products, 5e FLOPs and 4 passes over the scores.
  const TrainingStep mat_full = fsdp64(AttentionKernel::kMaterialized, Remat::kFull);
  CHECK(core(mat_full).roofline.flops - core(mat).roofline.flops == Approx(L * (2 * kProduct + 5 * e)));
  CHECK(core(mat_full).roofline.hbm_bytes - core(mat).roofline.hbm_bytes ==
        Approx(L * (2 * qb + 2 * kvb + 4 * eb)));
}

TEST_CASE("attention kernel: the model's FLOPs do not change, the step's time does") {
  const TrainingStep flash = fsdp64(AttentionKernel::kFlash, Remat::kFull);
  const TrainingStep mat = fsdp64(AttentionKernel::kMaterialized, Remat::kFull);
  CHECK(mat.model_flops == flash.model_flops);
  CHECK(mat.step_time_s > flash.step_time_s);
  CHECK(mat.expected_s > flash.expected_s);
  CHECK(mat.mfu < flash.mfu);
  CHECK(mat.mfu_expected < flash.mfu_expected);
}

TEST_CASE("attention kernel: remat none keeps the probabilities, the others only while a layer's backward runs") {
  // Per token and layer: the probabilities N T in bf16 replace the fp32
  // softmax statistics (N x 4 bytes).
  const double per_token_layer = N * T * bf16 - N * 4;
  const TrainingStep flash_none = fsdp64(AttentionKernel::kFlash, Remat::kNone);
  const TrainingStep mat_none = fsdp64(AttentionKernel::kMaterialized, Remat::kNone);
  CHECK(mat_none.memory.activations_bytes - flash_none.memory.activations_bytes ==
        Approx(L * t * per_token_layer));
  const TrainingStep flash_full = fsdp64(AttentionKernel::kFlash, Remat::kFull);
  const TrainingStep mat_full = fsdp64(AttentionKernel::kMaterialized, Remat::kFull);
  CHECK(mat_full.memory.activations_bytes - flash_full.memory.activations_bytes == Approx(t * per_token_layer));
  // minimal-with-context keeps what a fused core names 'context' (its
  // output and statistics), so that core never runs again; a materialised
  // core names nothing so (MaxText's dot-product path), and the policy runs
  // as minimal there.
  const TrainingStep flash_ctx = fsdp64(AttentionKernel::kFlash, Remat::kMinimalWithContext);
  const TrainingStep mat_ctx = fsdp64(AttentionKernel::kMaterialized, Remat::kMinimalWithContext);
  const TrainingStep mat_minimal = fsdp64(AttentionKernel::kMaterialized, Remat::kMinimal);
  CHECK(core(flash_ctx).roofline.flops == Approx(core(flash_none).roofline.flops));
  CHECK(core(mat_ctx).roofline.flops == Approx(core(mat_minimal).roofline.flops));
  CHECK(mat_ctx.memory.activations_bytes == Approx(mat_minimal.memory.activations_bytes));
  CHECK(mat_ctx.step_time_s == Approx(mat_minimal.step_time_s));
}

TEST_CASE("attention kernel: names round-trip") {
  for (AttentionKernel k :
       {AttentionKernel::kFlash, AttentionKernel::kFlashFullProduct, AttentionKernel::kMaterialized})
    CHECK(roofline::parse_attention_kernel(roofline::attention_kernel_name(k)) == k);
  CHECK_FALSE(roofline::parse_attention_kernel("mha").has_value());
}
