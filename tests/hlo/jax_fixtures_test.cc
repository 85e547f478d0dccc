// Real sharded JAX programs (tests/data/jax/, scripts/make_jax_fixtures.py,
// jax 0.10.2 on 8 virtual CPU devices) against XLA's own count of the same
// compiled module, `compiled.cost_analysis()`, kept beside each as
// NAME.cost.json.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>
#include <fstream>
#include <map>
#include <memory>
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
// The prediction's rows point into the module, so the modules are kept.
struct Ours {
  roofline::HloModule text_module, proto_module;
  roofline::HloModulePrediction text, proto;
};

const roofline::HloModulePrediction& ours(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Ours>> cache;
  auto& slot = cache[name];
  if (slot) return slot->text;
  const auto& chip = roofline::chip("tpu-v5e");
  slot = std::make_unique<Ours>(Ours{module_of(name + ".hlo.txt"), module_of(name + ".hlo.pb"), {}, {}});
  slot->text = roofline::predict(slot->text_module, chip);
  slot->proto = roofline::predict(slot->proto_module, chip);
  const auto& text = slot->text;
  const auto& proto = slot->proto;
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

namespace {

struct CollectiveRow {
  std::string name;
  std::int64_t group_size = 0;
  double t_ici_s = 0;
};

std::vector<CollectiveRow> collectives(const roofline::HloModulePrediction& p) {
  std::vector<CollectiveRow> out;
  for (const auto& row : p.rows)
    if (row.cost.collective)
      out.push_back({std::string(row.instruction->name), row.cost.collective->group_size, row.prediction.t_ici_s});
  return out;
}

}  // namespace

// Every collective jax 0.10 writes (explicit groups, iota, mesh axes; in the
// text and in the proto) gets its group and a network time, never a silent
// zero. The figures are the one-ring model of docs/collectives.md on
// tpu-v5e: W = 45e9 B/s per link and direction, T_min = 1 µs per hop
// (hardware/tpu-v5e.json), t = max(bandwidth term, hops x T_min):
//   all-gather / reduce-scatter of V bytes on N devices: (N-1)/N V/W, N-1 hops
//   all-reduce: 2 (N-1)/N V/W, 2 (N-1) hops
//   all-to-all of tiny pieces: N-1 hops.
TEST_CASE("jax fixtures: each collective's group size and predicted network time", "[hlo][jax][collective]") {
  constexpr double W = 45e9, hop = 1e-6;
  const double mib4 = 1024.0 * 1024 * 4;  // f32[1024,1024]
  struct Want {
    const char* fixture;
    const char* name;
    std::int64_t n;
    double t;
  };
  // dp_transformer: one tuple all-reduce of every gradient, 1,312,260 bytes
  // (f32[] + 2 x f32[512,128] + 3 x f32[128] + f32[512,128] + f32[128,512]
  // + 4 x f32[128,128]) over the 8-device data axis (mesh-axes groups).
  const double grads = 4 + 3 * 512 * 128 * 4.0 + 3 * 128 * 4.0 + 128 * 512 * 4.0 + 4 * 128 * 128 * 4.0;
  const std::vector<Want> want = {
      {"dp_transformer", "all-reduce.12", 8, 2 * 7.0 / 8 * grads / W},
      // FSDP as written: weights gathered forward, gradients scattered back.
      {"fsdp_mlp", "all_gather.6", 8, 7.0 / 8 * mib4 / W},
      {"fsdp_mlp", "all_gather.7", 8, 7.0 / 8 * mib4 / W},
      {"fsdp_mlp", "reduce_scatter.14", 8, 7.0 / 8 * mib4 / W},
      {"fsdp_mlp", "reduce_scatter.15", 8, 7.0 / 8 * mib4 / W},
      {"fsdp_mlp", "psum.7", 8, 2 * 7 * hop},  // a scalar: latency-bound
      // XLA's own partitioning of the same MLP.
      {"fsdp_mlp_auto", "all-reduce.2", 8, 2 * 7.0 / 8 * 2 * mib4 / W},
      {"fsdp_mlp_auto", "all-gather", 8, 7.0 / 8 * mib4 / W},
      {"fsdp_mlp_auto", "all-to-all.1", 8, 7 * hop},
      // 4x2 mesh, contraction sharded over the size-2 axis: groups of 2.
      {"matmul_2d", "all-reduce", 2, 2 * 1.0 / 2 * 128 * 256 * 4.0 / W},
  };
  for (const char* fixture : {"dp_transformer", "fsdp_mlp", "fsdp_mlp_auto", "matmul_2d"}) {
    const auto rows = collectives(ours(fixture));
    std::size_t expected = 0;
    for (const Want& w : want) {
      if (std::string(w.fixture) != fixture) continue;
      ++expected;
      std::string names;
      for (const CollectiveRow& r : rows) names += r.name + " ";
      INFO(fixture << " " << w.name << " among " << names);
      const auto it = std::find_if(rows.begin(), rows.end(), [&](const CollectiveRow& r) { return r.name == w.name; });
      REQUIRE(it != rows.end());
      CHECK(it->group_size == w.n);
      CHECK(it->t_ici_s == Approx(w.t).epsilon(1e-12));
      CHECK(it->t_ici_s > 0);
    }
    INFO(fixture);
    CHECK(rows.size() == expected);
  }
}
