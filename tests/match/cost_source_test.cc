// Each cost source on its own: what evidence gives which model, and the
// reason when it gives none.
#include <catch2/catch.hpp>

#include <string>
#include <variant>

#include "roofline/hlo/reader.hpp"
#include "roofline/match/attribute.hpp"
#include "roofline/match/cost_source.hpp"
#include "tests/test_support.hpp"

using roofline::CallInfo;
using roofline::CostSource;
using roofline::MatchSource;

namespace {

CallInfo aten(std::string op, std::string dims, std::string types) {
  CallInfo c;
  c.launcher = std::move(op);
  c.input_dims = std::move(dims);
  c.input_types = std::move(types);
  return c;
}

}  // namespace

TEST_CASE("cost source: aten::mm Input Dims give a MatmulModel") {
  const CostSource c = roofline::cost_from_input_dims(
      aten("aten::mm", "[[64,128],[128,256]]", R"(["c10::BFloat16","c10::BFloat16"])"), "sm90_xmma_gemm_bf16");
  CHECK(c.source == MatchSource::kInputDims);
  CHECK(c.hlo_category == "matmul");
  CHECK(c.note == "aten::mm [64,128] @ [128,256]");
  REQUIRE(c.model.has_value());
  const auto* mm = std::get_if<roofline::MatmulModel>(&*c.model);
  REQUIRE(mm != nullptr);
  CHECK(mm->matmul.m == 64);
  CHECK(mm->matmul.k == 128);
  CHECK(mm->matmul.n == 256);
  CHECK(mm->matmul.dtype == roofline::DType::kBF16);
  CHECK(mm->peak == roofline::MatmulPeak::kComputeDtype);
}

TEST_CASE("cost source: linear folds leading dims into M; a tf32 kernel name picks the TF32 peak") {
  const CostSource c = roofline::cost_from_input_dims(
      aten("aten::linear", "[[4,16,1024],[2816,1024],[2816]]", R"(["float","float","float"])"),
      "ampere_sgemm_128x64_tn_tf32");
  REQUIRE(c.model.has_value());
  const auto& mm = std::get<roofline::MatmulModel>(*c.model);
  CHECK(mm.matmul.m == 64);  // 4 x 16
  CHECK(mm.matmul.k == 1024);
  CHECK(mm.matmul.n == 2816);
  CHECK(mm.peak == roofline::MatmulPeak::kTf32TensorCores);
  CHECK_THAT(c.note, Catch::EndsWith("fp32 GEMM on TF32 tensor cores (kernel name)"));
}

TEST_CASE("cost source: flash attention reads B, H, T, S, D from Q and K") {
  // _flash_attention_forward takes [B, T, H, D].
  const CostSource c = roofline::cost_from_input_dims(
      aten("aten::_flash_attention_forward", "[[2,1024,8,64],[2,512,8,64],[2,512,8,64]]",
           R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16"])"),
      "flash_fwd_kernel");
  REQUIRE(c.model.has_value());
  const auto& a = std::get<roofline::AttentionModel>(*c.model);
  CHECK(a.batch == 2);
  CHECK(a.heads == 8);
  CHECK(a.q_len == 1024);
  CHECK(a.kv_len == 512);
  CHECK(a.head_dim == 64);
  CHECK(a.pass == roofline::AttentionPass::kForward);
  CHECK(c.hlo_category == "attention");
}

TEST_CASE("cost source: element-wise, copies and gathers by the bytes they move") {
  const CostSource add = roofline::cost_from_input_dims(
      aten("aten::add", "[[1024,1024],[1024,1024],[]]", R"(["float","float","Scalar"])"), "elementwise_kernel");
  REQUIRE(add.model.has_value());
  const auto& e = std::get<roofline::ElementwiseModel>(*add.model);
  CHECK(e.flops == 1024.0 * 1024);
  CHECK(e.read_bytes == 2 * 1024.0 * 1024 * 4);
  CHECK(e.written_bytes == 1024.0 * 1024 * 4);
  CHECK(add.hlo_category == "elementwise");
  // embedding(weight[V, D], indices[N]): one row of D per index read and
  // written, and the N int64 indices read.
  const CostSource emb = roofline::cost_from_input_dims(
      aten("aten::embedding", "[[32000,512],[128]]", R"(["c10::BFloat16","long int"])"), "indexSelectKernel");
  const auto& g = std::get<roofline::ElementwiseModel>(*emb.model);
  CHECK(g.read_bytes == 128.0 * 512 * 2 + 128 * 8);
  CHECK(g.written_bytes == 128.0 * 512 * 2);
  CHECK(g.flops == 0);
  CHECK(emb.hlo_category == "data movement");
}

TEST_CASE("cost source: what Input Dims cannot cost says why") {
  CHECK(roofline::cost_from_input_dims(CallInfo{}, "k").note == "no launching framework op recorded for this kernel");
  CHECK_THAT(roofline::cost_from_input_dims(aten("aten::mm", "", ""), "k").note,
             Catch::Contains("record_shapes=False"));
  CHECK_THAT(roofline::cost_from_input_dims(aten("aten::mm", "[[1,", ""), "k").note,
             Catch::Contains("unreadable Input Dims"));
  const CostSource none = roofline::cost_from_input_dims(aten("aten::frobnicate", "[[4]]", "[]"), "k");
  CHECK_FALSE(none.model.has_value());
  CHECK(none.source == MatchSource::kUnmatched);
  CHECK(none.note == "no cost model for aten::frobnicate [[4]]");
}

TEST_CASE("cost source: NCCL args give a collective on one group") {
  CallInfo call;
  call.collective = "allreduce";
  call.in_msg_nelems = 1048576;
  call.group_size = 8;
  call.dtype = "BFloat16";
  const CostSource c = roofline::cost_from_collective_args(call);
  REQUIRE(c.model.has_value());
  const auto& m = std::get<roofline::CollectiveModel>(*c.model);
  CHECK(m.collective.kind == roofline::CollectiveKind::kAllReduce);
  CHECK(m.collective.array_bytes == 2097152.0);
  CHECK(m.collective.group_size == 8);
  CHECK(c.note == "all-reduce of 2097152 bytes over 8 devices");
  // An all-gather's V is its output: in x group without out_msg_nelems.
  call.collective = "_allgather_base";
  CHECK(std::get<roofline::CollectiveModel>(*roofline::cost_from_collective_args(call).model)
            .collective.array_bytes == 8 * 2097152.0);
  call.dtype = "Quaternion";
  CHECK_THAT(roofline::cost_from_collective_args(call).note, Catch::Contains("unknown message dtype"));
}

TEST_CASE("cost source: XLA's recorded figures, with the group from replica_groups for a collective") {
  roofline::OpInfo op;
  op.name = "all-reduce.1";
  op.category = "all-reduce";
  op.flops = 100;
  op.bytes_accessed = 4096;
  op.hlo_text = "%all-reduce.1 = f32[256]{0} all-reduce(f32[256]{0} %p), replica_groups={{0,1},{2,3}}, to_apply=%add";
  op.shape_with_layout = "f32[256]{0}";
  const CostSource c = roofline::cost_from_xla_stats(op);
  CHECK(c.source == MatchSource::kXlaStats);
  REQUIRE(c.model.has_value());
  const auto& m = std::get<roofline::XlaStatsModel>(*c.model);
  CHECK(m.flops == 100);
  CHECK(m.hbm_bytes == 4096);
  CHECK(m.dtype == roofline::DType::kF32);
  REQUIRE(m.collective.has_value());
  CHECK(m.collective->group_size == 2);
  CHECK(m.collective->array_bytes == 1024);
  op.flops.reset();
  op.bytes_accessed.reset();
  CHECK_FALSE(roofline::cost_from_xla_stats(op).model.has_value());
}

TEST_CASE("cost source: an async pair is charged at its -done, the -start costs nothing") {
  auto m = roofline::read_hlo_file(roofline::testing::test_data("hlo/edge_cases.hlo").string());
  REQUIRE(m.ok());
  const roofline::HloInstruction* start = m->instruction("rs-start");
  const roofline::HloInstruction* done = m->instruction("rs-done");
  REQUIRE(start != nullptr);
  REQUIRE(done != nullptr);
  CHECK(roofline::async_start_of(*done) == start);
  CHECK(roofline::async_done_of(*start) == done);
  CHECK(roofline::async_start_of(*start) == nullptr);

  const CostSource d = roofline::cost_from_hlo(*done);
  CHECK(d.async_done);
  REQUIRE(d.model.has_value());
  CHECK(std::get<roofline::HloModel>(*d.model).instruction == start);
  CHECK_THAT(d.note, Catch::StartsWith("async: the transfer of rs-start"));
  const CostSource s = roofline::cost_from_hlo(*start);
  CHECK_FALSE(s.async_done);
  REQUIRE(s.model.has_value());
  CHECK(std::holds_alternative<roofline::AsyncStartModel>(*s.model));
  CHECK(s.note == "async launch: its transfer is charged to rs-done");
}

TEST_CASE("cost source: a while loop without a trip count says its body is counted once") {
  auto m = roofline::read_hlo_file(roofline::testing::test_data("hlo/while_dynamic.hlo.txt").string());
  REQUIRE(m.ok());
  const roofline::HloInstruction* loop = m->instruction("while.5");
  REQUIRE(loop != nullptr);
  const CostSource c = roofline::cost_from_hlo(*loop);
  CHECK(c.source == MatchSource::kHloModule);
  CHECK_THAT(c.note, Catch::Contains("while loop without known_trip_count: body counted once"));
}

TEST_CASE("cost source: zero-size matmuls are empty matmuls, hostile sizes are not costed") {
  // An MoE expert that received no tokens: ordinary, and once a SIGFPE.
  for (const auto& [op, dims] : std::vector<std::pair<std::string, std::string>>{
           {"aten::mm", "[[64,0],[0,256]]"},
           {"aten::bmm", "[[2,0,5],[2,5,3]]"},
           {"aten::bmm", "[[2,4,0],[2,0,3]]"},
           {"aten::linear", "[[4,16,0],[2816,0]]"}}) {
    INFO(op << " " << dims);
    const CostSource c = roofline::cost_from_input_dims(aten(op, dims, R"(["float","float"])"), "k");
    REQUIRE(c.model.has_value());
    const auto& mm = std::get<roofline::MatmulModel>(*c.model);
    CHECK(mm.matmul.flops() == 0);
  }
  // M folded from leading dims: 2 x 0 x 5 with K = 5 is M = 0 (bmm batch 2).
  const CostSource bmm = roofline::cost_from_input_dims(aten("aten::bmm", "[[2,0,5],[2,5,3]]", "[]"), "k");
  CHECK(std::get<roofline::MatmulModel>(*bmm.model).matmul.batch == 2);
  // Leading dims whose product passes 2^63 are not costed (they used to wrap).
  const CostSource huge = roofline::cost_from_input_dims(
      aten("aten::linear", "[[1099511627776,1099511627776,16],[8,16]]", "[]"), "k");
  CHECK_FALSE(huge.model.has_value());
}
