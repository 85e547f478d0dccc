// roofline predict matmul: the single-device roofline of one matmul. Parses
// the arguments and prints the library's renderers (roofline/report/prediction.hpp).
#include <cstdio>

#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/ops/validate.hpp"
#include "roofline/report/prediction.hpp"
#include "src/cli/calibration_arg.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {
namespace {

absl::StatusOr<DType> dtype_option(const Args& args, std::string_view name, DType fallback) {
  auto v = args.get(name);
  if (!v) return fallback;
  auto t = parse_dtype(*v);
  if (!t) return absl::InvalidArgumentError(detail::cat("--", name, ": unknown dtype '", *v, "'"));
  return *t;
}

int run(const Args& args) {
  auto fmt = args.format({"text", "json"});
  if (!fmt.ok()) return fail(fmt.status());
  if (!args.positional().empty())
    return fail_usage("predict matmul: unexpected argument '" + args.positional()[0] + "'");
  auto chip_name = args.require("chip");
  if (!chip_name.ok()) return fail(chip_name.status());
  auto chip = resolve_chip(*chip_name);
  if (!chip.ok()) return fail(chip.status());
  Matmul mm;
  auto m = args.get_int("m", std::nullopt);
  auto k = args.get_int("k", std::nullopt);
  auto n = args.get_int("n", std::nullopt);
  auto batch = args.get_int("batch", 1);
  for (const auto* v : {&m, &k, &n, &batch})
    if (!v->ok()) return fail(v->status());
  mm.m = *m;
  mm.k = *k;
  mm.n = *n;
  mm.batch = *batch;
  auto dt = dtype_option(args, "dtype", DType::kBF16);
  if (!dt.ok()) return fail(dt.status());
  mm.dtype = *dt;
  auto rhs = dtype_option(args, "rhs-dtype", mm.dtype);
  auto out = dtype_option(args, "out-dtype", mm.dtype);
  if (!rhs.ok()) return fail(rhs.status());
  if (!out.ok()) return fail(out.status());
  mm.rhs_dtype = *rhs;
  mm.out_dtype = *out;
  if (absl::Status s = validate(mm, *chip); !s.ok()) return fail(s);
  const Prediction p = predict(mm, *chip);
  auto cal = calibration_arg(args, *chip);
  if (!cal.ok()) return fail(cal.status());
  if (*fmt == "json") return write_output(args, matmul_json(p, *chip, *cal).dump() + "\n");
  return write_output(args, matmul_text(mm, p, *chip, *cal));
}

ROOFLINE_CLI_COMMAND({
    .name = "predict matmul",
    .usage = "roofline predict matmul --chip NAME|PATH --m M --k K --n N [--batch B] "
             "[--dtype bf16] [--calibration FILE] [--format text|json] [-o FILE]",
    .summary = "Roofline of [B,M,K] @ [B,K,N] on one chip: T_math, T_hbm, bound, intensity, and the calibrated "
               "expected time beside the bound.",
    .options = {{"chip", "NAME|PATH", "embedded chip name or a chip spec JSON file"},
                {"m", "M", "rows of the left operand (tokens)"},
                {"k", "K", "contracting dimension"},
                {"n", "N", "columns of the right operand"},
                {"batch", "B", "batch of independent matmuls (default 1)"},
                {"dtype", "DTYPE", "element type of the left operand (default bf16)"},
                {"rhs-dtype", "DTYPE", "element type of the right operand (default: --dtype)"},
                {"out-dtype", "DTYPE", "element type of the result (default: --dtype)"},
                kCalibrationOption,
                {"format", "text|json", "output format (default text)"},
                {"output", "FILE", "write to FILE instead of stdout", "o"}},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
