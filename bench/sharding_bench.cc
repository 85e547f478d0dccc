// Throughput of the sharding models: one collective prediction (the HLO
// helper calls collective_time_on_group per collective instruction), a mesh
// collective, a training step, and the planner's candidates per second.
#include <benchmark/benchmark.h>

#include "roofline/collectives/collective.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/planner.hpp"
#include "roofline/sharding/sharded_matmul.hpp"

static void BM_CollectiveOnGroup(benchmark::State& state) {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  double v = 1 << 20;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        roofline::collective_time_on_group(roofline::CollectiveKind::kAllReduce, v, 16, v5e));
    v = v < 1e9 ? v * 1.01 : 1 << 20;
  }
}
BENCHMARK(BM_CollectiveOnGroup);

static void BM_MeshCollectiveTwoAxes(benchmark::State& state) {
  const roofline::Mesh mesh = *roofline::parse_mesh("X=4,Y=4,Z=4", roofline::chip("tpu-v4"));
  double v = 1 << 20;
  for (auto _ : state) {
    benchmark::DoNotOptimize(roofline::collective_time(mesh, roofline::CollectiveKind::kAllGather, 0b011, v));
    v = v < 1e9 ? v * 1.01 : 1 << 20;
  }
}
BENCHMARK(BM_MeshCollectiveTwoAxes);

static void BM_MeshLayout(benchmark::State& state) {
  const roofline::Chip& v5p = roofline::chip("tpu-v5p");
  for (auto _ : state) benchmark::DoNotOptimize(roofline::parse_mesh("stage=2,data=32,model=4", v5p));
}
BENCHMARK(BM_MeshLayout);

static void BM_ShardedMatmul(benchmark::State& state) {
  const roofline::Chip& v5p = roofline::chip("tpu-v5p");
  const roofline::Mesh mesh = *roofline::parse_mesh("X=16,Y=4", v5p);
  const auto expr = *roofline::parse_matmul_expression("In[B_X, D_Y] @ W[D_X, F_Y]");
  const std::map<std::string, std::int64_t> dims = {{"B", 65536}, {"D", 8192}, {"F", 32768}};
  for (auto _ : state) benchmark::DoNotOptimize(roofline::predict_sharded_matmul(expr, mesh, v5p, dims));
}
BENCHMARK(BM_ShardedMatmul);

static void BM_TrainingStep(benchmark::State& state) {
  const roofline::Chip& v5p = roofline::chip("tpu-v5p");
  const roofline::Mesh mesh = *roofline::parse_mesh("X=16,Y=4", v5p);
  const roofline::ParallelLayout lay{.data = 0b01, .fsdp = 0b01, .model = 0b10};
  const roofline::TrainingConfig cfg{.batch_tokens = 64 * 8192, .remat = roofline::Remat::kFull};
  const auto& model = *roofline::find_builtin_model("llama-3-70b");
  for (auto _ : state)
    benchmark::DoNotOptimize(roofline::training_step(model, v5p, mesh, lay, cfg));
}
BENCHMARK(BM_TrainingStep);

// The acceptance case: a 70B-shaped model over 256 v5p chips.
static void BM_Plan70BOn256V5p(benchmark::State& state) {
  const roofline::PlanRequest req{.model = *roofline::find_builtin_model("llama-3-70b"),
                                  .chip = roofline::chip("tpu-v5p"),
                                  .chips = 256,
                                  .batch_tokens = 512 * 8192};
  double candidates = 0;
  for (auto _ : state) {
    auto plan = roofline::plan_training(req);
    candidates += plan->evaluated;
    benchmark::DoNotOptimize(plan);
  }
  state.counters["candidates"] = benchmark::Counter(candidates / static_cast<double>(state.iterations()));
  state.counters["candidates_per_s"] = benchmark::Counter(candidates, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Plan70BOn256V5p)->Unit(benchmark::kMillisecond);

static void BM_Plan8BOn1024H100(benchmark::State& state) {
  const roofline::PlanRequest req{.model = *roofline::find_builtin_model("llama-3-8b"),
                                  .chip = roofline::chip("h100-sxm"),
                                  .chips = 1024,
                                  .batch_tokens = 2048 * 8192};
  double candidates = 0;
  for (auto _ : state) {
    auto plan = roofline::plan_training(req);
    candidates += plan->evaluated;
    benchmark::DoNotOptimize(plan);
  }
  state.counters["candidates_per_s"] = benchmark::Counter(candidates, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Plan8BOn1024H100)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
