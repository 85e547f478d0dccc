// Model configs and the planner.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/planner.hpp"

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

TEST_CASE("planner: LLaMA-3-70B over 256 v5p chips ranks thousands of candidates in well under a second") {
  roofline::PlanRequest req{.model = *roofline::find_builtin_model("llama-3-70b"),
                            .chip = chip("tpu-v5p"),
                            .chips = 256,
                            .batch_tokens = 512 * 8192};
  const auto start = std::chrono::steady_clock::now();
  auto plan = roofline::plan_training(req);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(plan.ok());
  CHECK(seconds < 1.0);
  CHECK(plan->considered >= 1000);
  CHECK(plan->evaluated == plan->dropped_memory + static_cast<int>(plan->ranked.size()));
  REQUIRE_FALSE(plan->ranked.empty());
  for (std::size_t i = 0; i < plan->ranked.size(); ++i) {
    const auto& c = plan->ranked[i];
    CHECK(c.step.memory.fits);
    CHECK(c.step.chips == 256);
    if (i > 0) CHECK(plan->ranked[i - 1].step.step_time_s <= c.step.step_time_s);
  }
  // Some layouts (pure data parallelism: 70.6e9 x 12 bytes per chip) cannot fit.
  CHECK(plan->dropped_memory > 0);
  const auto& best = plan->ranked.front();
  CHECK(best.step.mfu > 0);
  CHECK(best.step.mfu <= 1);
}

TEST_CASE("planner: when nothing fits it says so and shows the closest miss") {
  roofline::PlanRequest req{.model = *roofline::find_builtin_model("llama-3-70b"),
                            .chip = chip("tpu-v5e"),
                            .chips = 8,
                            .batch_tokens = 8 * 8192};
  auto plan = roofline::plan_training(req);
  REQUIRE(plan.ok());
  CHECK(plan->ranked.empty());
  REQUIRE(plan->smallest_that_does_not_fit.has_value());
  CHECK_FALSE(plan->smallest_that_does_not_fit->step.memory.fits);
  // The least a chip can hold: 70.6e9 params x 12 bytes / 8 = 106 GB > 16 GB.
  CHECK(plan->smallest_that_does_not_fit->step.memory.total_bytes > 70.5e9 * 12 / 8);
}

TEST_CASE("planner: GPUs put tensor parallelism inside the node and cross nodes on the scale-out axis") {
  roofline::PlanRequest req{.model = *roofline::find_builtin_model("llama-3-8b"),
                            .chip = chip("h100-sxm"),
                            .chips = 32,
                            .batch_tokens = 64 * 8192};
  auto plan = roofline::plan_training(req);
  REQUIRE(plan.ok());
  REQUIRE_FALSE(plan->ranked.empty());
  for (const auto& c : plan->ranked) CHECK(contains(c.mesh, "node=") );  // 32 > 8 GPUs per NVLink domain
}

TEST_CASE("planner: bad requests are errors") {
  roofline::PlanRequest req{.model = *roofline::find_builtin_model("llama-3-8b"),
                            .chip = chip("tpu-v5e"),
                            .chips = 8,
                            .batch_tokens = 1000};
  CHECK_FALSE(roofline::plan_training(req).ok());
  req.batch_tokens = 8192;
  req.chips = 0;
  CHECK_FALSE(roofline::plan_training(req).ok());
}
