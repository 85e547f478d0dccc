// The report from measurements (roofline/measure/measured.hpp): from a trace's
// events, from a measurement with the events dropped, and from many files
// each measured as it is read (read_measured) is one report, to the bit.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "roofline/match/group.hpp"
#include "roofline/match/match.hpp"
#include "roofline/measure/measured.hpp"
#include "roofline/measure/op_stats.hpp"
#include "roofline/report/render.hpp"
#include "roofline/trace/read.hpp"
#include "tests/test_support.hpp"

using namespace roofline;
using roofline::testing::fresh_temp_dir;
using roofline::testing::shared_real_dir;
using roofline::testing::test_data;
namespace fs = std::filesystem;

namespace {

std::string rendered(const absl::StatusOr<Report>& r) {
  if (!r.ok()) return std::string(r.status().message());  // the same error either way
  return render_json(*r) + render_text(*r, {.top = 1000});
}

// The inputs mix chips (an H100, a V100, a TPU, CPUs), which a report
// detecting its chip refuses (issue 38): these compare the measurement of
// many files with one read, so they cost every op on one chip, given.
ReportOptions options(std::optional<int> device_id) {
  return ReportOptions{.chip = &chip("h100-sxm"), .device_id = device_id};
}

// One read of all inputs, matched on its events (what `roofline report`
// did before it measured files one at a time).
std::string one_read(const std::vector<std::string>& in, std::optional<int> device_id) {
  auto t = read_traces(in, {.host_timelines = false});
  REQUIRE(t.ok());
  return rendered(make_report(*t, options(device_id)));
}

std::string measured(const std::vector<std::string>& in, std::optional<int> device_id, unsigned jobs) {
  auto r = read_measured(in, {.host_timelines = false, .jobs = jobs}, device_id);
  REQUIRE(r.ok());
  for (const Device& d : r->trace.devices) CHECK(d.events.empty());
  return rendered(make_report(r->trace, std::move(r->measured), options(device_id)));
}

// A GPU with one op line (stream 7) and no events yet.
Device one_stream_gpu() {
  Device d;
  d.name = "GPU 0";
  d.kind = DeviceKind::kGpu;
  d.lines.push_back(Line{.id = 7, .name = "stream 7", .role = LineRole::kOps});
  return d;
}

std::string example() { return roofline::testing::require_real("xprof/tpu_v6e_x4_inference_2.xplane.pb").string(); }

}  // namespace

TEST_CASE("measured: the report of many files measured one at a time is one read's, with 1 and 3 jobs") {
  const std::string kineto = test_data("trace/kineto_small.json").string();
  const std::vector<std::vector<std::string>> inputs = {
      {test_data("trace/jax_cpu8.xplane.pb").string(), example()},
      // kineto_small has host steps: its GPU is timed on them.
      {kineto, test_data("trace/tsl_tpu_nested.json").string(), test_data("trace/jax_cpu8.xplane.pb").string()},
      {test_data("trace/old_kineto_epoch.json").string(), test_data("trace/kineto_small.json.gz").string(),
       test_data("trace/jax_cpu8.trace.json.gz").string()},
      // One host name (the stem "kineto_small") on both files: read together.
      {kineto, test_data("trace/kineto_small.json.gz").string()},
      // The first device without steps (host jax_cpu8) is in a file without
      // host steps, the host steps in another: read together.
      {test_data("trace/jax_cpu8.trace.json.gz").string(), kineto},
      {kineto},
  };
  for (const auto& in : inputs) {
    INFO(in.front() << " + " << in.size() - 1 << " more");
    for (std::optional<int> device : {std::optional<int>{}, std::optional<int>{0}}) {
      const std::string expected = one_read(in, device);
      CHECK(measured(in, device, 1) == expected);
      CHECK(measured(in, device, 3) == expected);
    }
  }
}

TEST_CASE("measured: ranks with host steps, a pattern and a skipped file, as one read") {
  const fs::path root = roofline::testing::rank_folder("measured_test");  // and a config.json, skipped with a warning
  for (const std::vector<std::string>& in :
       {std::vector<std::string>{root.string()}, std::vector<std::string>{(root / "rank*").string()}}) {
    const std::string expected = one_read(in, std::nullopt);
    CHECK_THAT(expected, Catch::Contains("ProfilerStep"));
    CHECK(measured(in, std::nullopt, 2) == expected);
  }
}

TEST_CASE("measured: two files naming one host (the same stem in two folders) are read together") {
  // In one read each GPU is lent the host steps of both files (its own
  // host's): no file's measurement alone can say that. The A100 rank's GPU
  // has no steps of its own, and its host 5 ProfilerSteps.
  const fs::path rank = shared_real_dir() / "hta/a100-80gb_16rank_rank0.json.gz";
  if (!fs::exists(rank)) {
    std::printf("SKIPPED: %s is absent\n", rank.string().c_str());
    return;
  }
  const fs::path root = fresh_temp_dir("measured_test", "one_host");
  std::vector<std::string> in;
  for (const char* folder : {"a", "b"}) {
    fs::create_directories(root / folder);
    fs::copy_file(rank, root / folder / "host.pt.trace.json.gz");
    in.push_back((root / folder / "host.pt.trace.json.gz").string());
  }
  const std::string expected = one_read(in, std::nullopt);
  CHECK_THAT(expected, Catch::Contains("ProfilerStep"));
  CHECK(measured(in, std::nullopt, 2) == expected);
}

TEST_CASE("measured: real traces, alone and together, as one read") {
  std::vector<std::string> real;
  for (const char* p : {"hta/a100-80gb_16rank_rank0.json.gz", "hta/a100x2_resnet_ddp_nccl_data.json.gz",
                        "xprof/v100_tf_bert_multiworker.xplane.pb", "xprof/tpu_v6e_x4_inference_2.xplane.pb",
                        "tracelens/mi300x_jax08_attention.xplane.pb", "tracelens/mi300x_jax08_gemm.xplane.pb"})
    if (fs::exists(shared_real_dir() / p)) real.push_back((shared_real_dir() / p).string());
  if (real.size() < 6) {
    std::printf("SKIPPED: the real profiles are not all in %s\n", shared_real_dir().string().c_str());
    return;
  }
  for (const auto& in : std::vector<std::vector<std::string>>{
           {real[0], real[1]}, {real[2], real[3]}, {real[4], real[5]}, real, {real[2]}}) {
    INFO(in.front() << " + " << in.size() - 1 << " more");
    CHECK(measured(in, std::nullopt, 2) == one_read(in, std::nullopt));
  }
}

TEST_CASE("measured: each step's mix of ops, with overlapping steps, and the median of runs") {
  // One device, one op line, three events of two ops; steps [0,100) and
  // [50,300) overlap: an event starting at 60 is in both.
  Trace t;
  for (const char* name : {"a", "b"}) {
    OpInfo op;
    op.name = name;
    op.category = "kernel";
    t.ops.push_back(op);
  }
  Device d = one_stream_gpu();
  auto event = [](std::int64_t start_ps, std::int64_t self_ps, std::uint32_t op) {
    Event e;
    e.start_ps = start_ps;
    e.duration_ps = e.self_ps = self_ps;
    e.op = op;
    return e;
  };
  d.events = {event(10, 5, 0), event(60, 7, 1), event(200, 9, 0)};
  d.steps = {Step{.name = "1", .start_ps = 0, .duration_ps = 100}, Step{.name = "2", .start_ps = 50, .duration_ps = 250}};
  t.devices.push_back(d);
  const MeasuredTrace m = measure(t, std::nullopt);
  const MeasuredDevice& md = m.devices[0];
  CHECK(md.op_events);
  REQUIRE(md.ops.size() == 2);
  CHECK(md.ops[0].op == 0);
  CHECK(md.ops[0].count == 2);
  CHECK(md.ops[0].self_ps == 14);
  REQUIRE(md.steps.size() == 2);
  CHECK(md.steps[0].busy_ps == 5 + 7);  // a at 10, b at 60
  CHECK(md.steps[1].busy_ps == 7 + 9);  // b at 60, a at 200
  CHECK(md.step_mixes[md.steps[0].mix] == StepMix{{0, 1}, {1, 1}});
  CHECK(md.step_mixes[md.steps[1].mix] == StepMix{{0, 1}, {1, 1}});
  CHECK(md.step_mixes.size() == 1);  // the same mix, kept once
  CHECK_FALSE(md.timeline);          // its own steps: no timeline
  REQUIRE(md.stats);
  CHECK(md.stats->busy_s == Approx(21e-12));
  const OpGroups g = group_ops(t, m, std::vector<std::size_t>{0});
  REQUIRE(g.groups.size() == 2);
  CHECK(g.groups[0].median_s() == Approx(7e-12));  // (5 + 9) / 2
}

TEST_CASE("measured: an op's occurrences are split by call, calls interleaved, in order of first occurrence") {
  // One op from two calls and from none, the calls taking turns: each
  // (op, call) is one entry, however the events alternate.
  Trace t;
  OpInfo op;
  op.name = "aten::mm";
  op.category = "kernel";
  t.ops.push_back(op);
  t.ops.push_back(op);
  t.ops.back().name = "aten::add";
  for (const char* dims : {"[[8,8],[8,8]]", "[[16,8],[8,8]]"}) {
    CallInfo c;
    c.launcher = "aten::mm";
    c.input_dims = dims;
    t.calls.push_back(c);
  }
  Device d = one_stream_gpu();
  std::int64_t at = 0;
  auto event = [&](std::uint32_t op_index, std::uint32_t call, std::int64_t self_ps) {
    Event e;
    e.start_ps = at += 100;
    e.duration_ps = e.self_ps = self_ps;
    e.op = op_index;
    e.call = call;
    return e;
  };
  d.events = {event(0, 0, 1), event(0, 1, 2), event(0, 0, 4), event(0, kNoCall, 8), event(1, 1, 16), event(0, 1, 32)};
  t.devices.push_back(d);
  const MeasuredDevice md = measure(t, std::nullopt).devices[0];
  REQUIRE(md.ops.size() == 4);
  CHECK(md.ops[0].op == 0);
  CHECK(md.ops[0].call == 0);
  CHECK(md.ops[0].count == 2);
  CHECK(md.ops[0].self_ps == 1 + 4);
  CHECK(md.ops[1].call == 1);
  CHECK(md.ops[1].self_ps == 2 + 32);
  CHECK(md.ops[2].call == kNoCall);
  CHECK(md.ops[2].self_ps == 8);
  CHECK(md.ops[3].op == 1);
  CHECK(md.ops[3].call == 1);
  CHECK(md.ops[3].self_ps == 16);
}

TEST_CASE("measured: a device's statistics are the statistics pass's, to the bit, with totals past 2^53 ps too") {
  // measure() sums each op's self times as integers instead of sorting
  // them; below 2^53 ps that is the double sum the statistics make in
  // order, above it (5 + (2^53 + 1): the sum in order rounds to 2^53 + 4,
  // the integers give 2^53 + 6) it falls back to the sorted sum.
  auto device_with = [](std::vector<std::int64_t> self_ps) {
    Trace t;
    for (const char* name : {"a", "b"}) {
      OpInfo op;
      op.name = name;
      op.category = name;
      t.ops.push_back(op);
    }
    Device d = one_stream_gpu();
    std::int64_t at = 0;
    for (std::size_t i = 0; i < self_ps.size(); ++i) {
      Event e;
      e.start_ps = at;
      e.duration_ps = std::max<std::int64_t>(self_ps[i], 1);
      e.self_ps = self_ps[i];
      e.op = static_cast<std::uint32_t>(i % 2);
      at += e.duration_ps + 1;
      d.events.push_back(e);
    }
    t.devices.push_back(d);
    return t;
  };
  const std::int64_t big = (std::int64_t{1} << 53) + 1, huge = std::int64_t{1} << 60;
  // Op a gets the even places, b the odd ones. The last case: a negative
  // self time, whose sum in order (-2^60, then 2^60 + 5) rounds to 0.
  for (const auto& self_ps : {std::vector<std::int64_t>{5, 7, 9, 11}, std::vector<std::int64_t>{5, 3, big, 4},
                              std::vector<std::int64_t>{big, 3, 5, 4}, std::vector<std::int64_t>{-huge, 3, huge + 5, 4}}) {
    const Trace t = device_with(self_ps);
    const MeasuredTrace m = measure(t, std::nullopt);
    const TraceStats s = compute_op_stats(t);
    REQUIRE(m.devices[0].stats);
    REQUIRE(s.devices.size() == 1);
    const std::vector<CategoryStat>&x = m.devices[0].stats->categories, &y = s.devices[0].categories;
    REQUIRE(x.size() == y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      CHECK(x[i].category == y[i].category);
      CHECK(x[i].count == y[i].count);
      CHECK(x[i].total_s == y[i].total_s);  // to the bit
      CHECK(x[i].busy_s == y[i].busy_s);
    }
    CHECK(m.devices[0].stats->ops.empty());  // measure() makes no op rows
  }
  // The rounding the fallback is for: the sum in order is not the integers'.
  CHECK(5.0 + static_cast<double>(big) != static_cast<double>(5 + big));
  CHECK(-static_cast<double>(huge) + static_cast<double>(huge + 5) != 5.0);
}

TEST_CASE("measured: a measurement that is not the trace's is refused, not reported") {
  auto t = read_trace(test_data("trace/kineto_small.json").string());
  REQUIRE(t.ok());
  CHECK_THAT(rendered(make_report(*t, measure(*t, 0), ReportOptions{})), Catch::Contains("another selection"));
  MeasuredTrace m = measure(*t, std::nullopt);
  std::size_t gpu = 0;
  while (!m.devices[gpu].op_events) ++gpu;
  m.devices[gpu].ops.front().op = static_cast<std::uint32_t>(t->ops.size());  // past the trace's ops
  CHECK_THAT(rendered(make_report(*t, std::move(m), ReportOptions{})),
             Catch::Contains("is not this trace's for all devices") && Catch::Contains("outside the trace's"));
  MeasuredTrace no_stats = measure(*t, std::nullopt);
  no_stats.devices[gpu].stats.reset();
  CHECK_THAT(rendered(make_report(*t, std::move(no_stats), ReportOptions{})), Catch::Contains("has no statistics"));
}
