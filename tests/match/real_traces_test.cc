// The report on the real profiles in ../shared/data/real (SOURCES.md there
// says what each holds). Skipped when that folder is absent.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "roofline/match/match.hpp"
#include "roofline/trace/read.hpp"
#include "tests/match/report_support.hpp"
#include "tests/test_support.hpp"

using roofline::Bound;
using roofline::MatchSource;
using roofline::OpReport;
using roofline::testing::report_of;
using roofline::testing::require_real;

namespace {

double per_run(double total, std::int64_t count) { return total / static_cast<double>(count); }

}  // namespace

TEST_CASE("real v6e: every op has a prediction or says why not") {
  const roofline::Report r = report_of("xprof/tpu_v6e_x4_inference_2.xplane.pb");
  CHECK(r.chip == "tpu-v6e");
  CHECK(r.devices.size() == 4);
  REQUIRE_FALSE(r.ops.empty());
  for (const OpReport& op : r.ops) {
    INFO(op.module << " " << op.name);
    CHECK((op.predicted || !op.reason.empty()));
    CHECK(op.match == MatchSource::kHloModule);  // all modules are embedded
  }
  // Four devices are summed; the note says how to report one.
  CHECK(std::any_of(r.notes.begin(), r.notes.end(),
                    [](const std::string& n) { return n.ends_with(roofline::kOneDeviceAdvice); }));
}

TEST_CASE("real v6e: the broadcast_add fusions are memory-bound at about 80% of HBM bandwidth") {
  const roofline::Report r = report_of("xprof/tpu_v6e_x4_inference_2.xplane.pb");
  int seen = 0;
  for (const OpReport& op : r.ops) {
    if (op.name.rfind("broadcast_add_fusion", 0) != 0) continue;
    ++seen;
    INFO(op.name);
    CHECK(op.prediction.bound == Bound::kMemory);
    // Reads and writes f32[5,1024,1024,256] once: 2 * 5,368,709,120 bytes,
    // exactly XLA's bytes_accessed (10,737,418,240) for the op.
    CHECK(per_run(op.prediction.hbm_bytes, op.count) == 10'737'418'240.0);
    REQUIRE(op.xla_bytes.has_value());
    CHECK(*op.xla_bytes == 10'737'418'240.0);
    // SOURCES.md: medians 7.92-8.15 ms = 80-83% of 1638 GB/s. Our mean over
    // all occurrences against the spec's 1.638e12 lands between 75% and 95%.
    CHECK(op.bw_util > 0.75);
    CHECK(op.bw_util < 0.95);
    CHECK(op.ratio > 1.0);
  }
  CHECK(seen == 3);
}

TEST_CASE("real v6e: the all-reduce is timed by the collective model over pairs") {
  const roofline::Report r = report_of("xprof/tpu_v6e_x4_inference_2.xplane.pb");
  auto it = std::find_if(r.ops.begin(), r.ops.end(), [](const OpReport& o) { return o.name == "all-reduce"; });
  REQUIRE(it != r.ops.end());
  CHECK(it->prediction.bound == Bound::kCommunication);
  // 12 = 3 runs x 4 devices, each 121.69 ms (SOURCES.md).
  CHECK(it->count == 12);
  CHECK(per_run(it->measured_s, it->count) == Approx(0.12169).epsilon(0.01));
  CHECK(it->prediction.t_ici_s > 0);
}

TEST_CASE("real MI300X: the 4096^3 GEMM is compute-bound near 148 us") {
  const roofline::Report r = report_of("tracelens/mi300x_jax08_gemm.xplane.pb");
  CHECK(r.chip == "mi300x");
  const double flops = 2.0 * 4096 * 4096 * 4096;
  // 16384x1024 @ 1024x4096 has the same FLOPs: pick the op by its result.
  auto it = std::find_if(r.ops.begin(), r.ops.end(), [&](const OpReport& o) {
    return o.predicted && o.count > 0 && per_run(o.prediction.flops, o.count) == flops &&
           o.shapes.rfind("(bf16[4096,4096]", 0) == 0;
  });
  REQUIRE(it != r.ops.end());
  CHECK(it->prediction.bound == Bound::kCompute);
  // Roofline: 2*4096^3 / 1.3074e15 = 105.1 us.
  const double peak = roofline::chip("mi300x").peak_flops_per_s_for(roofline::DType::kBF16);
  CHECK(per_run(it->prediction.t_lower_s, it->count) == Approx(flops / peak));
  // SOURCES.md: median 148.08 us = 928 TFLOPS over 3 runs (the mean is
  // higher: the first, cold run is slower).
  CHECK(it->median_s == Approx(148.08e-6).epsilon(0.01));
  CHECK(flops / it->median_s / peak == Approx(928e12 / peak).epsilon(0.01));
  CHECK(it->flop_util < flops / it->median_s / peak);
}

TEST_CASE("real H100: PyTorch GEMMs are matched through Input Dims") {
  const roofline::Report r = report_of("tracelens/h100_qwen1.5-0.5b.pt.trace.json.gz");
  CHECK(r.chip == "h100-sxm");
  int gemms = 0;
  for (const OpReport& op : r.ops) {
    if (op.match != MatchSource::kInputDims || op.hlo_category != "matmul") continue;
    ++gemms;
    CHECK((op.module == "aten::mm" || op.module == "aten::addmm" || op.module == "aten::bmm" ||
           op.module == "aten::linear" || op.module == "aten::matmul"));
  }
  CHECK(gemms >= 3);
  // TraceLens's GEMM table (SOURCES.md): aten::mm 8944x2816x1024 bf16.
  const double flops = 2.0 * 8944 * 1024 * 2816;
  auto it = std::find_if(r.ops.begin(), r.ops.end(), [&](const OpReport& o) {
    return o.module == "aten::mm" && o.predicted && per_run(o.prediction.flops, o.count) == flops;
  });
  REQUIRE(it != r.ops.end());
  CHECK(it->prediction.bound == Bound::kCompute);
  CHECK(per_run(it->prediction.t_lower_s, it->count) ==
        Approx(flops / roofline::chip("h100-sxm").peak_flops_per_s_for(roofline::DType::kBF16)));
}

// Every trace in ../shared/data/real names (or, by its capabilities, shows)
// a chip with a spec: V100s through "Tesla V100...", the MI250 through
// gfx9.0 with 104 CUs.
TEST_CASE("real traces: every file gives a report without --chip") {
  for (const char* f : {"xprof/tpu_v6e_x4_inference_2.xplane.pb", "xprof/v100_tf_bert_multiworker.xplane.pb",
                        "tracelens/mi300x_jax08_gemm.xplane.pb", "tracelens/mi300x_jax08_elementwise.xplane.pb",
                        "tracelens/mi300x_jax08_attention.xplane.pb", "tracelens/mi300x_jax08_conv3d.xplane.pb",
                        "tracelens/mi300x_qwen1.5-0.5b.pt.trace.json.gz", "tracelens/h100_qwen1.5-0.5b.pt.trace.json.gz",
                        "tracelens/h100_bert-small.pt.trace.json.gz",
                        "tracelens/b200x8_vllm_eager_rank0.pt.trace.json.gz",
                        "tracelens/mi300x_sglang_qwen3-8b_decode.pt.trace.json.gz",
                        "hta/a100x2_resnet_ddp_nccl_data.json.gz", "hta/a100-80gb_16rank_rank0.json.gz",
                        "hta/a100_alexnet_trace.json.gz", "hta/mi250_minitoy_train_rocm6.2_kineto.json.gz",
                        "hta/a100_triton_example.json.gz", "kineto/v100_resnet50_worker0.pt.trace.json.gz"}) {
    INFO(f);
    auto t = roofline::read_trace(require_real(f).string());
    REQUIRE(t.ok());
    auto r = roofline::make_report(*t, {});
    if (!r.ok()) FAIL(r.status().message());
    CHECK_THAT(r->chip_source, Catch::StartsWith("detected from device"));
    double total = 0;
    for (const OpReport& op : r->ops) {
      total += op.measured_s;
      CHECK((op.predicted || !op.reason.empty()));
    }
    CHECK(total > 0);
    CHECK(r->summary.duty_cycle > 0);
    CHECK(r->summary.duty_cycle <= 1.0);
  }
}

// The DDP ResNet of HTA's nccl_data: fp32 throughout, and no op the trace
// gives shapes for carries FLOPs (record_shapes was off), so MFU is taken
// against the chip's default bf16 peak, not the int8 one a copy's raw bytes
// named; its all-reduces move "Float" messages (SOURCES.md: 6,637,568
// floats, 26.6 MB).
TEST_CASE("real A100 DDP: fp32 all-reduces are named fp32, and MFU is not against the int8 peak") {
  const roofline::Report r = report_of("hta/a100x2_resnet_ddp_nccl_data.json.gz");
  CHECK(r.dominant_dtype == "bf16");
  int all_reduces = 0;
  for (const OpReport& op : r.ops) {
    if (op.match != MatchSource::kCollectiveArgs) continue;
    ++all_reduces;
    REQUIRE(op.dtype().has_value());
    CHECK(*op.dtype() == roofline::DType::kF32);
  }
  CHECK(all_reduces == 5);
  auto it = std::find_if(r.ops.begin(), r.ops.end(), [](const OpReport& o) {
    return o.reason.starts_with("all-reduce of 26550272 bytes over 2 devices");
  });
  REQUIRE(it != r.ops.end());
  // Expected by NCCL's model of its ring/LL kernel: 3.6 + 2 x .47 us and
  // 26.55 MB at 235 / 4 GB/s (tuning.cc 2.17.1); one rank read.
  CHECK(it->expected_s / static_cast<double>(it->count) == Approx(4.54e-6 + 26550272 / 58.75e9));
  CHECK(it->reason.find("expected by NCCL 2.17.1 cost model, ring/LL, 2 ranks over NVLink") != std::string::npos);
  CHECK(it->reason.find("not separable with one rank read") != std::string::npos);
}
