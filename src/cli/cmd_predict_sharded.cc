// roofline predict 'x[B_X, D] @ w[D, F_Y]': a sharded matmul on a mesh.
// Registered as "predict": "predict matmul" and "predict collective" win by
// longest match, so this command sees only a positional expression. Parses
// the arguments and prints the library's renderers
// (roofline/report/prediction.hpp).
#include <cstdio>

#include "roofline/chip_io.hpp"
#include "roofline/report/prediction.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/matmul_expression.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/sharded_matmul.hpp"
#include "src/cli/calibration_arg.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {
namespace {

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
  auto cal = calibration_arg(args, *chip);
  if (!cal.ok()) return fail(cal.status());
  const ShardedMatmulQuery query{.expression = text, .mesh_spec = *mesh_spec, .mesh = &*mesh, .dtype = *dtype};
  if (*fmt == "json") return write_output(args, sharded_matmul_json(query, *r, *chip, *cal).dump() + "\n");
  return write_output(args, sharded_matmul_text(query, *r, *chip, *cal));
}

ROOFLINE_CLI_COMMAND({
    .name = "predict",
    .usage = "roofline predict 'x[B_X, D] @ w[D, F_Y]' --chip NAME|PATH --mesh X=8,Y=4 "
             "--dims B=...,D=...,F=... [--dtype bf16] [--calibration FILE] [--format text|json] [-o FILE]",
    .summary = "A sharded matmul in the scaling book's notation: its case, collectives, and T_math / T_ici per strategy.",
    .options = {{"chip", "NAME|PATH", "embedded chip name or a chip spec JSON file"},
                {"mesh", "X=8,Y=4", "mesh axes and sizes; append :dcn to axes that cross slices / nodes"},
                {"dims", "B=..,D=..", "size of every dim the expression names"},
                {"dtype", "DTYPE", "element type of both operands and the result (default bf16)"},
                kCalibrationOption,
                {"format", "text|json", "output format (default text)"},
                {"output", "FILE", "write to FILE instead of stdout", "o"}},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
