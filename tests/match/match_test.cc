#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/calibrate/io.hpp"
#include "roofline/collectives/collective.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/match/match.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

using roofline::Bound;
using roofline::MatchSource;
using roofline::OpReport;

namespace {

const OpReport& find_op(const roofline::Report& r, const std::string& name_part) {
  auto it = std::find_if(r.ops.begin(), r.ops.end(), [&](const OpReport& o) {
    return o.name.find(name_part) != std::string::npos;
  });
  REQUIRE(it != r.ops.end());
  return *it;
}

roofline::Report small_kineto_report(const roofline::ReportOptions& o = {}) {
  auto t = roofline::read_trace(roofline::testing::test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  auto r = roofline::make_report(*t, o);
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("match: a PyTorch GEMM is costed from its launching aten::mm Input Dims") {
  const roofline::Report r = small_kineto_report();
  CHECK(r.chip == "h100-sxm");
  const OpReport& mm = find_op(r, "gemm");
  CHECK(mm.match == MatchSource::kInputDims);
  CHECK(mm.module == "aten::mm");
  // aten::mm [64,128] @ [128,256] bf16: FLOPs 2*64*128*256; bytes (64*128 + 128*256 + 64*256) * 2.
  CHECK(mm.prediction.flops == 2.0 * 64 * 128 * 256);
  CHECK(mm.prediction.hbm_bytes == (64.0 * 128 + 128.0 * 256 + 64.0 * 256) * 2);
  const roofline::Chip& h100 = roofline::chip("h100-sxm");
  // Memory-bound at this size; its 114,688 B fit the 50 MB L2, timed at 8.986e12 B/s (hardware/h100-sxm.json).
  CHECK(mm.prediction.t_lower_s == Approx(mm.prediction.hbm_bytes / 8.986e12));
  CHECK(roofline::select_memory_tier(h100, mm.prediction.hbm_bytes / static_cast<double>(mm.count)).bytes_per_s ==
        8.986e12);
  CHECK(mm.prediction.bound == Bound::kMemory);
  CHECK(mm.measured_s == Approx(30.5e-6));
  CHECK(mm.ratio == Approx(30.5e-6 / mm.prediction.t_lower_s));
  CHECK(mm.lost_s == Approx(30.5e-6 - mm.prediction.t_lower_s));
}

TEST_CASE("match: an NCCL kernel is timed by the collective model from its args") {
  const roofline::Report r = small_kineto_report();
  const OpReport& ar = find_op(r, "AllReduce");
  CHECK(ar.match == MatchSource::kCollectiveArgs);
  CHECK(ar.category == "collective");
  // 1,048,576 bf16 elements = 2,097,152 bytes all-reduced over 8 GPUs.
  const auto t = roofline::collective_time_on_group(roofline::CollectiveKind::kAllReduce, 2097152.0, 8,
                                                    roofline::chip("h100-sxm"));
  CHECK(ar.prediction.t_ici_s == Approx(t.t_ici_s));
  CHECK(ar.prediction.t_lower_s == Approx(t.t_ici_s));
  CHECK(ar.prediction.bound == Bound::kCommunication);
}

TEST_CASE("match: a GPU copy with its bytes is a host-link transfer; every op is listed") {
  const roofline::Report r = small_kineto_report();
  const OpReport& copy = find_op(r, "Memcpy");
  // "Memcpy DtoH (Device -> Pinned)" with args.bytes = 4: 4 B over H100's
  // PCIe at 64 GB/s (hardware/h100-sxm.json), the latency of a real copy
  // aside.
  CHECK(copy.predicted);
  CHECK(copy.match == roofline::MatchSource::kCopyBytes);
  CHECK(copy.measured_s == Approx(4e-6));
  CHECK(copy.prediction.host_bytes == 4);
  CHECK(copy.prediction.t_host_s == Approx(4 / 64e9));
  CHECK(copy.prediction.bound == roofline::Bound::kHostLink);
  CHECK(copy.reason == "device-to-host copy; 4.00 B over the host link at h100-sxm's PCIe 64.0 GB/s");
  CHECK(r.summary.unmatched_s == 0);
  // Every op is listed: measured time adds up to the self time of all op events.
  double total = 0;
  for (const OpReport& o : r.ops) total += o.measured_s;
  CHECK(total == Approx(30.5e-6 + 10e-6 + 50e-6 + 4e-6));
}

TEST_CASE("match: --chip overrides the detected chip and says so; --target-chip re-predicts") {
  roofline::ReportOptions o;
  o.chip = &roofline::chip("a100-sxm");
  o.target_chip = &roofline::chip("b200");
  const roofline::Report r = small_kineto_report(o);
  CHECK(r.chip == "a100-sxm");
  CHECK(r.target_chip == "b200");
  REQUIRE_FALSE(r.notes.empty());
  CHECK_THAT(r.notes.front(), Catch::Contains("h100-sxm"));
  const OpReport& mm = find_op(r, "gemm");
  REQUIRE(mm.target_predicted_s.has_value());
  // Memory-bound: the what-if scales with HBM bandwidth, 2.04e12 -> 8e12 B/s.
  CHECK(*mm.target_predicted_s ==
        Approx(mm.prediction.hbm_bytes / roofline::chip("b200").hbm_bytes_per_s));
}

TEST_CASE("match: a device that is not in the trace is an error naming the devices") {
  auto t = roofline::read_trace(roofline::testing::test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  roofline::ReportOptions o;
  o.device_id = 7;
  auto r = roofline::make_report(*t, o);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(std::string(r.status().message()), Catch::Contains("no device 7"));
}

TEST_CASE("match: a jax profile's ops are matched to the HLO embedded in its XPlane") {
  auto t = roofline::read_trace(roofline::testing::test_data("trace/jax_cpu").string());
  REQUIRE(t.ok());
  roofline::ReportOptions o;
  o.chip = &roofline::chip("tpu-v5e");  // an XLA:CPU run: no chip to detect
  auto r = roofline::make_report(*t, o);
  REQUIRE(r.ok());
  REQUIRE_FALSE(r->ops.empty());
  for (const OpReport& op : r->ops) {
    INFO(op.name);
    CHECK(op.match == MatchSource::kHloModule);
    CHECK(op.predicted);
  }
  const OpReport& dot = find_op(*r, "dot");
  CHECK(dot.prediction.flops > 0);
  CHECK(dot.hlo_category == "matmul");
}

TEST_CASE("match: without a chip in the trace or the options the error names ReportOptions::chip") {
  auto t = roofline::read_trace(roofline::testing::test_data("trace/jax_cpu").string());
  REQUIRE(t.ok());
  auto r = roofline::make_report(*t, {});
  REQUIRE_FALSE(r.ok());
  const std::string message(r.status().message());
  CHECK_THAT(message, Catch::EndsWith("set ReportOptions::chip"));
  CHECK_THAT(message, Catch::Contains("XLA:CPU"));
  // The library speaks its own API, not the CLI's flags.
  CHECK_THAT(message, !Catch::Contains("--"));
}

TEST_CASE("match: a given chip is named by its option") {
  roofline::ReportOptions o;
  o.chip = &roofline::chip("h100-sxm");
  const roofline::Report r = small_kineto_report(o);
  CHECK(r.chip_source == roofline::kGivenChipSource);
  CHECK(r.notes.empty());  // the trace's H100 agrees
}

TEST_CASE("match: match() then aggregate() is make_report(); --target-chip re-predicts the same model") {
  auto t = roofline::read_trace(roofline::testing::test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  roofline::ReportOptions o;
  o.target_chip = &roofline::chip("b200");
  auto m = roofline::match(*t, o);
  REQUIRE(m.ok());
  CHECK(m->chip.chip == &roofline::chip("h100-sxm"));
  CHECK_THAT(m->chip.source, Catch::StartsWith("detected from device"));
  REQUIRE(m->ops.size() == 4);
  for (const roofline::MatchedOp& op : m->ops) {
    INFO(t->ops[op.group.op].name);
    CHECK(op.prediction.has_value() == op.cost.model.has_value());
    if (!op.cost.model) continue;
    // The what-if is the same model predicted on the other chip.
    const roofline::Prediction again = roofline::predict(*op.cost.model, roofline::chip("b200"));
    REQUIRE(op.target_prediction.has_value());
    CHECK(op.target_prediction->t_lower_s == again.t_lower_s);
  }
  const roofline::Report a = roofline::aggregate(*m);
  const roofline::Report b = small_kineto_report(o);
  REQUIRE(a.ops.size() == b.ops.size());
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    CHECK(a.ops[i].name == b.ops[i].name);
    CHECK(a.ops[i].prediction.t_lower_s == b.ops[i].prediction.t_lower_s);
  }
  CHECK(a.summary.mfu == b.summary.mfu);
}

TEST_CASE("match: a front end's OptionWords replace the option phrases in errors, chip_source and notes") {
  const roofline::OptionWords words{.set_chip_advice = "pass chip=NAME",
                                    .given_chip_source = "chip argument",
                                    .one_device_advice = "pass device=N for one"};
  auto cpu = roofline::read_trace(roofline::testing::test_data("trace/jax_cpu").string());
  REQUIRE(cpu.ok());
  auto failed = roofline::make_report(*cpu, {}, words);
  REQUIRE_FALSE(failed.ok());
  CHECK_THAT(std::string(failed.status().message()), Catch::EndsWith("pass chip=NAME"));
  auto t = roofline::read_trace(roofline::testing::test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  roofline::ReportOptions o;
  o.chip = &roofline::chip("h100-sxm");
  auto r = roofline::make_report(*t, o, words);
  REQUIRE(r.ok());
  CHECK(r->chip_source == "chip argument");
  CHECK(roofline::in_words("times summed; set ReportOptions::device_id for one", words) ==
        "times summed; pass device=N for one");
}

TEST_CASE("match: use_calibration_file takes the entries for the trace's chip and the what-if chip") {
  auto t = roofline::read_trace(roofline::testing::test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  roofline::CalibrationFile file;
  for (const char* name : {"h100-sxm", "tpu-v5e"}) {
    roofline::CalibrationFit fit;
    fit.calibration = roofline::default_calibration(roofline::chip(name));
    fit.calibration.origin = std::string("entry for ") + name;
    file.chips.push_back(fit);
  }
  roofline::ReportOptions o;  // chip detected: the trace's H100
  o.target_chip = &roofline::chip("b200");  // not in the file: its built-in calibration
  roofline::use_calibration_file(*t, file, o);
  REQUIRE(o.calibration != nullptr);
  CHECK(o.calibration->origin == "entry for h100-sxm");
  CHECK(o.target_calibration == nullptr);
  auto r = roofline::make_report(*t, o);
  REQUIRE(r.ok());
  CHECK(r->calibration == "entry for h100-sxm");
  roofline::ReportOptions given;
  given.chip = &roofline::chip("tpu-v5e");
  roofline::use_calibration_file(*t, file, given);
  REQUIRE(given.calibration != nullptr);
  CHECK(given.calibration->origin == "entry for tpu-v5e");
}

TEST_CASE("match: with no predicted op carrying FLOPs, MFU is against the chip's default peak") {
  // kineto_small.json without its GEMM and add, its all-reduce in fp32 and a
  // device-to-device copy beside it: no op carries FLOPs. Before, the first
  // dtype in the table won at 0 FLOPs, the copy's raw bytes (u8), and a real
  // fp32 ResNet's report (hta/a100x2_resnet_ddp_nccl_data) read "dense int8
  // peak"; its all-reduces of "Float" messages were named bf16.
  auto events = nlohmann::json::parse(roofline::testing::slurp(roofline::testing::test_data("trace/kineto_small.json")));
  auto& list = events["traceEvents"];
  list.erase(std::remove_if(list.begin(), list.end(),
                            [](const nlohmann::json& e) {
                              const std::string name = e.value("name", "");
                              return name.find("gemm") != std::string::npos || name == "aten::mm" ||
                                     name == "aten::add" || name.find("elementwise") != std::string::npos;
                            }),
             list.end());
  for (auto& e : list)
    if (e.contains("args") && e["args"].contains("dtype")) e["args"]["dtype"] = "Float";
  list.push_back({{"ph", "X"}, {"cat", "gpu_memcpy"}, {"name", "Memcpy DtoD (Device -> Device)"}, {"pid", 0},
                  {"tid", 7}, {"ts", 1180.0}, {"dur", 3.0}, {"args", {{"correlation", 15}, {"bytes", 4096}}}});
  const auto dir = roofline::testing::fresh_temp_dir("match_test", "no_flops");
  const auto path = dir / "no_flops.json";
  {
    std::ofstream out(path);
    out << events.dump();
  }
  auto t = roofline::read_trace(path.string());
  REQUIRE(t.ok());
  auto r = roofline::make_report(*t, {});
  REQUIRE(r.ok());
  double flops = 0;
  int predicted = 0;
  for (const OpReport& o : r->ops) flops += o.prediction.flops, predicted += o.predicted ? 1 : 0;
  CHECK(predicted == 3);  // the all-reduce and the two copies
  CHECK(flops == 0);
  const OpReport& ar = find_op(*r, "AllReduce");
  REQUIRE(ar.dtype().has_value());
  CHECK(*ar.dtype() == roofline::DType::kF32);
  // 1,048,576 fp32 elements: 4,194,304 bytes over 8 GPUs.
  // Then the built-in model that expects it, and why its wait stays in.
  CHECK(ar.reason ==
        "all-reduce of 4194304 bytes over 8 devices; expected by NCCL 2.17.1 cost model, ring/LL, 8 ranks over "
        "NVLink; measured time holds the wait for the slowest peer: not separable with one rank read");
  const OpReport& host = find_op(*r, "DtoH");
  REQUIRE(host.dtype().has_value());
  CHECK(*host.dtype() == roofline::DType::kU8);
  CHECK(r->dominant_dtype == "bf16");
  CHECK(r->peak_flops_per_s == roofline::chip("h100-sxm").peak_flops_per_s[static_cast<int>(roofline::PeakClass::kBf16)]);
  CHECK(r->summary.mfu_convention.find("dense bf16 peak") != std::string::npos);
  std::filesystem::remove_all(dir);
}
