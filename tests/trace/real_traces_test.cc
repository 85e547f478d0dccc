// Every real profile in ../shared/data/real, checked against the figures
// SOURCES.md states for it (durations in µs unless said otherwise). Each test
// skips when the folder is absent.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include "roofline/measure/op_stats.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"
#include "tests/trace/identify.hpp"
#include "tests/trace/read_support.hpp"

using namespace roofline;
using roofline::testing::chip_name;
using roofline::testing::identify;
using roofline::testing::require_real;

namespace {

Trace read(const std::string& relative) { return roofline::testing::read_real(relative); }

// Ops whose name (or kernel) starts with `prefix`, on device `device_id`.
std::vector<OpStat> ops_starting(const Trace& t, std::string_view prefix, std::optional<int> device_id = {}) {
  OpStatsOptions o;
  o.device_id = device_id;
  std::vector<OpStat> out;
  for (const OpStat& s : compute_op_stats(t, o).ops)
    if (!s.async && (s.name.rfind(prefix, 0) == 0 || s.kernel.rfind(prefix, 0) == 0)) out.push_back(s);
  return out;
}

// A copy: callers pass the temporary from ops_starting(), and a reference
// into it would dangle past the statement (ASan: heap-use-after-free).
OpStat only(const std::vector<OpStat>& v) {
  REQUIRE(v.size() == 1);
  return v.front();
}

struct KernelTotals {
  std::int64_t count = 0;
  double total_s = 0;
  std::int64_t with_launcher = 0;  // linked to the cpu_op that launched them
};

KernelTotals kernels(const Trace& t) {
  KernelTotals k;
  for (const Device& d : t.devices)
    for (const Event& e : d.events)
      if (d.lines[e.line].role == LineRole::kOps && t.ops[e.op].category == "kernel") {
        ++k.count;
        k.total_s += static_cast<double>(e.duration_ps) * 1e-12;
        if (e.call != kNoCall && !t.calls[e.call].launcher.empty()) ++k.with_launcher;
      }
  return k;
}

double median_us(std::vector<std::int64_t> ps) {
  std::sort(ps.begin(), ps.end());
  const std::size_t n = ps.size();
  return (n % 2 ? static_cast<double>(ps[n / 2]) : 0.5 * static_cast<double>(ps[n / 2 - 1] + ps[n / 2])) * 1e-6;
}

// Durations of kernels launched by `launcher` with these Input Dims.
std::vector<std::int64_t> launched_by(const Trace& t, std::string_view kernel_prefix, std::string_view launcher,
                                      std::string_view dims) {
  std::vector<std::int64_t> out;
  for (const Device& d : t.devices)
    for (const Event& e : d.events)
      if (e.call != kNoCall && t.calls[e.call].launcher == launcher && t.calls[e.call].input_dims == dims &&
          t.ops[e.op].name.find(kernel_prefix) != std::string::npos)
        out.push_back(e.duration_ps);
  return out;
}

}  // namespace

TEST_CASE("real: TPU v6e x4 - four TPU v6 Lite chips with their peaks") {
  const Trace t = read("xprof/tpu_v6e_x4_inference_2.xplane.pb");
  REQUIRE(t.devices.size() == 4);
  for (int i = 0; i < 4; ++i) {
    const Device& d = t.devices[static_cast<std::size_t>(i)];
    CHECK(d.id == i);
    CHECK(d.name == "/device:TPU:" + std::to_string(i));
    CHECK(d.model == "TPU v6 Lite");
    CHECK(chip_name(d) == "tpu-v6e");
    CHECK(*d.caps.peak_flops_per_s == Approx(918e12));
    CHECK(*d.caps.hbm_bytes_per_s == Approx(1637.99e9).epsilon(1e-5));
  }
  CHECK(t.hosts.size() == 1);  // /host:CPU; /host:metadata and Task Environment hold no timeline
  // TPU:0: 105 XLA Modules, 1504 XLA Ops, 600 Async XLA Ops events, 2317 in all.
  const Device& d0 = t.devices[0];
  std::map<std::string, int> per_line;
  for (const Event& e : d0.events) ++per_line[d0.lines[e.line].name];
  CHECK(per_line["XLA Modules"] == 105);
  CHECK(per_line["XLA Ops"] == 1504);
  CHECK(per_line["Async XLA Ops"] == 600);
  CHECK(d0.events.size() == 2317);
  // Every module's HloProto is embedded in /host:metadata.
  std::vector<std::string> modules;
  for (const HloModuleBytes& m : t.hlo_modules) {
    modules.push_back(m.module);
    CHECK_FALSE(m.bytes.empty());
  }
  std::sort(modules.begin(), modules.end());
  CHECK(modules == std::vector<std::string>{"jit__psum", "jit_broadcast_in_dim", "jit_convert_element_type", "jit_f"});
  REQUIRE(t.time_origin_ns.has_value());  // Task Environment's profile_start_time
  CHECK(*t.time_origin_ns == 1'741'722'099'081'044'120);
}

TEST_CASE("real: TPU v6e x4 - broadcast_add fusions, all-reduce and broadcast durations") {
  const Trace t = read("xprof/tpu_v6e_x4_inference_2.xplane.pb");
  // SOURCES.md: broadcast_add_fusion{,.1,.2} medians 7.97 / 8.15 / 7.92 ms on TPU:0.
  const auto fusions = ops_starting(t, "broadcast_add_fusion", 0);
  REQUIRE(fusions.size() == 3);
  std::map<std::string, double> median_ms;
  for (const OpStat& o : fusions) {
    median_ms[o.name] = o.median_s * 1e3;
    CHECK(o.module == "jit_f");
    CHECK(o.count == 100);
    CHECK(o.category == "loop fusion");
    CHECK(o.bytes_accessed == 10'737'418'240);  // two f32[5,1024,1024,256] reads... as XLA counts it
  }
  CHECK(median_ms["broadcast_add_fusion"] == Approx(7.97).margin(0.005));
  CHECK(median_ms["broadcast_add_fusion.1"] == Approx(8.15).margin(0.005));
  CHECK(median_ms["broadcast_add_fusion.2"] == Approx(7.92).margin(0.005));
  // 10,737,418,240 B / 7.92 ms = 1356 GB/s = 83 % of the plane's 1638 GB/s.
  CHECK(10'737'418'240.0 / (median_ms["broadcast_add_fusion.2"] * 1e-3) / 1637.99e9 == Approx(0.83).margin(0.005));
  // all-reduce: 121.69 ms, 3 times per chip, the same on every chip within 0.05 ms.
  for (int dev = 0; dev < 4; ++dev) {
    const OpStat& ar = only(ops_starting(t, "all-reduce", dev));
    CHECK(ar.count == 3);
    CHECK(ar.module == "jit__psum");
    CHECK(ar.op_class == OpClass::kCollective);
    CHECK(ar.median_s * 1e3 == Approx(121.69).margin(0.02));
    CHECK((ar.max_s - ar.min_s) * 1e3 < 0.05);
  }
  // broadcast.2 writes 5.37 GB in 4.444 ms.
  const OpStat& b = only(ops_starting(t, "broadcast.2", 0));
  CHECK(b.median_s * 1e3 == Approx(4.444).margin(0.0005));
  CHECK(b.bytes_accessed == 5'368'709'120);
}

TEST_CASE("real: TPU v6e x4 - host offload copies and the jit_f module time") {
  const Trace t = read("xprof/tpu_v6e_x4_inference_2.xplane.pb");
  // copy-done of the 5.37 GB offloads: medians about 182-194 ms.
  for (const OpStat& o : ops_starting(t, "copy-done", 0)) {
    if (o.median_s < 1e-3) continue;  // the done of copies that finished early
    CHECK(o.median_s * 1e3 > 181);
    CHECK(o.median_s * 1e3 < 195);
    CHECK(o.op_class == OpClass::kDataMovement);
  }
  // The jit_f module (XLA Modules line) has a median of 784 ms.
  std::vector<std::int64_t> jit_f;
  const Device& d0 = t.devices[0];
  for (const Event& e : d0.events)
    if (d0.lines[e.line].role == LineRole::kModules && t.ops[e.op].name.rfind("jit_f(", 0) == 0)
      jit_f.push_back(e.duration_ps);
  CHECK(jit_f.size() == 100);
  CHECK(median_us(jit_f) / 1e3 == Approx(784.1).margin(0.1));
}

TEST_CASE("real: TPU v6e x4 - op times from the device clock agree with XProf's HLO op stats") {
  const Trace t = read("xprof/tpu_v6e_x4_inference_2.xplane.pb");
  // Total self times on TPU:0 as XProf 2.24.2 reports them (hlo_stats of the
  // file cut down to TPU:0, measured with scripts/xprof_compare.py): sums of
  // the events' device_duration_ps. The host-clock durations gave 732.740 ms,
  // 842.548 ms, 22.029 s and 17.475 s.
  const std::map<std::string, double> xprof_self_us = {
      {"broadcast_add_fusion", 797621.7525},
      {"broadcast_add_fusion.1", 815343.59125},
      {"copy-done.2", 19411432.41375},
      {"copy-done.4", 19444140.79625},
  };
  OpStatsOptions d0;
  d0.device_id = 0;
  const TraceStats s = compute_op_stats(t, d0);
  for (const auto& entry : xprof_self_us) {
    const std::string& name = entry.first;
    INFO(name);
    auto it = std::find_if(s.ops.begin(), s.ops.end(), [&](const OpStat& o) { return !o.async && o.name == name; });
    REQUIRE(it != s.ops.end());
    CHECK(it->count == 100);
    CHECK(it->total_s * 1e6 == Approx(entry.second).epsilon(1e-9));
  }
  // On the host clock one broadcast_add_fusion lasted 0.32 ms and 5 lasted
  // 0; on the device clock every one lasts 7.968-8.013 ms (measured).
  auto baf = std::find_if(s.ops.begin(), s.ops.end(), [](const OpStat& o) { return o.name == "broadcast_add_fusion"; });
  REQUIRE(baf != s.ops.end());
  CHECK(baf->min_s * 1e3 == Approx(7.9678725).epsilon(1e-9));
  CHECK(baf->max_s * 1e3 == Approx(8.01261375).epsilon(1e-9));
  // The longest copy-done.2 lasts 194.135 ms on the device, not 391.6 ms.
  auto cd2 = std::find_if(s.ops.begin(), s.ops.end(), [](const OpStat& o) { return !o.async && o.name == "copy-done.2"; });
  REQUIRE(cd2 != s.ops.end());
  CHECK(cd2->max_s * 1e3 < 194.2);
  // Busy time is the union of the device-clock spans: 78.783724 s on TPU:0,
  // 78.784928 s on the host clock (both computed from the events with
  // a separate decoder of the file while writing this test).
  CHECK(s.devices.at(0).busy_s == Approx(78.783724).epsilon(1e-6));
}

TEST_CASE("real: V100 TF BERT XPlane - eight GPUs, two with compute streams") {
  const Trace t = read("xprof/v100_tf_bert_multiworker.xplane.pb");
  REQUIRE(t.devices.size() == 8);
  int stream_events = 0;
  std::map<int, int> compute_kernels;
  for (const Device& d : t.devices) {
    CHECK(d.host == "34.83.195.179:6003");
    CHECK(d.model.empty());  // XLA's GPU planes report no name
    const IdentifiedChip id = identify(d);
    CHECK(id.model == "Tesla V100");  // inferred: cc 7.0, 80 SMs
    CHECK(id.inferred);
    CHECK(chip_name(d) == "v100-sxm2");
    for (const Event& e : d.events) {
      if (d.lines[e.line].role != LineRole::kOps) continue;
      ++stream_events;
      if (d.lines[e.line].name.find("(Compute)") != std::string::npos) ++compute_kernels[d.id];
    }
  }
  CHECK(stream_events == 1556);
  CHECK(compute_kernels == std::map<int, int>{{4, 665}, {6, 665}});
  CHECK(*t.devices[4].caps.hbm_bytes_per_s == 898'048'000'000.0);
  // Philox RNG (dropout): 97 calls totalling 3.95 ms (GPU:4; GPU:6 took 3.96 ms).
  for (int dev : {4, 6}) {
    const OpStat& rng = only(ops_starting(t, "void tensorflow::functor::FillPhiloxRandomKernelLaunch", dev));
    CHECK(rng.count == 97);
    CHECK(rng.total_s * 1e3 == Approx(dev == 4 ? 3.95 : 3.96).margin(0.005));
  }
}

TEST_CASE("real: MI300X JAX GEMMs - medians per program, 928 TFLOPS at 4096^3") {
  const Trace t = read("tracelens/mi300x_jax08_gemm.xplane.pb");
  REQUIRE(t.devices.size() == 8);
  const Device& d = t.devices[0];
  CHECK(d.model.empty());
  CHECK(identify(d).model == "AMD Instinct MI300X");  // inferred from gfx942, 304 CUs, 192 GiB
  CHECK(identify(d).inferred);
  CHECK(chip_name(d) == "mi300x");
  CHECK(*d.caps.hbm_bytes_per_s == Approx(2.6624e12));
  CHECK(*d.caps.core_count == 304);
  // Every shape is its own jit_dot program: six rows, not one custom-call.1.
  std::vector<OpStat> dots;
  for (const OpStat& o : ops_starting(t, "", 0))
    if (o.module == "jit_dot") dots.push_back(o);
  CHECK(dots.size() == 6);
  auto median_of = [&](std::string_view kernel_part) {
    for (const OpStat& o : dots)
      if (o.kernel.find(kernel_part) != std::string::npos) return o.median_s * 1e6;
    return 0.0;
  };
  CHECK(median_of("gemm_fusion_dot_general_1.kd") == Approx(4.88).margin(0.005));  // 256^3, Triton
  CHECK(median_of("_MT128x32x64_") == Approx(9.64).margin(0.005));                 // 1024^3
  CHECK(median_of("_MT256x240x64_") == Approx(148.08).margin(0.005));              // 4096^3
  CHECK(median_of("_MT256x224x64_") == Approx(587.5).margin(0.05));                // 8192x4096x8192
  CHECK(median_of("_MT128x128x64_") == Approx(112.0).margin(0.05));                // 2048x8192x2048
  CHECK(median_of("_MT256x128x32_") == Approx(184.3).margin(0.05));                // 16384x1024x4096
  // 2 * 4096^3 FLOP / 148.08 us = 928 TFLOP/s.
  CHECK(2.0 * 4096 * 4096 * 4096 / (median_of("_MT256x240x64_") * 1e-6) / 1e12 == Approx(928).margin(1));
  CHECK_FALSE(t.hlo_modules.empty());
}

TEST_CASE("real: MI300X JAX element-wise, attention and conv3d kernels") {
  const Trace ew = read("tracelens/mi300x_jax08_elementwise.xplane.pb");
  std::map<std::string, double> median;
  for (const OpStat& o : ops_starting(ew, "", 0))
    if (o.count == 5) median[o.module] = std::max(median[o.module], o.median_s * 1e6);
  CHECK(median["jit_add"] == Approx(104.8).margin(0.05));
  CHECK(median["jit_relu"] == Approx(68.3).margin(0.05));
  CHECK(median["jit_sin"] == Approx(94.8).margin(0.05));
  CHECK(median["jit__mean"] == Approx(29.9).margin(0.05));

  const Trace at = read("tracelens/mi300x_jax08_attention.xplane.pb");
  std::map<std::uint64_t, OpStat> matmul;  // by program id
  for (const OpStat& o : ops_starting(at, "", 0))
    if (o.module == "jit_matmul" && o.name == "custom-call.1") matmul[*o.program_id] = o;
  CHECK(matmul.at(19).count == 12);  // QKV projection, 12 calls
  CHECK(matmul.at(19).median_s * 1e6 == Approx(37.7).margin(0.05));
  CHECK(matmul.at(73).median_s * 1e6 == Approx(139.6).margin(0.05));  // FFN up
  CHECK(matmul.at(98).median_s * 1e6 == Approx(141.5).margin(0.05));  // FFN down

  // conv3d: Im3d2Col + hipBLASLt GEMM + input_transpose_fusion on GPU:0.
  const Trace cv = read("tracelens/mi300x_jax08_conv3d.xplane.pb");
  std::map<std::string, double> conv;  // by HLO op and the start of the kernel name
  for (const OpStat& o : ops_starting(cv, "", 0))
    if (o.module == "jit_forward_3d_conv") conv[o.name + " " + o.kernel.substr(0, 8)] = o.median_s * 1e6;
  CHECK(conv["cudnn-conv.1 Cijk_Ail"] == Approx(300.3).margin(0.05));
  CHECK(conv["cudnn-conv.1 Im3d2Col"] == Approx(17.06).margin(0.05));
  CHECK(conv["input_transpose_fusion input_tr"] == Approx(354.7).margin(0.05));
}

TEST_CASE("real: H100 Qwen - 1,465 kernels in 45.43 ms, GEMMs by their aten op") {
  const Trace t = read("tracelens/h100_qwen1.5-0.5b.pt.trace.json.gz");
  REQUIRE(t.devices.size() == 1);
  CHECK(t.devices[0].model == "NVIDIA H100 80GB HBM3");
  CHECK(chip_name(t.devices[0]) == "h100-sxm");
  const KernelTotals k = kernels(t);
  CHECK(k.count == 1465);
  CHECK(k.total_s * 1e3 == Approx(45.43).margin(0.005));
  const OpStat& gemm = only(ops_starting(t, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"));
  CHECK(gemm.count == 241);
  CHECK(gemm.median_s * 1e6 == Approx(31.9).margin(0.05));
  const OpStat& flash = only(ops_starting(t, "void pytorch_flash::flash_fwd_kernel"));
  CHECK(flash.count == 34);
  CHECK(flash.total_s * 1e3 == Approx(3.86).margin(0.005));
  // TraceLens GEMM.csv: aten::mm [[8944,1024],[1024,2816]], 48 calls, GEMM kernel median 83.679 us.
  const auto mm = launched_by(t, "sm90_xmma_gemm", "aten::mm", "[[8944,1024],[1024,2816]]");
  CHECK(mm.size() == 48);
  CHECK(median_us(mm) == Approx(83.679).margin(0.0005));
}

TEST_CASE("real: MI300X Qwen and SGLang decode kernels") {
  const Trace q = read("tracelens/mi300x_qwen1.5-0.5b.pt.trace.json.gz");
  CHECK(q.devices[0].model == "AMD Instinct MI300X VF");
  CHECK(chip_name(q.devices[0]) == "mi300x");
  const KernelTotals k = kernels(q);
  CHECK(k.count == 1516);
  CHECK(k.total_s * 1e3 == Approx(43.06).margin(0.005));
  const TraceStats qs = compute_op_stats(q);
  const OpStat& top = qs.ops.front();
  CHECK(top.name.find("MT256x128x64") != std::string::npos);
  CHECK(top.count == 172);
  CHECK(top.median_s * 1e6 == Approx(41.3).margin(0.05));

  const Trace s = read("tracelens/mi300x_sglang_qwen3-8b_decode.pt.trace.json.gz");
  const KernelTotals ks = kernels(s);
  CHECK(ks.count == 555);
  CHECK(ks.total_s * 1e3 == Approx(9.77).margin(0.005));
  CHECK(only(ops_starting(s, "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64")).median_s * 1e6 ==
        Approx(66.6).margin(0.05));
  CHECK(only(ops_starting(s, "void paged_attention_ll4mi_QKV_mfma16")).median_s * 1e6 == Approx(54.0).margin(0.05));
}

TEST_CASE("real: B200 vLLM gpt-oss - MoE GEMMs, NVLS all-reduce by message size") {
  const Trace t = read("tracelens/b200x8_vllm_eager_rank0.pt.trace.json.gz");
  REQUIRE(t.devices.size() == 1);
  CHECK(chip_name(t.devices[0]) == "b200");
  const KernelTotals k = kernels(t);
  CHECK(k.count == 768);
  CHECK(k.total_s * 1e3 == Approx(10.86).margin(0.005));
  const OpStat& mx = only(ops_starting(t, "bmm_MxE4m3_MxE2m1"));
  CHECK(mx.count == 36);
  CHECK(mx.median_s * 1e6 == Approx(87.9).margin(0.05));
  CHECK(only(ops_starting(t, "bmm_Bfloat16_MxE2m1")).median_s * 1e6 == Approx(56.6).margin(0.05));
  const OpStat& ar = only(ops_starting(t, "void (anonymous namespace)::multimem_all_reduce_kernel"));
  CHECK(ar.count == 73);
  CHECK(ar.op_class == OpClass::kCollective);
  // 2,557,440 bf16 = 5.11 MB in 25.0 us; 2,727,936 bf16 = 5.46 MB in 27.6 us.
  const auto small = launched_by(t, "multimem_all_reduce", "symm_mem::multimem_all_reduce_", "[[2557440],[],[]]");
  const auto large = launched_by(t, "multimem_all_reduce", "symm_mem::multimem_all_reduce_", "[[2727936],[],[]]");
  CHECK(small.size() == 37);
  CHECK(large.size() == 36);
  CHECK(median_us(small) == Approx(25.0).margin(0.05));
  CHECK(median_us(large) == Approx(27.6).margin(0.05));
  // QKV addmm [888,2880] x [2880,640]: 8.0 us.
  CHECK(median_us(launched_by(t, "nvjet", "aten::addmm", "[[640],[888,2880],[2880,640],[],[]]")) ==
        Approx(8.0).margin(0.05));
}

TEST_CASE("real: H100 BERT-small - 60 kernels in 307 us") {
  const Trace t = read("tracelens/h100_bert-small.pt.trace.json.gz");
  const KernelTotals k = kernels(t);
  CHECK(k.count == 60);
  CHECK(k.total_s * 1e6 == Approx(307).margin(0.5));
}

TEST_CASE("real: A100 x2 DDP - NCCL kernels carry their collective arguments") {
  const Trace t = read("hta/a100x2_resnet_ddp_nccl_data.json.gz");
  CHECK(t.devices[0].model == "NVIDIA A100-PG509-200");
  const KernelTotals k = kernels(t);
  CHECK(k.count == 2700);
  CHECK(k.total_s * 1e3 == Approx(162.5).margin(0.05));
  int all_reduces = 0;
  bool saw_example = false;
  for (const Event& e : t.devices[0].events) {
    if (t.ops[e.op].name.rfind("ncclKernel_AllReduce_RING_LL_Sum_float", 0) != 0) continue;
    ++all_reduces;
    REQUIRE(e.call != kNoCall);
    const CallInfo& c = t.calls[e.call];
    CHECK(c.collective == "allreduce");
    CHECK(c.dtype == "Float");
    CHECK(c.group_size == 2);
    // 6,637,568 floats (26.6 MB) in 2.64 ms (one of three such calls: 264 tens of us).
    if (c.in_msg_nelems == 6'637'568 && std::llround(static_cast<double>(e.duration_ps) * 1e-7) == 264)
      saw_example = true;
  }
  CHECK(all_reduces == 15);
  CHECK(saw_example);
  // Steps: ProfilerStep about 220 ms, from the host annotations.
  const TraceStats s = compute_op_stats(t);
  REQUIRE(s.devices[0].steps.has_value());
  CHECK(s.devices[0].steps->from_host);
  CHECK(s.devices[0].steps->median_s * 1e3 == Approx(220).margin(5));
  CHECK(s.devices[0].collective_s > 0);  // all-reduce time no compute hides
}

TEST_CASE("real: A100-80GB 16-rank trainer, AlexNet, MI250, Triton, V100 ResNet-50") {
  const Trace big = read("hta/a100-80gb_16rank_rank0.json.gz");
  CHECK(chip_name(big.devices[0]) == "a100-sxm");
  CHECK(kernels(big).count == 6080);
  const OpStat& sr = only(ops_starting(big, "ncclKernel_SendRecv_RING_SIMPLE"));
  CHECK(sr.count == 80);
  CHECK(sr.median_s * 1e6 == Approx(452).margin(0.5));
  CHECK(only(ops_starting(big, "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn")).median_s * 1e3 ==
        Approx(7.76).margin(0.005));

  const Trace alex = read("hta/a100_alexnet_trace.json.gz");
  const KernelTotals ka = kernels(alex);
  CHECK(ka.count == 79);
  CHECK(ka.total_s * 1e3 == Approx(10.69).margin(0.005));
  const OpStat& sgemm = only(ops_starting(alex, "ampere_sgemm_32x32_sliced1x4_tn"));
  CHECK(sgemm.count == 6);
  CHECK(sgemm.median_s * 1e6 == Approx(396).margin(0.5));

  const Trace mi250 = read("hta/mi250_minitoy_train_rocm6.2_kineto.json.gz");
  CHECK(kernels(mi250).count == 14);
  // ROCm names it "AMD Radeon Graphics"; gfx9.0 with 104 CUs is one MI250 GCD.
  CHECK(mi250.devices[0].model == "AMD Radeon Graphics");  // as reported
  CHECK(identify(mi250.devices[0]).model == "AMD Instinct MI250");
  CHECK(identify(mi250.devices[0]).inferred);
  CHECK(chip_name(mi250.devices[0]) == "mi250");
  CHECK(std::any_of(mi250.warnings.begin(), mi250.warnings.end(), [](const std::string& w) {
    return w.find("'AMD Radeon Graphics'; taken to be AMD Instinct MI250") != std::string::npos;
  }));
  CHECK(only(ops_starting(mi250, "Cijk_Alik_Bljk_SB")).median_s * 1e6 == Approx(17.6).margin(0.05));

  const Trace triton = read("hta/a100_triton_example.json.gz");
  const OpStat& tk = only(ops_starting(triton, "triton_poi_fused_add_cos_sin_0"));
  CHECK(tk.count == 1);
  CHECK(tk.median_s * 1e6 == Approx(1.8).margin(0.05));

  const Trace rn = read("kineto/v100_resnet50_worker0.pt.trace.json.gz");
  CHECK(rn.devices[0].model == "Tesla V100-DGXS-32GB");
  CHECK(chip_name(rn.devices[0]) == "v100-sxm2");
  const KernelTotals kr = kernels(rn);
  CHECK(kr.count == 8772);
  CHECK(kr.total_s * 1e3 == Approx(591.5).margin(0.05));
  const OpStat& dgrad = only(ops_starting(rn, "void cudnn::detail::dgrad_engine"));
  CHECK(dgrad.count == 162);
  CHECK(dgrad.median_s * 1e6 == Approx(406).margin(1));
  // ProfilerStep#N (an "Operator" in this old schema): 6 steps of 164-181 ms.
  REQUIRE(rn.host_steps.size() == 6);
  for (const Step& s : rn.host_steps) {
    CHECK(s.duration_ps >= 164'000'000'000);
    CHECK(s.duration_ps <= 182'000'000'000);
  }
}

// Kernels left without a launcher were counted in the files (python json):
// their correlation names no runtime call in the trace (queued before the
// host events began), or the runtime call lies inside no cpu_op on its
// thread (optimizer launches outside any op, hipGraphLaunch replays).
TEST_CASE("real: Kineto kernels find the cpu_op that launched them") {
  struct Expect {
    const char* file;
    std::int64_t kernels, with_launcher;
  };
  const Expect files[] = {
      // 6080 - 705 without a runtime call - 90 multi_tensor_apply launched in no cpu_op.
      {"hta/a100-80gb_16rank_rank0.json.gz", 6080, 5285},
      {"hta/a100_alexnet_trace.json.gz", 79, 79},
      {"hta/a100_triton_example.json.gz", 1, 1},
      {"hta/a100x2_resnet_ddp_nccl_data.json.gz", 2700, 2700},
      {"hta/mi250_minitoy_train_rocm6.2_kineto.json.gz", 14, 14},
      {"kineto/v100_resnet50_worker0.pt.trace.json.gz", 8772, 8772},
      // 2 cuLaunchKernelEx calls inside no cpu_op.
      {"tracelens/b200x8_vllm_eager_rank0.pt.trace.json.gz", 768, 766},
      {"tracelens/h100_bert-small.pt.trace.json.gz", 60, 60},
      // 436 and 463 kernels ran before the first recorded launch, with no runtime call.
      {"tracelens/h100_qwen1.5-0.5b.pt.trace.json.gz", 1465, 1029},
      {"tracelens/mi300x_qwen1.5-0.5b.pt.trace.json.gz", 1516, 1053},
      // 544 replayed by hipGraphLaunch, 3 launched in no cpu_op.
      {"tracelens/mi300x_sglang_qwen3-8b_decode.pt.trace.json.gz", 555, 8},
  };
  for (const Expect& x : files) {
    INFO(x.file);
    const KernelTotals k = kernels(read(x.file));
    CHECK(k.count == x.kernels);
    CHECK(k.with_launcher == x.with_launcher);
  }
}

TEST_CASE("real: A100-80GB trainer - old-Kineto kernels get the innermost cpu_op around their launch") {
  const Trace t = read("hta/a100-80gb_16rank_rank0.json.gz");
  // Kernel and cudaLaunchKernel share correlation (and External id) 928543;
  // the launch on thread 25556 lies in evaluate_function > CppNode<Permute...>.
  const Event* k = nullptr;
  for (const Device& d : t.devices)
    for (const Event& e : d.events)
      if (e.correlation_id == 928543 && d.lines[e.line].role == LineRole::kOps) k = &e;
  REQUIRE(k != nullptr);
  REQUIRE(k->call != kNoCall);
  CHECK_THAT(t.calls[k->call].launcher, Catch::StartsWith("torch::autograd::CppNode<fbgemm_gpu::PermutePooledEmbsFunction"));
  CHECK(t.calls[k->call].input_dims == "[[4096,768]]");
  // SOURCES.md: "aten::mm [[64,4096],[4096,2798]]" launches a GEMM.
  CHECK_FALSE(launched_by(t, "gemm", "aten::mm", "[[64,4096],[4096,2798]]").empty());
}
