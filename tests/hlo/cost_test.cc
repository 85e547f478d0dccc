// Costs of small hand-written modules, each number derived in a comment from
// the HloCostAnalysis conventions documented in docs/hlo_cost.md.
#include <catch2/catch.hpp>

#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/reader.hpp"

using roofline::CollectiveKind;
using roofline::HloCategory;
using roofline::HloCost;
using roofline::HloModule;

namespace {

const char* kAdd =
    "%add (add.lhs: f32[], add.rhs: f32[]) -> f32[] {\n"
    "  %add.lhs = f32[] parameter(0)\n  %add.rhs = f32[] parameter(1)\n"
    "  ROOT %add.sum = f32[] add(%add.lhs, %add.rhs)\n}\n";

HloModule module(const std::string& entry_body, const std::string& header = "HloModule test",
                 const std::string& extra = "") {
  const std::string text = header + "\n" + kAdd + extra + "ENTRY %main {\n" + entry_body + "}\n";
  auto m = roofline::parse_hlo_text(text, "test.hlo");
  INFO(m.status().message());
  REQUIRE(m.ok());
  return std::move(*m);
}

HloCost cost_of(const HloModule& m, const char* name) {
  const roofline::HloInstruction* i = m.instruction(name);
  REQUIRE(i != nullptr);
  return roofline::cost(*i);
}

}  // namespace

TEST_CASE("cost: dot is 2 x result elements x contracted size") {
  HloModule m = module(
      "  %a = f32[64,128]{1,0} parameter(0)\n  %b = f32[128,256]{1,0} parameter(1)\n"
      "  ROOT %d = f32[64,256]{1,0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n");
  const HloCost c = cost_of(m, "d");
  CHECK(c.flops == 2.0 * 64 * 256 * 128);              // 4,194,304
  CHECK(c.bytes_read == 64 * 128 * 4 + 128 * 256 * 4);  // both operands: 163,840
  CHECK(c.bytes_written == 64 * 256 * 4);               // 65,536
  CHECK(c.category == HloCategory::kMatmul);
  CHECK(c.dtype == roofline::DType::kF32);
}

TEST_CASE("cost: a dot whose dimension numbers name no dimension is not guessed") {
  // lhs_contracting_dims={5} on a rank-2 operand: once costed as K = 1
  // (2 x 8 x 4 = 64 FLOPs); XLA's verifier refuses it.
  HloModule m = module(
      "  %a = f32[8,16]{1,0} parameter(0)\n  %b = f32[16,4]{1,0} parameter(1)\n"
      "  %d = f32[8,4]{1,0} dot(%a, %b), lhs_contracting_dims={5}, rhs_contracting_dims={0}\n"
      "  ROOT %e = f32[8,4]{1,0} dot(%a, %a), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n");
  const HloCost c = cost_of(m, "d");
  CHECK(c.flops == 0);
  CHECK(c.flags.unknown_opcode);
  // Contracted sizes that differ (16 against 8) are refused the same way.
  const HloCost e = cost_of(m, "e");
  CHECK(e.flops == 0);
  CHECK(e.flags.unknown_opcode);
}

TEST_CASE("cost: a shape past 2^63 bytes is flagged, not silently saturated") {
  // f32[2^32, 2^32] is 2^66 bytes: the count saturates at 2^63 - 1 and says so.
  HloModule m = module(
      "  %a = f32[4294967296,4294967296]{1,0} parameter(0)\n"
      "  ROOT %s = f32[4294967296,4294967296]{1,0} sine(%a)\n"
      "  %small = f32[4]{0} parameter(1)\n");
  const HloCost c = cost_of(m, "s");
  CHECK(c.flags.size_saturated);
  CHECK(c.bytes_read == 9223372036854775807.0);
  CHECK_FALSE(cost_of(m, "small").flags.size_saturated);
}

TEST_CASE("cost: batched dot counts the batch once and mixed types compute in the wider one") {
  HloModule m = module(
      "  %a = s8[4,64,32]{2,1,0} parameter(0)\n  %b = bf16[4,32,16]{2,1,0} parameter(1)\n"
      "  ROOT %d = bf16[4,64,16]{2,1,0} dot(%a, %b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
      "rhs_batch_dims={0}, rhs_contracting_dims={1}\n");
  const HloCost c = cost_of(m, "d");
  CHECK(c.flops == 2.0 * (4 * 64 * 16) * 32);  // 262,144
  CHECK(c.dtype == roofline::DType::kBF16);     // s8 weights, bf16 activations: bf16 peak
}

TEST_CASE("cost: convolution counts only kernel positions that land inside the padded input") {
  HloModule m = module(
      "  %x = f32[8,32,32,16]{3,2,1,0} parameter(0)\n  %k = f32[3,3,16,32]{3,2,1,0} parameter(1)\n"
      "  ROOT %c = f32[8,32,32,32]{3,2,1,0} convolution(%x, %k), window={size=3x3 pad=1_1x1_1}, "
      "dim_labels=b01f_01io->b01f\n");
  // Per spatial dimension (input 32, kernel 3, output 32, pad 1): kernel tap 0
  // and 2 miss the padding at one edge (31 outputs each), tap 1 never (32):
  // 94 valid pairs; 94^2 = 8836 over both dimensions.
  // 2 x 16 input features x 32 output features x batch 8 x 8836 = 72,384,512
  // (a naive 2 x 8 x 32 x 32 x 32 x 3 x 3 x 16 = 75,497,472 would count padding).
  const HloCost c = cost_of(m, "c");
  CHECK(c.flops == 72384512.0);
  CHECK(c.category == HloCategory::kConvolution);
}

TEST_CASE("cost: grouped (depthwise) strided convolution divides by the feature groups") {
  HloModule m = module(
      "  %x = f32[2,16,16,16]{3,2,1,0} parameter(0)\n  %k = f32[3,3,1,16]{3,2,1,0} parameter(1)\n"
      "  ROOT %c = f32[2,7,7,16]{3,2,1,0} convolution(%x, %k), window={size=3x3 stride=2x2}, "
      "dim_labels=b01f_01io->b01f, feature_group_count=16\n");
  // No padding: every (tap, output) pair is valid: 3 x 7 = 21 per dimension, 441 in all.
  // 2 x (16 / 16) input features x 16 outputs x batch 2 x 441 = 28,224.
  CHECK(cost_of(m, "c").flops == 28224.0);
}

TEST_CASE("cost: elementwise ops are one FLOP per element, transcendentals apart") {
  HloModule m = module(
      "  %a = f32[1024]{0} parameter(0)\n  %b = f32[1024]{0} parameter(1)\n"
      "  %s = f32[1024]{0} add(%a, %b)\n  %e = f32[1024]{0} exponential(%s)\n"
      "  %t = f32[1024]{0} tanh(%e)\n  %cmp = pred[1024]{0} compare(%a, %b), direction=LT\n"
      "  ROOT %r = (f32[1024]{0}, pred[1024]{0}) tuple(%t, %cmp)\n");
  const HloCost add = cost_of(m, "s");
  CHECK(add.flops == 1024);
  CHECK(add.transcendentals == 0);
  CHECK(add.bytes_read == 2 * 4096);
  CHECK(add.bytes_written == 4096);
  CHECK(add.category == HloCategory::kElementwise);
  CHECK(cost_of(m, "e").transcendentals == 1024);
  CHECK(cost_of(m, "e").flops == 0);
  CHECK(cost_of(m, "t").transcendentals == 1024);
  const HloCost cmp = cost_of(m, "cmp");
  CHECK(cmp.flops == 1024);
  CHECK(cmp.bytes_written == 1024);         // pred: one byte each
  CHECK(cmp.dtype == roofline::DType::kF32);  // compares f32 values
  // Free: parameter, tuple.
  CHECK(cost_of(m, "a").hbm_bytes() == 0);
  CHECK(cost_of(m, "r").hbm_bytes() == 0);
  CHECK(cost_of(m, "r").category == HloCategory::kControl);
}

TEST_CASE("cost: reduce applies its reducer once per element it folds away") {
  HloModule m = module(
      "  %x = f32[128,1024]{1,0} parameter(0)\n  %z = f32[] constant(0)\n"
      "  ROOT %r = f32[128]{0} reduce(%x, %z), dimensions={1}, to_apply=%add\n");
  const HloCost c = cost_of(m, "r");
  CHECK(c.flops == 128.0 * 1024 - 128);  // (elements in - elements out) x 1 add = 130,944
  CHECK(c.bytes_read == 128 * 1024 * 4 + 4);
  CHECK(c.bytes_written == 128 * 4);
  CHECK(c.category == HloCategory::kReduction);
}

TEST_CASE("cost: a fusion reads the slice of a sliced parameter and each other parameter once") {
  const std::string fused =
      "%fused (p0: f32[1024,1024], p1: f32[16,1024]) -> f32[16,1024] {\n"
      "  %p0 = f32[1024,1024]{1,0} parameter(0)\n  %p1 = f32[16,1024]{1,0} parameter(1)\n"
      "  %sl = f32[16,1024]{1,0} slice(%p0), slice={[0:16], [0:1024]}\n"
      "  %m = f32[16,1024]{1,0} multiply(%sl, %p1)\n"
      "  %e = f32[16,1024]{1,0} exponential(%p1)\n"
      "  ROOT %a = f32[16,1024]{1,0} add(%m, %e)\n}\n";
  HloModule m = module(
      "  %big = f32[1024,1024]{1,0} parameter(0)\n  %small = f32[16,1024]{1,0} parameter(1)\n"
      "  ROOT %f = f32[16,1024]{1,0} fusion(%big, %small), kind=kLoop, calls=%fused\n",
      "HloModule test", fused);
  const HloCost c = cost_of(m, "f");
  // FLOPs: multiply + add = 2 x 16384; exponential: 16384 transcendentals.
  CHECK(c.flops == 2.0 * 16384);
  CHECK(c.transcendentals == 16384);
  // Reads: the 16-row slice of p0 (65,536 B) and p1 once although two ops use it (65,536 B).
  CHECK(c.bytes_read == 65536 + 65536);
  CHECK(c.bytes_written == 65536);
  CHECK(c.category == HloCategory::kLoopFusion);
}

TEST_CASE("cost: an in-place dynamic-update-slice fusion moves only the update") {
  const std::string fused =
      "%dus (buf: f32[1024,1024], upd: f32[16,1024], idx: s32[]) -> f32[1024,1024] {\n"
      "  %buf = f32[1024,1024]{1,0} parameter(0)\n  %upd = f32[16,1024]{1,0} parameter(1)\n"
      "  %idx = s32[] parameter(2)\n  %zero = s32[] constant(0)\n"
      "  ROOT %r = f32[1024,1024]{1,0} dynamic-update-slice(%buf, %upd, %idx, %zero)\n}\n";
  HloModule m = module(
      "  %b = f32[1024,1024]{1,0} parameter(0)\n  %u = f32[16,1024]{1,0} parameter(1)\n"
      "  %i = s32[] parameter(2)\n"
      "  ROOT %f = f32[1024,1024]{1,0} fusion(%b, %u, %i), kind=kLoop, calls=%dus\n",
      "HloModule test", fused);
  const HloCost c = cost_of(m, "f");
  // The buffer is aliased to the result: not read; the update (65,536 B) and
  // the index (4 B) are read; only the update's 65,536 B are written.
  CHECK(c.bytes_read == 65536 + 4);
  CHECK(c.bytes_written == 65536);
}

TEST_CASE("cost: fusions around a dot are matmuls; large constants are read") {
  const std::string fused =
      "%fd (p: bf16[128,256], q: bf16[256,512]) -> bf16[128,512] {\n"
      "  %p = bf16[128,256]{1,0} parameter(0)\n  %q = bf16[256,512]{1,0} parameter(1)\n"
      "  %d = bf16[128,512]{1,0} dot(%p, %q), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  %bias = bf16[512]{0} constant({...})\n"
      "  %bb = bf16[128,512]{1,0} broadcast(%bias), dimensions={1}\n"
      "  ROOT %o = bf16[128,512]{1,0} add(%d, %bb)\n}\n";
  HloModule m = module(
      "  %x = bf16[128,256]{1,0} parameter(0)\n  %w = bf16[256,512]{1,0} parameter(1)\n"
      "  ROOT %f = bf16[128,512]{1,0} fusion(%x, %w), kind=kOutput, calls=%fd\n",
      "HloModule test", fused);
  const HloCost c = cost_of(m, "f");
  CHECK(c.flops == 2.0 * 128 * 512 * 256 + 128 * 512);  // the dot and the bias add
  CHECK(c.category == HloCategory::kMatmul);
  CHECK(c.dtype == roofline::DType::kBF16);
  // Parameters 128*256*2 + 256*512*2, the 512-element constant 1,024 B.
  CHECK(c.bytes_read == 65536 + 262144 + 1024);
  CHECK(c.bytes_written == 128 * 512 * 2);
}

TEST_CASE("cost: gather reads what it gathers plus the indices") {
  HloModule m = module(
      "  %t = f32[1000,64]{1,0} parameter(0)\n  %i = s32[16,1]{1,0} parameter(1)\n"
      "  ROOT %g = f32[16,64]{1,0} gather(%t, %i), offset_dims={1}, collapsed_slice_dims={0}, "
      "start_index_map={0}, index_vector_dim=1, slice_sizes={1,64}\n");
  const HloCost c = cost_of(m, "g");
  CHECK(c.flops == 0);
  CHECK(c.bytes_read == 16 * 64 * 4 + 16 * 4);  // 4,160: not the 256,000 B table
  CHECK(c.bytes_written == 16 * 64 * 4);
}

TEST_CASE("cost: tiled layouts are charged their padded size") {
  HloModule m = module(
      "  %a = bf16[3,5]{1,0:T(8,128)(2,1)} parameter(0)\n"
      "  ROOT %n = bf16[3,5]{1,0:T(8,128)(2,1)} negate(%a)\n");
  // Each bf16[3,5] occupies an 8 x 128 tile: 2,048 B (15 values, 30 B).
  const HloCost c = cost_of(m, "n");
  CHECK(c.bytes_read == 2048);
  CHECK(c.bytes_written == 2048);
  CHECK(c.flops == 15);  // FLOPs count real elements only
}

TEST_CASE("cost: on-chip memory spaces cost no HBM bytes; host memory counts as host bytes") {
  HloModule m = module(
      "  %v = f32[1024]{0:S(1)} parameter(0)\n  %h = f32[1024]{0} parameter(1)\n"
      "  %s = f32[1024]{0} add(%v, %h)\n"
      "  %cs = (f32[1024]{0:S(5)}, f32[1024]{0}, u32[]{:S(2)}) copy-start(%s)\n"
      "  ROOT %cd = f32[1024]{0:S(5)} copy-done(%cs)\n");
  const HloCost add = cost_of(m, "s");
  CHECK(add.bytes_read == 4096);  // only %h: %v is in VMEM (S(1))
  const HloCost cs = cost_of(m, "cs");
  CHECK(cs.bytes_read == 4096);     // reads the device copy
  CHECK(cs.bytes_written == 0);     // the destination is host memory
  CHECK(cs.host_bytes == 4096);
  CHECK(cost_of(m, "cd").hbm_bytes() == 0);  // the -done half carries nothing
}

TEST_CASE("cost: a transpose that only relabels the layout is a free bitcast") {
  HloModule m = module(
      "  %a = f32[8,16]{1,0} parameter(0)\n"
      "  %same = f32[16,8]{0,1} transpose(%a), dimensions={1,0}\n"
      "  ROOT %moved = f32[16,8]{1,0} transpose(%a), dimensions={1,0}\n");
  CHECK(cost_of(m, "same").hbm_bytes() == 0);
  CHECK(cost_of(m, "moved").hbm_bytes() == 2 * 512);
}

TEST_CASE("cost: collectives carry the array size V and the replica-group size") {
  HloModule m = module(
      "  %x = f32[1024]{0} parameter(0)\n"
      "  %ar = f32[1024]{0} all-reduce(%x), channel_id=1, replica_groups={{0,1,2,3},{4,5,6,7}}, "
      "use_global_device_ids=true, to_apply=%add\n"
      "  %s = f32[128]{0} parameter(1)\n"
      "  %ag = f32[1024]{0} all-gather(%s), channel_id=2, replica_groups=[1,8]<=[8], dimensions={0}, "
      "use_global_device_ids=true\n"
      "  %rs = f32[128]{0} reduce-scatter(%x), channel_id=3, replica_groups={}, dimensions={0}, to_apply=%add\n"
      "  %a2a = f32[1024]{0} all-to-all(%x), channel_id=4, replica_groups=[2,4]<=[8], dimensions={0}\n"
      "  ROOT %cp = f32[1024]{0} collective-permute(%x), channel_id=5, "
      "source_target_pairs={{0,1},{1,2},{2,3},{3,0}}\n",
      "HloModule test, num_partitions=8");
  const HloCost ar = cost_of(m, "ar");
  REQUIRE(ar.collective);
  CHECK(ar.collective->kind == CollectiveKind::kAllReduce);
  CHECK(ar.collective->array_bytes == 4096);  // V = the operand
  CHECK(ar.collective->group_size == 4);
  CHECK(ar.collective->num_groups == 2);
  CHECK(ar.flops == 1024);                    // XLA: one add per result element
  CHECK(ar.bytes_read == 4096);
  CHECK(ar.bytes_written == 4096);
  CHECK(ar.category == HloCategory::kCollective);

  const HloCost ag = cost_of(m, "ag");
  CHECK(ag.collective->kind == CollectiveKind::kAllGather);
  CHECK(ag.collective->array_bytes == 4096);  // V = the gathered result
  CHECK(ag.collective->group_size == 8);

  const HloCost rs = cost_of(m, "rs");
  CHECK(rs.collective->kind == CollectiveKind::kReduceScatter);
  CHECK(rs.collective->array_bytes == 4096);  // V = the unreduced input
  CHECK(rs.collective->group_size == 8);      // {} with a channel id: all 8 partitions

  const HloCost a2a = cost_of(m, "a2a");
  CHECK(a2a.collective->kind == CollectiveKind::kAllToAll);
  CHECK(a2a.collective->group_size == 4);
  CHECK(a2a.collective->array_bytes == 4 * 4096);  // each of 4 devices holds V/4

  const HloCost cp = cost_of(m, "cp");
  CHECK(cp.collective->kind == CollectiveKind::kPermute);
  CHECK(cp.collective->group_size == 4);
  CHECK(cp.collective->permute_shift == 1);
  CHECK(cp.collective->array_bytes == 4 * 4096);
}

TEST_CASE("cost: async collectives are charged on the -start, not the -done") {
  HloModule m = module(
      "  %x = f32[1024]{0} parameter(0)\n"
      "  %ars = f32[1024]{0} all-reduce-start(%x), channel_id=1, replica_groups=[2,4]<=[8], to_apply=%add\n"
      "  %ard = f32[1024]{0} all-reduce-done(%ars)\n"
      "  %s = f32[128]{0} parameter(1)\n"
      "  %ags = (f32[128]{0}, f32[1024]{0}) all-gather-start(%s), channel_id=2, replica_groups=[1,8]<=[8], dimensions={0}\n"
      "  %agd = f32[1024]{0} all-gather-done(%ags)\n"
      "  %rss = ((f32[1024]{0}), f32[256]{0}) reduce-scatter-start(%x), channel_id=3, replica_groups=[2,4]<=[8], "
      "dimensions={0}, to_apply=%add\n"
      "  ROOT %rsd = f32[256]{0} reduce-scatter-done(%rss)\n");
  const HloCost ars = cost_of(m, "ars");
  CHECK(ars.collective->kind == CollectiveKind::kAllReduce);
  CHECK(ars.collective->group_size == 4);
  CHECK(ars.flops == 1024);
  CHECK(cost_of(m, "ard").hbm_bytes() == 0);
  CHECK(cost_of(m, "ard").category == HloCategory::kCollective);
  const HloCost ags = cost_of(m, "ags");
  CHECK(ags.collective->kind == CollectiveKind::kAllGather);
  CHECK(ags.collective->array_bytes == 4096);  // the gathered element of the start's tuple
  CHECK(ags.bytes_read == 512);
  CHECK(ags.bytes_written == 4096);
  const HloCost rss = cost_of(m, "rss");
  CHECK(rss.collective->kind == CollectiveKind::kReduceScatter);
  CHECK(rss.collective->array_bytes == 4096);
  CHECK(rss.bytes_written == 1024);
  CHECK(cost_of(m, "rsd").hbm_bytes() == 0);
}

TEST_CASE("cost: a while loop multiplies its body by the trip count XLA recorded") {
  const std::string comps =
      "%body (t: (s32[], f32[1024])) -> (s32[], f32[1024]) {\n"
      "  %t = (s32[], f32[1024]{0}) parameter(0)\n"
      "  %i = s32[] get-tuple-element(%t), index=0\n  %v = f32[1024]{0} get-tuple-element(%t), index=1\n"
      "  %one = s32[] constant(1)\n  %i1 = s32[] add(%i, %one)\n  %v1 = f32[1024]{0} sine(%v)\n"
      "  ROOT %r = (s32[], f32[1024]{0}) tuple(%i1, %v1)\n}\n"
      "%cond (ct: (s32[], f32[1024])) -> pred[] {\n"
      "  %ct = (s32[], f32[1024]{0}) parameter(0)\n  %ci = s32[] get-tuple-element(%ct), index=0\n"
      "  %n = s32[] constant(10)\n  ROOT %lt = pred[] compare(%ci, %n), direction=LT\n}\n";
  HloModule m = module(
      "  %init = (s32[], f32[1024]{0}) parameter(0)\n"
      "  %w = (s32[], f32[1024]{0}) while(%init), condition=%cond, body=%body, "
      "backend_config={\"known_trip_count\":{\"n\":\"10\"}}\n"
      "  ROOT %u = (s32[], f32[1024]{0}) while(%init), condition=%cond, body=%body\n",
      "HloModule test", comps);
  const HloCost w = cost_of(m, "w");
  CHECK(w.trip_count == 10);
  CHECK_FALSE(w.flags.trip_count_unknown);
  // Body: one s32 add (1 FLOP) and a sine (1024 transcendentals) per trip;
  // condition: one compare, evaluated 11 times (the last one exits).
  CHECK(w.flops == 10 * 1 + 11 * 1);
  CHECK(w.transcendentals == 10 * 1024);
  // Bytes per trip: add 4+4 read, 4 written; sine 4096 + 4096; compare 8 read + 1 written.
  CHECK(w.hbm_bytes() == 10 * (12 + 8192) + 11 * 9);
  CHECK(w.category == HloCategory::kControl);
  // Without known_trip_count the loop is counted once and says so.
  const HloCost u = cost_of(m, "u");
  CHECK(u.flags.trip_count_unknown);
  CHECK(u.trip_count == 1);
  CHECK(u.transcendentals == 1024);
  REQUIRE(roofline::known_trip_count(*m.instruction("w")));
  CHECK(*roofline::known_trip_count(*m.instruction("w")) == 10);
  CHECK_FALSE(roofline::known_trip_count(*m.instruction("u")));
}

TEST_CASE("cost: library GEMM custom calls are costed from their dot dimension numbers") {
  HloModule m = module(
      "  %a = bf16[1024,4096]{1,0} parameter(0)\n  %b = bf16[4096,4096]{1,0} parameter(1)\n"
      "  %g = (bf16[1024,4096]{1,0}, s8[4194304]{0}) custom-call(%a, %b), custom_call_target=\"__cublas$gemm\", "
      "backend_config={\"gemm_backend_config\":{\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],"
      "\"rhs_contracting_dimensions\":[\"0\"],\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]}}}\n"
      "  %lt = (bf16[1024,4096]{1,0}, s8[33554432]{0}) custom-call(%a, %b), custom_call_target=\"__cublas$lt$matmul\", "
      "backend_config=\"{\\\"gemm_backend_config\\\":{\\\"dot_dimension_numbers\\\":{\\\"lhs_contracting_dimensions\\\":[1],"
      "\\\"rhs_contracting_dimensions\\\":[0]}}}\"\n"
      "  ROOT %t = ((bf16[1024,4096]{1,0}, s8[4194304]{0}), (bf16[1024,4096]{1,0}, s8[33554432]{0})) tuple(%g, %lt)\n");
  for (const char* name : {"g", "lt"}) {
    INFO(name);
    const HloCost c = cost_of(m, name);
    CHECK(c.flops == 2.0 * 1024 * 4096 * 4096);  // 34,359,738,368
    CHECK(c.category == HloCategory::kMatmul);
    CHECK_FALSE(c.flags.unknown_custom_call);
    CHECK(c.bytes_read == 1024 * 4096 * 2 + 4096 * 4096 * 2);
    CHECK(c.bytes_written == 1024 * 4096 * 2);  // the s8 workspace is scratch, not output
  }
}

TEST_CASE("cost: cuDNN convolution custom calls are costed like the convolution") {
  HloModule m = module(
      "  %x = f32[8,32,32,16]{3,2,1,0} parameter(0)\n  %k = f32[3,3,16,32]{3,2,1,0} parameter(1)\n"
      "  %c = (f32[8,32,32,32]{3,2,1,0}, u8[0]{0}) custom-call(%x, %k), window={size=3x3 pad=1_1x1_1}, "
      "dim_labels=b01f_01io->b01f, custom_call_target=\"__cudnn$convForward\"\n"
      "  %dy = f32[8,32,32,32]{3,2,1,0} parameter(2)\n"
      "  ROOT %dx = (f32[8,32,32,16]{3,2,1,0}, u8[0]{0}) custom-call(%dy, %k), window={size=3x3 pad=1_1x1_1}, "
      "dim_labels=b01f_01io->b01f, custom_call_target=\"__cudnn$convBackwardInput\"\n");
  // The forward convolution of the convolution test: 72,384,512 FLOPs; the
  // input gradient multiplies the same pairs.
  CHECK(cost_of(m, "c").flops == 72384512.0);
  CHECK(cost_of(m, "c").category == HloCategory::kConvolution);
  CHECK(cost_of(m, "dx").flops == 72384512.0);
}

TEST_CASE("cost: an unknown custom call is flagged, never silently free") {
  HloModule m = module(
      "  %x = bf16[1024,1024]{1,0} parameter(0)\n"
      "  %k = bf16[1024,1024]{1,0} custom-call(%x), custom_call_target=\"tpu_custom_call\", "
      "backend_config=\"{\\\"custom_call_config\\\": {}}\"\n"
      "  ROOT %s = bf16[1024,1024]{1,0} custom-call(%k), custom_call_target=\"Sharding\", sharding={replicated}\n");
  const HloCost k = cost_of(m, "k");
  CHECK(k.flags.unknown_custom_call);
  CHECK(k.flops == 0);
  CHECK(k.bytes_read == 1024 * 1024 * 2);  // at least its operand and result
  CHECK(k.bytes_written == 1024 * 1024 * 2);
  CHECK(k.category == HloCategory::kCustomCall);
  // Sharding annotations run no kernel.
  CHECK_FALSE(cost_of(m, "s").flags.unknown_custom_call);
  CHECK(cost_of(m, "s").hbm_bytes() == 0);
}

TEST_CASE("cost: unbounded dynamic dimensions are flagged") {
  HloModule m = module("  %x = f32[?,8]{1,0} parameter(0)\n  ROOT %n = f32[?,8]{1,0} negate(%x)\n");
  CHECK(cost_of(m, "n").flags.unbounded_dynamic_shape);
  CHECK(cost_of(m, "n").flops == 0);
}

TEST_CASE("cost: reduce-window applies the reducer window-size minus one times per output") {
  HloModule m = module(
      "  %x = f32[8,8]{1,0} parameter(0)\n  %z = f32[] constant(0)\n"
      "  ROOT %rw = f32[4,4]{1,0} reduce-window(%x, %z), window={size=2x2 stride=2x2}, to_apply=%add\n");
  // 16 outputs x (4 - 1) adds.
  CHECK(cost_of(m, "rw").flops == 48);
  CHECK(cost_of(m, "rw").category == HloCategory::kReduction);
}

TEST_CASE("cost: call costs its computation, conditional the maximum over its branches") {
  const std::string comps =
      "%cheap (c0: f32[1024]) -> f32[1024] {\n  %c0 = f32[1024]{0} parameter(0)\n"
      "  ROOT %c1 = f32[1024]{0} negate(%c0)\n}\n"
      "%dear (d0: f32[1024]) -> f32[1024] {\n  %d0 = f32[1024]{0} parameter(0)\n"
      "  %d1 = f32[1024]{0} exponential(%d0)\n  ROOT %d2 = f32[1024]{0} multiply(%d1, %d1)\n}\n";
  HloModule m = module(
      "  %p = pred[] parameter(0)\n  %x = f32[1024]{0} parameter(1)\n"
      "  %call = f32[1024]{0} call(%x), to_apply=%dear\n"
      "  ROOT %cond = f32[1024]{0} conditional(%p, %x, %x), branch_computations={%cheap, %dear}\n",
      "HloModule test", comps);
  const HloCost call = cost_of(m, "call");
  CHECK(call.flops == 1024);            // the multiply
  CHECK(call.transcendentals == 1024);  // the exponential
  // exp reads 4096 and writes 4096; multiply reads its operand twice (XLA counts
  // every operand slot, 8192) and writes 4096.
  CHECK(call.hbm_bytes() == 5 * 4096);
  const HloCost cond = cost_of(m, "cond");
  // Per count, the larger branch: FLOPs 1024 (both), transcendentals 1024 (dear).
  CHECK(cond.flops == 1024);
  CHECK(cond.transcendentals == 1024);
  CHECK(cond.flags.conditional_max);
}

TEST_CASE("cost: a generic async-start costs the op its computation wraps") {
  const std::string comps =
      "%wrapped (w0: f32[1024]) -> f32[1024] {\n  %w0 = f32[1024]{0} parameter(0)\n"
      "  ROOT %w1 = f32[1024]{0} all-reduce(%w0), replica_groups=[2,4]<=[8], to_apply=%add\n}\n";
  HloModule m = module(
      "  %x = f32[1024]{0} parameter(0)\n"
      "  %s = ((f32[1024]{0}), f32[1024]{0}) async-start(%x), calls=%wrapped\n"
      "  ROOT %d = f32[1024]{0} async-done(%s)\n",
      "HloModule test", comps);
  const HloCost s = cost_of(m, "s");
  REQUIRE(s.collective);
  CHECK(s.collective->kind == CollectiveKind::kAllReduce);
  CHECK(s.collective->group_size == 4);
  CHECK(cost_of(m, "d").hbm_bytes() == 0);
}
