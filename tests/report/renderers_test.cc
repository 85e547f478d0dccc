// Issue 40: the renderers of `roofline hlo` and `roofline predict` are the
// library's (roofline/report/hlo.hpp, roofline/report/prediction.hpp); the
// CLI prints what they return, byte for byte.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "roofline/calibration.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/report/hlo.hpp"
#include "roofline/report/prediction.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/parse.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using roofline::testing::run_cli;
using roofline::testing::test_data;

namespace {

roofline::HloModule must_read(const std::string& name) {
  auto m = roofline::read_hlo_file(test_data("hlo/" + name).string());
  REQUIRE(m.ok());
  return *std::move(m);
}

}  // namespace

TEST_CASE("hlo renderers: what the CLI prints, warnings on stderr included") {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  const roofline::ChipCalibration cal = roofline::default_calibration(v5e);
  // A loop without a known trip count: its rows, notes and a warning.
  const std::string path = test_data("hlo/while_dynamic.hlo.txt").string();
  const roofline::HloModule module = must_read("while_dynamic.hlo.txt");  // outlives its prediction's rows
  const roofline::HloModulePrediction mp = roofline::predict(module, v5e);
  REQUIRE_FALSE(mp.loop_warnings.empty());

  const auto cli = run_cli("hlo '" + path + "' --chip tpu-v5e --top 4");
  REQUIRE(cli.exit_code == 0);
  CHECK(roofline::hlo_text(module, mp, v5e, cal, {.top = 4}) == cli.out);
  std::string warnings;
  for (const std::string& line : roofline::hlo_loop_warning_lines(path, mp)) warnings += "warning: " + line + "\n";
  CHECK(warnings == cli.err);

  CHECK(roofline::hlo_json(module, mp, v5e, cal).dump() + "\n" ==
        run_cli("hlo '" + path + "' --chip tpu-v5e --format json").out);
  CHECK(roofline::hlo_csv(mp, v5e, cal, {.top = 2}) ==
        run_cli("hlo '" + path + "' --chip tpu-v5e --format csv --top 2").out);
}

TEST_CASE("hlo renderers: rows slowest first per run of the module, ties in execution order, top cuts") {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  const roofline::HloModule module = must_read("mlp.hlo.txt");
  const roofline::HloModulePrediction mp = roofline::predict(module, v5e);
  const auto all = roofline::hlo_rows_slowest_first(mp, 0);
  REQUIRE(all.size() == mp.rows.size());
  for (std::size_t i = 1; i < all.size(); ++i) {
    CHECK(all[i - 1]->total_t_lower_s() >= all[i]->total_t_lower_s());
    if (all[i - 1]->total_t_lower_s() == all[i]->total_t_lower_s()) CHECK(all[i - 1] < all[i]);
  }
  const auto top2 = roofline::hlo_rows_slowest_first(mp, 2);
  REQUIRE(top2.size() == 2);
  CHECK(top2[0] == all[0]);
  CHECK(top2[1] == all[1]);
  // The JSON's total is every row's, whatever `top` shows.
  const nlohmann::json j = nlohmann::json::parse(
      roofline::hlo_json(module, mp, v5e, roofline::default_calibration(v5e), {.top = 1}).dump());
  CHECK(j["instructions"].size() == 1);
  CHECK(j["total"]["t_lower_s"].get<double>() == mp.total.t_lower_s);
}

TEST_CASE("predict renderers: what the three predict commands print") {
  const roofline::Chip& v5e = roofline::chip("tpu-v5e");
  const roofline::ChipCalibration cal = roofline::default_calibration(v5e);

  const roofline::Matmul mm{.batch = 2, .m = 4096, .k = 1024, .n = 512};
  const roofline::Prediction p = roofline::predict(mm, v5e);
  const std::string matmul_args = "predict matmul --chip tpu-v5e --m 4096 --k 1024 --n 512 --batch 2";
  CHECK(roofline::matmul_text(mm, p, v5e, cal) == run_cli(matmul_args).out);
  CHECK(roofline::matmul_json(p, v5e, cal).dump() + "\n" == run_cli(matmul_args + " --format json").out);

  auto mesh = roofline::parse_mesh("X=8,Y=4", v5e);
  REQUIRE(mesh.ok());
  for (const bool permute : {false, true}) {
    const roofline::CollectiveQuery q{.op = permute ? "permute" : "reduce-scatter",
                                      .kind = permute ? roofline::CollectiveKind::kPermute
                                                      : roofline::CollectiveKind::kReduceScatter,
                                      .mesh_spec = "X=8,Y=4",
                                      .mesh = &*mesh,
                                      .axes = {0},
                                      .array_bytes = 1e8,
                                      .shift = permute ? 2 : 1};
    const roofline::CollectiveTime t =
        roofline::collective_time(*mesh, q.kind, roofline::mask_of(q.axes), q.array_bytes, q.shift);
    const std::string args = "predict collective --op " + q.op + " --chip tpu-v5e --mesh X=8,Y=4 --axes X " +
                             "--bytes 100000000" + (permute ? " --hops 2" : "");
    CHECK(roofline::collective_text(q, t, v5e, cal) == run_cli(args).out);
    const std::string json = roofline::collective_json(q, t, v5e, cal).dump();
    CHECK(json + "\n" == run_cli(args + " --format json").out);
    // The shift is a permute's alone.
    CHECK(nlohmann::json::parse(json).contains("shift") == permute);
  }

  const std::string expression = "x[B_X, D] @ w[D, F_Y]";
  auto expr = roofline::parse_matmul_expression(expression);
  REQUIRE(expr.ok());
  auto r = roofline::predict_sharded_matmul(*expr, *mesh, v5e, {{"B", 8192}, {"D", 8192}, {"F", 32768}},
                                            roofline::DType::kBF16);
  REQUIRE(r.ok());
  const roofline::ShardedMatmulQuery q{.expression = expression, .mesh_spec = "X=8,Y=4", .mesh = &*mesh};
  const std::string args = "predict '" + expression + "' --chip tpu-v5e --mesh X=8,Y=4 --dims B=8192,D=8192,F=32768";
  CHECK(roofline::sharded_matmul_text(q, *r, v5e, cal) == run_cli(args).out);
  CHECK(roofline::sharded_matmul_json(q, *r, v5e, cal).dump() + "\n" == run_cli(args + " --format json").out);
}
