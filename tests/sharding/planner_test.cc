// Model configs and the planner.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/planner.hpp"
#include "roofline/report/plan.hpp"
#include "src/sharding/planner_detail.hpp"

using roofline::chip;

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("model config: built-in LLaMA-3 shapes") {
  const auto* m = roofline::find_builtin_model("llama-3-70b");
  REQUIRE(m != nullptr);
  // Meta's config.json: hidden 8192, intermediate 28672, 80 layers, 64 heads, 8 kv heads, vocab 128256.
  CHECK(m->d_model == 8192);
  CHECK(m->d_ff == 28672);
  CHECK(m->layers == 80);
  CHECK(m->heads == 64);
  CHECK(m->kv_heads == 8);
  CHECK(m->head_dim == 128);
  CHECK(m->vocab == 128256);
  CHECK(roofline::find_builtin_model("llama-3-8b") != nullptr);
  CHECK(roofline::find_builtin_model("gpt-5") == nullptr);
}

TEST_CASE("model config: JSON reads every field and names the bad one") {
  auto m = roofline::parse_model_config(
      R"({"name": "tiny", "layers": 4, "d_model": 512, "d_ff": 2048, "heads": 8, "kv_heads": 2,
          "head_dim": 64, "vocab": 32000, "seq_len": 2048, "mlp": "plain", "tied_embeddings": true})",
      "tiny.json");
  REQUIRE(m.ok());
  CHECK(m->name == "tiny");
  CHECK(m->mlp == roofline::MlpKind::kPlain);
  CHECK(m->tied_embeddings);
  CHECK(m->kv_heads == 2);
  auto err = [](const char* text) {
    auto r = roofline::parse_model_config(text, "m.json");
    REQUIRE_FALSE(r.ok());
    return std::string(r.status().message());
  };
  const char* base = R"("layers": 4, "d_model": 512, "heads": 8, "head_dim": 64, "vocab": 32000, "seq_len": 2048)";
  CHECK(err((std::string("{") + base + "}").c_str()) == "m.json: /d_ff: missing");
  CHECK(err((std::string("{") + base + R"(, "d_ff": -1})").c_str()) == "m.json: /d_ff: expected a positive integer");
  CHECK(err((std::string("{") + base + R"(, "d_ff": 2048, "mlp": "moe"})").c_str()) ==
        "m.json: /mlp: expected \"gated\" or \"plain\"");
  CHECK(err((std::string("{") + base + R"(, "d_ff": 2048, "kv_heads": 3})").c_str()) ==
        "m.json: /kv_heads: 3 must divide heads (8)");
  CHECK(err((std::string("{") + base + R"(, "d_ff": 2048, "experts": 8})").c_str()) ==
        "m.json: /experts: unknown field");
  CHECK(contains(err("{"), "m.json: byte"));
  auto unknown = roofline::resolve_model("llama-9");
  REQUIRE_FALSE(unknown.ok());
  CHECK(contains(std::string(unknown.status().message()), "built in: llama-3-8b, llama-3-70b"));
}

namespace {

roofline::PlanRequest request(const char* model, const char* chip_name, int chips, std::int64_t batch_tokens) {
  return {.model = *roofline::find_builtin_model(model),
          .chip = chip(chip_name),
          .chips = chips,
          .batch_tokens = batch_tokens};
}

bool has_dcn_axis(const std::vector<roofline::MeshAxis>& axes) {
  return std::any_of(axes.begin(), axes.end(),
                     [](const roofline::MeshAxis& a) { return a.network == roofline::AxisNetwork::kDcn; });
}

}  // namespace

TEST_CASE("planner: LLaMA-3-70B over 256 v5p chips ranks thousands of candidates in well under a second") {
  const roofline::PlanRequest req = request("llama-3-70b", "tpu-v5p", 256, 512 * 8192);
  const auto start = std::chrono::steady_clock::now();
  auto plan = roofline::plan_training(req);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(plan.ok());
  CHECK(seconds < 1.0);
  CHECK(plan->considered >= 1000);
  CHECK(plan->considered == static_cast<int>(plan->ranked.size() + plan->rejected.size()));
  CHECK(plan->evaluated == plan->rejected_memory + static_cast<int>(plan->ranked.size()));
  CHECK(plan->rejected_memory + plan->rejected_constraint + plan->rejected_shape ==
        static_cast<int>(plan->rejected.size()));
  REQUIRE_FALSE(plan->ranked.empty());
  for (std::size_t i = 0; i < plan->ranked.size(); ++i) {
    const auto& c = plan->ranked[i];
    CHECK(c.step.memory.fits);
    CHECK(c.step.chips == 256);
    CHECK(c.mesh.device_count() == 256);
    if (i > 0) {
      CHECK(roofline::ranking_time_s(plan->ranked[i - 1].step) <= roofline::ranking_time_s(c.step));
      CHECK_FALSE(roofline::plan_order(c, plan->ranked[i - 1]));
    }
  }
  // 256 chips are one v5p slice (the pod holds 8960): no DCN axis anywhere.
  CHECK(plan->slices == 1);
  for (const auto& c : plan->ranked) CHECK_FALSE(has_dcn_axis(c.mesh.axes));
  // Some layouts (pure data parallelism: 70.6e9 x >= 12 bytes per chip) cannot fit.
  CHECK(plan->rejected_memory > 0);
  const auto& best = plan->ranked.front();
  CHECK(best.step.mfu > 0);
  CHECK(best.step.mfu <= 1);
  // Every remat policy is tried by default.
  for (roofline::Remat r : roofline::kAllRemats)
    CHECK(std::any_of(plan->ranked.begin(), plan->ranked.end(), [&](const auto& c) { return c.remat == r; }));
}

TEST_CASE("planner: when nothing fits every miss is kept with its reason, closest first") {
  auto plan = roofline::plan_training(request("llama-3-70b", "tpu-v5e", 8, 8 * 8192));
  REQUIRE(plan.ok());
  CHECK(plan->ranked.empty());
  REQUIRE_FALSE(plan->rejected.empty());
  const auto& closest = plan->rejected.front();
  CHECK(closest.kind == roofline::RejectKind::kMemory);
  CHECK_FALSE(closest.memory.fits);
  // The least a chip can hold: 70.6e9 params x (2 + 2 + 8) bytes / 8 = 106 GB > 16 GB.
  CHECK(closest.memory.total_bytes > 70.5e9 * 12 / 8);
  CHECK(contains(closest.reason, "needs "));
  CHECK(contains(closest.reason, " HBM: weights, gradients and optimizer "));
  CHECK(contains(closest.reason, "(remat "));
  double prev = 0;
  for (const auto& r : plan->rejected) {
    if (r.kind != roofline::RejectKind::kMemory) continue;
    const double over = r.memory.total_bytes / r.memory.hbm_bytes;
    CHECK(over >= prev);
    prev = over;
  }
}

TEST_CASE("planner: GPUs put tensor parallelism inside the node and cross nodes on the scale-out axis") {
  auto plan = roofline::plan_training(request("llama-3-8b", "h100-sxm", 32, 64 * 8192));
  REQUIRE(plan.ok());
  REQUIRE_FALSE(plan->ranked.empty());
  // 32 GPUs > 8 per NVLink domain: the fewest nodes that hold them are 32 / 8 = 4.
  CHECK(plan->slices == 4);
  for (const auto& c : plan->ranked) CHECK(contains(roofline::mesh_text(c.mesh), "node=4:dcn"));
}

TEST_CASE("planner: bad requests are errors") {
  roofline::PlanRequest req = request("llama-3-8b", "tpu-v5e", 8, 1000);
  CHECK_FALSE(roofline::plan_training(req).ok());
  req.batch_tokens = 8192;
  req.chips = 0;
  CHECK_FALSE(roofline::plan_training(req).ok());
  req = request("llama-3-8b", "tpu-v5p", 64, 64 * 8192);
  req.constraints.slices = 3;
  auto three = roofline::plan_training(req);
  REQUIRE_FALSE(three.ok());
  CHECK(std::string(three.status().message()) == "3 slices do not divide 64 chips");
  req.constraints.slices = 2;
  req.constraints.slice_shape = {4, 4, 4};
  auto shape = roofline::plan_training(req);
  REQUIRE_FALSE(shape.ok());
  CHECK(std::string(shape.status().message()) == "the slice shape holds 64 chips, but each of the 2 slices has 32");
  // Dimensions whose product overflows a long long (the fuzzer's find in
  // make_mesh; here the plan's own check) are refused, not wrapped.
  roofline::PlanRequest huge = request("llama-3-8b", "tpu-v4", 64, 64 * 8192);
  huge.constraints.slice_shape = {66066, 664660066, 664666};
  auto huge_plan = roofline::plan_training(huge);
  REQUIRE_FALSE(huge_plan.ok());
  CHECK(contains(std::string(huge_plan.status().message()), "holds more chips than a long long counts"));
  req.constraints = {.max_pipeline_stages = -1};
  CHECK_FALSE(roofline::plan_training(req).ok());
}

TEST_CASE("planner: a 64-chip v5p pod is one slice by default; --slices 2 puts exactly 2 on DCN") {
  roofline::PlanRequest req = request("llama-3-8b", "tpu-v5p", 64, 256 * 8192);
  auto one = roofline::plan_training(req);
  REQUIRE(one.ok());
  CHECK(one->slices == 1);
  REQUIRE_FALSE(one->ranked.empty());
  for (const auto& c : one->ranked) CHECK(roofline::slice_count(c.mesh) == 1);
  for (const auto& r : one->rejected) CHECK_FALSE(has_dcn_axis(r.axes));
  req.constraints.slices = 2;
  auto two = roofline::plan_training(req);
  REQUIRE(two.ok());
  CHECK(two->slices == 2);
  REQUIRE_FALSE(two->ranked.empty());
  for (const auto& c : two->ranked) {
    CHECK(roofline::slice_count(c.mesh) == 2);
    const auto slice = c.mesh.index("slice");
    REQUIRE(slice.has_value());
    CHECK(c.mesh.axes[static_cast<std::size_t>(*slice)].network == roofline::AxisNetwork::kDcn);
    CHECK(c.mesh.ici_device_count() == 32);
  }
}

TEST_CASE("planner: --no-pp ranks no pipeline, --max-pp caps the stages, and the rest say why") {
  roofline::PlanRequest req = request("llama-3-8b", "tpu-v5p", 64, 256 * 8192);
  req.constraints.max_pipeline_stages = 1;
  auto none = roofline::plan_training(req);
  REQUIRE(none.ok());
  REQUIRE_FALSE(none->ranked.empty());
  for (const auto& c : none->ranked) CHECK(c.layout.pipeline_axis == -1);
  CHECK(none->rejected_constraint > 0);
  for (const auto& r : none->rejected)
    if (r.kind == roofline::RejectKind::kConstraint) CHECK(contains(r.reason, "pipelining is off (--no-pp)"));
  req.constraints.max_pipeline_stages = 4;
  auto four = roofline::plan_training(req);
  REQUIRE(four.ok());
  bool some_pipeline = false;
  for (const auto& c : four->ranked) {
    CHECK(roofline::pipeline_stages(c.mesh, c.layout) <= 4);
    some_pipeline = some_pipeline || c.layout.pipeline_axis >= 0;
  }
  CHECK(some_pipeline);
  // 32 layers: 8, 16 and 32 stages divide them and are over the cap.
  const auto capped = std::find_if(four->rejected.begin(), four->rejected.end(), [](const auto& r) {
    return r.kind == roofline::RejectKind::kConstraint;
  });
  REQUIRE(capped != four->rejected.end());
  CHECK(contains(capped->reason, " pipeline stages > the cap of 4 (--max-pp)"));
}

TEST_CASE("planner: --remat full ranks only full; the microbatch cap holds") {
  roofline::PlanRequest req = request("llama-3-8b", "tpu-v5p", 64, 256 * 8192);
  req.constraints.remat = {roofline::Remat::kFull};
  req.constraints.max_microbatches = 8;
  auto plan = roofline::plan_training(req);
  REQUIRE(plan.ok());
  REQUIRE_FALSE(plan->ranked.empty());
  for (const auto& c : plan->ranked) {
    CHECK(c.remat == roofline::Remat::kFull);
    CHECK(c.microbatches <= 8);
  }
  for (const auto& r : plan->rejected)
    if (r.remat) CHECK(*r.remat == roofline::Remat::kFull);
}

TEST_CASE("planner: ties are broken by the stated rule") {
  // Two candidates alike but for the figure under test; plan_order puts `a` first.
  roofline::PlanCandidate a, b;
  a.mesh.axes = b.mesh.axes = {{.name = "data", .size = 8}};
  a.step.expected_s = b.step.expected_s = 2.0;
  a.step.step_time_s = 1.0;
  b.step.step_time_s = 1.5;  // expected equal: the lower bound decides
  CHECK(roofline::plan_order(a, b));
  CHECK_FALSE(roofline::plan_order(b, a));
  b.step.step_time_s = 1.0;
  a.step.roofline.t_upper_s = 3.0;
  b.step.roofline.t_upper_s = 4.0;  // then the upper bound
  CHECK(roofline::plan_order(a, b));
  b.step.roofline.t_upper_s = 3.0;
  a.step.memory.total_bytes = 1e9;
  b.step.memory.total_bytes = 2e9;  // then memory
  CHECK(roofline::plan_order(a, b));
  b.step.memory.total_bytes = 1e9;
  b.mesh.axes = {{.name = "data", .size = 4}, {.name = "slice", .size = 2, .network = roofline::AxisNetwork::kDcn}};
  CHECK(roofline::plan_order(a, b));  // then fewer slices
  // The expected time comes first; without one (0) the lower bound stands in.
  b.mesh.axes = a.mesh.axes;
  b.step.expected_s = 1.9;
  CHECK(roofline::plan_order(b, a));
  b.step.expected_s = 0;  // ranked at its lower bound, 1.0 < 2.0
  CHECK(roofline::ranking_time_s(b.step) == 1.0);
  CHECK(roofline::plan_order(b, a));
}

TEST_CASE("layout text: parse_layout reads back what layout_text writes") {
  auto mesh = roofline::parse_mesh("slice=2:dcn,stage=2,data=4,model=4", chip("tpu-v5p"));
  REQUIRE(mesh.ok());
  auto lay = roofline::parse_layout("  dp=slice   fsdp=data tp=model pp=stage ", *mesh);
  REQUIRE(lay.ok());
  CHECK(lay->data == 0b0101u);  // slice (axis 0) and data (axis 2)
  CHECK(lay->fsdp == 0b0100u);
  CHECK(lay->model == 0b1000u);
  CHECK(lay->pipeline_axis == 1);
  CHECK(roofline::layout_text(*mesh, *lay) == "fsdp=data dp=slice tp=model pp=stage");
  CHECK(roofline::mesh_text(*mesh) == "slice=2:dcn,stage=2,data=4,model=4");
  // Every layout the planner ranks round-trips, and so does its mesh.
  roofline::PlanRequest req = request("llama-3-8b", "tpu-v5p", 128, 256 * 8192);
  req.constraints.slices = 2;
  auto plan = roofline::plan_training(req);
  REQUIRE(plan.ok());
  REQUIRE_FALSE(plan->ranked.empty());
  for (const auto& c : plan->ranked) {
    const std::string text = roofline::layout_text(c.mesh, c.layout);
    auto back = roofline::parse_layout(text, c.mesh);
    REQUIRE(back.ok());
    CHECK(back->data == c.layout.data);
    CHECK(back->fsdp == c.layout.fsdp);
    CHECK(back->model == c.layout.model);
    CHECK(back->pipeline_axis == c.layout.pipeline_axis);
    auto again = roofline::parse_mesh_axes(roofline::mesh_text(c.mesh));
    REQUIRE(again.ok());
    REQUIRE(again->size() == c.mesh.axes.size());
    for (std::size_t i = 0; i < again->size(); ++i) {
      CHECK((*again)[i].name == c.mesh.axes[i].name);
      CHECK((*again)[i].size == c.mesh.axes[i].size);
      CHECK((*again)[i].network == c.mesh.axes[i].network);
    }
  }
}

TEST_CASE("layout text: errors name the column") {
  auto mesh = roofline::parse_mesh("data=16,model=4", chip("tpu-v5p"));
  REQUIRE(mesh.ok());
  auto err = [&](const char* text) {
    auto r = roofline::parse_layout(text, *mesh);
    REQUIRE_FALSE(r.ok());
    return std::string(r.status().message());
  };
  CHECK(err("fsdp=data tp=modl") ==
        "layout 'fsdp=data tp=modl': column 14: unknown mesh axis 'modl'; the mesh has data, model");
  CHECK(err("fsdp=data xp=model") == "layout 'fsdp=data xp=model': column 11: unknown role 'xp'; roles are dp, "
                                     "fsdp, tp and pp");
  CHECK(err("fsdp data") == "layout 'fsdp data': column 5: expected '=' after role 'fsdp'");
  CHECK(err("dp=data tp=") == "layout 'dp=data tp=': column 12: expected a mesh axis after 'tp='");
  CHECK(err("dp=data fsdp=data") == "layout 'dp=data fsdp=data': column 14: axis 'data' already has role dp");
  CHECK(err("tp=model tp=data") == "layout 'tp=model tp=data': column 10: role 'tp' given twice");
  CHECK(err("pp=data,model") == "layout 'pp=data,model': column 9: pp takes one mesh axis");
  CHECK(err("dp=data;tp=model") == "layout 'dp=data;tp=model': column 8: expected ',' or a space after the axis");
  CHECK(err("   ") == "layout '   ': column 1: expected ROLE=AXIS[,AXIS...] (roles dp, fsdp, tp, pp)");
}

TEST_CASE("evaluate_layout: a layout that does not fit says why; one that fits says nothing") {
  roofline::PlanRequest req = request("llama-3-70b", "tpu-v5e", 8, 8 * 8192);
  auto mesh = roofline::parse_mesh("data=8", req.chip);
  REQUIRE(mesh.ok());
  auto lay = roofline::parse_layout("fsdp=data", *mesh);
  REQUIRE(lay.ok());
  auto ev = roofline::evaluate_layout(req, *mesh, *lay, roofline::Remat::kNone, 1);
  REQUIRE(ev.ok());
  CHECK_FALSE(ev->fits);
  // 70.6e9 params x >= 12 bytes / 8 chips = 106 GB > the 16 GB of a v5e.
  CHECK(ev->candidate.step.memory.total_bytes > 70.5e9 * 12 / 8);
  CHECK(contains(ev->reason, "needs "));
  CHECK(contains(ev->reason, "(remat none)"));
  CHECK(roofline::layout_text(ev->candidate.mesh, ev->candidate.layout) == "fsdp=data");

  roofline::PlanRequest small = request("llama-3-8b", "tpu-v5p", 64, 256 * 8192);
  auto pod = roofline::parse_mesh("stage=4,data=16", small.chip);
  REQUIRE(pod.ok());
  auto pp = roofline::parse_layout("fsdp=data pp=stage", *pod);
  REQUIRE(pp.ok());
  auto fits = roofline::evaluate_layout(small, *pod, *pp, roofline::Remat::kFull, 8);
  REQUIRE(fits.ok());
  CHECK(fits->fits);
  CHECK(fits->reason.empty());
  // The same layout under --no-pp is not one the planner would rank.
  small.constraints.max_pipeline_stages = 1;
  auto capped = roofline::evaluate_layout(small, *pod, *pp, roofline::Remat::kFull, 8);
  REQUIRE(capped.ok());
  CHECK_FALSE(capped->fits);
  CHECK(capped->reason == "4 pipeline stages; pipelining is off (--no-pp)");
}

TEST_CASE("evaluate_layout: a layout the model cannot take is an error with the reason") {
  roofline::PlanRequest req = request("llama-3-8b", "tpu-v5p", 48, 48 * 8192);
  auto mesh = roofline::parse_mesh("data=16,model=3", req.chip);
  REQUIRE(mesh.ok());
  auto lay = roofline::parse_layout("dp=data tp=model", *mesh);
  REQUIRE(lay.ok());
  auto ev = roofline::evaluate_layout(req, *mesh, *lay, roofline::Remat::kFull, 1);
  REQUIRE_FALSE(ev.ok());
  // LLaMA-3-8B has 32 heads: 3 does not divide them.
  CHECK(contains(std::string(ev.status().message()), "3-way tensor parallelism needs heads (32)"));
  req.chips = 64;
  auto wrong = roofline::evaluate_layout(req, *mesh, *lay, roofline::Remat::kFull, 1);
  REQUIRE_FALSE(wrong.ok());
  CHECK(std::string(wrong.status().message()) == "the mesh data=16,model=3 has 48 chips, the request 64");
}

TEST_CASE("plan JSON lists every rejected candidate with its kind and reason") {
  roofline::PlanRequest req = request("llama-3-70b", "tpu-v5p", 64, 64 * 8192);
  req.constraints.max_pipeline_stages = 2;
  auto plan = roofline::plan_training(req);
  REQUIRE(plan.ok());
  const auto j = nlohmann::json::parse(roofline::plan_json(req, *plan, 3).dump());
  CHECK(j.at("candidates").size() == 3);
  CHECK(j.at("constraints").at("max_pipeline_stages") == 2);
  const auto& rejected = j.at("rejected");
  REQUIRE(rejected.size() == plan->rejected.size());
  CHECK(j.at("rejected_memory").get<int>() + j.at("rejected_constraint").get<int>() +
            j.at("rejected_shape").get<int>() ==
        static_cast<int>(rejected.size()));
  bool memory = false, constraint = false;
  for (const auto& r : rejected) {
    const std::string reason = r.at("reason");
    CHECK_FALSE(reason.empty());
    if (r.at("kind") == "memory") {
      memory = true;
      CHECK(reason.rfind("needs ", 0) == 0);
      CHECK(r.at("total_bytes").get<double>() > r.at("hbm_bytes").get<double>());
    } else if (r.at("kind") == "constraint") {
      constraint = true;
      CHECK(contains(reason, " pipeline stages > the cap of 2 (--max-pp)"));
      CHECK(r.at("total_bytes").is_null());
    }
  }
  CHECK(memory);
  CHECK(constraint);
  // The text shows only the closest few.
  const std::string shown = roofline::plan_text(req, *plan, {.top = 3, .rejected_shown = 2});
  CHECK(contains(shown, "Rejected, closest to fitting first (2 of "));
  CHECK(contains(shown, "Ranking: ranked by expected step time"));
  CHECK(contains(shown, "docs/layers.md"));
}

TEST_CASE("layout text: any mix of roles, axes and separators parses to a layout that round-trips, or is refused") {
  auto mesh = roofline::parse_mesh("slice=2:dcn,stage=2,data=4,model=4", chip("tpu-v5p"));
  REQUIRE(mesh.ok());
  // Tokens ROLE SEP AXIS[,AXIS] joined by separators, each part sometimes wrong.
  const char* roles[] = {"dp", "fsdp", "tp", "pp", "dp", "fsdp", "tp", "xp", ""};
  const char* seps[] = {"=", "=", "=", "=", ":", ""};
  const char* axes[] = {"data", "model", "stage", "slice", "data", "model", "bogus", ""};
  const char* joins[] = {" ", " ", "  ", "\t", ";", ""};
  std::uint32_t state = 12345;  // a fixed LCG: the same strings on every run
  const auto pick = [&](std::size_t n) {
    state = state * 1664525u + 1013904223u;
    return (state >> 16) % n;
  };
  int parsed = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string text;
    const std::size_t tokens = 1 + pick(3);
    for (std::size_t t = 0; t < tokens; ++t) {
      if (t > 0) text += joins[pick(std::size(joins))];
      text += roles[pick(std::size(roles))];
      text += seps[pick(std::size(seps))];
      text += axes[pick(std::size(axes))];
      if (pick(4) == 0) text += std::string(",") + axes[pick(std::size(axes))];
    }
    auto lay = roofline::parse_layout(text, *mesh);
    if (!lay.ok()) {
      CHECK(contains(std::string(lay.status().message()), "': column "));
      continue;
    }
    ++parsed;
    CHECK((lay->fsdp & ~lay->data) == 0u);
    auto back = roofline::parse_layout(roofline::layout_text(*mesh, *lay), *mesh);
    REQUIRE(back.ok());
    CHECK(back->data == lay->data);
    CHECK(back->fsdp == lay->fsdp);
    CHECK(back->model == lay->model);
    CHECK(back->pipeline_axis == lay->pipeline_axis);
  }
  CHECK(parsed > 0);
}

// A layout just over the HBM is told with enough digits to see by how much
// (published v5p 64B: 102.4 of 102.0 GB, which three digits print as
// "102 GB of 102 GB").
TEST_CASE("plan: a memory rejection just over the HBM shows the digits that differ") {
  roofline::MemoryPerChip m;
  m.hbm_bytes = 95.0 * 1024 * 1024 * 1024;  // 102.005 GB
  m.total_bytes = 102.4e9;
  m.params_bytes = 16.2e9;
  m.activations_bytes = 85.2e9;
  const std::string r = roofline::detail::memory_reason(m, roofline::Remat::kMinimal);
  CHECK(r.rfind("needs 102.4 GB of 102.0 GB HBM", 0) == 0);
  m.total_bytes = 120e9;
  CHECK(roofline::detail::memory_reason(m, roofline::Remat::kMinimal).rfind("needs 120 GB of 102 GB HBM", 0) == 0);
}

TEST_CASE("plan: with a materialised attention core minimal-with-context is not tried (it runs as minimal)") {
  roofline::PlanRequest req = request("llama-3-8b", "tpu-v5p", 64, 64 * 8192);
  req.seq_len = 2048;
  const auto tried = [&](roofline::AttentionKernel kernel) {
    req.attention = kernel;
    auto plan = roofline::plan_training(req);
    REQUIRE(plan.ok());
    bool with_context = false;
    for (const auto& c : plan->ranked) with_context |= c.remat == roofline::Remat::kMinimalWithContext;
    for (const auto& r : plan->rejected)
      with_context |= r.remat && *r.remat == roofline::Remat::kMinimalWithContext;
    return with_context;
  };
  CHECK(tried(roofline::AttentionKernel::kFlash));
  CHECK_FALSE(tried(roofline::AttentionKernel::kMaterialized));
}
