// Parse throughput of the HLO readers on a generated module of tens of MB
// (fusions, dots, collectives, long metadata and backend_config strings, TPU
// tiled layouts), written both as HLO text and as a serialized HloProto. The
// text reader should run near memory speed: BM_CopyText is the reference
// (one copy of the same bytes).
//
// A second, smaller module is made of the ops whose cost reads attributes
// (dots, convolutions, library GEMM custom calls with a JSON backend_config,
// reduce-windows, transposes, collectives with replica groups, while loops
// with a known trip count): BM_*Mixed* parse it, cost every instruction of
// its entry, and predict it.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "roofline/chip.hpp"
#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"

namespace {

constexpr int kFusions = 40000;  // ~ 30 MB of text

// ---- HLO text ---------------------------------------------------------------

std::string generate_text() {
  std::string t;
  t.reserve(40u << 20);
  t += "HloModule bench, is_scheduled=true, entry_computation_layout={(bf16[1024,4096]{1,0:T(8,128)(2,1)}, "
       "bf16[4096]{0:T(1024)(128)(2,1)})->bf16[1024,4096]{1,0:T(8,128)(2,1)}}, num_partitions=8\n\n";
  t += "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
       "  ROOT %s = f32[] add(f32[] %a, f32[] %b)\n}\n\n";
  const std::string big = "bf16[1024,4096]{1,0:T(8,128)(2,1)}";
  const std::string vec = "bf16[4096]{0:T(1024)(128)(2,1)}";
  for (int k = 0; k < kFusions; ++k) {
    const std::string n = std::to_string(k);
    const std::string md = "metadata={op_name=\"jit(train_step)/jit(main)/transformer/layer_" + n +
                           "/mlp/add\" source_file=\"/home/user/model/layers.py\" source_line=" + n + "}";
    t += "%fused_computation." + n + " (param_0." + n + ": bf16[1024,4096], param_1." + n +
         ": bf16[4096]) -> bf16[1024,4096] {\n";
    t += "  %param_0." + n + " = " + big + " parameter(0)\n";
    t += "  %param_1." + n + " = " + vec + " parameter(1)\n";
    t += "  %broadcast." + n + " = " + big + " broadcast(" + vec + " %param_1." + n + "), dimensions={1}, " + md + "\n";
    t += "  %add." + n + " = " + big + " add(" + big + " %param_0." + n + ", " + big + " %broadcast." + n + "), " + md + "\n";
    t += "  ROOT %tanh." + n + " = " + big + " tanh(" + big + " %add." + n + "), " + md + "\n}\n\n";
  }
  t += "ENTRY %main (x: bf16[1024,4096], bias: bf16[4096]) -> bf16[1024,4096] {\n";
  t += "  %x = " + big + " parameter(0)\n  %bias = " + vec + " parameter(1)\n";
  std::string prev = "x";
  for (int k = 0; k < kFusions; ++k) {
    const std::string n = std::to_string(k);
    t += "  %fusion." + n + " = " + big + " fusion(" + big + " %" + prev + ", " + vec +
         " %bias), kind=kLoop, calls=%fused_computation." + n +
         ", metadata={op_name=\"jit(train_step)/jit(main)/transformer/layer_" + n + "/mlp\" source_file=\"/home/user/model/layers.py\" source_line=" + n +
         "}, backend_config={\"flag_configs\":[],\"scoped_memory_configs\":[],\"used_scoped_memory_configs\":[]}\n";
    prev = "fusion." + n;
    if (k % 16 == 15) {
      t += "  %all-reduce." + n + " = " + big + " all-reduce(" + big + " %" + prev +
           "), channel_id=" + n + ", replica_groups=[4,2]<=[2,4]T(1,0), use_global_device_ids=true, to_apply=%add\n";
      prev = "all-reduce." + n;
    }
  }
  t += "  ROOT %out = " + big + " copy(" + big + " %" + prev + ")\n}\n";
  return t;
}

// ---- the same module as an HloProto, written with a minimal wire encoder -----

struct Wire {
  std::string out;
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      out += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out += static_cast<char>(v);
  }
  void tag(int field, int type) { varint(static_cast<std::uint64_t>(field) << 3 | static_cast<std::uint64_t>(type)); }
  void num(int field, std::uint64_t v) {
    tag(field, 0);
    varint(v);
  }
  void bytes(int field, const std::string& s) {
    tag(field, 2);
    varint(s.size());
    out += s;
  }
  void packed(int field, const std::vector<std::int64_t>& v) {
    Wire w;
    for (std::int64_t x : v) w.varint(static_cast<std::uint64_t>(x));
    bytes(field, w.out);
  }
};

std::string shape_proto(int type, const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& m2m,
                        const std::vector<std::vector<std::int64_t>>& tiles) {
  Wire layout;
  layout.packed(1, m2m);
  for (const auto& t : tiles) {
    Wire tile;
    tile.packed(1, t);
    layout.bytes(6, tile.out);
  }
  Wire s;
  s.num(2, static_cast<std::uint64_t>(type));
  if (!dims.empty()) s.packed(3, dims);
  s.bytes(5, layout.out);
  return s.out;
}

struct Instr {
  std::string name{};
  std::string opcode{};
  std::string shape{};
  std::int64_t id = 0;
  std::vector<std::int64_t> operands{};
  std::vector<std::int64_t> called{};
  std::vector<std::int64_t> dimensions{};
  std::int64_t parameter = -1;
  std::string op_name{};
  std::string kind{};
  std::string backend_config{};
  int line = 0;
  std::string encode() const {
    Wire w;
    w.bytes(1, name);
    w.bytes(2, opcode);
    w.bytes(3, shape);
    if (!op_name.empty()) {
      Wire md;
      md.bytes(2, op_name);
      md.bytes(3, "/home/user/model/layers.py");
      md.num(4, static_cast<std::uint64_t>(line));
      w.bytes(7, md.out);
    }
    if (parameter >= 0) w.num(9, static_cast<std::uint64_t>(parameter));
    if (!kind.empty()) w.bytes(11, kind);
    if (!dimensions.empty()) w.packed(14, dimensions);
    w.num(35, static_cast<std::uint64_t>(id));
    if (!operands.empty()) w.packed(36, operands);
    if (!called.empty()) w.packed(38, called);
    if (!backend_config.empty()) w.bytes(43, backend_config);
    return w.out;
  }
};

std::string computation_proto(const std::string& name, std::int64_t id, const std::vector<Instr>& ins) {
  Wire c;
  c.bytes(1, name);
  for (const Instr& i : ins) c.bytes(2, i.encode());
  c.num(5, static_cast<std::uint64_t>(id));
  c.num(6, static_cast<std::uint64_t>(ins.back().id));
  return c.out;
}

std::string generate_proto() {
  constexpr int kBF16 = 16, kF32 = 11;
  const std::string big = shape_proto(kBF16, {1024, 4096}, {1, 0}, {{8, 128}, {2, 1}});
  const std::string vec = shape_proto(kBF16, {4096}, {0}, {{1024}, {128}, {2, 1}});
  const std::string scalar = shape_proto(kF32, {}, {}, {});
  std::int64_t next_id = 1;
  Wire module;
  module.bytes(1, "bench");
  module.bytes(2, "main");
  const std::int64_t add_id = next_id++;
  {
    std::vector<Instr> a(3);
    a[0] = {.name = "a", .opcode = "parameter", .shape = scalar, .id = next_id++, .parameter = 0};
    a[1] = {.name = "b", .opcode = "parameter", .shape = scalar, .id = next_id++, .parameter = 1};
    a[2] = {.name = "s", .opcode = "add", .shape = scalar, .id = next_id++, .operands = {a[0].id, a[1].id}};
    module.bytes(3, computation_proto("add", add_id, a));
  }
  std::vector<std::int64_t> fused_ids;
  for (int k = 0; k < kFusions; ++k) {
    const std::string n = std::to_string(k);
    const std::string op = "jit(train_step)/jit(main)/transformer/layer_" + n + "/mlp/add";
    const std::int64_t cid = next_id++;
    fused_ids.push_back(cid);
    std::vector<Instr> f(5);
    f[0] = {.name = "param_0." + n, .opcode = "parameter", .shape = big, .id = next_id++, .parameter = 0};
    f[1] = {.name = "param_1." + n, .opcode = "parameter", .shape = vec, .id = next_id++, .parameter = 1};
    f[2] = {.name = "broadcast." + n, .opcode = "broadcast", .shape = big, .id = next_id++, .operands = {f[1].id},
            .dimensions = {1}, .op_name = op, .line = k};
    f[3] = {.name = "add." + n, .opcode = "add", .shape = big, .id = next_id++, .operands = {f[0].id, f[2].id},
            .op_name = op, .line = k};
    f[4] = {.name = "tanh." + n, .opcode = "tanh", .shape = big, .id = next_id++, .operands = {f[3].id},
            .op_name = op, .line = k};
    module.bytes(3, computation_proto("fused_computation." + n, cid, f));
  }
  std::vector<Instr> e;
  e.push_back({.name = "x", .opcode = "parameter", .shape = big, .id = next_id++, .parameter = 0});
  e.push_back({.name = "bias", .opcode = "parameter", .shape = vec, .id = next_id++, .parameter = 1});
  std::int64_t prev = e[0].id;
  for (int k = 0; k < kFusions; ++k) {
    const std::string n = std::to_string(k);
    e.push_back({.name = "fusion." + n, .opcode = "fusion", .shape = big, .id = next_id++, .operands = {prev, e[1].id},
                 .called = {fused_ids[static_cast<std::size_t>(k)]},
                 .op_name = "jit(train_step)/jit(main)/transformer/layer_" + n + "/mlp", .kind = "kLoop",
                 .backend_config = "{\"flag_configs\":[],\"scoped_memory_configs\":[],\"used_scoped_memory_configs\":[]}",
                 .line = k});
    prev = e.back().id;
    if (k % 16 == 15) {
      e.push_back({.name = "all-reduce." + n, .opcode = "all-reduce", .shape = big, .id = next_id++,
                   .operands = {prev}, .called = {add_id}});
      prev = e.back().id;
    }
  }
  e.push_back({.name = "out", .opcode = "copy", .shape = big, .id = next_id++, .operands = {prev}});
  const std::int64_t main_id = next_id++;
  module.bytes(3, computation_proto("main", main_id, e));
  module.num(6, static_cast<std::uint64_t>(main_id));
  Wire proto;
  proto.bytes(1, module.out);
  return proto.out;
}


// ---- a module of the ops whose cost reads attributes -------------------------

constexpr int kMixedBlocks = 2000;

std::string generate_mixed_text() {
  std::string t;
  t += "HloModule mixed, is_scheduled=true, num_partitions=8\n\n";
  t += "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
       "  ROOT %s = f32[] add(f32[] %a, f32[] %b)\n}\n\n";
  t += "%body (t: (s32[], f32[1024])) -> (s32[], f32[1024]) {\n  %t = (s32[], f32[1024]{0}) parameter(0)\n"
       "  %i = s32[] get-tuple-element(%t), index=0\n  %v = f32[1024]{0} get-tuple-element(%t), index=1\n"
       "  %one = s32[] constant(1)\n  %i1 = s32[] add(%i, %one)\n  %v1 = f32[1024]{0} sine(%v)\n"
       "  ROOT %r = (s32[], f32[1024]{0}) tuple(%i1, %v1)\n}\n\n";
  t += "%cond (t: (s32[], f32[1024])) -> pred[] {\n  %t = (s32[], f32[1024]{0}) parameter(0)\n"
       "  %i = s32[] get-tuple-element(%t), index=0\n  %n = s32[] constant(10)\n"
       "  ROOT %lt = pred[] compare(%i, %n), direction=LT\n}\n\n";
  t += "%fused_dot (p: bf16[256,512], q: bf16[512,256]) -> bf16[256,256] {\n  %p = bf16[256,512]{1,0} parameter(0)\n"
       "  %q = bf16[512,256]{1,0} parameter(1)\n"
       "  %d = bf16[256,256]{1,0} dot(%p, %q), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
       "  ROOT %n = bf16[256,256]{1,0} negate(%d)\n}\n\n";
  t += "ENTRY %main (x: bf16[256,512], w: bf16[512,256], img: f32[8,32,32,16], k: f32[3,3,16,32], "
       "v: f32[1024], s: (s32[], f32[1024])) -> f32[1024] {\n";
  t += "  %x = bf16[256,512]{1,0} parameter(0)\n  %w = bf16[512,256]{1,0} parameter(1)\n"
       "  %img = f32[8,32,32,16]{3,2,1,0} parameter(2)\n  %k = f32[3,3,16,32]{3,2,1,0} parameter(3)\n"
       "  %v = f32[1024]{0} parameter(4)\n  %s = (s32[], f32[1024]{0}) parameter(5)\n";
  for (int b = 0; b < kMixedBlocks; ++b) {
    const std::string n = std::to_string(b);
    t += "  %dot." + n + " = bf16[256,256]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
    t += "  %conv." + n + " = f32[8,16,16,32]{3,2,1,0} convolution(%img, %k), window={size=3x3 stride=2x2 pad=1_1x1_1}, "
         "dim_labels=b01f_01io->b01f\n";
    t += "  %gemm." + n + " = (bf16[256,256]{1,0}, s8[4194304]{0}) custom-call(%x, %w), custom_call_target=\"__cublas$gemm\", "
         "backend_config={\"operation_queue_id\":\"0\",\"wait_on_operation_queues\":[],\"gemm_backend_config\":{\"alpha_real\":1,"
         "\"alpha_imag\":0,\"beta\":0,\"dot_dimension_numbers\":{\"lhs_contracting_dimensions\":[\"1\"],"
         "\"rhs_contracting_dimensions\":[\"0\"],\"lhs_batch_dimensions\":[],\"rhs_batch_dimensions\":[]},"
         "\"precision_config\":{\"operand_precision\":[\"DEFAULT\",\"DEFAULT\"],\"algorithm\":\"ALG_UNSET\"},"
         "\"epilogue\":\"DEFAULT\",\"lhs_stride\":\"131072\",\"rhs_stride\":\"131072\",\"grad_x\":false,\"grad_y\":false,"
         "\"damax_output\":false},\"force_earliest_schedule\":false}\n";
    t += "  %fusion." + n + " = bf16[256,256]{1,0} fusion(%x, %w), kind=kOutput, calls=%fused_dot\n";
    t += "  %rw." + n + " = f32[8,16,16,16]{3,2,1,0} reduce-window(%img, f32[] %c0), window={size=1x3x3x1 stride=1x2x2x1 "
         "pad=0_0x1_1x1_1x0_0}, to_apply=%add\n";
    t += "  %tr." + n + " = f32[16,32,32,8]{3,2,1,0} transpose(%img), dimensions={3,1,2,0}\n";
    t += "  %ar." + n + " = f32[1024]{0} all-reduce(%v), channel_id=" + std::to_string(b + 1) +
         ", replica_groups=[2,4]<=[4,2]T(1,0), use_global_device_ids=true, to_apply=%add\n";
    t += "  %ag." + n + " = f32[1024]{0} all-gather(f32[128]{0} %v128), channel_id=" + std::to_string(b + 1) +
         ", replica_groups={{0,1,2,3,4,5,6,7}}, dimensions={0}, use_global_device_ids=true\n";
    t += "  %cp." + n + " = f32[1024]{0} collective-permute(%v), channel_id=" + std::to_string(b + 1) +
         ", source_target_pairs={{0,1},{1,2},{2,3},{3,4},{4,5},{5,6},{6,7},{7,0}}\n";
    t += "  %while." + n + " = (s32[], f32[1024]{0}) while(%s), condition=%cond, body=%body, "
         "backend_config={\"known_trip_count\":{\"n\":\"10\"}}\n";
  }
  t += "  %c0 = f32[] constant(0)\n  %v128 = f32[128]{0} slice(%v), slice={[0:128]}\n";
  t += "  ROOT %out = f32[1024]{0} copy(%v)\n}\n";
  return t;
}

const std::string& text() {
  static const std::string t = generate_text();
  return t;
}
const std::string& mixed_text() {
  static const std::string t = generate_mixed_text();
  return t;
}
const std::string& proto() {
  static const std::string p = generate_proto();
  return p;
}

}  // namespace

static void BM_CopyText(benchmark::State& state) {
  const std::string& t = text();
  std::string copy(t.size(), '\0');
  for (auto _ : state) {
    std::memcpy(copy.data(), t.data(), t.size());
    benchmark::DoNotOptimize(copy.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(t.size()));
}
BENCHMARK(BM_CopyText)->Unit(benchmark::kMillisecond);

static void BM_ParseHloText(benchmark::State& state) {
  const std::string& t = text();
  for (auto _ : state) {
    auto m = roofline::parse_hlo_text(t, "bench.hlo");
    if (!m.ok()) state.SkipWithError(std::string(m.status().message()).c_str());
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(t.size()));
  state.counters["MB"] = static_cast<double>(t.size()) / 1e6;
}
BENCHMARK(BM_ParseHloText)->Unit(benchmark::kMillisecond);

static void BM_ParseHloProto(benchmark::State& state) {
  const std::string& p = proto();
  for (auto _ : state) {
    auto m = roofline::parse_hlo_proto(p, "bench.pb");
    if (!m.ok()) state.SkipWithError(std::string(m.status().message()).c_str());
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(p.size()));
  state.counters["MB"] = static_cast<double>(p.size()) / 1e6;
}
BENCHMARK(BM_ParseHloProto)->Unit(benchmark::kMillisecond);

static void BM_PredictModule(benchmark::State& state) {
  auto m = roofline::parse_hlo_text(text(), "bench.hlo");
  if (!m.ok()) {
    state.SkipWithError(std::string(m.status().message()).c_str());
    return;
  }
  const roofline::Chip& v6e = roofline::chip("tpu-v6e");
  for (auto _ : state) benchmark::DoNotOptimize(roofline::predict(*m, v6e));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(m->instruction_count()));
}
BENCHMARK(BM_PredictModule)->Unit(benchmark::kMillisecond);

// cost() of every instruction of the entry (what predict() costs, without
// the roofline arithmetic and the row list).
static void cost_entry(benchmark::State& state, const std::string& text) {
  auto m = roofline::parse_hlo_text(text, "bench.hlo");
  if (!m.ok()) {
    state.SkipWithError(std::string(m.status().message()).c_str());
    return;
  }
  for (auto _ : state) {
    double flops = 0;
    for (const roofline::HloInstruction& i : m->entry().instructions) flops += roofline::cost(i).flops;
    benchmark::DoNotOptimize(flops);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(m->entry().instructions.size()));
}

static void BM_CostModule(benchmark::State& state) { cost_entry(state, text()); }
BENCHMARK(BM_CostModule)->Unit(benchmark::kMillisecond);

static void BM_ParseMixedText(benchmark::State& state) {
  const std::string& t = mixed_text();
  for (auto _ : state) {
    auto m = roofline::parse_hlo_text(t, "mixed.hlo");
    if (!m.ok()) state.SkipWithError(std::string(m.status().message()).c_str());
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(t.size()));
  state.counters["MB"] = static_cast<double>(t.size()) / 1e6;
}
BENCHMARK(BM_ParseMixedText)->Unit(benchmark::kMillisecond);

static void BM_CostMixedModule(benchmark::State& state) { cost_entry(state, mixed_text()); }
BENCHMARK(BM_CostMixedModule)->Unit(benchmark::kMillisecond);

static void BM_PredictMixedModule(benchmark::State& state) {
  auto m = roofline::parse_hlo_text(mixed_text(), "mixed.hlo");
  if (!m.ok()) {
    state.SkipWithError(std::string(m.status().message()).c_str());
    return;
  }
  const roofline::Chip& h100 = roofline::chip("h100-sxm");
  for (auto _ : state) benchmark::DoNotOptimize(roofline::predict(*m, h100));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(m->instruction_count()));
}
BENCHMARK(BM_PredictMixedModule)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
