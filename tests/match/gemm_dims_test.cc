// The GEMM a measured op runs (gemm_dims, gemm_shape; roofline/match/op_model.hpp):
// PyTorch matmuls from their Input Dims, convolutions as implicit GEMMs,
// HLO dots from their operands and dimension numbers.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "roofline/hlo/reader.hpp"
#include "roofline/match/cost_source.hpp"
#include "roofline/match/op_model.hpp"

namespace roofline {
namespace {

CallInfo aten(std::string op, std::string dims) {
  CallInfo c;
  c.launcher = std::move(op);
  c.input_dims = std::move(dims);
  return c;
}

std::optional<GemmDims> dims_of(const CostSource& c) {
  REQUIRE(c.model.has_value());
  return gemm_dims(*c.model);
}

bool same(const std::optional<GemmDims>& d, GemmDims want) {
  return d && d->m == want.m && d->n == want.n && d->k == want.k && d->batch == want.batch;
}

TEST_CASE("gemm dims: PyTorch matmuls from their Input Dims") {
  // linear: x[8, 512, 768] @ w[3072, 768]^T is M = 8 x 512, N = 3072, K = 768.
  CHECK(same(dims_of(cost_from_input_dims(aten("aten::linear", "[[8,512,768],[3072,768],[3072]]"), "k")),
             {.m = 4096, .n = 3072, .k = 768}));
  // bmm keeps its batch.
  CHECK(same(dims_of(cost_from_input_dims(aten("aten::bmm", "[[16,128,64],[16,64,256]]"), "k")),
             {.m = 128, .n = 256, .k = 64, .batch = 16}));
  // An element-wise op runs no GEMM.
  CHECK_FALSE(dims_of(cost_from_input_dims(aten("aten::add", "[[64,1024],[64,1024],[]]"), "k")));
}

TEST_CASE("gemm dims: a convolution's pass as its implicit GEMM") {
  // The ResNet-50 stem x[32,3,224,224] * w[64,3,7,7] -> y[32,64,112,112]
  // (the output's extent from its backward). Forward: M = 32 x 112 x 112,
  // N = 64, K = 3 x 7 x 7.
  const std::vector<CallInfo> calls = {
      aten("aten::cudnn_convolution_backward", "[[32,3,224,224],[32,64,112,112],[64,3,7,7],[],[],[],[],[],[],[],[]]")};
  CHECK(same(dims_of(cost_from_input_dims(aten("aten::cudnn_convolution", "[[32,3,224,224],[64,3,7,7],[],[],[],[],[],[],[]]"),
                                          "volta_scudnn_128x64_relu_medium_nn_v1", calls)),
             {.m = 32 * 112 * 112, .n = 64, .k = 3 * 49}));
  // Weight gradient: M = Cin x kernel positions, N = Cout, K = N x output positions.
  CHECK(same(dims_of(cost_from_input_dims(
                 aten("aten::cudnn_convolution_backward_weight", "[[],[32,64,112,112],[32,3,224,224],[],[],[],[],[],[],[]]"),
                 "k", calls)),
             {.m = 3 * 49, .n = 64, .k = 32 * 112 * 112}));
  // Input gradient: M = N x input positions, N = Cin, K = Cout x kernel positions.
  CHECK(same(dims_of(cost_from_input_dims(
                 aten("aten::cudnn_convolution_backward_input", "[[32,3,224,224],[32,64,112,112],[64,3,7,7],[],[],[],[],[],[],[]]"),
                 "k", calls)),
             {.m = 32 * 224 * 224, .n = 3, .k = 64 * 49}));
  // Grouped (depthwise-like, 4 groups of 8 channels): batch = groups, per-group N and K.
  CHECK(same(dims_of(cost_from_input_dims(
                 aten("aten::conv2d", "[[2,32,16,16],[32,8,3,3],[],[],[],[],[]]"), "k")),
             {.m = 2 * 14 * 14, .n = 8, .k = 8 * 9, .batch = 4}));
  // Both gradients in one op are two GEMMs, not one shape; Winograd is not a GEMM.
  CHECK_FALSE(dims_of(cost_from_input_dims(
      aten("aten::cudnn_convolution_backward", "[[32,3,224,224],[32,64,112,112],[64,3,7,7],[],[],[],[],[],[],[],[]]"),
      "k")));
  CHECK_FALSE(dims_of(cost_from_input_dims(aten("aten::cudnn_convolution", "[[32,256,14,14],[256,256,3,3],[],[],[],[],[],[],[]]"),
                                           "volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1")));
}

TEST_CASE("gemm dims: an HLO dot from its operands and dimension numbers") {
  absl::StatusOr<HloModule> m = parse_hlo_text(R"(HloModule m
ENTRY e {
  a = bf16[4,2048,512]{2,1,0} parameter(0)
  b = bf16[4,512,1024]{2,1,0} parameter(1)
  ROOT d = bf16[4,2048,1024]{2,1,0} dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
})");
  REQUIRE(m.ok());
  const HloInstruction* dot = m->entry().root;
  REQUIRE(dot != nullptr);
  CHECK(same(gemm_dims(HloModel{.instruction = dot}), {.m = 2048, .n = 1024, .k = 512, .batch = 4}));
}

TEST_CASE("gemm shape: the kernel's tile on the chip's SMs, or none on a TPU") {
  const OpModel mm = MatmulModel{.matmul = {.m = 8944, .k = 1024, .n = 1024, .dtype = DType::kBF16}};
  const std::optional<GemmShape> h100 =
      gemm_shape(mm, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize1x1x1", chip("h100-sxm"));
  REQUIRE(h100);
  CHECK(h100->tile.m == 128);
  CHECK(h100->tile.n == 256);
  CHECK(h100->units == 132);
  CHECK(h100->schedule == GemmSchedule::kTileWaves);
  // No tile in the name: the usual tile, and only its tile quantization.
  const std::optional<GemmShape> plain = gemm_shape(mm, "custom-call.1", chip("mi300x"));
  REQUIRE(plain);
  CHECK(plain->tile.m == kUsualGpuTile.m);
  CHECK(plain->units == 304);
  CHECK(plain->schedule == GemmSchedule::kSplitOrUnknown);
  CHECK_FALSE(gemm_shape(mm, "k", chip("tpu-v5e")));
}

}  // namespace
}  // namespace roofline
