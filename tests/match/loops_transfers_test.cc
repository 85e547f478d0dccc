// Issue 10: a loop charged once (items 4), --hlo replacing the embedded HLO
// and naming the source of each op's cost (5), transfers over the host link
// (7). The scan profile is in the repository (tests/data/jax, made by
// scripts/make_jax_fixtures.py); the v6e and Kineto ones are real profiles
// in ../shared/data/real, skipped when absent.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "roofline/chip.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/match/match.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

using roofline::MatchSource;
using roofline::OpReport;

namespace {

roofline::Report report_at(const std::string& path, const roofline::ReportOptions& o) {
  auto t = roofline::read_trace(path);
  INFO(t.status().message());
  REQUIRE(t.ok());
  auto r = roofline::make_report(*t, o);
  INFO(r.status().message());
  REQUIRE(r.ok());
  return *r;
}

const OpReport& op_named(const roofline::Report& r, const std::string& name) {
  auto it = std::find_if(r.ops.begin(), r.ops.end(), [&](const OpReport& o) { return o.name == name; });
  INFO(name);
  REQUIRE(it != r.ops.end());
  return *it;
}

bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("scan: the while loop is a container, its body ops carry the work once") {
  roofline::ReportOptions o;
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  o.chip = &v5e;
  const roofline::Report r = report_at(roofline::testing::test_data("jax/scan.xplane.pb.gz").string(), o);
  const OpReport& loop = op_named(r, "while.5");
  CHECK(loop.predicted);
  CHECK(loop.prediction.t_lower_s == 0);
  CHECK(loop.prediction.flops == 0);
  CHECK_FALSE(loop.dtype().has_value());
  CHECK(mentions(loop.reason, "costed on their own rows"));
  // The body's dot: 2 runs x 6 trips = 12 occurrences of one layer,
  // 2 x 128 x 256 x 256 = 16,777,216 FLOPs each. XLA's cost_analysis of the
  // module (tests/data/jax/scan.cost.json) says 16,777,216 for a whole run:
  // it counts the loop body once, not once per trip.
  const OpReport& dot = op_named(r, "ynn_fusion");
  CHECK(dot.count == 12);
  CHECK(dot.prediction.flops == 12 * 16777216.0);
  double flops = 0, predicted = 0;
  for (const OpReport& op : r.ops) {
    INFO(op.name);
    CHECK(op.lost_s >= 0);         // no op beats its roofline by counting another's work
    CHECK(op.flop_util <= 1.0);
    CHECK(op.bw_util <= 1.0);
    if (op.predicted && !op.async) flops += op.prediction.flops, predicted += op.prediction.t_lower_s;
  }
  CHECK(r.summary.model_flops == flops);
  CHECK(r.summary.predicted_s == Approx(predicted));
  CHECK(r.summary.predicted_s <= r.summary.matched_measured_s);
  CHECK(r.summary.mfu == Approx(flops / (r.summary.wall_s * r.peak_flops_per_s)));
  // Measured on XLA:CPU, predicted on a TPU: the report says what that means.
  CHECK(std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) { return mentions(n, "XLA:CPU"); }));
}

namespace {

// A module named as the v6e profile's jit_f, with one of its instructions
// (broadcast_add_fusion.1) on an array twice as large: f32[10,...] where the
// profile ran f32[5,...], so the cost visibly comes from this file.
constexpr const char* kGivenJitF = R"(HloModule jit_f

%fused (p: f32[10,1024,1024,256]) -> f32[10,1024,1024,256] {
  %p = f32[10,1024,1024,256]{3,2,1,0} parameter(0)
  %c = f32[] constant(1)
  %b = f32[10,1024,1024,256]{3,2,1,0} broadcast(%c), dimensions={}
  ROOT %a = f32[10,1024,1024,256]{3,2,1,0} add(%p, %b)
}

ENTRY %main (param: f32[10,1024,1024,256]) -> f32[10,1024,1024,256] {
  %param = f32[10,1024,1024,256]{3,2,1,0} parameter(0)
  ROOT %broadcast_add_fusion.1 = f32[10,1024,1024,256]{3,2,1,0} fusion(%param), kind=kLoop, calls=%fused
}
)";

std::vector<roofline::HloModule> given(std::string text) {
  std::vector<roofline::HloModule> out;
  auto m = roofline::parse_hlo_text(text, "given.hlo");
  INFO(m.status().message());
  REQUIRE(m.ok());
  out.push_back(*std::move(m));
  return out;
}

}  // namespace

TEST_CASE("real v6e: a module given with --hlo replaces the embedded one of its name") {
  const std::string path = roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string();
  roofline::ReportOptions embedded_only{.device_id = 0};
  const roofline::Report before = report_at(path, embedded_only);
  const std::vector<roofline::HloModule> mods = given(kGivenJitF);
  roofline::ReportOptions o{.device_id = 0, .hlo_modules = &mods};
  const roofline::Report after = report_at(path, o);

  const OpReport& was = op_named(before, "broadcast_add_fusion.1");
  const OpReport& now = op_named(after, "broadcast_add_fusion.1");
  CHECK(was.match == MatchSource::kHloModule);
  CHECK(now.match == MatchSource::kHloGiven);
  // One add per element: 5 x 1024 x 1024 x 256 embedded, twice that given.
  CHECK(was.prediction.flops / static_cast<double>(was.count) == 5.0 * 1024 * 1024 * 256);
  CHECK(now.prediction.flops / static_cast<double>(now.count) == 10.0 * 1024 * 1024 * 256);
  // The other ops of jit_f are not in the given module, which replaced the
  // embedded one: none of them is costed from the embedded HLO any more.
  for (const OpReport& op : after.ops) {
    INFO(op.name);
    if (op.module == "jit_f") CHECK(op.match != MatchSource::kHloModule);
    else CHECK(op.match == MatchSource::kHloModule);
  }
}

TEST_CASE("real v6e: a given module whose name the trace does not carry replaces nothing, and says so") {
  const std::string path = roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string();
  std::string text = kGivenJitF;
  text.replace(text.find("jit_f"), 5, "jit_g");
  const std::vector<roofline::HloModule> mods = given(text);
  roofline::ReportOptions o{.device_id = 0, .hlo_modules = &mods};
  const roofline::Report r = report_at(path, o);
  CHECK(op_named(r, "broadcast_add_fusion.1").match == MatchSource::kHloModule);
  CHECK(std::any_of(r.notes.begin(), r.notes.end(),
                    [](const std::string& n) { return mentions(n, "given HLO module jit_g") && mentions(n, "replaced nothing"); }));
}

TEST_CASE("real v6e: host-offload copies cross the host link, not the interconnect") {
  const std::string path = roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string();
  const roofline::Report r = report_at(path, {.device_id = 0});
  const roofline::Chip& v6e = roofline::chip("tpu-v6e");
  REQUIRE(v6e.pcie_bytes_per_s > 0);
  int copies = 0;
  for (const OpReport& op : r.ops) {
    if (!op.name.starts_with("copy-done")) continue;
    INFO(op.name);
    ++copies;
    CHECK(op.async);
    CHECK(op.prediction.host_bytes > 0);
    CHECK(op.prediction.ici_bytes == 0);
    CHECK(op.prediction.t_ici_s == 0);
    // bytes / PCIe bandwidth (hardware/tpu-v6e.json), summed over occurrences.
    CHECK(op.prediction.t_host_s == Approx(op.prediction.host_bytes / v6e.pcie_bytes_per_s));
    CHECK(op.prediction.bound == roofline::Bound::kHostLink);
    CHECK(mentions(op.reason, "host link"));
  }
  CHECK(copies == 6);
}

TEST_CASE("real Kineto: GPU copies are costed from their bytes by their direction") {
  const std::string path = roofline::testing::require_real("hta/a100-80gb_16rank_rank0.json.gz").string();
  const roofline::Report r = report_at(path, {});
  const roofline::Chip& chip = roofline::chip(r.chip);
  int dtod = 0, htod = 0;
  for (const OpReport& op : r.ops) {
    if (!op.name.starts_with("Memcpy")) continue;
    INFO(op.name << " " << op.reason);
    // Every copy of this trace carries args.bytes (1,390 of 1,390).
    CHECK(op.predicted);
    CHECK(op.match == roofline::MatchSource::kCopyBytes);
    if (op.name.starts_with("Memcpy DtoD")) {
      ++dtod;
      CHECK(mentions(op.reason, "device-to-device copy of"));
      CHECK(mentions(op.reason, "within HBM"));
      CHECK_FALSE(mentions(op.reason, "host"));
      // Read and written: 2 x bytes at the bandwidth of the tier they fit
      // (the A100's 40 MB L2 for small copies, else HBM: select_memory_tier).
      const double per_copy_bytes = op.prediction.hbm_bytes / static_cast<double>(op.count);
      CHECK(op.prediction.t_lower_s ==
            Approx(op.prediction.hbm_bytes / roofline::select_memory_tier(chip, per_copy_bytes).bytes_per_s));
      CHECK(op.prediction.host_bytes == 0);
    } else if (op.name.starts_with("Memcpy HtoD")) {
      ++htod;
      CHECK(mentions(op.reason, "host-to-device copy; "));
      CHECK(op.prediction.bound == roofline::Bound::kHostLink);
      CHECK(op.prediction.t_lower_s == Approx(op.prediction.host_bytes / chip.pcie_bytes_per_s));
      CHECK(op.prediction.hbm_bytes == 0);
    }
  }
  CHECK(dtod > 0);
  CHECK(htod > 0);
}

TEST_CASE("jax FSDP profile: 8 virtual devices, every collective timed with its group of 8, a CPU caveat") {
  // tests/data/jax/fsdp_mlp.xplane.pb.gz: two runs of the FSDP step on 8
  // virtual CPU devices, with the HloProto jax embeds (mesh-less explicit
  // groups {{0..7}}).
  roofline::ReportOptions o;
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  o.chip = &v5e;
  const roofline::Report r = report_at(roofline::testing::test_data("jax/fsdp_mlp.xplane.pb.gz").string(), o);
  CHECK(r.devices.size() == 8);
  int collectives = 0;
  for (const OpReport& op : r.ops) {
    if (op.category != "collective") continue;
    ++collectives;
    INFO(op.name << ": " << op.reason);
    CHECK(op.predicted);
    CHECK(op.prediction.t_ici_s > 0);  // never a silent zero
    CHECK(op.count == 16);  // 2 runs x 8 devices
  }
  CHECK(collectives == 5);  // 2 all-gathers, 2 reduce-scatters, 1 psum
  // all_gather.6: f32[1024,1024] = 4 MiB gathered over a ring of 8 on v5e
  // (45e9 B/s per link, tests/hlo/jax_fixtures_test.cc): 7/8 x 4 MiB / W per run.
  CHECK(op_named(r, "all_gather.6").prediction.t_lower_s == Approx(16 * 7.0 / 8 * 4194304 / 45e9));
  bool caveat = false;
  for (const std::string& n : r.notes) caveat |= mentions(n, "measured on a CPU (XLA:CPU)");
  CHECK(caveat);
}
