// predict(matmul, chip) is meant to sit inside planners' inner loops: it must
// cost well under a microsecond.
#include <benchmark/benchmark.h>

#include "roofline/chip_io.hpp"
#include "roofline/core.hpp"

static void BM_PredictMatmul(benchmark::State& state) {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  std::int64_t m = 1;
  for (auto _ : state) {
    roofline::Matmul mm{.m = m, .k = 8192, .n = 32768};
    benchmark::DoNotOptimize(roofline::predict(mm, v5e));
    m = (m % 65536) + 1;
  }
}
BENCHMARK(BM_PredictMatmul);

static void BM_FindChip(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(roofline::find_chip("tpu-v6e"));
}
BENCHMARK(BM_FindChip);

BENCHMARK_MAIN();
