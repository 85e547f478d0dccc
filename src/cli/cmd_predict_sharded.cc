// roofline predict 'x[B_X, D] @ w[D, F_Y]': a sharded matmul on a mesh.
// Registered as "predict": "predict matmul" and "predict collective" win by
// longest match, so this command sees only a positional expression.
#include <cstdio>

#include "roofline/format/terminal.hpp"
#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/report/json.hpp"
#include "roofline/report/labels.hpp"
#include "roofline/sharding/matmul_expression.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/sharded_matmul.hpp"
#include "src/cli/calibration_arg.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {
namespace {

// One strategy as text: the local matmul, each collective, the whole, and
// their expected times.
void print_strategy(const ShardedMatmulStrategy& s, const ChipCalibration& cal) {
  const ShardedExpected e = expected(s, cal);
  std::printf("    local %s: [%lld] x [%lld,%lld] @ [%lld,%lld]  T_math %s  T_hbm %s\n", s.local_text.c_str(),
              static_cast<long long>(s.local.batch), static_cast<long long>(s.local.m),
              static_cast<long long>(s.local.k), static_cast<long long>(s.local.k),
              static_cast<long long>(s.local.n), format_seconds(s.local_prediction.t_math_s).c_str(),
              format_seconds(s.local_prediction.t_hbm_s).c_str());
  for (std::size_t i = 0; i < s.collectives.size(); ++i) {
    const CollectiveStep& c = s.collectives[i];
    std::printf("    %s: V = %s, %s, expected %s\n", c.what.c_str(), format_bytes(c.array_bytes).c_str(),
                format_seconds(c.time.t_ici_s).c_str(), format_seconds(e.collectives_s[i]).c_str());
  }
  std::printf("    T_math %s  T_hbm %s  T_ici %s  lower %s (overlap)  upper %s (none)  %s-bound\n",
              format_seconds(s.whole.t_math_s).c_str(), format_seconds(s.whole.t_hbm_s).c_str(),
              format_seconds(s.whole.t_ici_s).c_str(), format_seconds(s.whole.t_lower_s).c_str(),
              format_seconds(s.whole.t_upper_s).c_str(), std::string(bound_name(s.whole.bound)).c_str());
  std::printf("    expected %s (local matmul %s, overlapped with the collectives as the lower bound is)\n",
              format_seconds(e.whole_s).c_str(), format_seconds(e.local_s).c_str());
}

int run(const Args& args) {
  auto fmt = args.format({"text", "json"});
  if (!fmt.ok()) return fail(fmt.status());
  if (args.positional().size() != 1)
    return fail_usage(args.positional().empty()
                          ? "predict: expected a sharded matmul like 'x[B_X, D] @ w[D, F_Y]' (or predict matmul / "
                            "predict collective)"
                          : "predict: expected one expression; quote it: 'x[B_X, D] @ w[D, F_Y]'");
  const std::string& text = args.positional()[0];
  auto expr = parse_matmul_expression(text);
  if (!expr.ok()) return fail(expr.status());
  auto chip_name = args.require("chip");
  if (!chip_name.ok()) return fail(chip_name.status());
  auto chip = resolve_chip(*chip_name);
  if (!chip.ok()) return fail(chip.status());
  auto mesh_spec = args.require("mesh");
  if (!mesh_spec.ok()) return fail(mesh_spec.status());
  auto mesh = parse_mesh(*mesh_spec, *chip);
  if (!mesh.ok()) return fail(mesh.status());
  auto dims_text = args.require("dims");
  if (!dims_text.ok()) return fail(dims_text.status());
  auto dims = parse_dim_sizes(*dims_text);
  if (!dims.ok()) return fail(dims.status());
  const std::string dtype_text = args.get_or("dtype", "bf16");
  const std::optional<DType> dtype = parse_dtype(dtype_text);
  if (!dtype) return fail_usage("--dtype: unknown dtype '" + dtype_text + "'");
  auto r = predict_sharded_matmul(*expr, *mesh, *chip, *dims, *dtype);
  if (!r.ok()) return fail(r.status());
  const ShardedMatmulStrategy& best = r->chosen();
  auto cal_or = calibration_arg(args, *chip);
  if (!cal_or.ok()) return fail(cal_or.status());
  const ChipCalibration& cal = *cal_or;
  // A strategy's JSON with its expected times: the local matmul's, each
  // collective's and the whole's.
  const auto strategy_json = [&cal](const ShardedMatmulStrategy& s) { return to_json(s, expected(s, cal)); };

  if (*fmt == "json") {
    Json j = strategy_json(best);
    j["calibration"] = calibration_json(cal);
    Json cases = Json::array();
    for (int c : r->cases) cases.push_back(Json::object({{"case", c}, {"description", case_description(c)}}));
    Json all = Json::array();
    for (const ShardedMatmulStrategy& s : r->strategies) all.push_back(strategy_json(s));
    j["expression"] = text;
    j["chip"] = chip->name;
    j["mesh"] = *mesh_spec;
    j["layout"] = describe_layout(*mesh);
    j["dtype"] = dtype_name(*dtype);
    j["cases"] = std::move(cases);
    j["strategies"] = std::move(all);
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  std::printf("%s on %s, mesh %s, %s\n", text.c_str(), for_terminal(chip->name).c_str(), for_terminal(*mesh_spec).c_str(),
              std::string(dtype_name(*dtype)).c_str());
  std::printf("  layout: %s\n", describe_layout(*mesh).c_str());
  for (int c : r->cases) std::printf("  %s\n", case_description(c).c_str());
  std::printf("  expected times: %s\n", calibration_label(cal.origin).c_str());
  std::printf("chosen: %s\n", best.name.c_str());
  print_strategy(best, cal);
  for (std::size_t i = 1; i < r->strategies.size(); ++i) {
    std::printf("alternative %zu: %s\n", i, r->strategies[i].name.c_str());
    print_strategy(r->strategies[i], cal);
  }
  return 0;
}

ROOFLINE_CLI_COMMAND({
    .name = "predict",
    .usage = "roofline predict 'x[B_X, D] @ w[D, F_Y]' --chip NAME|PATH --mesh X=8,Y=4 "
             "--dims B=...,D=...,F=... [--dtype bf16] [--calibration FILE] [--format text|json]",
    .summary = "A sharded matmul in the scaling book's notation: its case, collectives, and T_math / T_ici per strategy.",
    .options = {{"chip", "NAME|PATH", "embedded chip name or a chip spec JSON file"},
                {"mesh", "X=8,Y=4", "mesh axes and sizes; append :dcn to axes that cross slices / nodes"},
                {"dims", "B=..,D=..", "size of every dim the expression names"},
                {"dtype", "DTYPE", "element type of both operands and the result (default bf16)"},
                kCalibrationOption,
                {"format", "text|json", "output format (default text)"}},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
