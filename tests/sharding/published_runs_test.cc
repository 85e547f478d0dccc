// The training-step model against published training runs
// (tests/data/published_runs.json; sources and conversions in
// docs/planner_validation.md). Issue 12's targets: the bound MFU is never
// below the measured one (held for every case); the expected MFU within
// +-15% (relative) of the measured one in at least 80% of the cases, and the
// practitioner's layout among the planner's top three or within 5% of its
// best expected step time in at least 80% of the cases (neither is met
// today: the tests hold today's figures as floors and print the distance).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "roofline/chip.hpp"
#include "tests/sharding/published_runs.hpp"
#include "tests/sharding/published_runs_tables.hpp"
#include "tests/test_support.hpp"

using roofline::testing::PublishedRun;
using roofline::testing::PublishedRunRow;

namespace {

const std::vector<PublishedRun>& runs() {
  static const std::vector<PublishedRun> loaded = [] {
    auto r = roofline::testing::load_published_runs(roofline::testing::test_data("published_runs.json").string());
    if (!r.ok()) FAIL(std::string(r.status().message()));
    return *r;
  }();
  return loaded;
}

const std::vector<PublishedRunRow>& rows() {
  static const std::vector<PublishedRunRow> evaluated = [] {
    std::vector<PublishedRunRow> out;
    for (const PublishedRun& run : runs()) {
      auto row = roofline::testing::evaluate(run);
      INFO(run.name);
      if (!row.ok()) FAIL(std::string(row.status().message()));
      out.push_back(*row);
    }
    return out;
  }();
  return evaluated;
}

}  // namespace

TEST_CASE("published runs: every case reads, and its figures agree with themselves") {
  REQUIRE(runs().size() >= 15);
  for (const PublishedRun& r : runs()) {
    INFO(r.name << " (" << r.source << ")");
    CHECK(r.batch_tokens % r.model.seq_len == 0);
    if (r.convention == roofline::testing::FlopConvention::kTokens) {
      // Tokens/s rows (MaxText's tiering page) give an approximate rate and
      // an MFU under an unstated count: they agree with our MFU within 8%
      // (the full- against the causal-attention count at 8192 tokens is 7%).
      REQUIRE(r.reported_mfu);
      CHECK(roofline::testing::measured_mfu(r, roofline::chip(r.chip)) == Approx(*r.reported_mfu).epsilon(0.08));
      continue;
    }
    // A row that gives TFLOP/s alone (MaxText's A3 table) has no MFU to
    // agree with (the A3 test case below checks its conversion by hand).
    if (!r.reported_mfu) continue;
    // The published MFU is the published TFLOP/s over the publisher's peak,
    // rounded in the table (v4 rows to 0.1 point).
    CHECK(r.tflops_per_chip * 1e12 / r.reported_peak_flops_per_s == Approx(*r.reported_mfu).epsilon(0.005));
    // ...and that peak is the one our chip spec holds for the compute dtype.
    CHECK(r.reported_peak_flops_per_s == roofline::chip(r.chip).peak_flops_per_s_for(r.dtypes.compute));
  }
}

TEST_CASE("published runs: the FLOP conversion follows the publisher's count") {
  // 22B on 1x v4-128 (MaxText README, 2023-04): 156 TFLOP/s/chip counted as
  // 6 x N x tokens only. Matmul params 48 x (2 x 6144 x 24576 + 4 x 6144 x
  // 24 x 256) + 32768 x 6144 (tied) = 21,944,598,528; N adds the norm
  // scales 48 x 2 x 6144 + 6144: 21,945,194,496. tokens = 16 x 64 x 1024 =
  // 1,048,576, so the step is 6 N tokens / 64 / 156e12 = 13.83 s. Ours is 6 x
  // the matmul params x tokens plus the causal attention 6 x 48 x tokens x
  // 1024 x 24 x 256: 1.3996e20 against MaxText's 1.3807e20 (x1.0137).
  const PublishedRun* r = nullptr;
  for (const PublishedRun& x : runs())
    if (x.name == "maxtext-v4-22b-1x-v4-128") r = &x;
  REQUIRE(r != nullptr);
  CHECK(roofline::matmul_params(r->model) == 21944598528.0);
  CHECK(roofline::total_params(r->model) == 21945194496.0);
  const double maxtext_flops = 6.0 * 21945194496.0 * 1048576.0;
  CHECK(roofline::testing::published_step_flops(*r) == Approx(maxtext_flops));
  CHECK(roofline::testing::measured_step_time_s(*r) == Approx(maxtext_flops / 64 / 156e12));
  const double ours = 6.0 * 21944598528.0 * 1048576.0 + 6.0 * 48 * 1048576.0 * 1024 * 24 * 256;
  CHECK(roofline::testing::measured_mfu(*r, roofline::chip("tpu-v4")) ==
        Approx(ours / maxtext_flops * 156e12 / 2.75e14));
}

TEST_CASE("published runs: a TFLOP/s row without an MFU converts by its own count (A3 H100)") {
  // Llama2-7B on 1x A3 (MaxText configs/a3/llama_2_7b/README.md, 2024-04):
  // 492 TFLOP/s per chip, counted by maxtext_utils.py of that commit as
  // 6 x N x seq x per-device batch + 12 x heads x layers x head_dim x seq^2
  // x per-device batch / 2. N = 32 x (4 x 4096^2 + 3 x 4096 x 11008 + 2 x
  // 4096) + 2 x 32000 x 4096 + 4096 = 6,738,415,616 (untied embedding and
  // unembedding, norm scales). Per chip: 6 N x 4 x 4096 = 6.6242e14, plus
  // 12 x 32 x 32 x 128 x 4096^2 x 4 / 2 = 5.2776e13: 1.454 s a step.
  const PublishedRun* r = nullptr;
  for (const PublishedRun& x : runs())
    if (x.name == "maxtext-a3-llama2-7b-1x-h100-8") r = &x;
  REQUIRE(r != nullptr);
  CHECK_FALSE(r->reported_mfu);
  CHECK(roofline::total_params(r->model) == 6738415616.0);
  const double per_chip = 6.0 * 6738415616.0 * 4 * 4096 + 12.0 * 32 * 32 * 128 * 4096.0 * 4096 * 4 / 2;
  CHECK(roofline::testing::measured_step_time_s(*r) == Approx(per_chip / 492e12));
  // The run's machines (A3 High: 1,000 Gbps for 8 GPUs) replace the spec's
  // 400 Gbps a GPU, and the mesh takes the node as its NVLink domain.
  const roofline::Chip c = roofline::testing::run_chip(*r, roofline::chip("h100-sxm"));
  CHECK(c.dcn_bytes_per_s == 1.25e11 / 8);
  CHECK(roofline::testing::slice_to_lay(*r, c).empty());
  // ...and the step's collectives across the VMs take that rate: the
  // gradient all-reduce over 2 VMs (the step's collectives on 2 VMs less
  // those on one) takes 5e10 / 1.5625e10 = 3.2 times as long as it would on
  // the spec's network (no DCN latency on either).
  const PublishedRun* two = nullptr;
  for (const PublishedRun& x : runs())
    if (x.name == "maxtext-a3-llama2-7b-2x-h100-8") two = &x;
  REQUIRE(two != nullptr);
  PublishedRun on_spec = *two;
  on_spec.dcn_bytes_per_s.reset();
  auto one_vm = roofline::testing::evaluate(*r);
  auto two_vms = roofline::testing::evaluate(*two);
  auto two_on_spec = roofline::testing::evaluate(on_spec);
  REQUIRE(one_vm.ok());
  REQUIRE(two_vms.ok());
  REQUIRE(two_on_spec.ok());
  const double dcn_s = two_vms->model_ici_s - one_vm->model_ici_s;
  const double dcn_spec_s = two_on_spec->model_ici_s - one_vm->model_ici_s;
  CHECK(dcn_s > 0.1);
  CHECK(dcn_s / dcn_spec_s == Approx(5e10 / 1.5625e10));
}

TEST_CASE("published runs: the bound MFU is never below the measured MFU") {
  for (const PublishedRunRow& r : rows()) {
    INFO(r.name << ": measured " << r.measured_mfu << ", bound " << r.bound_mfu << ", no-overlap "
                << r.no_overlap_mfu);
    // Every mesh is laid on the run's physical slice (make_mesh honours it;
    // a GPU run's node is its NVLink domain, laid without a shape).
    CHECK(roofline::testing::laid_on_run_shape(r));
    CHECK(r.bound_mfu >= r.measured_mfu);
    // The no-overlap MFU (every term one after another, at the uncalibrated
    // rates) lies at or below the bound. It is not below the expected MFU
    // everywhere: the expected time's calibrated efficiencies can cost more
    // than giving up the overlap (the v5p minimal runs).
    CHECK(r.no_overlap_mfu <= r.bound_mfu);
  }
}

// Issue 12's target is 80% of the cases within +-15%. The model is not
// tuned to these runs, so the target stays unmet; the count measured when
// this was written (18 of 37: none of the five A3 H100 runs is within,
// 1.51-1.98; 18 of 32 before them: v6e Llama 2 70B, added with offload-qkv, is
// not within; 18 of 31 since the remat recompute and its collectives
// follow XLA's program, scripts/remat_collectives.py; 17 before; 15 with
// flash attention for all, docs/planner_validation.md) is held as a floor,
// so that a change to the model that loses agreement fails here.
TEST_CASE("published runs: the expected MFU against the measured (regression floor; the 80% target is not met)") {
  for (const PublishedRunRow& r : rows()) {
    INFO(r.name);
    // The expected step time is modelled for every case and never below the
    // lower bound.
    REQUIRE(r.expected_s > 0);
    CHECK(r.expected_s >= r.bound_s);
    CHECK(r.expected_mfu <= r.bound_mfu);
  }
  const roofline::testing::PublishedRunCounts c = roofline::testing::count(rows());
  const int within = c.expected_within, n = c.cases, target = c.target();
  std::printf("expected MFU within +-15%% of measured: %d of %d (%.0f%%); issue 12's target 80%% (%d of %d) is %s\n",
              within, n, 100.0 * within / n, target, n,
              within >= target ? "met" : ("not met, short by " + std::to_string(target - within)).c_str());
  CHECK(within >= 18);
}

// Issue 12: "the practitioner's layout among the planner's top three, or
// within 5% of the best expected step time, in at least 80% of cases". The
// planner gets what a practitioner fixes (model, chip, chips, batch, dtypes,
// slices, physical slice shape) and, first, the run's remat policy; then
// with remat free. The run's layout is found among the ranked by the ways
// of each role on ICI and DCN (LayoutShape), not by axis names. A layout
// the planner does not rank (over HBM in the model) does not count as met.
TEST_CASE("published runs: the planner's rank of the published layout (regression floor; the 80% target is not met)") {
  for (const PublishedRunRow& r : rows()) {
    const roofline::testing::PlannerPlacing& p = r.placing;
    const roofline::testing::PlannerPlacing& f = r.placing_free;
    INFO(r.name << ": " << p.not_ranked_why);
    // The planner ranks something for every run and puts first no candidate
    // it expects slower than a ranked run layout; with remat free its best
    // is at least as fast as with the run's policy.
    CHECK(p.ranked > 0);
    if (p.rank > 0) CHECK(p.gap >= -1e-12);
    CHECK(f.gap >= p.gap - 1e-12);
    // A layout the model fits is one the planner enumerates and ranks.
    if (r.fits) CHECK(p.rank > 0);
  }
  const roofline::testing::PublishedRunCounts c = roofline::testing::count(rows());
  const int met = c.planner_met, met_free = c.planner_met_free, ranked = c.ranked, n = c.cases, target = c.target();
  std::printf("published layout in the planner's top 3 or within 5%% of its best: %d of %d (%.0f%%) with the run's "
              "remat, %d of %d remat free; %d ranked; issue 12's target 80%% (%d of %d) is %s\n",
              met, n, 100.0 * met / n, met_free, n, ranked, target, n,
              met >= target ? "met" : ("not met, short by " + std::to_string(target - met)).c_str());
  // Measured (docs/planner_validation.md): 18 of 37 with the run's remat,
  // 9 of 37 remat free, since the five A3 H100 runs (all met, both ways:
  // FSDP over the node, first or second, at most 2.3% from the best) and
  // minimal-with-context (v5p Llama 2 70B, remat free, drops from 3rd to
  // 4th and 5.4% from the best: 10 of 37 before it). Before the A3 runs,
  // 13 of 32 with the run's remat
  // (the FSDP-only full-remat v4 and v5e runs, v5p Llama 2 70B once its
  // save_dot_except_mlpwi was modelled, and v6e Llama 2 70B, which ran
  // offload-qkv), 5 of 32 with remat free (7 of 31 before offload-qkv was a
  // policy: the planner now prefers it to full for six of the FSDP-only v4
  // and v5e runs, 4.9-6.4% less step time in the model, and three of those
  // lose their place; 8 while `none` was charged the gathered block inputs
  // with TP, which kept more of its layouts out). Held as floors.
  CHECK(met >= 18);
  CHECK(met_free >= 9);
}

// The tables docs/planner_validation.md shows, each as a generated block:
// scripts/docs_sync.py runs this test case and checks the page against
// them (CTest "docs in sync: planner_validation.md"). The counts in the
// targets table are the ones the floors above hold.
TEST_CASE("published runs: the tables of docs/planner_validation.md") {
  using roofline::testing::docs_block;
  const roofline::testing::PublishedRunCounts c = roofline::testing::count(rows());
  REQUIRE(c.cases == static_cast<int>(rows().size()));
  CHECK(c.bound_ratio_min <= c.bound_ratio_max);
  // Three targets; a not-ranked line for each run layout not ranked.
  const std::string targets = roofline::testing::targets_table(rows());
  CHECK(std::count(targets.begin(), targets.end(), '\n') == 2 + 3);
  const std::string not_ranked = roofline::testing::not_ranked_list(rows());
  CHECK(std::count(not_ranked.begin(), not_ranked.end(), '\n') == c.cases - c.ranked);
  const std::string terms = roofline::testing::terms_table(rows());
  CHECK(std::count(terms.begin(), terms.end(), '\n') == 2 + c.cases);
  std::printf("%s\n%s\n%s\n%s\n%s", docs_block("published-runs-targets", targets).c_str(),
              docs_block("published-runs-table", roofline::testing::markdown_table(rows())).c_str(),
              docs_block("published-runs-remat-free", roofline::testing::remat_free_table(rows())).c_str(),
              docs_block("published-runs-not-ranked", not_ranked).c_str(),
              docs_block("published-runs-terms", terms).c_str());
}

TEST_CASE("published runs: a bad case is refused with the file and the place") {
  const auto path = std::filesystem::temp_directory_path() / "roofline_published_runs_bad.json";
  {
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(roofline::testing::test_data("published_runs.json")));
    doc["cases"][1]["remat"] = "sometimes";
    std::ofstream(path) << doc.dump();
  }
  auto bad = roofline::testing::load_published_runs(path.string());
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(std::string(bad.status().message()),
             Catch::Contains(path.string() + ": /cases/1/remat: unknown policy 'sometimes'"));
  {
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(roofline::testing::test_data("published_runs.json")));
    doc["cases"][2]["model"].erase("d_ff");
    std::ofstream(path) << doc.dump();
  }
  bad = roofline::testing::load_published_runs(path.string());
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(std::string(bad.status().message()), Catch::Contains("/cases/2/model"));
  {
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(roofline::testing::test_data("published_runs.json")));
    doc["cases"][3]["attention"]["kernel"] = "mha";
    std::ofstream(path) << doc.dump();
  }
  bad = roofline::testing::load_published_runs(path.string());
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(std::string(bad.status().message()),
             Catch::Contains(path.string() + ": /cases/3/attention/kernel: unknown kernel 'mha'"));
  std::filesystem::remove(path);
}
