// roofline demo: the built-in default job, the worked examples from
// docs/formulas.md as one table, so a newcomer sees the roofline at work.
#include <cstdio>
#include <string>
#include <vector>

#include "roofline/format/text_table.hpp"
#include "roofline/format/units.hpp"
#include "roofline/roofline.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {
namespace {

struct Example {
  std::string what;
  std::string chip;
  Matmul mm;
};

int run(const Args&) {
  // Each row is a worked example: the seed article's v5e matmul (89.3 ms),
  // the same weights at decode batch 8, the per-chip share of the
  // data-parallel FFN projection over 8 v5e (x[8,1024,8192] / 8 @ w1[8192,16384]:
  // 1.39 ms) and its 32768-wide logits twin (2.78 ms), and the first one on
  // other chips.
  const std::vector<Example> examples = {
      {"x[32,1024,8192] @ W[8192,32768]", "tpu-v5e", Matmul{.m = 32 * 1024, .k = 8192, .n = 32768}},
      {"decode: x[8,8192] @ W[8192,32768]", "tpu-v5e", Matmul{.m = 8, .k = 8192, .n = 32768}},
      {"DP/8: x[1,1024,8192] @ w1[8192,16384]", "tpu-v5e", Matmul{.m = 1024, .k = 8192, .n = 16384}},
      {"DP/8: x[1,1024,8192] @ wout[8192,32768]", "tpu-v5e", Matmul{.m = 1024, .k = 8192, .n = 32768}},
      {"x[32,1024,8192] @ W[8192,32768]", "tpu-v6e", Matmul{.m = 32 * 1024, .k = 8192, .n = 32768}},
      {"x[32,1024,8192] @ W[8192,32768]", "h100-sxm", Matmul{.m = 32 * 1024, .k = 8192, .n = 32768}},
      {"decode: x[8,8192] @ W[8192,32768]", "h100-sxm", Matmul{.m = 8, .k = 8192, .n = 32768}},
      {"x[32,1024,8192] @ W[8192,32768]", "mi300x", Matmul{.m = 32 * 1024, .k = 8192, .n = 32768}},
  };
  using A = TextTable::Align;
  TextTable t({{"op (bf16)"}, {"chip"}, {"FLOPs", A::kRight}, {"HBM bytes", A::kRight},
               {"T_math", A::kRight}, {"T_hbm", A::kRight}, {"bound"},
               {"intensity", A::kRight}, {"ridge", A::kRight}});
  for (const Example& e : examples) {
    const Chip& c = chip(e.chip);
    const Prediction p = predict(e.mm, c);
    char inten[32], ridge[32];
    std::snprintf(inten, sizeof inten, "%.0f", p.intensity_flops_per_byte);
    std::snprintf(ridge, sizeof ridge, "%.0f", p.ridge_flops_per_byte);
    t.add_row({e.what, e.chip, format_si(p.flops, "FLOP", 4), format_bytes(p.hbm_bytes),
               format_seconds(p.t_math_s), format_seconds(p.t_hbm_s),
               std::string(bound_name(p.bound)), inten, ridge});
  }
  std::printf("Single-device rooflines of the worked examples (intensity and ridge in FLOP/byte)\n\n%s",
              t.render().c_str());
  std::printf("\nThe seed article measured 94.1 ms for the first row on a v5e: %.0f%% of the roofline.\n",
              100 * predict(examples[0].mm, chip("tpu-v5e")).t_math_s / 0.0941);
  return 0;
}

ROOFLINE_CLI_COMMAND({
    .name = "demo",
    .usage = "roofline demo",
    .summary = "The built-in default: rooflines of the worked examples as one table.",
    .options = {},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
