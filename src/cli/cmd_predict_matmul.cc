// roofline predict matmul: the single-device roofline of one matmul.
#include <cstdio>

#include "roofline/format/terminal.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/chip_io.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/ops/validate.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/report/json.hpp"
#include "src/cli/calibration_arg.hpp"
#include "src/cli/command.hpp"
#include "src/cli/prediction_output.hpp"

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
  auto cal_or = calibration_arg(args, *chip);
  if (!cal_or.ok()) return fail(cal_or.status());
  const ChipCalibration& cal = *cal_or;
  const double expected = expected_s(p, CostClass::kMatmul, cal);
  if (*fmt == "json") {
    Json j = to_json(p);
    j["chip"] = chip->name;
    put_expected(j, expected, CostClass::kMatmul, cal);
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("matmul [%lld] x [%lld,%lld] @ [%lld,%lld] %s on %s\n",
                static_cast<long long>(mm.batch), static_cast<long long>(mm.m),
                static_cast<long long>(mm.k), static_cast<long long>(mm.k),
                static_cast<long long>(mm.n), std::string(dtype_name(mm.dtype)).c_str(),
                for_terminal(chip->name).c_str());
    std::printf("%s", prediction_text(p).c_str());
    std::printf("%s", expected_text("expected    ", expected, CostClass::kMatmul, cal).c_str());
  }
  return 0;
}

ROOFLINE_CLI_COMMAND({
    .name = "predict matmul",
    .usage = "roofline predict matmul --chip NAME|PATH --m M --k K --n N [--batch B] "
             "[--dtype bf16] [--calibration FILE] [--format text|json]",
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
                {"format", "text|json", "output format (default text)"}},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
