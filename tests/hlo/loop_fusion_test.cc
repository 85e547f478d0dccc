// While-loop trip counts inferred from the loop (roofline/hlo/trip_count.hpp),
// the warnings for loops charged fewer times than they run, and the fusion
// pass predict(HloModule) runs over unfused modules (docs/hlo_cost.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/trip_count.hpp"
#include "tests/hlo/hlo_proto_writer.hpp"
#include "tests/hlo/hlo_test_support.hpp"

using Catch::Detail::Approx;
using roofline::HloModule;
using roofline::HloModulePrediction;
using roofline::testing::must_parse;

namespace {

// A scan as jax 0.10.2 lowers it (the partitioned module's while): the
// counter is tuple element 0, starts at `init`, the body adds `step`, the
// condition is `compare(counter, bound), direction=dir` (counter on the
// right when `counter_right`). The body runs a bf16 [128,128] dot.
std::string scan_module(const std::string& init, const std::string& step, const std::string& bound,
                        const std::string& dir, bool counter_right = false) {
  const std::string cmp = counter_right ? "compare(n, i)" : "compare(i, n)";
  return "HloModule scan\n"
         "body {\n"
         "  p = (s32[], bf16[128,128]{1,0}) parameter(0)\n"
         "  i = s32[] get-tuple-element(p), index=0\n"
         "  s = s32[] constant(" + step + ")\n"
         "  next = s32[] add(i, s)\n"
         "  x = bf16[128,128]{1,0} get-tuple-element(p), index=1\n"
         "  d = bf16[128,128]{1,0} dot(x, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
         "  ROOT t = (s32[], bf16[128,128]{1,0}) tuple(next, d)\n"
         "}\n"
         "cond {\n"
         "  p = (s32[], bf16[128,128]{1,0}) parameter(0)\n"
         "  i = s32[] get-tuple-element(p), index=0\n"
         "  n = s32[] constant(" + bound + ")\n"
         "  ROOT c = pred[] " + cmp + ", direction=" + dir + "\n"
         "}\n"
         "ENTRY e {\n"
         "  x0 = bf16[128,128]{1,0} parameter(0)\n"
         "  z = s32[] constant(" + init + ")\n"
         "  t0 = (s32[], bf16[128,128]{1,0}) tuple(z, x0)\n"
         "  ROOT w = (s32[], bf16[128,128]{1,0}) while(t0), condition=cond, body=body\n"
         "}\n";
}

std::optional<std::int64_t> trips(const std::string& text) {
  HloModule m = must_parse(text);
  const roofline::WhileTripCount t = roofline::while_trip_count(*m.instruction("w"));
  INFO(t.why_unknown);
  return t.trips;
}


}  // namespace

TEST_CASE("trip count: a scan's loop (0 to 12 by 1, LT) runs 12 trips, and predict charges 12") {
  HloModule m = must_parse(scan_module("0", "1", "12", "LT"));
  const roofline::WhileTripCount t = roofline::while_trip_count(*m.instruction("w"));
  REQUIRE(t.trips == 12);
  CHECK(t.source == roofline::TripCountSource::kInferred);
  const HloModulePrediction p = roofline::predict(m, roofline::chip("tpu-v5e"));
  // 12 dots of 2 x 128^3 FLOPs; before the inference the loop was charged once.
  CHECK(p.total.flops == Approx(12.0 * 2 * 128 * 128 * 128));
  CHECK(p.unknown_trip_count_loops == 0);
  CHECK(p.loop_warnings.empty());
}

TEST_CASE("trip count: every compare direction, either side, any step") {
  // for (i = init; i dir bound; i += step): counted by hand.
  CHECK(trips(scan_module("0", "1", "12", "LE")) == 13);
  CHECK(trips(scan_module("0", "5", "12", "LT")) == 3);    // 0, 5, 10
  CHECK(trips(scan_module("12", "-1", "0", "GT")) == 12);  // 12 .. 1
  CHECK(trips(scan_module("12", "-4", "0", "GE")) == 4);   // 12, 8, 4, 0
  CHECK(trips(scan_module("0", "3", "12", "NE")) == 4);    // 0, 3, 6, 9
  CHECK(trips(scan_module("7", "1", "3", "LT")) == 0);     // never enters
  CHECK(trips(scan_module("0", "1", "12", "GT", /*counter_right=*/true)) == 12);  // 12 > i
  CHECK(trips(scan_module("0", "1", "12", "GE", /*counter_right=*/true)) == 13);  // 12 >= i
}

TEST_CASE("trip count: an HloProto's counted loop is inferred from its constants' literals") {
  // The scan of the first test as XLA serializes it: constants carry a
  // LiteralProto (s32s), the compare its direction in field 63.
  namespace f = roofline::testing::hlo_field;
  using Msg = roofline::testing::PbMessage;
  constexpr int kPred = 1, kS32 = 4, kF32 = 11, kTuple = 13, kLiteral = 8, kTupleIndex = 13;
  Msg m;
  std::int64_t next_id = 1;
  auto shape = [](Msg& s, int type, const std::vector<std::int64_t>& dims) {
    s.i(f::kElementType, type);
    if (!dims.empty()) s.packed(f::kShapeDimensions, dims).one(f::kLayout).packed(f::kMinorToMajor, {0});
  };
  auto state = [&](Msg& s) {
    s.i(f::kElementType, kTuple);
    shape(s.add(f::kTupleShapes), kS32, {});
    shape(s.add(f::kTupleShapes), kF32, {8});
  };
  auto computation = [&](const std::string& name) -> Msg& {
    Msg& c = m.add(f::kComputations);
    c.id = next_id++;
    c.s(f::kComputationName, name).i(f::kComputationId, c.id);
    return c;
  };
  auto add = [&](Msg& c, const std::string& name, const std::string& opcode,
                 const std::vector<const Msg*>& operands) -> Msg& {
    Msg& i = c.add(f::kInstructions);
    i.id = next_id++;
    i.s(f::kName, name).s(f::kOpcode, opcode).i(f::kId, i.id);
    std::vector<std::int64_t> ids;
    for (const Msg* o : operands) ids.push_back(o->id);
    if (!ids.empty()) i.packed(f::kOperandIds, ids);
    c.i(f::kRootId, i.id);  // the last one added is the root
    return i;
  };
  auto constant = [&](Msg& c, const std::string& name, std::int64_t v) -> Msg& {
    Msg& k = add(c, name, "constant", {});
    shape(k.one(f::kShape), kS32, {});
    Msg& lit = k.add(kLiteral);
    shape(lit.add(1), kS32, {});
    lit.packed(4, {v});  // LiteralProto.s32s
    return k;
  };
  Msg& body = computation("body");
  Msg& bp = add(body, "bp", "parameter", {});
  state(bp.one(f::kShape));
  Msg& bi = add(body, "bi", "get-tuple-element", {&bp});
  shape(bi.one(f::kShape), kS32, {});
  Msg& one = constant(body, "one", 1);
  Msg& next = add(body, "next", "add", {&bi, &one});
  shape(next.one(f::kShape), kS32, {});
  Msg& bx = add(body, "bx", "get-tuple-element", {&bp});
  shape(bx.one(f::kShape), kF32, {8});
  bx.i(kTupleIndex, 1);
  Msg& by = add(body, "by", "sine", {&bx});
  shape(by.one(f::kShape), kF32, {8});
  state(add(body, "bt", "tuple", {&next, &by}).one(f::kShape));
  Msg& cond = computation("cond");
  Msg& cp = add(cond, "cp", "parameter", {});
  state(cp.one(f::kShape));
  Msg& ci = add(cond, "ci", "get-tuple-element", {&cp});
  shape(ci.one(f::kShape), kS32, {});
  Msg& twelve = constant(cond, "twelve", 12);
  Msg& lt = add(cond, "lt", "compare", {&ci, &twelve});
  shape(lt.one(f::kShape), kPred, {});
  lt.s(f::kComparisonDirection, "LT");
  Msg& e = computation("e");
  Msg& x0 = add(e, "x0", "parameter", {});
  shape(x0.one(f::kShape), kF32, {8});
  Msg& zero = constant(e, "zero", 0);
  Msg& t0 = add(e, "t0", "tuple", {&zero, &x0});
  state(t0.one(f::kShape));
  Msg& w = add(e, "w", "while", {&t0});
  state(w.one(f::kShape));
  w.packed(f::kCalledComputationIds, {body.id, cond.id});  // XLA stores {body, condition}
  m.s(f::kEntryComputationName, "e").i(f::kEntryComputationId, e.id).s(f::kModuleName, "scan");
  auto module = roofline::parse_hlo_proto(m.str(), "scan.hlo.pb");
  INFO(module.status().message());
  REQUIRE(module.ok());
  const roofline::WhileTripCount t = roofline::while_trip_count(*module->instruction("w"));
  INFO(t.why_unknown);
  CHECK(t.trips == 12);
  CHECK(t.source == roofline::TripCountSource::kInferred);
}

TEST_CASE("trip count: loops it cannot count say why") {
  // A step away from the bound, a bound it steps over (NE), a bound the loop computes.
  for (const std::string& text : {scan_module("0", "-1", "12", "LT"), scan_module("0", "5", "12", "NE")}) {
    HloModule m = must_parse(text);
    const roofline::WhileTripCount t = roofline::while_trip_count(*m.instruction("w"));
    CHECK_FALSE(t.trips);
    CHECK(t.why_unknown.find("never leaves") != std::string::npos);
  }
  std::string text = scan_module("0", "1", "12", "LT");
  text.replace(text.find("n = s32[] constant(12)"), 22, "n = s32[] multiply(i, i)");
  HloModule m = must_parse(text);
  const roofline::WhileTripCount t = roofline::while_trip_count(*m.instruction("w"));
  CHECK_FALSE(t.trips);
  CHECK(t.why_unknown.find("constant bound") != std::string::npos);
}

TEST_CASE("trip count: a bound kept in the loop state, and XLA:CPU's wrapped compare and add") {
  // The bound is tuple element 2, passed through the body unchanged, 10 at entry;
  // compare and add are each wrapped in a fusion, as XLA:CPU prints them.
  HloModule m = must_parse(
      "HloModule m\n"
      "wrapped_add { a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT r = s32[] add(a, b) }\n"
      "wrapped_compare { a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
      "  ROOT r = pred[] compare(a, b), direction=LT }\n"
      "body {\n"
      "  p = (s32[], f32[8]{0}, s32[]) parameter(0)\n"
      "  i = s32[] get-tuple-element(p), index=0\n"
      "  one = s32[] constant(2)\n"
      "  next = s32[] fusion(i, one), kind=kLoop, calls=wrapped_add\n"
      "  x = f32[8]{0} get-tuple-element(p), index=1\n"
      "  y = f32[8]{0} sine(x)\n"
      "  n = s32[] get-tuple-element(p), index=2\n"
      "  ROOT t = (s32[], f32[8]{0}, s32[]) tuple(next, y, n)\n"
      "}\n"
      "cond {\n"
      "  p = (s32[], f32[8]{0}, s32[]) parameter(0)\n"
      "  i = s32[] get-tuple-element(p), index=0\n"
      "  n = s32[] get-tuple-element(p), index=2\n"
      "  ROOT c = pred[] fusion(i, n), kind=kLoop, calls=wrapped_compare\n"
      "}\n"
      "ENTRY e {\n"
      "  x0 = f32[8]{0} parameter(0)\n"
      "  z = s32[] constant(0)\n"
      "  ten = s32[] constant(10)\n"
      "  t0 = (s32[], f32[8]{0}, s32[]) tuple(z, x0, ten)\n"
      "  ROOT w = (s32[], f32[8]{0}, s32[]) while(t0), condition=cond, body=body\n"
      "}\n");
  CHECK(roofline::while_trip_count(*m.instruction("w")).trips == 5);  // 0, 2, 4, 6, 8
}

TEST_CASE("loop warnings: an uncountable loop is named, with its computation and why") {
  std::string text = scan_module("0", "1", "12", "LT");
  text.replace(text.find("z = s32[] constant(0)"), 21, "z = s32[] parameter(1)");
  HloModule m = must_parse(text);
  const HloModulePrediction p = roofline::predict(m, roofline::chip("tpu-v5e"));
  REQUIRE(p.loop_warnings.size() == 1);
  const roofline::HloLoopWarning& w = p.loop_warnings.front();
  CHECK(w.instruction->name == "w");
  CHECK(w.instruction->parent->name == "e");
  CHECK(w.kind == roofline::HloLoopWarning::Kind::kTripCountUnknown);
  CHECK(w.reason.find("does not start from a constant") != std::string::npos);
  CHECK(p.unknown_trip_count_loops == 1);
  CHECK(p.total.flops == Approx(2.0 * 128 * 128 * 128));  // counted once, and said so
}

TEST_CASE("loop warnings: nested trip counts whose product overflows are counted once, finite and named") {
  // Seventeen nested loops of 2^62 trips: 2^1054 runs, past a double's
  // 1.8e308 (issue 38: the rows showed inf runs and the totals "-").
  std::string text = "HloModule deep\n"
                     "cond { p = (s32[], f32[4]{0}) parameter(0)\n ROOT c = pred[] constant(true) }\n"
                     "b0 { p = (s32[], f32[4]{0}) parameter(0)\n i = s32[] get-tuple-element(p), index=0\n"
                     "  x = f32[4]{0} get-tuple-element(p), index=1\n y = f32[4]{0} sine(x)\n"
                     "  ROOT t = (s32[], f32[4]{0}) tuple(i, y) }\n";
  const std::string trip = ", backend_config={\"known_trip_count\":{\"n\":\"4611686018427387904\"}}";
  for (int k = 1; k <= 16; ++k)
    text += "b" + std::to_string(k) + " { p = (s32[], f32[4]{0}) parameter(0)\n ROOT w" + std::to_string(k - 1) +
            " = (s32[], f32[4]{0}) while(p), condition=cond, body=b" + std::to_string(k - 1) + trip + " }\n";
  text += "ENTRY e { a = f32[4]{0} parameter(0)\n z = s32[] constant(0)\n t0 = (s32[], f32[4]{0}) tuple(z, a)\n"
          " ROOT w16 = (s32[], f32[4]{0}) while(t0), condition=cond, body=b16" + trip + " }\n";
  HloModule m = must_parse(text);
  const HloModulePrediction p = roofline::predict(m, roofline::chip("tpu-v5e"));
  for (const roofline::HloPredictionRow& r : p.rows) CHECK(std::isfinite(r.executions));
  CHECK(std::isfinite(p.total.flops));
  CHECK(std::isfinite(p.total.t_lower_s));
  CHECK(p.total.t_lower_s > 0);
  REQUIRE_FALSE(p.loop_warnings.empty());
  bool named = false;
  for (const roofline::HloLoopWarning& w : p.loop_warnings)
    named |= w.kind == roofline::HloLoopWarning::Kind::kRunsOverflow && w.reason.find("1e270") != std::string::npos;
  CHECK(named);
  bool capped = false;
  for (const roofline::HloPredictionRow& r : p.rows) capped |= r.runs_capped;
  CHECK(capped);
}

TEST_CASE("fusion pass: an element-wise chain reads its input once and writes its result once") {
  // exp, add of a broadcast scalar, multiply: unfused each reads and writes
  // f32[1024,1024] (4 MiB); fused, one kernel reads x (4 MiB) and the
  // scalar parameter (4 B) and writes the product (4 MiB).
  HloModule m = must_parse(
      "HloModule ew\nENTRY e {\n"
      "  x = f32[1024,1024]{1,0} parameter(0)\n  c = f32[] parameter(1)\n"
      "  e1 = f32[1024,1024]{1,0} exponential(x)\n"
      "  b = f32[1024,1024]{1,0} broadcast(c), dimensions={}\n"
      "  a = f32[1024,1024]{1,0} add(e1, b)\n"
      "  ROOT r = f32[1024,1024]{1,0} multiply(a, x)\n}\n");
  const HloModulePrediction p = roofline::predict(m, roofline::chip("tpu-v5e"));
  const double mib4 = 4.0 * 1024 * 1024;
  CHECK(p.fusion_groups == 1);
  CHECK(p.total.hbm_bytes == 2 * mib4 + 4);
  // Unfused: exp 8 MiB, broadcast 4 B + 4 MiB, add 12 MiB, multiply 12 MiB.
  CHECK(p.unfused.hbm_bytes == 9 * mib4 + 4);
  CHECK(p.total.t_lower_s < p.unfused.t_lower_s);
  CHECK(p.total.flops == p.unfused.flops);
}

TEST_CASE("fusion pass: a dot's bias and activation fuse into the next dot, whose input they make") {
  // d1 = x @ w writes its result once; bias, add and tanh are recomputed
  // inside d2's kernel, which reads d1, the bias and w.
  HloModule m = must_parse(
      "HloModule mlp\nENTRY e {\n"
      "  x = bf16[256,256]{1,0} parameter(0)\n  w = bf16[256,256]{1,0} parameter(1)\n"
      "  bias = bf16[256]{0} parameter(2)\n"
      "  d1 = bf16[256,256]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
      "  bb = bf16[256,256]{1,0} broadcast(bias), dimensions={1}\n"
      "  a = bf16[256,256]{1,0} add(d1, bb)\n"
      "  h = bf16[256,256]{1,0} tanh(a)\n"
      "  ROOT d2 = bf16[256,256]{1,0} dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  const HloModulePrediction p = roofline::predict(m, roofline::chip("tpu-v5e"));
  const double t = 256.0 * 256 * 2;  // one bf16[256,256]
  CHECK(p.fusion_groups == 1);
  // d1 reads x and w and writes d1; d2 reads d1, bias (512 B) and w and writes d2.
  CHECK(p.total.hbm_bytes == 3 * t + (3 * t + 512));
  // Unfused: the broadcast, add and tanh each write a [256,256] and read theirs.
  CHECK(p.unfused.hbm_bytes == 6 * t + (512 + t) + 3 * t + 2 * t);
  for (const roofline::HloPredictionRow& r : p.rows) {
    if (r.instruction->name == "d1") CHECK(r.fusion_group == -1);
    if (r.instruction->name == "h") CHECK(r.cost.hbm_bytes() == 0);
  }
}

TEST_CASE("fusion pass: a layer norm's element-wise work fuses into its reductions and its output") {
  // Kernels: the two reductions and the output y. Each reads x (the second
  // and y recompute the centring from x and the mean); the means are small
  // f32[512] vectors written once and read where used.
  HloModule m = must_parse(
      "HloModule ln\n"
      "sum { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
      "ENTRY e {\n"
      "  x = f32[512,384]{1,0} parameter(0)\n  zero = f32[] constant(0)\n  inv = f32[] constant(0.0026)\n"
      "  s1 = f32[512]{0} reduce(x, zero), dimensions={1}, to_apply=sum\n"
      "  ib = f32[512]{0} broadcast(inv), dimensions={}\n"
      "  m1 = f32[512]{0} multiply(s1, ib)\n"
      "  mb = f32[512,384]{1,0} broadcast(m1), dimensions={0}\n"
      "  c = f32[512,384]{1,0} subtract(x, mb)\n"
      "  sq = f32[512,384]{1,0} multiply(c, c)\n"
      "  s2 = f32[512]{0} reduce(sq, zero), dimensions={1}, to_apply=sum\n"
      "  r = f32[512]{0} rsqrt(s2)\n"
      "  rb = f32[512,384]{1,0} broadcast(r), dimensions={0}\n"
      "  ROOT y = f32[512,384]{1,0} multiply(c, rb)\n}\n");
  const HloModulePrediction p = roofline::predict(m, roofline::chip("tpu-v5e"));
  const double x = 512.0 * 384 * 4, v = 512.0 * 4;
  // x read 3 times, y written; s1 written and read twice, s2 written and read once.
  CHECK(p.total.hbm_bytes == 3 * x + x + 5 * v);
  CHECK(p.unfused.hbm_bytes > 2 * p.total.hbm_bytes);
}

TEST_CASE("fusion pass: a producer dearer to recompute than to write is written once") {
  // p = a + b (S = 8 MiB of sources, B = 4 MiB) feeds four reductions:
  // recomputed in each, 4 x 8 MiB; written once, 8 + 4 + 4 x 4 = 28 MiB.
  HloModule m = must_parse(
      "HloModule dear\n"
      "sum { a = f32[] parameter(0)\n b = f32[] parameter(1)\n ROOT s = f32[] add(a, b) }\n"
      "ENTRY e {\n"
      "  a = f32[1024,1024]{1,0} parameter(0)\n  b = f32[1024,1024]{1,0} parameter(1)\n"
      "  zero = f32[] constant(0)\n"
      "  p = f32[1024,1024]{1,0} add(a, b)\n"
      "  r0 = f32[] reduce(p, zero), dimensions={0,1}, to_apply=sum\n"
      "  r1 = f32[] reduce(p, zero), dimensions={0,1}, to_apply=sum\n"
      "  r2 = f32[] reduce(p, zero), dimensions={0,1}, to_apply=sum\n"
      "  r3 = f32[] reduce(p, zero), dimensions={0,1}, to_apply=sum\n"
      "  ROOT t = (f32[], f32[], f32[], f32[]) tuple(r0, r1, r2, r3)\n}\n");
  const HloModulePrediction p = roofline::predict(m, roofline::chip("tpu-v5e"));
  const double mib4 = 4.0 * 1024 * 1024;
  CHECK(p.total.hbm_bytes == 2 * mib4 + mib4 + 4 * (mib4 + 4));
}

TEST_CASE("fusion pass: a module XLA fused already is costed as it is") {
  HloModule m = must_parse(
      "HloModule f\n"
      "fc { a = f32[1024]{0} parameter(0)\n e = f32[1024]{0} exponential(a)\n ROOT n = f32[1024]{0} negate(e) }\n"
      "ENTRY e {\n  x = f32[1024]{0} parameter(0)\n"
      "  f = f32[1024]{0} fusion(x), kind=kLoop, calls=fc\n"
      "  s = f32[1024]{0} sine(f)\n  ROOT t = f32[1024]{0} cosine(s)\n}\n");
  const HloModulePrediction p = roofline::predict(m, roofline::chip("tpu-v5e"));
  CHECK(p.fusion_groups == 0);
  CHECK(p.total.hbm_bytes == p.unfused.hbm_bytes);
  CHECK(p.total.hbm_bytes == 6 * 4096.0);  // three ops, each reading and writing 4 KiB
}
