// The Chrome trace-event JSON reader on small hand-written traces
// (tests/data/trace/) and on inline edge cases.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "roofline/measure/op_stats.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"
#include "tests/trace/identify.hpp"

using namespace roofline;
using roofline::testing::chip_name;
using roofline::testing::identify;
using roofline::testing::test_data;
using roofline::testing::slurp;

namespace {

const OpStat* find_op(const std::vector<OpStat>& ops, std::string_view name, std::string_view module = {}) {
  for (const OpStat& o : ops)
    if (o.name == name && (module.empty() || o.module == module) && !o.async) return &o;
  return nullptr;
}

// Concatenates JSON text pieces and numbers.
template <class... Parts>
std::string cat_json(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

std::string error_of(std::string_view json, const TraceReadOptions& options = {}) {
  auto t = parse_chrome_trace(json, "t.json", options);
  return t.ok() ? "ok" : std::string(t.status().message());
}

}  // namespace

TEST_CASE("json: TSL trace - devices from process names, lines from thread names") {
  auto t = read_trace(test_data("trace/tsl_tpu_nested.json").string());
  REQUIRE(t.ok());
  CHECK(t->formats == std::vector<TraceFormat>{TraceFormat::kTslJson});
  REQUIRE(t->devices.size() == 1);
  REQUIRE(t->hosts.size() == 1);
  const Device& d = t->devices[0];
  CHECK(d.kind == DeviceKind::kTpu);
  CHECK(d.name == "/device:TPU:0");
  CHECK(d.host == "tsl_tpu_nested");  // jax names the file after the host
  REQUIRE(d.lines.size() == 2);
  CHECK(d.lines[0].name == "XLA Modules");
  CHECK(d.lines[0].role == LineRole::kModules);
  CHECK(d.lines[1].role == LineRole::kOps);
}

TEST_CASE("json: nesting gives self time; modules come from the enclosing XLA Modules event") {
  auto t = read_trace(test_data("trace/tsl_tpu_nested.json").string());
  REQUIRE(t.ok());
  TraceStats s = compute_op_stats(*t);
  // while.1 (10..60 us) holds fusion.1 twice (20 + 15 us): self 15 us.
  const OpStat* w = find_op(s.ops, "while.1");
  REQUIRE(w != nullptr);
  CHECK(w->total_s == Approx(15e-6));
  CHECK(w->module == "jit_f");
  CHECK(w->program_id == 7u);
  // fusion.1 ran in jit_f(7) twice and in jit_g(9) once: two ops.
  const OpStat* ff = find_op(s.ops, "fusion.1", "jit_f");
  const OpStat* fg = find_op(s.ops, "fusion.1", "jit_g");
  REQUIRE(ff != nullptr);
  REQUIRE(fg != nullptr);
  CHECK(ff->count == 2);
  CHECK(ff->total_s == Approx(35e-6));
  CHECK(ff->median_s == Approx(17.5e-6));  // mean of 15 and 20
  CHECK(ff->bytes_accessed == 1048576);     // "1048576": TSL writes every arg as a string
  CHECK(fg->count == 1);
  CHECK(fg->total_s == Approx(10e-6));
  // A zero-length event is counted, with zero time.
  const OpStat* z = find_op(s.ops, "copy-start");
  REQUIRE(z != nullptr);
  CHECK(z->count == 1);
  CHECK(z->total_s == 0);
  CHECK(z->op_class == OpClass::kDataMovement);
  // The fractional 20.5 us survives exactly.
  CHECK(find_op(s.ops, "all-reduce.1")->total_s == Approx(20.5e-6));
}

TEST_CASE("json: busy, idle, class split and what the host did in the largest gap") {
  auto t = read_trace(test_data("trace/tsl_tpu_nested.json").string());
  REQUIRE(t.ok());
  TraceStats s = compute_op_stats(*t);
  REQUIRE(s.devices.size() == 1);
  const DeviceStats& d = s.devices[0];
  // Ops span 10..215 us. Busy: 10..60 (50) + 70..90.5 (20.5) + 205..215 (10) = 80.5 us.
  CHECK(d.window_s == Approx(205e-6));
  CHECK(d.busy_s == Approx(80.5e-6));
  CHECK(d.idle_s == Approx(124.5e-6));
  CHECK(d.duty_cycle == Approx(80.5 / 205.0));
  // Compute: while.1 (50) + fusion.1 in jit_g (10); collective: all-reduce.1,
  // not overlapped. They add up to busy.
  CHECK(d.compute_s == Approx(60e-6));
  CHECK(d.collective_s == Approx(20.5e-6));
  CHECK(d.data_movement_s == 0);
  CHECK(d.compute_s + d.collective_s + d.data_movement_s == Approx(d.busy_s));
  REQUIRE(d.idle_gaps.size() == 2);
  // Largest gap 90.5..205 us. The host ran PjitFunction(g) 95..215 with
  // LoadProgram 100..150 inside: innermost, LoadProgram 50 us and
  // PjitFunction(g) 5 + 55 = 60 us.
  const IdleGap& g = d.idle_gaps[0];
  CHECK(g.start_s == Approx(90.5e-6));
  CHECK(g.duration_s == Approx(114.5e-6));
  REQUIRE(g.host.size() == 2);
  CHECK(g.host[0].name == "PjitFunction(g)");
  CHECK(g.host[0].overlap_s == Approx(60e-6));
  CHECK(g.host[1].name == "LoadProgram");
  CHECK(g.host[1].overlap_s == Approx(50e-6));
  CHECK(d.idle_gaps[1].duration_s == Approx(10e-6));  // 60..70 us
}

TEST_CASE("json: Kineto - device properties, streams, kernels linked to their cpu_op") {
  auto t = read_trace(test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  CHECK(t->formats == std::vector<TraceFormat>{TraceFormat::kKinetoJson});
  REQUIRE(t->devices.size() == 1);
  const Device& d = t->devices[0];
  CHECK(d.kind == DeviceKind::kGpu);
  CHECK(d.model == "NVIDIA H100 80GB HBM3");
  CHECK(chip_name(d) == "h100-sxm");
  CHECK(*d.caps.core_count == 132);
  CHECK(t->time_origin_ns == 1'700'000'000'000'000'000);
  // The python_function at pid 0 / tid 0 shares the GPU's pid but is host work;
  // the Kineto "Trace" span is not activity at all.
  REQUIRE(t->hosts.size() == 2);
  std::map<std::string, const Event*> kernels;
  for (const Event& e : d.events)
    if (d.lines[e.line].role == LineRole::kOps) kernels[t->ops[e.op].name] = &e;
  REQUIRE(kernels.size() == 4);
  const Event* gemm = kernels["sm90_xmma_gemm_bf16bf16_bf16f32"];
  REQUIRE(gemm->call != kNoCall);
  CHECK(t->calls[gemm->call].launcher == "aten::mm");
  CHECK(t->calls[gemm->call].input_dims == "[[64,128],[128,256]]");
  CHECK(t->calls[gemm->call].input_types == R"(["c10::BFloat16","c10::BFloat16"])");
  CHECK(gemm->correlation_id == 11);
  CHECK(gemm->duration_ps == 30'500'000);
  // No External id on this kernel: found through its runtime call's correlation.
  const Event* add = kernels["void at::native::vectorized_elementwise_kernel<4, \"add\">"];
  REQUIRE(add->call != kNoCall);
  CHECK(t->calls[add->call].launcher == "aten::add");
  CHECK(t->calls[add->call].input_dims == "[[64,256],[64,256]]");
  const Event* nccl = kernels["ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"];
  const CallInfo& c = t->calls[nccl->call];
  CHECK(c.launcher == "record_param_comms");
  CHECK(c.collective == "allreduce");
  CHECK(c.in_msg_nelems == 1048576);
  CHECK(c.group_size == 8);
  CHECK(c.dtype == "BFloat16");
  CHECK(c.process_group == "0");
  CHECK(t->ops[nccl->op].op_class == OpClass::kCollective);
  CHECK(t->ops[kernels["Memcpy DtoH (Device -> Pinned)"]->op].op_class == OpClass::kDataMovement);
}

TEST_CASE("json: Kineto - overlapping streams, exposed communication, steps") {
  auto t = read_trace(test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  TraceStats s = compute_op_stats(*t);
  REQUIRE(s.devices.size() == 1);
  const DeviceStats& d = s.devices[0];
  // gemm 1100..1130.5 and add 1140..1150 on stream 7, NCCL 1120..1170 on
  // stream 20, memcpy 1200..1204. Busy = 70 + 4 us in a 104 us window.
  CHECK(d.window_s == Approx(104e-6));
  CHECK(d.busy_s == Approx(74e-6));
  CHECK(d.compute_s == Approx(40.5e-6));
  // Busy time split, compute first: the NCCL kernel's 50 us less the 10.5 + 10
  // us that compute hides = 29.5 us of exposed communication.
  CHECK(d.collective_s == Approx(29.5e-6));
  CHECK(d.data_movement_s == Approx(4e-6));
  CHECK(d.compute_s + d.collective_s + d.data_movement_s == Approx(d.busy_s));
  CHECK(d.sync_s == 0);
  // Shares are of summed self time (94.5 us), overlap counted per stream.
  CHECK(find_op(s.ops, "sm90_xmma_gemm_bf16bf16_bf16f32")->share == Approx(30.5 / 94.5));
  // The GPU-side ProfilerStep#1 annotation (104 us) is the device's step.
  REQUIRE(d.steps.has_value());
  CHECK_FALSE(d.steps->from_host);
  CHECK(d.steps->count == 1);
  CHECK(d.steps->median_s == Approx(104e-6));
  REQUIRE(t->host_steps.size() == 1);
  CHECK(t->host_steps[0].duration_ps == 500'000'000);
}

TEST_CASE("json: gzip'd trace reads the same as the plain one") {
  auto plain = read_trace(test_data("trace/kineto_small.json").string());
  auto gz = read_trace(test_data("trace/kineto_small.json.gz").string());
  REQUIRE(plain.ok());
  REQUIRE(gz.ok());
  TraceStats a = compute_op_stats(*plain), b = compute_op_stats(*gz);
  REQUIRE(a.ops.size() == b.ops.size());
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    CHECK(a.ops[i].name == b.ops[i].name);
    CHECK(a.ops[i].total_s == b.ops[i].total_s);
  }
}

TEST_CASE("json: truncated gzip is a located error") {
  const std::string gz = slurp(test_data("trace/kineto_small.json.gz").string());
  auto t = parse_trace_bytes(std::string_view(gz).substr(0, gz.size() - 40), "cut.json.gz");
  REQUIRE_FALSE(t.ok());
  CHECK_THAT(std::string(t.status().message()), Catch::StartsWith("cut.json.gz: byte ") &&
                                                     Catch::Contains("truncated gzip"));
}

TEST_CASE("json: old Kineto - epoch microseconds, old category names, string tids") {
  auto t = read_trace(test_data("trace/old_kineto_epoch.json").string());
  REQUIRE(t.ok());
  REQUIRE(t->devices.size() == 1);
  const Device& d = t->devices[0];
  CHECK(d.model == "Tesla V100-DGXS-32GB");
  CHECK(chip_name(d) == "v100-sxm2");  // "Tesla V100" in hardware/v100-sxm2.json
  // 1623142623460111 us since the epoch: rebased to the first event.
  CHECK(t->time_origin_ns == 1'623'142'623'460'111'000);
  const Event* kernel = nullptr;
  for (const Event& e : d.events)
    if (t->ops[e.op].name == "implicit_convolve_sgemm") kernel = &e;
  REQUIRE(kernel != nullptr);
  CHECK(kernel->start_ps == 89'000'000);  // 460200 - 460111 us
  CHECK(kernel->duration_ps == 406'000'000);
  CHECK(t->ops[kernel->op].category == "kernel");  // "Kernel" in old traces
  REQUIRE(kernel->call != kNoCall);
  CHECK(t->calls[kernel->call].launcher == "aten::conv2d");  // "external id", lower case
  CHECK(t->calls[kernel->call].input_dims == "[[32,3,224,224],[64,3,7,7]]");
}

TEST_CASE("json: old Kineto with External id = correlation - launcher is the cpu_op holding the launch") {
  // Layout of hta/a100-80gb_16rank_rank0.json.gz: kernels and runtime calls
  // carry their correlation as "External id", cpu_ops number theirs apart.
  auto t = read_trace(test_data("trace/old_kineto_external_is_correlation.json").string());
  REQUIRE(t.ok());
  REQUIRE(t->devices.size() == 1);
  const Device& d = t->devices[0];
  std::map<std::string, const Event*> work;
  for (const Event& e : d.events)
    if (d.lines[e.line].role == LineRole::kOps) work[t->ops[e.op].name] = &e;
  REQUIRE(work.size() == 7);
  auto launcher = [&](std::string_view prefix) -> std::string {
    for (const auto& [name, e] : work)
      if (name.starts_with(prefix)) return e->call == kNoCall ? "(none)" : t->calls[e->call].launcher;
    return "(no such kernel)";
  };
  auto dims = [&](std::string_view prefix) -> std::string {
    for (const auto& [name, e] : work)
      if (name.starts_with(prefix) && e->call != kNoCall) return t->calls[e->call].input_dims;
    return "";
  };
  // cudaLaunchKernel 122..129 us on thread 25556 lies in the CppNode
  // (103..131), itself inside evaluate_function (100..134): the innermost wins.
  CHECK(launcher("void fbgemm_gpu::permute_pooled_embs_kernel") ==
        "torch::autograd::CppNode<fbgemm_gpu::PermutePooledEmbsFunction>");
  CHECK(dims("void fbgemm_gpu::permute_pooled_embs_kernel") == "[[4096,768]]");
  // Launch 215..221 in aten::addmm (210..250), inside aten::linear.
  CHECK(launcher("ampere_sgemm") == "aten::addmm");
  CHECK(dims("ampere_sgemm") == "[[2798],[64,4096],[4096,2798],[],[]]");
  // Launch 252..256: aten::addmm ended at 250, aten::linear (200..260) holds it.
  CHECK(launcher("void at::native::vectorized_elementwise_kernel") == "aten::linear");
  CHECK(launcher("Memcpy HtoD") == "aten::copy_");
  // External id 218 is also aten::clamp_min_'s, but that op (400..417) does
  // not hold the launch (25..35): aten::uniform_ (20..50) does.
  CHECK(launcher("void at::native::distribution_elementwise") == "aten::uniform_");
  // A launch inside no cpu_op, and a kernel queued before any host event
  // whose External id (= its correlation 31) is aten::t's by coincidence.
  CHECK(launcher("void multi_tensor_apply_kernel") == "(none)");
  CHECK(launcher("ncclKernel_SendRecv") == "(none)");
}

TEST_CASE("json: a ROCm device with a name that decides nothing is known by its CU count") {
  auto rocm = [](std::string_view name, int cus) {
    return cat_json(R"({"deviceProperties": [{"id": 0, "name": ")", name,
                    R"(", "totalGlobalMem": 68702699520, "computeMajor": 9, "computeMinor": 0, "numSms": )", cus,
                    R"(}], "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 1, "ts": 1, "dur": 2}]})");
  };
  // gfx90a (9.0) with 104 CUs: one MI250 GCD, whatever ROCm called it.
  for (std::string_view name : {"AMD Radeon Graphics", "AMD Instinct MI250X / MI250"}) {
    INFO(name);
    auto t = parse_chrome_trace(rocm(name, 104), "rocm.json");
    REQUIRE(t.ok());
    REQUIRE(t->devices.size() == 1);
    CHECK(t->devices[0].model == name);  // the trace keeps what was reported
    CHECK(identify(t->devices[0]).model == "AMD Instinct MI250");
    CHECK(identify(t->devices[0]).inferred);
    CHECK(chip_name(t->devices[0]) == "mi250");
    REQUIRE(t->warnings.size() == 1);
    CHECK_THAT(t->warnings[0], Catch::Contains(std::string(name)));
    CHECK_THAT(t->warnings[0], Catch::Contains("taken to be AMD Instinct MI250 from compute capability 9.0 and 104 CUs"));
  }
  // 110 CUs is an MI250X GCD, which has no spec: the reported name stays.
  auto x = parse_chrome_trace(rocm("AMD Instinct MI250X / MI250", 110), "rocm.json");
  REQUIRE(x.ok());
  CHECK(x->devices[0].model == "AMD Instinct MI250X / MI250");
  CHECK(identify(x->devices[0]).model == "AMD Instinct MI250X / MI250");
  CHECK_FALSE(identify(x->devices[0]).inferred);
  CHECK(identify(x->devices[0]).chip == nullptr);
  CHECK(x->warnings.empty());
}

TEST_CASE("json: B/E pairs and a bare array without its closing bracket") {
  auto t = read_trace(test_data("trace/bare_array_unterminated.json").string());
  REQUIRE(t.ok());
  CHECK(t->formats == std::vector<TraceFormat>{TraceFormat::kChromeJson});
  REQUIRE(t->hosts.size() == 1);
  const Device& h = t->hosts[0];
  REQUIRE(h.events.size() == 3);
  // outer 10..30 us holds inner 12..20 us: self 12 us.
  CHECK(t->ops[h.events[0].op].name == "outer");
  CHECK(h.events[0].duration_ps == 20'000'000);
  CHECK(h.events[0].self_ps == 12'000'000);
  CHECK(t->ops[h.events[1].op].name == "inner");
  CHECK(t->ops[h.events[2].op].name == "tail");
}

TEST_CASE("json: timestamps keep picosecond precision however they are printed") {
  // %.17g output of TSL: 8.1219999999999999 us is 8122000 ps; exponents too.
  auto t = parse_chrome_trace(
      R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":8.1219999999999999,"dur":9.9999999999999995e-07,"name":"a"},)"
      R"({"ph":"X","pid":1,"tid":1,"ts":1234.567891,"dur":1e1,"name":"b"}]})",
      "p.json");
  REQUIRE(t.ok());
  const Device& h = t->hosts[0];
  CHECK(h.events[0].start_ps == 8'122'000);
  CHECK(h.events[0].duration_ps == 1);
  CHECK(h.events[1].start_ps == 1'234'567'891);
  CHECK(h.events[1].duration_ps == 10'000'000);
}

TEST_CASE("json: strings with escapes and unicode are decoded") {
  auto t = parse_chrome_trace(
      R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1,"name":"a\"b\\c \u00b5s \ud83d\ude00 \n"}]})", "u.json");
  REQUIRE(t.ok());
  CHECK(t->ops[t->hosts[0].events[0].op].name == "a\"b\\c \xc2\xb5s \xf0\x9f\x98\x80 \n");
}

TEST_CASE("json: malformed input gets one error naming the event and the place") {
  CHECK(error_of(R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":"12","dur":1,"name":"a"}]})") ==
        "t.json: traceEvents[0].ts: expected a number, got a string (byte 47)");
  CHECK(error_of(R"({"traceEvents":[{"ph":"M"},{"ph":"X","pid":1,"tid":1,"ts":1,"dur":-3,"name":"a"}]})") ==
        "t.json: traceEvents[1].dur: negative duration -3 (byte 66)");
  CHECK(error_of(R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"name":"a"}]})") ==
        "t.json: traceEvents[0].dur: missing (required for phase X) (byte 16)");
  CHECK(error_of(R"({"traceEvents":[{"ph":"X","pid":[1],"tid":1,"ts":1,"dur":1}]})") ==
        "t.json: traceEvents[0].pid: expected an integer or a string, got an array (byte 32)");
  CHECK_THAT(error_of(R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1)"),
             Catch::StartsWith("t.json: truncated JSON: the data ends inside traceEvents[0]"));
  CHECK_THAT(error_of(R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1},)"),
             Catch::StartsWith("t.json: truncated JSON: the data ends inside traceEvents after 1 events"));
  CHECK(error_of(R"({"traceEvents":[{"ph":"X",,}]})") ==
        "t.json: traceEvents[0]: expected a key, got ',' (byte 26)");
  CHECK(error_of(R"({"traceEvents":[3]})") == "t.json: traceEvents[0]: expected an event object, got a number (byte 16)");
  CHECK(error_of(R"({"traceEvents":{}})") == "t.json: traceEvents: expected an array (byte 15)");
  CHECK(error_of(R"({"a":1})") == "t.json: no traceEvents: JSON, but not a Chrome trace");
  CHECK(error_of("{\"traceEvents\":[]} x") == "t.json: unexpected data after the JSON value (byte 19)");
  CHECK(error_of(std::string("{\"traceEvents\":[\0]}", 19)) == "t.json: unexpected NUL byte (byte 16)");
}

TEST_CASE("json: times too far apart for int64 ps are refused, not wrapped") {
  CHECK(error_of(R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1},)"
                 R"({"ph":"X","pid":1,"tid":1,"ts":9300000000000,"dur":1}]})") ==
        "t.json: traceEvents[1].ts: more than 106 days from the first event: overflows int64 picoseconds (byte 89)");
  CHECK(error_of(R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":99999999999999999999}]})") ==
        "t.json: traceEvents[0].dur: '99999999999999999999' is not a time in microseconds within range (byte 55)");
}

TEST_CASE("json: an arg of the wrong type is reported as a warning, not guessed") {
  auto t = parse_chrome_trace(
      R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1,"name":"a","args":{"bytes_accessed":{"x":1}}}]})",
      "w.json");
  REQUIRE(t.ok());
  CHECK_FALSE(t->ops[t->hosts[0].events[0].op].bytes_accessed.has_value());
  REQUIRE(t->warnings.size() == 1);
  CHECK(t->warnings[0] ==
        "w.json: traceEvents[0].args.bytes_accessed: expected an integer, got {\"x\":1}; ignored here and "
        "wherever else it happens");
}

TEST_CASE("json: one event larger than the limit is refused with the limit named") {
  TraceReadOptions small;
  small.max_json_event_bytes = 1024;
  std::string big = R"({"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":1,"name":")" +
                    std::string(5u << 20, 'x') + R"("}]})";
  CHECK_THAT(error_of(big, small), Catch::Contains("larger than 1024 bytes"));
  CHECK(error_of(big) == "ok");  // the default allows it
}

TEST_CASE("json: events straddling the read window are parsed whole") {
  // Many events of varying size cross the boundaries of the 256 KiB read window.
  std::string json = R"({"traceEvents":[)";
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    if (i) json += ",\n";
    json += R"({"ph":"X","pid":1,"tid":1,"ts":)" + std::to_string(i * 10) + R"(,"dur":5,"name":"op)" +
            std::to_string(i % 7) + std::string(static_cast<std::size_t>(i % 13), ' ') + R"(","args":{"x":")" +
            std::string(static_cast<std::size_t>(i % 97), 'y') + R"("}})";
  }
  json += "]}";
  // From a file the reader takes 256 KiB at a time (in memory it would see all).
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("roofline_straddle_" + std::to_string(::getpid()) + ".json")).string();
  std::ofstream(path, std::ios::binary) << json;
  auto t = read_trace(path);
  std::filesystem::remove(path);
  REQUIRE(t.ok());
  CHECK(t->hosts[0].events.size() == static_cast<std::size_t>(n));
  std::int64_t total = 0;
  for (const Event& e : t->hosts[0].events) total += e.duration_ps;
  CHECK(total == std::int64_t{n} * 5'000'000);
}
