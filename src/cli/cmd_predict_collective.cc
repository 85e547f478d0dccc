// roofline predict collective: T_ici of one collective over named mesh axes.
// Parses the arguments and prints the library's renderers
// (roofline/report/prediction.hpp).
#include <cstdio>

#include "roofline/chip_io.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/report/prediction.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/parse.hpp"
#include "src/cli/calibration_arg.hpp"
#include "src/cli/command.hpp"

namespace roofline::cli {
namespace {

int run(const Args& args) {
  auto fmt = args.format({"text", "json"});
  if (!fmt.ok()) return fail(fmt.status());
  if (!args.positional().empty())
    return fail_usage("predict collective: unexpected argument '" + args.positional()[0] + "'");
  auto op_name = args.require("op");
  if (!op_name.ok()) return fail(op_name.status());
  const std::optional<CollectiveKind> kind = parse_collective(*op_name);
  if (!kind)
    return fail_usage("--op: expected all-gather|reduce-scatter|all-reduce|all-to-all|permute, got '" + *op_name + "'");
  auto chip_name = args.require("chip");
  if (!chip_name.ok()) return fail(chip_name.status());
  auto chip = resolve_chip(*chip_name);
  if (!chip.ok()) return fail(chip.status());
  auto mesh_spec = args.require("mesh");
  if (!mesh_spec.ok()) return fail(mesh_spec.status());
  auto mesh = parse_mesh(*mesh_spec, *chip);
  if (!mesh.ok()) return fail(mesh.status());
  auto axes_text = args.require("axes");
  if (!axes_text.ok()) return fail(axes_text.status());
  auto axes = resolve_axes(*mesh, *axes_text);
  if (!axes.ok()) return fail(axes.status());
  auto bytes = args.get_double("bytes", std::nullopt);
  if (!bytes.ok()) return fail(bytes.status());
  if (!(*bytes >= 0)) return fail_usage(detail::cat("--bytes: expected a size in bytes >= 0, got ", *bytes));
  if (args.has("hops") && *kind != CollectiveKind::kPermute)
    return fail_usage("--hops is the distance a permute moves each shard; it applies to --op permute only");
  auto hops = args.get_int("hops", 1, kIntRange);
  if (!hops.ok()) return fail(hops.status());
  if (*hops < 1 || *hops > 1'000'000) return fail_usage(detail::cat("--hops: expected 1 or more, got ", *hops));

  const CollectiveTime t = collective_time(*mesh, *kind, mask_of(*axes), *bytes, static_cast<int>(*hops));
  auto cal = calibration_arg(args, *chip);
  if (!cal.ok()) return fail(cal.status());
  const CollectiveQuery query{.op = *op_name,
                              .kind = *kind,
                              .mesh_spec = *mesh_spec,
                              .mesh = &*mesh,
                              .axes = *axes,
                              .array_bytes = *bytes,
                              .shift = static_cast<int>(*hops)};
  if (*fmt == "json") return write_output(args, collective_json(query, t, *chip, *cal).dump() + "\n");
  return write_output(args, collective_text(query, t, *chip, *cal));
}

ROOFLINE_CLI_COMMAND({
    .name = "predict collective",
    .usage = "roofline predict collective --op all-gather|reduce-scatter|all-reduce|all-to-all|permute "
             "--chip NAME|PATH --mesh X=8,Y=4 --axes Y --bytes V [--hops K] [--calibration FILE] [--format text|json] [-o FILE]",
    .summary = "T_ici of a collective over mesh axes: rings with or without wraparound, latency floor, DCN, NVLink.",
    .options = {{"op", "KIND", "all-gather, reduce-scatter, all-reduce, all-to-all or permute"},
                {"chip", "NAME|PATH", "embedded chip name or a chip spec JSON file"},
                {"mesh", "X=8,Y=4", "mesh axes and sizes; append :dcn to axes that cross slices / nodes"},
                {"axes", "X,Y", "the mesh axes the collective runs over (\"XY\" also reads as X,Y)"},
                {"bytes", "V", "size of the whole (gathered / unreduced) array over those axes, in bytes"},
                {"hops", "K", "permute only: how many positions along the axis each shard moves (default 1)"},
                kCalibrationOption,
                {"format", "text|json", "output format (default text)"},
                {"output", "FILE", "write to FILE instead of stdout", "o"}},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
