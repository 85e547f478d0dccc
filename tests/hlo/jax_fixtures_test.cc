// Real sharded JAX programs (tests/data/jax/, scripts/make_jax_fixtures.py,
// jax 0.10.2 on 8 virtual CPU devices) against XLA's own count of the same
// compiled module, `compiled.cost_analysis()`, kept beside each as
// NAME.cost.json.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/chip.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"
#include "tests/test_support.hpp"

namespace {

using roofline::testing::test_data;

struct XlaCost {
  std::string module;
  double flops = 0;
  double transcendentals = 0;
  double bytes_accessed = 0;
};

XlaCost xla_cost(const std::string& name) {
  std::ifstream f(test_data("jax/" + name + ".cost.json"));
  REQUIRE(f.good());
  const auto j = nlohmann::json::parse(f);
  return {j.at("module").get<std::string>(), j.at("flops").get<double>(),
          j.at("transcendentals").get<double>(), j.at("bytes accessed").get<double>()};
}

roofline::HloModule module_of(const std::string& file) {
  auto m = roofline::read_hlo_file(test_data("jax/" + file).string());
  INFO(file << ": " << m.status().ToString());
  REQUIRE(m.ok());
  return *std::move(m);
}

// Ours for the text and the proto form of one program; both must agree.
roofline::HloModulePrediction ours(const std::string& name) {
  const auto& chip = roofline::chip("tpu-v5e");
  const auto text = roofline::predict(module_of(name + ".hlo.txt"), chip);
  const auto proto = roofline::predict(module_of(name + ".hlo.pb"), chip);
  CHECK(text.total.flops == proto.total.flops);
  CHECK(text.total.hbm_bytes == proto.total.hbm_bytes);
  CHECK(text.total.transcendentals == proto.total.transcendentals);
  CHECK(text.total.ici_bytes == proto.total.ici_bytes);
  CHECK(text.rows.size() == proto.rows.size());
  return text;
}

}  // namespace

// Every array op counts exactly as XLA does. What is left (measured on these
// files: at most 4 FLOPs and 88 bytes per module, against 1e7-1e8 of each) is
// in rank-0 ops only: XLA:CPU's scalar fusions (`wrapped_reduce` f32[],
// `multiply_negate_fusion` f32[], a scalar psum) where we charge one FLOP per
// element and bytes by padded size; cost_analysis gives module totals only, so
// the split per scalar op is not pinned. The bounds below are those
// differences, rounded up: a real miscount of any array op exceeds them.
TEST_CASE("jax fixtures: module FLOPs, transcendentals and bytes equal XLA's cost_analysis", "[hlo][jax]") {
  constexpr double kScalarFlops = 8;
  constexpr double kScalarBytes = 128;
  for (const char* name : {"dp_transformer", "fsdp_mlp", "fsdp_mlp_auto", "matmul_2d"}) {
    INFO(name);
    const XlaCost xla = xla_cost(name);
    CHECK(module_of(std::string(name) + ".hlo.txt").name() == xla.module);
    const auto p = ours(name);
    CHECK(std::abs(p.total.flops - xla.flops) <= kScalarFlops);
    CHECK(p.total.transcendentals == xla.transcendentals);
    CHECK(std::abs(p.total.hbm_bytes - xla.bytes_accessed) <= kScalarBytes);
  }
  // matmul_2d has no scalar op: equal to the byte.
  const auto p = ours("matmul_2d");
  CHECK(p.total.flops == xla_cost("matmul_2d").flops);
  CHECK(p.total.hbm_bytes == xla_cost("matmul_2d").bytes_accessed);
}

TEST_CASE("jax fixtures: a lax.scan is counted per trip, XLA's cost_analysis counts the body once", "[hlo][jax]") {
  const XlaCost xla = xla_cost("scan");
  const auto p = ours("scan");
  // XLA's HloCostAnalysis visits a while body once whatever its trip count;
  // we multiply by known_trip_count (6 layers). The body is one
  // f32[128,256] x [256,256] dot (2*128*256*256 = 16,777,216 FLOPs, exactly
  // XLA's figure) and one tanh of 128*256 = 32,768 elements.
  CHECK(xla.flops == 2.0 * 128 * 256 * 256);
  CHECK(xla.transcendentals == 128.0 * 256);
  // Plus the loop counter: a scalar add per trip (6) and a compare per
  // condition test (7), one FLOP each, which XLA's figure does not hold.
  CHECK(p.total.flops == 6 * xla.flops + 6 + 7);
  CHECK(p.total.transcendentals == 6 * xla.transcendentals);
}
