// The report's time by category and its notes on the chip, on the real
// profiles in ../shared/data/real. Figures pinned here were measured with
// this build (`roofline report FILE --format json`). Skipped when that
// folder is absent.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "roofline/chip.hpp"
#include "roofline/match/match.hpp"
#include "roofline/trace/read.hpp"
#include "tests/match/report_support.hpp"
#include "tests/test_support.hpp"

using roofline::CategoryTime;
using roofline::testing::report_of;
using roofline::testing::require_real;

namespace {

const CategoryTime* find_category(const roofline::Report& r, std::string_view name) {
  for (const CategoryTime& c : r.summary.by_category)
    if (c.category == name) return &c;
  return nullptr;
}

bool has_note(const roofline::Report& r, std::string_view part) {
  return std::any_of(r.notes.begin(), r.notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("report categories add up to the busy time, and with idle to the wall span (A100 16-rank)") {
  // Before: the categories summed self times, 449.8 ms over a busy time of
  // 438.4 ms, and with idle 100.9% of the wall span.
  const roofline::Report r = report_of("hta/a100-80gb_16rank_rank0.json.gz");
  const roofline::ReportSummary& s = r.summary;
  double busy = 0, all = 0;
  for (const CategoryTime& c : s.by_category) {
    all += c.measured_s;
    if (c.category != "idle") busy += c.measured_s;
  }
  CHECK(std::abs(busy - s.measured_s) <= 1e-9 * s.measured_s);
  CHECK(std::abs(all - s.wall_s) <= 1e-9 * s.wall_s);
  // The same split as `roofline stats` (tests/trace/categories_test.cc).
  REQUIRE(find_category(r, "collective"));
  CHECK(find_category(r, "compute")->measured_s == Approx(0.210996).epsilon(1e-9));
  CHECK(find_category(r, "collective")->measured_s == Approx(0.185317).epsilon(1e-9));
  CHECK(find_category(r, "data movement")->measured_s == Approx(0.042111).epsilon(1e-9));
}

TEST_CASE("report: cuda_sync waits are no op and no busy time, but a note (A100-PG509-200 AlexNet)") {
  const roofline::Report r = report_of("hta/a100_alexnet_trace.json.gz");
  CHECK(r.chip == "a100-sxm-40gb");  // 42.3 GB: the 40 GB part, 1.555 TB/s
  CHECK(r.hbm_bytes_per_s == 1.555e12);
  for (const roofline::OpReport& o : r.ops) {
    INFO(o.name);
    CHECK(o.category != "sync");
    CHECK(o.hlo_category != "cuda_sync");
  }
  CHECK(find_category(r, "sync") == nullptr);
  CHECK(r.summary.measured_s == Approx(0.066141).epsilon(1e-9));  // kernels and copies only
  CHECK(has_note(r, "streams waited (CUDA Stream Sync / Stream Wait Event / Context Sync) for 554 us"));
}

TEST_CASE("report: the v6e table matches the trace's own peaks, so no note") {
  // Google's v6e page: 918 TFLOP/s bf16, 1638 GB/s; the trace says 918.0 and
  // 1637.99 (SOURCES.md), within kPeakNoteTolerance (0.5%).
  const roofline::Chip& v6e = roofline::chip("tpu-v6e");
  CHECK(v6e.peak_flops_per_s_for(roofline::DType::kBF16) == 9.18e14);
  CHECK(v6e.hbm_bytes_per_s == 1.638e12);
  const roofline::Report r = report_of("xprof/tpu_v6e_x4_inference_2.xplane.pb");
  CHECK_FALSE(has_note(r, "the trace reports"));
}

TEST_CASE("report: a trace's own HBM bandwidth that differs from the table is named (MI300X XPlane)") {
  // XLA's plane stats give memory_bandwidth 2.6624e12 B/s (SOURCES.md: 2.66e12);
  // the MI300X datasheet's 5.3e12 is what the predictions use.
  const roofline::Report r = report_of("tracelens/mi300x_jax08_gemm.xplane.pb");
  CHECK(r.chip == "mi300x");
  CHECK(has_note(r, "the trace reports a HBM bandwidth of 2.662 TB/s for /device:GPU:0; mi300x's is 5.300 TB/s, "
                    "which the predictions use"));
  CHECK_FALSE(has_note(r, "bf16 peak"));  // XLA's GPU planes give no peak FLOP/s
}
