// predict(OpModel, Chip): each cost source's roofline, derived from its
// formula and the chip spec.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "roofline/hlo/reader.hpp"
#include "roofline/match/op_model.hpp"
#include "tests/test_support.hpp"

using roofline::chip;
using roofline::DType;
using roofline::OpModel;
using roofline::predict;

TEST_CASE("op model: a PyTorch matmul is the library's Matmul") {
  const roofline::Matmul mm{.m = 64, .k = 128, .n = 256};
  const OpModel m = roofline::MatmulModel{.matmul = mm};
  const roofline::Prediction p = predict(m, chip("h100-sxm"));
  // bf16 [64,128] @ [128,256]: (64*128 + 128*256 + 64*256) * 2 bytes, memory-bound.
  CHECK(p.hbm_bytes == (64.0 * 128 + 128.0 * 256 + 64.0 * 256) * 2);
  CHECK(p.t_lower_s == predict(mm, chip("h100-sxm")).t_lower_s);
  CHECK(p.bound == roofline::Bound::kMemory);
}

TEST_CASE("op model: an fp32 GEMM on TF32 tensor cores is timed at the TF32 peak where the chip has one") {
  const roofline::Matmul mm{.m = 4096, .k = 4096, .n = 4096, .dtype = DType::kF32};
  const OpModel tf32 = roofline::MatmulModel{.matmul = mm, .peak = roofline::MatmulPeak::kTf32TensorCores};
  // A100: 2 * 4096^3 / 1.56e14 (TF32) = 0.881 ms, instead of / 1.95e13 (fp32) = 7.05 ms.
  const roofline::Prediction a100 = predict(tf32, chip("a100-sxm"));
  CHECK(a100.t_math_s == Approx(2.0 * 4096 * 4096 * 4096 / 1.56e14));
  CHECK(a100.bound == roofline::Bound::kCompute);
  // The ridge is against the rate that timed its 3 x 64 MiB: HBM, less the
  // 40 MB L2 can serve (select_memory_tier): (bytes - 4e7) / 2.039e12.
  const double bytes = 3.0 * 4096 * 4096 * 4;
  CHECK(a100.ridge_flops_per_byte == Approx(1.56e14 / (bytes / ((bytes - 4e7) / 2.039e12))));
  CHECK(a100.dtype == DType::kF32);
  // A TPU has no TF32 unit: the fp32 row, as for any fp32 matmul.
  CHECK(predict(tf32, chip("tpu-v5e")).t_math_s == predict(mm, chip("tpu-v5e")).t_math_s);
}

TEST_CASE("op model: attention counts QK^T and PV over the full score matrix, backward twice") {
  // B=2 H=8 T=S=1024 D=64, bf16: Q, K, V and O are 2*8*1024*64 = 1,048,576 elements each.
  roofline::AttentionModel a{.batch = 2, .heads = 8, .q_len = 1024, .kv_len = 1024, .head_dim = 64,
                             .q_elements = 1048576, .kv_elements = 1048576, .dtype = DType::kBF16};
  CHECK(a.flops() == 4.0 * 2 * 8 * 1024 * 1024 * 64);
  CHECK(a.hbm_bytes() == 4.0 * 1048576 * 2);  // Q, K, V read, O written
  const roofline::Prediction p = predict(OpModel{a}, chip("h100-sxm"));
  CHECK(p.flops == a.flops());
  a.pass = roofline::AttentionPass::kBackward;
  CHECK(a.flops() == 2 * 4.0 * 2 * 8 * 1024 * 1024 * 64);
  CHECK(a.hbm_bytes() == 2 * 4.0 * 1048576 * 2);
}

TEST_CASE("op model: element-wise ops move what they read and write") {
  const OpModel m = roofline::ElementwiseModel{.flops = 1e6, .read_bytes = 8e6, .written_bytes = 4e6,
                                               .dtype = DType::kF32};
  const roofline::Prediction p = predict(m, chip("tpu-v5e"));
  // 12 MB / 8.2e11 B/s = 14.6 us; 1e6 FLOP / 1.97e14 is far below.
  CHECK(p.hbm_bytes == 12e6);
  CHECK(p.t_lower_s == Approx(12e6 / 8.2e11));
  CHECK(p.bound == roofline::Bound::kMemory);
}

TEST_CASE("op model: collectives are timed on one group of the chip's interconnect") {
  const roofline::GroupCollective c{.kind = roofline::CollectiveKind::kAllReduce, .array_bytes = 2097152,
                                    .group_size = 8};
  const roofline::CollectiveTime t =
      roofline::collective_time_on_group(c.kind, c.array_bytes, c.group_size, chip("h100-sxm"));
  const roofline::Prediction nccl = predict(OpModel{roofline::CollectiveModel{.collective = c}}, chip("h100-sxm"));
  CHECK(nccl.t_ici_s == t.t_ici_s);
  CHECK(nccl.ici_bytes == t.bytes_per_link);
  CHECK(nccl.bound == roofline::Bound::kCommunication);
  // A group of one moves nothing.
  CHECK(predict(OpModel{roofline::CollectiveModel{.collective = {.group_size = 1}}}, chip("h100-sxm")).t_lower_s == 0);
  // XLA's figures, with the same collective on top.
  const roofline::Prediction xla = predict(
      OpModel{roofline::XlaStatsModel{.flops = 1e6, .hbm_bytes = 4e6, .collective = c}}, chip("h100-sxm"));
  CHECK(xla.t_ici_s == t.t_ici_s);
  CHECK(xla.hbm_bytes == 4e6);
}

TEST_CASE("op model: an async -start costs nothing; an HLO instruction is our HLO cost model") {
  CHECK(predict(OpModel{roofline::AsyncStartModel{}}, chip("tpu-v5e")).t_upper_s == 0);
  auto m = roofline::read_hlo_file(roofline::testing::test_data("hlo/matmul.hlo.txt").string());
  REQUIRE(m.ok());
  for (const roofline::HloInstruction& i : m->entry().instructions) {
    INFO(i.name);
    CHECK(predict(OpModel{roofline::HloModel{.instruction = &i}}, chip("tpu-v5e")).t_lower_s ==
          predict(i, chip("tpu-v5e")).t_lower_s);
  }
}

TEST_CASE("op model: attention on a hostile shape does not overflow its element count") {
  const std::int64_t huge = std::numeric_limits<std::int64_t>::max();
  const roofline::AttentionModel a{.batch = 1, .heads = 1, .q_len = 1, .kv_len = 1, .head_dim = 1,
                                   .q_elements = huge, .kv_elements = huge, .dtype = DType::kBF16};
  CHECK(a.hbm_bytes() == Approx(4.0 * static_cast<double>(huge) * 2));
}
