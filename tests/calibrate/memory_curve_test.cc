// The memory-bound expectation's published figures (expected/memory.hpp,
// hardware/*.json "achieved/hbm_bytes_per_s"): each built-in figure
// against the arithmetic of its source, and the curve against published
// bandwidths it was not built from.
#include <catch2/catch.hpp>

#include <string>

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/expected/memory.hpp"
#include "roofline/expected/size_curve.hpp"
#include "roofline/predict.hpp"

namespace roofline {
namespace {

// gpu-benches gpu-stream (te42kyfo/gpu-benches at 1c36d50): the scale
// kernel at block size 1024 over 1.07 GB arrays, in GB/s.
TEST_CASE("achieved HBM rates: gpu-stream's scale kernel") {
  CHECK(chip("a100-sxm").achieved.hbm_bytes_per_s == 1732e9);       // gpu-stream/a100_80.txt
  CHECK(chip("a100-sxm-40gb").achieved.hbm_bytes_per_s == 1381e9);  // gpu-stream/a100_40.txt
  CHECK(chip("h200").achieved.hbm_bytes_per_s == 3165e9);           // gpu-stream/h200.txt
  // gpu-stream/mi210.txt: one CDNA2 die with an MI250 die's memory.
  CHECK(chip("mi250").achieved.hbm_bytes_per_s == 1358e9);
  CHECK(chip("mi250").hbm_bytes_per_s == 1638.4e9);  // the same 4 HBM2e stacks as the MI210
  // Paranumal's cudaMemcpy on a V100, unchanged.
  CHECK(chip("v100-sxm2").achieved.hbm_bytes_per_s == 790e9);
  // As efficiencies of the built-in calibration: achieved / peak.
  CHECK(default_calibration(chip("a100-sxm")).curve(CostClass::kMemory).memory_efficiency == Approx(1732.0 / 2039.0));
  CHECK(default_calibration(chip("mi250")).curve(CostClass::kMemory).memory_efficiency == Approx(1358.0 / 1638.4));
  // No published rate: Calculon's 0.90.
  CHECK(default_calibration(chip("mi300x")).curve(CostClass::kMemory).memory_efficiency == Approx(0.9));
}

TEST_CASE("stream curve: steps from the published points, less the floor") {
  // At the A100's own largest rate (1726 GB/s at 391.5 MB) and a 1 us
  // floor, the 84 MB point (1641 GB/s): its bytes at 1726 GB/s over its
  // time less 1 us, as a share of the largest point's own such ratio.
  const auto steps = stream_size_steps(kA100StreamCurve, 1e-6, 1726e9);
  REQUIRE(steps.size() == 5);
  const auto share = [](double bytes, double gb_per_s) { return bytes / 1726e9 / (bytes / (gb_per_s * 1e9) - 1e-6); };
  const double largest = share(391522512, 1726);
  CHECK(steps[0].size == 0);
  CHECK(steps[0].efficiency == Approx(share(65536, 49) / largest));  // 0.112: a 64 KB kernel is mostly launch
  CHECK(steps[1].size == Approx(65536));
  CHECK(steps[2].size == Approx(84000528));
  CHECK(steps[2].efficiency == Approx(share(84000528, 1641) / largest));  // 0.969
  CHECK(steps[4].efficiency == 1);
  // At twice the rate, the same efficiencies at twice the bytes.
  const auto faster = stream_size_steps(kA100StreamCurve, 1e-6, 2 * 1726e9);
  CHECK(faster[2].size == Approx(2 * 84000528));
  CHECK(faster[2].efficiency == Approx(steps[2].efficiency));
  // A floor at or above a point's time leaves no curve; so does no curve.
  CHECK(stream_size_steps(kA100StreamCurve, 2e-6, 1726e9).empty());
  CHECK(stream_size_steps({}, 1e-6, 1726e9).empty());
  // Which die takes which curve; the others keep Calculon's steps.
  CHECK(stream_curve_of("GA100", "a100-sxm-40gb").measured_on == kA100StreamCurve.measured_on);
  CHECK(stream_curve_of("GH100", "h100-sxm").measured_on == kH200StreamCurve.measured_on);
  CHECK(stream_curve_of("", "mi250").measured_on == kMi210StreamCurve.measured_on);
  CHECK(stream_curve_of("", "mi300x").points.empty());
  CHECK(default_calibration(chip("mi300x")).memory_size_steps.size() == std::size(kCalculonHbmSteps));
  CHECK(default_calibration(chip("h100-sxm")).memory_size_steps.size() == 5);
}

// The bandwidth the built-in calibration of `name` expects of a streaming
// op moving `bytes`: bytes over its expected time.
double expected_bytes_per_s(const std::string& name, double bytes) {
  const Chip& c = chip(name);
  Prediction p;
  p.hbm_bytes = bytes;
  p.t_hbm_s = p.t_hbm_cold_s = bytes / c.hbm_bytes_per_s;
  settle_bounds(p);
  return bytes / expected_s(p, CostClass::kMemory, default_calibration(c));
}

TEST_CASE("stream curve: held-out published bandwidths within 10%") {
  // gpu-benches gpu-small-kernels under a graph (te42kyfo/gpu-benches at
  // 1c36d50), rows not among the curve's points (expected/memory.hpp),
  // best block size.
  // The expectation takes the chip's rate from gpu-stream, a second
  // benchmark, and the size curve from gpu-small-kernels.
  struct HeldOut {
    std::string chip;
    double bytes;
    double published_bytes_per_s;
  };
  const HeldOut held_out[] = {
      {"a100-sxm", 123424272, 1674e9},  // a100_80_graph.txt, 7714017 doubles x 16 B
      {"a100-sxm", 266463664, 1715e9},  // a100_80_graph.txt, 16653979 x 16 B
      {"h200", 143229408, 3277e9},      // h200_graph.txt, 8951838 x 16 B
      {"mi250", 42021232, 1251e9},      // mi210_graph.txt, 2626327 x 16 B
      {"mi250", 422844304, 1353e9},     // mi210_graph.txt, 26427769 x 16 B
  };
  for (const HeldOut& h : held_out) {
    INFO(h.chip << " " << h.bytes);
    const double expected = expected_bytes_per_s(h.chip, h.bytes);
    CHECK(expected == Approx(h.published_bytes_per_s).epsilon(0.10));
  }
}

}  // namespace
}  // namespace roofline
