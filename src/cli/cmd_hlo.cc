// roofline hlo FILE --chip NAME: the roofline of every instruction of an HLO
// module (HLO text or HloProto), sorted by predicted time, with the module
// total. Parses the arguments and prints the library's renderers
// (roofline/report/hlo.hpp).
#include <cstdio>
#include <optional>
#include <string>

#include "roofline/chip_io.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/report/hlo.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/parse.hpp"
#include "src/cli/calibration_arg.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {
namespace {

// --mesh X=2,Y=4 [--slice 2x4]: the module's devices laid on the chip's
// torus (partition ids row-major over the axes); nullopt without --mesh.
absl::StatusOr<std::optional<Mesh>> mesh_arg(const Args& args, const Chip& chip) {
  const std::optional<std::string> spec = args.get("mesh");
  const std::optional<std::string> slice = args.get("slice");
  if (!spec) {
    if (slice) return absl::InvalidArgumentError("--slice needs --mesh (the axes to lay on the slice)");
    return std::optional<Mesh>{};
  }
  auto axes = parse_mesh_axes(*spec);
  if (!axes.ok()) return axes.status();
  std::vector<int> shape;
  if (slice) {
    auto s = parse_slice_shape(*slice);
    if (!s.ok()) return s.status();
    shape = *s;
  }
  auto mesh = make_mesh(*axes, chip, shape);
  if (!mesh.ok()) return mesh.status();
  return std::optional<Mesh>(*std::move(mesh));
}

absl::StatusOr<HloCollectiveRewrites> rewrites_arg(const Args& args) {
  const std::string v = args.get("collective-rewrites").value_or("auto");
  if (v == "auto") return HloCollectiveRewrites::kAuto;
  if (v == "accelerator") return HloCollectiveRewrites::kAccelerator;
  if (v == "none") return HloCollectiveRewrites::kNone;
  return absl::InvalidArgumentError("--collective-rewrites: expected auto, accelerator or none");
}

int run(const Args& args) {
  auto fmt = args.format({"text", "json", "csv"});
  if (!fmt.ok()) return fail(fmt.status());
  if (args.positional().size() != 1) return fail_usage("hlo: expected exactly one HLO file (text or HloProto)");
  auto chip_name = args.require("chip");
  if (!chip_name.ok()) return fail(chip_name.status());
  auto chip = resolve_chip(*chip_name);
  if (!chip.ok()) return fail(chip.status());
  auto top = args.get_int("top", 0, kIntRange);
  if (!top.ok()) return fail(top.status());
  if (*top < 0) return fail_usage("--top must be a non-negative number of rows (0: all)");
  auto module = read_hlo_file(args.positional()[0]);
  if (!module.ok()) return fail(module.status());

  auto mesh = mesh_arg(args, *chip);
  if (!mesh.ok()) return fail(mesh.status());
  auto rewrites = rewrites_arg(args);
  if (!rewrites.ok()) return fail(rewrites.status());
  const HloCollectiveOptions options{.mesh = *mesh ? &**mesh : nullptr, .rewrites = *rewrites};
  auto mp_or = predict(*module, *chip, options);
  if (!mp_or.ok()) return fail(mp_or.status());
  const HloModulePrediction& mp = *mp_or;
  for (const std::string& line : hlo_loop_warning_lines(args.positional()[0], mp))
    std::fprintf(stderr, "warning: %s\n", line.c_str());
  auto cal = calibration_arg(args, *chip);
  if (!cal.ok()) return fail(cal.status());
  const HloRenderOptions render{.top = static_cast<std::size_t>(*top), .mesh = *mesh ? &**mesh : nullptr};
  if (*fmt == "json") return write_output(args, hlo_json(*module, mp, *chip, *cal, render).dump() + "\n");
  if (*fmt == "csv") return write_output(args, hlo_csv(mp, *chip, *cal, render));
  return write_output(args, hlo_text(*module, mp, *chip, *cal, render));
}

ROOFLINE_CLI_COMMAND({
    .name = "hlo",
    .usage = "roofline hlo FILE --chip NAME|PATH [--mesh X=2,Y=4 [--slice 2x4]] "
             "[--collective-rewrites auto|accelerator|none] [--calibration FILE] [--format text|json|csv] [--top N] [-o FILE]",
    .summary = "Roofline of every instruction of an HLO module (text or HloProto), sorted by predicted time.",
    .options = {{"chip", "NAME|PATH", "embedded chip name or a chip spec JSON file"},
                kCalibrationOption,
                {"format", "text|json|csv", "output format (default text)"},
                {"top", "N", "only the N slowest instructions (default: all)"},
                {"output", "FILE", "write to FILE instead of stdout", "o"},
                {"mesh", "X=2,Y=4", "the module's devices as a mesh laid on the chip's torus (partition ids "
                                    "row-major); each replica group is timed over the axes it spans"},
                {"slice", "2x4", "the physical slice shape to lay the mesh on (default: the chip's choice)"},
                {"collective-rewrites", "auto|accelerator|none",
                 "all-reduce + dynamic-slice as reduce-scatter and XLA's all-reduce combining: auto (default) "
                 "applies them to a module not yet scheduled (pre-optimisation), none never"},
                {"output", "FILE", "write to FILE instead of stdout", "o"}},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
