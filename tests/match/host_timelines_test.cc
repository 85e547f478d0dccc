// The report reads no host timeline: `roofline report` drops them as each
// file is read (TraceReadOptions::host_timelines = false), so that many
// files never hold their host threads together. Its output must not move.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "roofline/match/match.hpp"
#include "roofline/report/render.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

using namespace roofline;
using roofline::testing::shared_real_dir;
using roofline::testing::test_data;

namespace {

std::string report_json(const std::string& path, bool host_timelines) {
  auto t = read_trace(path, {.host_timelines = host_timelines});
  REQUIRE(t.ok());
  CHECK((host_timelines || t->hosts.empty()));
  auto r = make_report(*t, ReportOptions{});
  if (!r.ok()) return std::string(r.status().message());  // the same error either way
  return render_json(*r) + render_text(*r, {.top = 1000});
}

}  // namespace

TEST_CASE("report: the same with and without the host timelines") {
  std::vector<std::string> paths = {
      test_data("trace/kineto_small.json").string(), test_data("trace/old_kineto_epoch.json").string(),
      test_data("trace/jax_cpu8.xplane.pb").string(), test_data("trace/jax_cpu8.trace.json.gz").string(),
      roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string()};
  // The real GPU traces too, when they are beside the checkout (host
  // threads are most of a PyTorch trace).
  for (const char* real : {"hta/a100-80gb_16rank_rank0.json.gz", "hta/a100x2_resnet_ddp_nccl_data.json.gz",
                           "kineto/v100_resnet50_worker0.pt.trace.json.gz", "xprof/v100_tf_bert_multiworker.xplane.pb",
                           "tracelens/mi300x_jax08_attention.xplane.pb"})
    if (std::filesystem::exists(shared_real_dir() / real)) paths.push_back((shared_real_dir() / real).string());
  for (const std::string& p : paths) {
    INFO(p);
    CHECK(report_json(p, false) == report_json(p, true));
  }
}
