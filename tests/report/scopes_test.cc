// report --by scope: each op's scope from its name stack, the tree's
// totals, every format, and the CLI.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/chip_io.hpp"
#include "roofline/match/match.hpp"
#include "roofline/match/scope.hpp"
#include "roofline/report/scopes.hpp"
#include "roofline/trace/read.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using roofline::testing::run_cli;

namespace {

roofline::Report fixture_report(const std::string& name, const char* chip_name) {
  auto trace = roofline::read_trace(roofline::testing::test_data(name).string());
  REQUIRE(trace.ok());
  auto chip = roofline::find_chip(chip_name);
  REQUIRE(chip.ok());
  roofline::ReportOptions options;
  options.chip = *chip;
  auto r = roofline::make_report(*trace, options);
  REQUIRE(r.ok());
  return *std::move(r);
}

roofline::Report diff_fixture_report() { return fixture_report("diff/before.xplane.pb.gz", "h100-sxm"); }

const roofline::OpReport& op_named(const roofline::Report& r, const std::string& name) {
  for (const roofline::OpReport& o : r.ops)
    if (o.name == name) return o;
  FAIL("no op " << name);
  return r.ops.front();
}

roofline::OpReport scoped_op(std::string name, std::string scope, double measured_s, double predicted_s) {
  roofline::OpReport o;
  o.name = std::move(name);
  o.scope = std::move(scope);
  if (!o.scope.empty()) o.scope_source = "framework op";
  o.count = 1;
  o.measured_s = measured_s;
  o.predicted = predicted_s > 0;
  o.prediction.t_lower_s = predicted_s;
  o.expected_s = 2 * predicted_s;
  o.prediction.flops = predicted_s * 1e12;
  return o;
}

}  // namespace

TEST_CASE("scope: a jax name stack without the primitive, jit boundaries and transformations") {
  using roofline::scope_from_name_stack;
  CHECK(scope_from_name_stack("jit(step)/jvp(block)/mlp/dot_general") == "block/mlp");
  // The backward pass of the same layer lands in the same scope.
  CHECK(scope_from_name_stack("jit(step)/transpose(jvp(block))/mlp/dot_general") == "block/mlp");
  CHECK(scope_from_name_stack("jit(train_step)/jit(main)/Encoder_0/MlpBlock_3/Dense_0/dot_general") ==
        "Encoder_0/MlpBlock_3/Dense_0");
  CHECK(scope_from_name_stack("jit(_threefry_split)/while/body/closed_call/add") == "while/body");
  CHECK(scope_from_name_stack("pjit(f)/vmap(layer)/remat/checkpoint/mul") == "layer");
  // Only the primitive, or only boundaries: no scope.
  CHECK(scope_from_name_stack("jit(f)/jit(main)/add").empty());
  CHECK(scope_from_name_stack("add").empty());
  CHECK(scope_from_name_stack("").empty());
  CHECK(scope_from_name_stack("//a//b/op") == "a/b");
  // A TensorFlow op name: its name scopes.
  CHECK(scope_from_name_stack("model/dense_1/MatMul") == "model/dense_1");
  // A TF op "name:type" and a PyTorch/XLA op_name (scopes with their ".N").
  CHECK(scope_from_name_stack("model/dense_1/MatMul:MatMul") == "model/dense_1");
  CHECK(scope_from_name_stack("train_step.1/fwd.1/mlp.1/aten__mm") == "train_step.1/fwd.1/mlp.1");
}

TEST_CASE("scope: the matmuls of the diff fixture run in block/mlp") {
  // tests/data/diff: jax 0.10.2 on CPU, the MLP's matmuls in jax.named_scope("block") / ("mlp").
  // XLA:CPU's ops carry no tf_op: the scope is the embedded HLO's op_name,
  // "jit(step)/jvp(block)/mlp/dot_general" and its transpose in the backward pass.
  const roofline::Report r = diff_fixture_report();
  int matmuls = 0;
  for (const roofline::OpReport& o : r.ops) {
    if (o.hlo_category != "matmul") continue;
    ++matmuls;
    CHECK(o.scope == "block/mlp");
    CHECK(o.scope_source == roofline::kScopeFromHloMetadata);
  }
  CHECK(matmuls == 5);  // ynn_fusion, .1, .2, dot, dot.1: forward and backward
}

TEST_CASE("scope: a PyTorch/XLA-style profile's xp.Trace scopes, from the ops' tf_op") {
  // tests/data/trace/torch_xla_scopes.README: op_name "train_step.1/fwd.1/mlp.1/aten__mm" (XLA_HLO_DEBUG=1).
  const roofline::Report r = fixture_report("trace/torch_xla_scopes.json", "tpu-v5e");
  CHECK(op_named(r, "fusion.1").scope == "train_step.1/fwd.1/mlp.1");
  CHECK(op_named(r, "fusion.1").scope_source == "framework op");
  CHECK(op_named(r, "fusion.3").scope == "train_step.1/bwd.2/mlp.1");
  CHECK(op_named(r, "all-reduce.4").scope == "train_step.1");
  CHECK(op_named(r, "copy.5").scope.empty());
  CHECK(op_named(r, "copy.5").scope_source.empty());
  const roofline::ScopeTree t = roofline::scope_tree(r, 2);
  REQUIRE(t.root.children.size() == 2);
  const roofline::ScopeNode& step = t.root.children[0];
  CHECK(step.path == "train_step.1");
  CHECK(step.ops == 4);
  CHECK(step.measured_s == Approx(150e-6));  // 40 + 10 + 80 + 20 us
  REQUIRE(step.children.size() == 2);
  CHECK(step.children[0].path == "train_step.1/bwd.2");  // 80 us, before fwd's 50
  CHECK(step.children[0].measured_s == Approx(80e-6));
  CHECK(step.children[1].path == "train_step.1/fwd.1");
  CHECK(step.children[1].children.empty());  // mlp.1 folded at depth 2
  CHECK(t.root.children[1].unscoped);
  CHECK(t.root.children[1].measured_s == Approx(5e-6));
}

TEST_CASE("scope tree: totals equal the report's, to every depth") {
  const roofline::Report r = diff_fixture_report();
  double ops_measured_s = 0;
  for (const roofline::OpReport& o : r.ops) ops_measured_s += o.measured_s;
  for (int depth : {1, 2, 3, 8}) {
    const roofline::ScopeTree t = roofline::scope_tree(r, depth);
    CHECK(t.root.ops == static_cast<std::int64_t>(r.ops.size()));
    CHECK(t.root.measured_s == Approx(ops_measured_s));
    CHECK(t.root.predicted_s == Approx(r.summary.predicted_s));
    CHECK(t.root.expected_s == Approx(r.summary.expected_s));
    double top_measured_s = 0, top_predicted_s = 0;
    std::int64_t top_ops = 0;
    for (const roofline::ScopeNode& c : t.root.children) {
      top_measured_s += c.measured_s;
      top_predicted_s += c.predicted_s;
      top_ops += c.ops;
    }
    CHECK(top_measured_s == Approx(t.root.measured_s));
    CHECK(top_predicted_s == Approx(r.summary.predicted_s));
    CHECK(top_ops == t.root.ops);
  }
  const roofline::ScopeTree t = roofline::scope_tree(r, 1);
  REQUIRE(!t.root.children.empty());
  bool block = false;
  for (const roofline::ScopeNode& c : t.root.children) {
    CHECK(c.children.empty());  // folded at depth 1
    if (c.path == "block") block = true;
  }
  CHECK(block);
}

TEST_CASE("scope tree: nesting, folding, unscoped ops last and MFU over the wall span") {
  roofline::Report r;
  r.summary.wall_s = 1;
  r.peak_flops_per_s = 1e13;
  r.ops = {scoped_op("a", "enc/l0/attn", 3, 1), scoped_op("b", "enc/l0/mlp", 2, 1), scoped_op("c", "enc/l1/mlp", 1, 0.5),
           scoped_op("d", "", 10, 0), scoped_op("e", "(no scope)", 0.5, 0)};
  const roofline::ScopeTree t = roofline::scope_tree(r, 2);
  REQUIRE(t.root.children.size() == 3);
  CHECK(t.root.children[0].path == "enc");
  CHECK(t.root.children[0].measured_s == 6);
  CHECK(t.root.children[0].predicted_s == 2.5);
  CHECK(t.root.children[0].mfu == Approx(2.5e12 / 1e13));
  REQUIRE(t.root.children[0].children.size() == 2);
  CHECK(t.root.children[0].children[0].path == "enc/l0");
  CHECK(t.root.children[0].children[0].children.empty());  // depth 2 folds attn and mlp into l0
  // A scope a user named "(no scope)" stays apart from the ops without one, which come last.
  CHECK(t.root.children[1].path == "(no scope)");
  CHECK_FALSE(t.root.children[1].unscoped);
  CHECK(t.root.children[2].unscoped);
  CHECK(t.root.children[2].measured_s == 10);
  CHECK(t.root.children[2].share == Approx(10 / 16.5));
  CHECK(t.notes.empty());
  // Without any scope, the tree says why that may be.
  for (roofline::OpReport& o : r.ops) o.scope.clear();
  const roofline::ScopeTree none = roofline::scope_tree(r, 2);
  REQUIRE(none.root.children.size() == 1);
  REQUIRE(none.notes.size() == 1);
  CHECK_THAT(none.notes[0], Catch::Contains("eager PyTorch kernels"));
  CHECK_THAT(roofline::render_scopes(r, roofline::ReportFormat::kText), Catch::Contains("note: no op carries a scope"));
}

TEST_CASE("scope tree: every format renders, JSON and CSV parse, HTML escapes names") {
  roofline::Report r;
  r.trace_path = "t<1>.json";
  r.summary.wall_s = 1;
  r.peak_flops_per_s = 1e13;
  r.ops = {scoped_op("a", "<img src=x onerror=alert('x')>/l0", 3, 1), scoped_op("b", "enc/\x1b[31mred", 1, 0)};
  using F = roofline::ReportFormat;
  const std::string html = roofline::render_scopes(r, F::kHtml);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("&lt;img src=x onerror=alert(&#39;x&#39;)&gt;") != std::string::npos);
  CHECK(html.find('\x1b') == std::string::npos);
  CHECK(html.find("<details open>") != std::string::npos);
  CHECK(html.find("<p>By scope: t&lt;1&gt;.json on") != std::string::npos);
  CHECK(html.find("\\x0a") == std::string::npos);
  const std::string text = roofline::render_scopes(r, F::kText);
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find("  l0") != std::string::npos);  // indented under its parent
  CHECK(roofline::render_scopes(r, F::kMarkdown).find("| enc/\\x1b[31mred |") != std::string::npos);
  const auto j = nlohmann::json::parse(roofline::render_scopes(r, F::kJson));
  CHECK(j["scopes"]["ops"] == 2);
  CHECK(j["scopes"]["children"][0]["name"] == "<img src=x onerror=alert('x')>");
  CHECK(j["scopes"]["children"][0]["children"][0]["path"] == "<img src=x onerror=alert('x')>/l0");
  const std::string csv = roofline::render_scopes(r, F::kCsv);
  CHECK(csv.rfind("path,name,level,", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);  // header + 4 scopes
}

TEST_CASE("report --by scope on a jax profile, in every format") {
  const std::string trace = roofline::testing::test_data("diff/before.xplane.pb.gz").string();
  const auto text = run_cli("report '" + trace + "' --chip h100-sxm --by scope --depth 2");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("block") != std::string::npos);
  CHECK(text.out.find("  mlp") != std::string::npos);
  CHECK(text.out.find("hlo metadata") != std::string::npos);
  const auto json = run_cli("report '" + trace + "' --chip h100-sxm --by scope --format json");
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["depth"] == 3);
  for (const char* f : {"md", "csv", "html"})
    CHECK(run_cli("report '" + trace + "' --chip h100-sxm --by scope --format " + f).exit_code == 0);
  // The op report's rows name each op's scope.
  const auto ops = nlohmann::json::parse(run_cli("report '" + trace + "' --chip h100-sxm --format json").out);
  bool mlp = false;
  for (const auto& o : ops["ops"]) mlp = mlp || o["scope"].get<std::string>().find("block/mlp") != std::string::npos;
  CHECK(mlp);
  // Eager PyTorch: every kernel unscoped, and the note says why.
  const auto kineto = run_cli("report '" + roofline::testing::test_data("trace/kineto_small.json").string() +
                              "' --by scope --format json");
  REQUIRE(kineto.exit_code == 0);
  const auto k = nlohmann::json::parse(kineto.out);
  CHECK(k["scopes"]["children"].size() == 1);
  CHECK(k["scopes"]["children"][0]["unscoped"] == true);
  CHECK(k["notes"].size() == 1);
  CHECK(run_cli("report '" + trace + "' --by scope --depth 0").exit_code == 2);
  CHECK(run_cli("report '" + trace + "' --by layer").exit_code == 2);
  CHECK(run_cli("report '" + trace + "' --depth 2").exit_code == 2);
}
