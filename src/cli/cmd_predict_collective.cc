// roofline predict collective: T_ici of one collective over named mesh axes.
#include <cstdio>

#include "roofline/format/terminal.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/report/json.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/parse.hpp"
#include "src/cli/calibration_arg.hpp"
#include "src/cli/command.hpp"
#include "src/cli/prediction_output.hpp"

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
  std::vector<std::string> axis_names;
  for (int i : *axes) axis_names.push_back(mesh->axes[static_cast<std::size_t>(i)].name);
  const int group = mesh->size(mask_of(*axes));
  auto cal_or = calibration_arg(args, *chip);
  if (!cal_or.ok()) return fail(cal_or.status());
  const ChipCalibration& cal = *cal_or;
  const double expected = expected_s(t, cal);
  if (*fmt == "json") {
    Json j = to_json(t);
    put_expected(j, expected, CostClass::kCollective, cal);
    j["op"] = *op_name;
    j["chip"] = chip->name;
    j["mesh"] = *mesh_spec;
    j["layout"] = describe_layout(*mesh);
    j["axes"] = axis_names;
    j["group_size"] = group;
    j["array_bytes"] = *bytes;
    if (*kind == CollectiveKind::kPermute) j["shift"] = *hops;
    std::printf("%s\n", j.dump().c_str());
    return 0;
  }
  std::string axes_joined;
  for (const std::string& a : axis_names) axes_joined += (axes_joined.empty() ? "" : ",") + a;
  std::printf("%s over %s (%d devices) of V = %s on %s\n", op_name->c_str(), axes_joined.c_str(), group,
              format_bytes(*bytes).c_str(), for_terminal(chip->name).c_str());
  std::printf("  layout         %s\n", describe_layout(*mesh).c_str());
  std::printf("  T_ici          %s\n", format_seconds(t.t_ici_s).c_str());
  std::printf("%s", expected_text("expected       ", expected, CostClass::kCollective, cal).c_str());
  std::printf("  bandwidth term %s   latency floor %s (%d hops)\n", format_seconds(t.t_bandwidth_s).c_str(),
              format_seconds(t.t_latency_s).c_str(), t.hops);
  std::printf("  busiest link   %s one way   (%s)\n", format_bytes(t.bytes_per_link).c_str(),
              t.t_latency_s > t.t_bandwidth_s ? "latency-bound" : "bandwidth-bound");
  return 0;
}

ROOFLINE_CLI_COMMAND({
    .name = "predict collective",
    .usage = "roofline predict collective --op all-gather|reduce-scatter|all-reduce|all-to-all|permute "
             "--chip NAME|PATH --mesh X=8,Y=4 --axes Y --bytes V [--hops K] [--calibration FILE] [--format text|json]",
    .summary = "T_ici of a collective over mesh axes: rings with or without wraparound, latency floor, DCN, NVLink.",
    .options = {{"op", "KIND", "all-gather, reduce-scatter, all-reduce, all-to-all or permute"},
                {"chip", "NAME|PATH", "embedded chip name or a chip spec JSON file"},
                {"mesh", "X=8,Y=4", "mesh axes and sizes; append :dcn to axes that cross slices / nodes"},
                {"axes", "X,Y", "the mesh axes the collective runs over (\"XY\" also reads as X,Y)"},
                {"bytes", "V", "size of the whole (gathered / unreduced) array over those axes, in bytes"},
                {"hops", "K", "permute only: how many positions along the axis each shard moves (default 1)"},
                kCalibrationOption,
                {"format", "text|json", "output format (default text)"}},
    .run = run,
});

}  // namespace
}  // namespace roofline::cli
