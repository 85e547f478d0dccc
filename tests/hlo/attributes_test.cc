// The typed attributes the readers fill once (roofline/hlo/attributes.hpp):
// what they hold, that HLO text and HloProto give the same ones, and what a
// malformed attribute becomes.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/reader.hpp"
#include "src/hlo/attributes.hpp"
#include "src/hlo/backend_config.hpp"
#include "tests/hlo/hlo_proto_writer.hpp"
#include "tests/hlo/hlo_test_support.hpp"
#include "tests/test_support.hpp"

using roofline::CustomCallKind;
using roofline::FusionKind;
using roofline::HloModule;
using roofline::HloTypedAttributes;

namespace {

using Ints = std::vector<std::int64_t>;

using roofline::testing::must_parse;
using roofline::testing::must_read;
using roofline::testing::parse_error;

const HloTypedAttributes& typed(const HloModule& m, const char* name) {
  const roofline::HloInstruction* i = m.instruction(name);
  REQUIRE(i != nullptr);
  return *i->typed;
}

Ints ints(std::span<const std::int64_t> s) { return {s.begin(), s.end()}; }

// Every instruction of `a` has the typed attributes of its namesake in `b`.
void check_same_typed_attributes(const HloModule& a, const HloModule& b) {
  REQUIRE(a.instruction_count() == b.instruction_count());
  for (const roofline::HloComputation& ca : a.computations())
    for (const roofline::HloInstruction& ia : ca.instructions) {
      INFO(ca.name << "/" << ia.name);
      const roofline::HloInstruction* ib = b.instruction(ia.name);
      REQUIRE(ib != nullptr);
      CHECK(*ia.typed == *ib->typed);
    }
}

// ---- a module written as HloProto, field by field ----------------------------

constexpr int kPred = 1, kS8 = 2, kS32 = 4, kF32 = 11, kTuple = 13, kC64 = 15;

using Msg = roofline::testing::PbMessage;
namespace f = roofline::testing::hlo_field;

void set_shape(Msg& s, int type, const Ints& dims) {
  s.i(f::kElementType, type);
  if (!dims.empty()) s.packed(f::kShapeDimensions, dims);
  if (type == kTuple) return;
  Ints m2m;
  for (std::size_t k = dims.size(); k-- > 0;) m2m.push_back(static_cast<std::int64_t>(k));
  if (!m2m.empty()) s.one(f::kLayout).packed(f::kMinorToMajor, m2m);
}

struct ProtoModule {
  Msg m;
  std::int64_t next_id = 1;

  Msg& computation(const std::string& name) {
    Msg& c = m.add(f::kComputations);
    c.id = next_id++;
    c.s(f::kComputationName, name).i(f::kComputationId, c.id);
    return c;
  }
  // An instruction of `c` (the last one added is its root).
  Msg& add(Msg& c, const std::string& name, const std::string& opcode, int type, const Ints& dims,
           const std::vector<const Msg*>& operands = {}) {
    Msg& i = c.add(f::kInstructions);
    i.id = next_id++;
    i.s(f::kName, name).s(f::kOpcode, opcode).i(f::kId, i.id);
    set_shape(i.one(f::kShape), type, dims);
    Ints ids;
    for (const Msg* o : operands) ids.push_back(o->id);
    if (!ids.empty()) i.packed(f::kOperandIds, ids);
    c.i(f::kRootId, i.id);  // written again by each add: the last value counts
    return i;
  }
  Msg& parameter(Msg& c, const std::string& name, int number, int type, const Ints& dims) {
    Msg& p = add(c, name, "parameter", type, dims);
    if (number != 0) p.i(f::kParameterNumber, number);
    return p;
  }
};

// xla.WindowDimension fields 1..6: size, stride, padding_low, padding_high,
// window_dilation, base_dilation.
void window(Msg& i, const Ints& size, const Ints& stride, std::int64_t pad) {
  for (std::size_t k = 0; k < size.size(); ++k)
    i.one(f::kWindow).add(1).i(1, size[k]).i(2, stride[k]).i(3, pad).i(4, pad).i(5, 1).i(6, 1);
}

// dim_labels=b01f_01io->b01f (xla.ConvolutionDimensionNumbers: input batch 7,
// feature 8, spatial 11; kernel input 3, output 4, spatial 6; output batch 9,
// feature 10, spatial 12).
void conv_dims(Msg& i) {
  i.one(f::kConvolutionDimensionNumbers)
      .i(7, 0).i(8, 3).packed(11, {1, 2})
      .i(3, 2).i(4, 3).packed(6, {0, 1})
      .i(9, 0).i(10, 3).packed(12, {1, 2});
}

const char* kGemmConfig =
    R"({"gemm_backend_config":{"alpha_real":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],)"
    R"("rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}})";

// The module of every_modeled_attribute_text(), as XLA would serialize it.
std::string every_modeled_attribute_proto() {
  ProtoModule p;
  Msg& add = p.computation("add");
  Msg& a = p.parameter(add, "add.a", 0, kF32, {});
  Msg& b = p.parameter(add, "add.b", 1, kF32, {});
  p.add(add, "add.s", "add", kF32, {}, {&a, &b});
  Msg& body = p.computation("body");
  p.add(body, "body.n", "negate", kS32, {}, {&p.parameter(body, "body.t", 0, kS32, {})});
  Msg& cond = p.computation("cond");
  Msg& ct = p.parameter(cond, "cond.t", 0, kS32, {});
  p.add(cond, "cond.lt", "compare", kPred, {}, {&ct, &ct}).s(f::kComparisonDirection, "LT");
  Msg& fused = p.computation("fused");
  p.add(fused, "fused.n", "negate", kF32, {1024}, {&p.parameter(fused, "fused.p", 0, kF32, {1024})});

  Msg& e = p.computation("main");
  Msg& x = p.parameter(e, "x", 0, kF32, {8, 32, 32, 16});
  Msg& k = p.parameter(e, "k", 1, kF32, {3, 3, 16, 32});
  Msg& lhs = p.parameter(e, "lhs", 2, kF32, {64, 128});
  Msg& rhs = p.parameter(e, "rhs", 3, kF32, {128, 256});
  Msg& z = p.parameter(e, "z", 4, kF32, {});
  Msg& v = p.parameter(e, "v", 5, kF32, {1024});
  Msg& i = p.parameter(e, "i", 6, kS32, {});
  Msg& c = p.parameter(e, "c", 7, kC64, {8, 16});
  Msg& conv = p.add(e, "conv", "convolution", kF32, {8, 16, 16, 32}, {&x, &k});
  window(conv, {3, 3}, {2, 2}, 1);
  conv_dims(conv);
  Msg& dot = p.add(e, "dot", "dot", kF32, {64, 256}, {&lhs, &rhs});
  dot.one(f::kDotDimensionNumbers).packed(1, {1}).packed(2, {0});  // lhs / rhs contracting
  Msg& rw = p.add(e, "rw", "reduce-window", kF32, {8, 16, 16, 16}, {&x, &z});
  window(rw, {1, 2, 2, 1}, {1, 2, 2, 1}, 0);
  rw.packed(f::kCalledComputationIds, {add.id});
  p.add(e, "tr", "transpose", kF32, {128, 64}, {&lhs}).packed(f::kDimensions, {1, 0});
  p.add(e, "fft", "fft", kC64, {8, 16}, {&c}).packed(f::kFftLength, {16});
  Msg& ar = p.add(e, "ar", "all-reduce", kF32, {1024}, {&v});
  ar.i(f::kChannelId, 1).i(f::kUseGlobalDeviceIds, 1);
  // The iota list where XLA before mid-2025 kept it: collective_device_list's field 2.
  ar.one(f::kCollectiveDeviceList)
      .one(f::kListIota)
      .i(f::kNumReplicaGroups, 2)
      .i(f::kNumDevicesPerGroup, 4)
      .packed(f::kIotaReshapeDims, {4, 2})
      .packed(f::kIotaTransposePerm, {1, 0});
  ar.packed(f::kCalledComputationIds, {add.id});
  Msg& ag = p.add(e, "ag", "all-gather", kF32, {2048}, {&v});
  ag.i(f::kChannelId, 2).packed(f::kDimensions, {0});
  for (const Ints& group : {Ints{0, 1}, Ints{2, 3}}) ag.add(f::kReplicaGroups).packed(1, group);
  Msg& cp = p.add(e, "cp", "collective-permute", kF32, {1024}, {&v});
  cp.i(f::kChannelId, 3);
  for (auto [s, t] : {std::pair{0, 1}, std::pair{1, 0}}) {
    Msg& st = cp.add(f::kSourceTargetPairs);
    if (s != 0) st.i(1, s);
    if (t != 0) st.i(2, t);
  }
  Msg& w = p.add(e, "w", "while", kS32, {}, {&i});
  w.packed(f::kCalledComputationIds, {body.id, cond.id});  // XLA stores {body, condition}
  w.s(f::kBackendConfig, R"({"known_trip_count":{"n":"7"}})");
  Msg& fu = p.add(e, "f", "fusion", kF32, {1024}, {&v});
  fu.s(f::kFusionKind, "kLoop").packed(f::kCalledComputationIds, {fused.id});
  Msg& g = p.add(e, "g", "custom-call", kTuple, {}, {&lhs, &rhs});
  set_shape(g.one(f::kShape).add(f::kTupleShapes), kF32, {64, 256});
  set_shape(g.one(f::kShape).add(f::kTupleShapes), kS8, {1024});
  g.s(f::kCustomCallTarget, "__cublas$gemm").s(f::kBackendConfig, kGemmConfig);
  Msg& cc = p.add(e, "cc", "custom-call", kTuple, {}, {&x, &k});
  set_shape(cc.one(f::kShape).add(f::kTupleShapes), kF32, {8, 16, 16, 32});
  set_shape(cc.one(f::kShape).add(f::kTupleShapes), kS8, {0});
  cc.s(f::kCustomCallTarget, "__cudnn$convForward");
  window(cc, {3, 3}, {2, 2}, 1);
  conv_dims(cc);
  p.add(e, "out", "copy", kF32, {1024}, {&v});
  p.m.s(f::kEntryComputationName, "main").i(f::kEntryComputationId, e.id).s(f::kModuleName, "typed");
  return p.m.str();
}

std::string every_modeled_attribute_text() {
  return std::string(
             "HloModule typed\n"
             "%add (add.a: f32[], add.b: f32[]) -> f32[] {\n  %add.a = f32[] parameter(0)\n  %add.b = f32[] parameter(1)\n"
             "  ROOT %add.s = f32[] add(%add.a, %add.b)\n}\n"
             "%body (body.t: s32[]) -> s32[] {\n  %body.t = s32[] parameter(0)\n  ROOT %body.n = s32[] negate(%body.t)\n}\n"
             "%cond (cond.t: s32[]) -> pred[] {\n  %cond.t = s32[] parameter(0)\n"
             "  ROOT %cond.lt = pred[] compare(%cond.t, %cond.t), direction=LT\n}\n"
             "%fused (fused.p: f32[1024]) -> f32[1024] {\n  %fused.p = f32[1024]{0} parameter(0)\n"
             "  ROOT %fused.n = f32[1024]{0} negate(%fused.p)\n}\n"
             "ENTRY %main {\n"
             "  %x = f32[8,32,32,16]{3,2,1,0} parameter(0)\n  %k = f32[3,3,16,32]{3,2,1,0} parameter(1)\n"
             "  %lhs = f32[64,128]{1,0} parameter(2)\n  %rhs = f32[128,256]{1,0} parameter(3)\n"
             "  %z = f32[] parameter(4)\n  %v = f32[1024]{0} parameter(5)\n  %i = s32[] parameter(6)\n"
             "  %c = c64[8,16]{1,0} parameter(7)\n"
             "  %conv = f32[8,16,16,32]{3,2,1,0} convolution(%x, %k), window={size=3x3 stride=2x2 pad=1_1x1_1}, "
             "dim_labels=b01f_01io->b01f\n"
             "  %dot = f32[64,256]{1,0} dot(%lhs, %rhs), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
             "  %rw = f32[8,16,16,16]{3,2,1,0} reduce-window(%x, %z), window={size=1x2x2x1 stride=1x2x2x1}, to_apply=%add\n"
             "  %tr = f32[128,64]{1,0} transpose(%lhs), dimensions={1,0}\n"
             "  %fft = c64[8,16]{1,0} fft(%c), fft_type=FFT, fft_length={16}\n"
             "  %ar = f32[1024]{0} all-reduce(%v), channel_id=1, replica_groups=[2,4]<=[4,2]T(1,0), "
             "use_global_device_ids=true, to_apply=%add\n"
             "  %ag = f32[2048]{0} all-gather(%v), channel_id=2, replica_groups={{0,1},{2,3}}, dimensions={0}\n"
             "  %cp = f32[1024]{0} collective-permute(%v), channel_id=3, source_target_pairs={{0,1},{1,0}}\n"
             "  %w = s32[] while(%i), condition=%cond, body=%body, backend_config={\"known_trip_count\":{\"n\":\"7\"}}\n"
             "  %f = f32[1024]{0} fusion(%v), kind=kLoop, calls=%fused\n"
             "  %g = (f32[64,256]{1,0}, s8[1024]{0}) custom-call(%lhs, %rhs), custom_call_target=\"__cublas$gemm\", "
             "backend_config=") +
         kGemmConfig +
         "\n"
         "  %cc = (f32[8,16,16,32]{3,2,1,0}, s8[0]{0}) custom-call(%x, %k), window={size=3x3 stride=2x2 pad=1_1x1_1}, "
         "dim_labels=b01f_01io->b01f, custom_call_target=\"__cudnn$convForward\"\n"
         "  ROOT %out = f32[1024]{0} copy(%v)\n}\n";
}

}  // namespace

TEST_CASE("typed attributes: what the reader fills in for each modeled op") {
  const HloModule m = must_parse(every_modeled_attribute_text());

  const HloTypedAttributes& dot = typed(m, "dot");
  REQUIRE(dot.dot_dimensions != nullptr);
  CHECK(ints(dot.dot_dimensions->lhs_contracting) == Ints{1});
  CHECK(ints(dot.dot_dimensions->rhs_contracting) == Ints{0});
  CHECK(dot.dot_dimensions->lhs_batch.empty());

  const HloTypedAttributes& conv = typed(m, "conv");
  REQUIRE(conv.convolution != nullptr);
  CHECK(conv.convolution->dims.input_feature == 3);
  CHECK(ints(conv.convolution->dims.kernel_spatial) == Ints{0, 1});
  REQUIRE(conv.convolution->window.size() == 2);
  CHECK(conv.convolution->window[1] ==
        roofline::WindowDimension{.size = 3, .stride = 2, .pad_low = 1, .pad_high = 1, .window_dilation = 1,
                                  .base_dilation = 1, .reversal = false});
  CHECK(conv.convolution->feature_group_count == 1);

  CHECK(typed(m, "rw").window.size() == 4);
  CHECK(typed(m, "rw").window[1].size == 2);
  REQUIRE(typed(m, "tr").dimensions);
  CHECK(ints(*typed(m, "tr").dimensions) == Ints{1, 0});
  CHECK(ints(typed(m, "fft").fft_length) == Ints{16});

  const HloTypedAttributes& ar = typed(m, "ar");
  CHECK(ar.replica_groups == roofline::ReplicaGroupSizes{.num_groups = 2, .group_size = 4, .all_devices = false});
  CHECK(ar.channel_id == 1);
  CHECK(ar.use_global_device_ids);
  CHECK(typed(m, "ag").replica_groups == roofline::ReplicaGroupSizes{.num_groups = 2, .group_size = 2, .all_devices = false});
  const HloTypedAttributes& cp = typed(m, "cp");
  REQUIRE(cp.source_target_pairs);
  REQUIRE(cp.source_target_pairs->size() == 2);
  CHECK(ints((*cp.source_target_pairs)[1]) == Ints{1, 0});
  // A permute names no replica groups: one group of all devices.
  CHECK(cp.replica_groups == roofline::ReplicaGroupSizes{});

  CHECK(typed(m, "w").known_trip_count == 7);
  CHECK(typed(m, "f").fusion_kind == FusionKind::kLoop);

  const HloTypedAttributes& g = typed(m, "g");
  CHECK(g.custom_call_target == "__cublas$gemm");
  CHECK(g.custom_call_kind == CustomCallKind::kGemm);
  REQUIRE(g.dot_dimensions != nullptr);
  CHECK(ints(g.dot_dimensions->lhs_contracting) == Ints{1});
  const HloTypedAttributes& cc = typed(m, "cc");
  CHECK(cc.custom_call_kind == CustomCallKind::kConvolutionForward);
  REQUIRE(cc.convolution != nullptr);
  CHECK(*cc.convolution == *conv.convolution);

  // Ops whose cost reads no attribute point to the shared empty set.
  CHECK(m.instruction("out")->typed == &roofline::kNoTypedAttributes);
  CHECK(m.instruction("x")->typed == &roofline::kNoTypedAttributes);
}

TEST_CASE("typed attributes: the same instruction read from text and from proto has equal attributes") {
  auto proto = roofline::parse_hlo_proto(every_modeled_attribute_proto(), "typed.pb");
  INFO(proto.status().message());
  REQUIRE(proto.ok());
  const HloModule text = must_parse(every_modeled_attribute_text());
  check_same_typed_attributes(text, *proto);
  // Not vacuous: the proto's instructions carry them.
  CHECK(typed(*proto, "w").known_trip_count == 7);
  CHECK(typed(*proto, "g").dot_dimensions != nullptr);
  CHECK(typed(*proto, "cc").convolution != nullptr);
  CHECK(typed(*proto, "ar").replica_groups == typed(text, "ar").replica_groups);
}

TEST_CASE("typed attributes: JAX's fixtures give the same attributes from their text and their proto") {
  for (const char* base : {"matmul", "mlp", "while_loop", "psum"}) {
    INFO(base);
    check_same_typed_attributes(must_read(std::string(base) + ".hlo.txt"), must_read(std::string(base) + ".hlo.pb"));
  }
  CHECK(typed(must_read("while_loop.hlo.pb"), "while.1").known_trip_count == 10);
}

TEST_CASE("typed attributes: a malformed value still loads, reads as unreadable and costs as before") {
  const HloModule m = must_parse(
      "HloModule bad\n"
      "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
      "  ROOT %s = f32[] add(%a, %b)\n}\n"
      "ENTRY %main {\n"
      "  %x = f32[8,32,32,16]{3,2,1,0} parameter(0)\n  %k = f32[3,3,16,32]{3,2,1,0} parameter(1)\n"
      "  %lhs = f32[64,128]{1,0} parameter(2)\n  %rhs = f32[128,256]{1,0} parameter(3)\n  %v = f32[1024]{0} parameter(4)\n"
      "  %dot = f32[64,256]{1,0} dot(%lhs, %rhs), lhs_contracting_dims={1,x}, rhs_contracting_dims={0}\n"
      "  %conv = f32[8,32,32,32]{3,2,1,0} convolution(%x, %k), window={size=3x3 pad=1_1xq}, dim_labels=b01f_01io->b01f\n"
      "  %ar = f32[1024]{0} all-reduce(%v), replica_groups={{0,1},{2,x}}, to_apply=%add\n"
      "  %w = f32[1024]{0} while(%v), condition=%add, body=%add, backend_config={\"known_trip_count\":{\"n\":\"ten\"}}\n"
      "  %g = f32[64,256]{1,0} custom-call(%lhs, %rhs), custom_call_target=\"__cublas$gemm\", backend_config={not json}\n"
      "  ROOT %out = f32[1024]{0} copy(%v)\n}\n");
  CHECK(typed(m, "dot").dot_dimensions == nullptr);
  CHECK(roofline::cost(*m.instruction("dot")).flops == 0);  // as before: no contracted size, no FLOPs
  CHECK(typed(m, "conv").convolution == nullptr);
  CHECK(roofline::cost(*m.instruction("conv")).flags.unknown_opcode);
  CHECK_FALSE(typed(m, "ar").replica_groups);
  CHECK(roofline::cost(*m.instruction("ar")).flags.collective_not_timed);
  CHECK_FALSE(typed(m, "w").known_trip_count);
  CHECK(roofline::cost(*m.instruction("w")).flags.trip_count_unknown);
  CHECK(typed(m, "g").dot_dimensions == nullptr);
  CHECK(roofline::cost(*m.instruction("g")).flags.unknown_custom_call);
  // The text is kept as written.
  CHECK(m.instruction("dot")->attribute("lhs_contracting_dims") == "{1,x}");
}

TEST_CASE("typed attributes: attributes the reader checks give located errors") {
  // Unbalanced brackets: the value never ends.
  CHECK(parse_error("HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0), window={size=3\n") ==
        "bad.hlo:4:1: expected '}', found the end of the input");
  // metadata is read while parsing, and must be a {key=value ...} list.
  CHECK(parse_error("HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0), metadata={op_name}\n}\n") ==
        "bad.hlo:3:45: metadata must be a {key=value ...} list");
  CHECK(parse_error("HloModule m, replica_count=-2\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0)\n}\n") ==
        "bad.hlo:1:28: replica_count must be a positive integer");
}

namespace {

// What the cost model read from a backend_config before the subset scanner:
// nlohmann's document, walked as below.
bool reference_gemm(const std::string& text, roofline::detail::DotDims* d) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return false;
  nlohmann::json* g = j.contains("gemm_backend_config") ? &j["gemm_backend_config"] : &j;
  return g->is_object() && g->contains("dot_dimension_numbers") &&
         roofline::detail::dot_dims_from_json((*g)["dot_dimension_numbers"], d);
}

std::optional<std::int64_t> reference_trip(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  auto it = j.find("known_trip_count");
  if (it == j.end() || !it->is_object()) return std::nullopt;
  auto n = it->find("n");
  std::int64_t v;
  if (n == it->end() || !roofline::detail::json_int(*n, &v) || v < 0) return std::nullopt;
  return v;
}

// Both readers agree with the reference on `json`, printed raw and as an
// escaped string. Returns whether they do (for loops that stop at the first miss).
bool agrees_with_nlohmann(const std::string& json) {
  std::string quoted = "\"";
  for (char c : json) quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  quoted += "\"";
  // A raw value that starts with a quote is the escaped form's spelling.
  const bool raw_too = json.empty() || json.front() != '"';
  bool all = true;
  for (const std::string& value : raw_too ? std::vector<std::string>{json, quoted} : std::vector<std::string>{quoted}) {
    roofline::detail::DotDims got, want;
    const bool have = roofline::detail::backend_config_gemm_dims(value, &got);
    const bool same_dims = have == (!json.empty() && reference_gemm(json, &want)) && got.lhs_batch == want.lhs_batch &&
                           got.lhs_contracting == want.lhs_contracting && got.rhs_batch == want.rhs_batch &&
                           got.rhs_contracting == want.rhs_contracting;
    const bool same_trip =
        roofline::detail::backend_config_trip_count(value) == (json.empty() ? std::nullopt : reference_trip(json));
    CHECK(same_dims);
    CHECK(same_trip);
    all = all && same_dims && same_trip;
  }
  return all;
}

}  // namespace

// The backend_config scanner reads a subset of JSON itself and hands the
// rest to nlohmann::json; either way the result must be what nlohmann's
// document gives (the rule the cost model has always used).
TEST_CASE("typed attributes: backend_config reads agree with nlohmann::json") {
  const std::string dims = R"({"lhs_contracting_dimensions":[1]})";
  const std::vector<std::string> texts = {
      kGemmConfig,
      R"({"gemm_backend_config":{"dot_dimension_numbers":)" + dims + R"(},"gemm_backend_config":{"alpha_real":1}})",
      R"({"gemm_backend_config":{"alpha_real":1},"gemm_backend_config":{"dot_dimension_numbers":)" + dims + "}}",
      R"({"gemm_backend_config":7,"dot_dimension_numbers":)" + dims + "}",
      R"({"dot_dimension_numbers":)" + dims + "}",
      R"({"dot_dimension_numbers":)" + dims + R"(,"gemm_backend_config":{}})",
      R"({"dot_dimension_numbers":{"lhs_contracting_dimensions":[1],"lhs_contracting_dimensions":[0]}})",
      R"({"dot_dimension_numbers":{"lhs_contracting_dimensions":[1.0]}})",
      R"({"dot_dimension_numbers":{"lhs_contracting_dimensions":[-0, 1e0]}})",
      R"({"dot_dimension_numbers":{"lhs_contracting_dimensions":[" 1 ", "1\n", "\u0031"]}})",
      R"({"dot_dimension_numbers":{"lhs_contra\u0063ting_dimensions":[1]}})",
      R"({"dot_dimension_numbers":{"lhs_contracting_dimensions":[123456789012345678, 1234567890123456789]}})",
      R"({"dot_dimension_numbers":{"lhs_contracting_dimensions":[18446744073709551615, 123456789012345678901234]}})",
      R"({"dot_dimension_numbers":{"lhs_batch_dimensions":[0],"lhs_contracting_dimensions":[2,"x"]}})",
      R"({"dot_dimension_numbers":{"lhs_contracting_dimensions":[true]}})",
      R"({"dot_dimension_numbers":[]})",
      R"({"dot_dimension_numbers":)" + dims + R"(,"x":1e999})",
      R"({"dot_dimension_numbers":)" + dims + R"(,"x":1e99,"y":-0.5E-12,"z":[null,false,{}]})",
      R"({"dot_dimension_numbers":)" + dims + ",\"x\":\"caf\xc3\xa9\"}",
      R"({"dot_dimension_numbers":)" + dims + ",\"x\":\"caf\xff\"}",
      R"({"dot_dimension_numbers":)" + dims + ",\"x\":\"\x7f\\/\\b\\f\\r\\t\\\"\"}",
      R"({"dot_dimension_numbers":)" + dims + ",\"x\":\"tab\there\"}",
      R"({"dot_dimension_numbers":)" + dims + ",}",
      R"({"dot_dimension_numbers":)" + dims + "} x",
      R"({"dot_dimension_numbers":{"lhs_contracting_dimensions":[01]}})",
      "{\"a\":" + std::string(70, '[') + "1" + std::string(70, ']') + R"(,"dot_dimension_numbers":)" + dims + "}",
      "[" + dims + "]",
      R"("text")",
      R"({"known_trip_count":{"n":"10"}})",
      R"({"known_trip_count":{"n":10}, "known_trip_count":{}})",
      R"({"known_trip_count":{"n":"10","n":"3"}})",
      R"({"known_trip_count":{"n":-1}})",
      R"({"known_trip_count":{"n":"-0"}})",
      R"({"known_trip_count":{"n":1.0}})",
      R"({"known_trip_count":{"n":"\u0035"}})",
      R"({"known_trip_count":{"\u006e":"5"}})",
      R"({"known_trip_count":{"n":" 7 "}})",
      R"({"known_trip_count":{"n":"7/*c*/"}})",
      R"({"a":{"known_trip_count":{"n":"5"}}})",
      R"({"known_trip_count":{"m":{"n":"5"}}})",
      R"({"known_trip_count":{"n":"4"},"known_trip_count":7})",
      R"({"known_trip_count":[{"n":"5"}]})",
      " {\"known_trip_count\" : { \"n\" : \"5\" } }\t\n",
      std::string("\n\t ") + R"({"gemm_backend_config":{"dot_dimension_numbers":)" + dims + "}}",
      "{}",
      "",
  };
  for (const std::string& json : texts) {
    INFO(json);
    agrees_with_nlohmann(json);
  }
}

// Every text one edit away from a real config: most are malformed or leave
// the subset in some small way, which is where a scanner would go wrong.
TEST_CASE("typed attributes: backend_config reads agree with nlohmann::json one edit away from real configs") {
  const std::string seeds[] = {kGemmConfig, R"( {"known_trip_count" : {"n":"10"}, "x":[-1.5e3,true,null]} )"};
  const std::string edits[] = {"", "{", "}", "[", "]", "\"", ",", ":", " ", "\\", "0", "9", "-", ".", "e", "u",
                               "n", "t", "\x01", "\xc3"};
  int cases = 0;
  for (const std::string& seed : seeds)
    for (std::size_t at = 0; at <= seed.size(); ++at)
      for (const std::string& edit : edits)
        for (int replace = 0; replace < 2; ++replace) {
          std::string json = seed;
          if (replace && at < json.size()) json.erase(at, 1);
          json.insert(at, edit);
          INFO(json);
          ++cases;
          if (!agrees_with_nlohmann(json)) return;  // one failure says enough
        }
  CHECK(cases > 5000);  // the loop ran (about 10,000 texts)
}
