// hlo(source, chip): the roofline of every instruction of an HLO module (HLO
// text or HloProto), as `roofline hlo` prints it, in execution order; its
// to_text(), to_json() and to_csv() return what the CLI prints
// (roofline/report/hlo.hpp).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.hpp"
#include "python/src/status.hpp"
#include "python/src/trace_values.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"
#include "roofline/hlo/shape.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/report/hlo.hpp"
#include "roofline/report/hlo_rows.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/mesh.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace roofline::python {
namespace {

// One row, its text copied out of the module (which the result outlives).
struct HloRow {
  std::string name;
  std::string opcode;
  std::string category;
  std::string shape;
  double executions = 1;
  bool aggregate = false;  // a loop or call: its numbers total the rows it runs
  Prediction prediction;   // one execution
  std::optional<double> expected_s;  // one execution; None where no class curve applies
  std::optional<std::int64_t> group_size;  // collectives: the replica-group size
  std::vector<std::string> notes;
  double hbm_bytes_unfused = 0;  // one execution, nothing fused
  std::int64_t fusion_group = -1;  // the fusion pass's group, or -1
};

// A while loop charged fewer times than it runs (HloLoopWarning).
struct HloLoopWarningRow {
  std::string name;
  std::string computation;
  std::string kind;  // "trip_count_unknown" or "runs_overflow"
  std::string reason;
};

// What the renderers read, kept with the result: the module (the
// prediction's rows point into it), its prediction, the chip, the
// calibration and the mesh it was predicted with.
struct HloRendering {
  HloModule module;
  HloModulePrediction prediction;
  Chip chip;
  ChipCalibration calibration;
  std::optional<Mesh> mesh;

  HloRenderOptions options(std::size_t top) const { return {.top = top, .mesh = mesh ? &*mesh : nullptr}; }
};

struct HloResult {
  std::shared_ptr<const HloRendering> rendering;
  std::string module;
  std::string chip;
  std::string calibration;  // where the expected times come from
  std::vector<HloRow> rows;
  Prediction total;  // one run of the module; loop rows not added again
  double expected_s = 0;
  double host_bytes = 0;
  int unknown_cost_instructions = 0;
  int unknown_trip_count_loops = 0;
  Prediction unfused;  // every op its own HBM traffic: the upper estimate beside `total`
  int fusion_groups = 0;
  std::vector<HloLoopWarningRow> loop_warnings;
  HloCollectiveRewriteCounts collective_rewrites;
};

HloResult hlo_result(HloModule source, const Chip& chip, const ChipCalibration& cal, std::optional<Mesh> on_mesh) {
  auto rendering = std::make_shared<HloRendering>(HloRendering{
      .module = std::move(source), .prediction = {}, .chip = chip, .calibration = cal, .mesh = std::move(on_mesh)});
  const HloModule& module = rendering->module;
  const Mesh* mesh = rendering->mesh ? &*rendering->mesh : nullptr;
  rendering->prediction = value(predict(module, chip, HloCollectiveOptions{.mesh = mesh}));
  const HloModulePrediction& mp = rendering->prediction;
  HloResult out{.rendering = rendering,
                .module = std::string(module.name()),
                .chip = chip.name,
                .calibration = cal.origin,
                .rows = {},
                .total = mp.total,
                .expected_s = expected_total_s(mp, chip, cal),
                .host_bytes = mp.total.host_bytes,
                .unknown_cost_instructions = mp.unknown_cost_instructions,
                .unknown_trip_count_loops = mp.unknown_trip_count_loops,
                .unfused = mp.unfused,
                .fusion_groups = mp.fusion_groups,
                .loop_warnings = {},
                .collective_rewrites = mp.collective_rewrites};
  for (const HloLoopWarning& w : mp.loop_warnings)
    out.loop_warnings.push_back(HloLoopWarningRow{
        .name = std::string(w.instruction->name),
        .computation = std::string(w.instruction->parent->name),
        .kind = w.kind == HloLoopWarning::Kind::kRunsOverflow ? "runs_overflow" : "trip_count_unknown",
        .reason = w.reason});
  out.rows.reserve(mp.rows.size());
  for (const HloPredictionRow& r : mp.rows) {
    HloRow row{.name = std::string(r.instruction->name),
               .opcode = std::string(r.instruction->opcode_name),
               .category = std::string(category_name(r.cost.category)),
               .shape = to_string_no_layout(r.instruction->shape),
               .executions = r.executions,
               .aggregate = r.aggregate,
               .prediction = r.prediction,
               .expected_s = expected_s(r, chip, cal),
               .group_size = std::nullopt,
               .notes = hlo_row_notes(r, chip),
               .hbm_bytes_unfused = r.hbm_bytes_unfused,
               .fusion_group = r.fusion_group};
    if (r.cost.collective) row.group_size = r.cost.collective->group_size;
    out.rows.push_back(std::move(row));
  }
  return out;
}

// A path when it names a file; HLO text when it reads as a module; else a
// path that is not there (FileNotFoundError).
HloModule read_source(const nb::handle& source) {
  if (nb::isinstance<nb::bytes>(source)) {
    const nb::bytes b = nb::borrow<nb::bytes>(source);
    return value(parse_hlo(std::string_view(b.c_str(), b.size()), "<hlo bytes>"));
  }
  const std::string text = path_from(source);
  const bool looks_like_hlo = text.find("HloModule") != std::string::npos || text.find("ENTRY") != std::string::npos;
  if (looks_like_hlo && text.find('\n') != std::string::npos) return value(parse_hlo_text(text, "<hlo text>"));
  return value(read_hlo_file(text), &text);
}

}  // namespace

void bind_hlo(nb::module_& m) {
  nb::class_<HloRow>(m, "HloRow", "One instruction the module runs, with its roofline per execution.")
      .def_ro("name", &HloRow::name)
      .def_ro("opcode", &HloRow::opcode)
      .def_ro("category", &HloRow::category)
      .def_ro("shape", &HloRow::shape)
      .def_ro("executions", &HloRow::executions)
      .def_ro("aggregate", &HloRow::aggregate)
      .def_ro("prediction", &HloRow::prediction)
      .def_ro("expected_s", &HloRow::expected_s)
      .def_ro("group_size", &HloRow::group_size)
      .def_ro("notes", &HloRow::notes)
      .def_ro("hbm_bytes_unfused", &HloRow::hbm_bytes_unfused)
      .def_ro("fusion_group", &HloRow::fusion_group)
      .def("__repr__", [](const HloRow& r) {
        return "HloRow(" + r.name + " " + r.opcode + ", t_lower_s=" + std::to_string(r.prediction.t_lower_s) + ")";
      });
  nb::class_<HloLoopWarningRow>(m, "HloLoopWarning",
                                 "A while loop charged fewer times than it runs: its trip count is unknown, or its "
                                 "runs overflow.")
      .def_ro("name", &HloLoopWarningRow::name)
      .def_ro("computation", &HloLoopWarningRow::computation)
      .def_ro("kind", &HloLoopWarningRow::kind)
      .def_ro("reason", &HloLoopWarningRow::reason)
      .def("__repr__", [](const HloLoopWarningRow& w) {
        return "HloLoopWarning(" + w.name + " in " + w.computation + ", " + w.kind + ": " + w.reason + ")";
      });
  nb::class_<HloResult>(m, "HloResult", "Every instruction's roofline and the module total (one run).")
      .def_ro("module", &HloResult::module)
      .def_ro("chip", &HloResult::chip)
      .def_ro("calibration", &HloResult::calibration)
      .def_ro("rows", &HloResult::rows)
      .def_ro("total", &HloResult::total)
      .def_ro("expected_s", &HloResult::expected_s)
      .def_ro("host_bytes", &HloResult::host_bytes)
      .def_ro("unknown_cost_instructions", &HloResult::unknown_cost_instructions)
      .def_ro("unknown_trip_count_loops", &HloResult::unknown_trip_count_loops)
      .def_ro("unfused", &HloResult::unfused)
      .def_ro("fusion_groups", &HloResult::fusion_groups)
      .def_ro("loop_warnings", &HloResult::loop_warnings)
      .def_prop_ro(
          "collective_rewrites",
          [](const HloResult& r) {
            const HloCollectiveRewriteCounts& c = r.collective_rewrites;
            nb::dict d;
            d["applied"] = c.applied;
            d["reduce_scatters"] = c.reduce_scatters;
            d["combined_all_reduces"] = c.combined_all_reduces;
            d["all_reduce_combines"] = c.all_reduce_combines;
            d["mesh_timed"] = c.mesh_timed;
            return d;
          },
          "What the collective plan did: all-reduces costed as reduce-scatters, all-reduces combined (and into "
          "how many), collectives timed over mesh axes.")
      // The CLI's outputs, byte for byte: `roofline hlo FILE --chip C [--top N] --format text|json|csv`.
      .def(
          "to_text",
          [](const HloResult& r, std::size_t top) {
            const HloRendering& h = *r.rendering;
            return text(hlo_text(h.module, h.prediction, h.chip, h.calibration, h.options(top)));
          },
          "top"_a = 0,
          "The table `roofline hlo` prints: every instruction (the `top` slowest; 0: all), slowest first, the "
          "module total, the expected total and the caveats.")
      .def(
          "to_json",
          [](const HloResult& r, std::size_t top) {
            const HloRendering& h = *r.rendering;
            return text(hlo_json(h.module, h.prediction, h.chip, h.calibration, h.options(top)).dump() + "\n");
          },
          "top"_a = 0, "The JSON document `roofline hlo --format json` prints (docs/json.md).")
      .def(
          "to_csv",
          [](const HloResult& r, std::size_t top) {
            const HloRendering& h = *r.rendering;
            return text(hlo_csv(h.prediction, h.chip, h.calibration, h.options(top)));
          },
          "top"_a = 0, "One CSV row per instruction, slowest first, as `roofline hlo --format csv` prints.");

  m.def(
      "hlo",
      [](const nb::handle& source, const Chip& chip, const nb::object& calibration, const nb::object& mesh) {
        HloModule module = read_source(source);
        std::optional<Mesh> m;
        if (!mesh.is_none()) {
          m = nb::cast<Mesh>(mesh);
          check(check_mesh_chip(*m, chip));
        }
        return hlo_result(std::move(module), chip, calibration_for(chip, calibration), std::move(m));
      },
      "source"_a, "chip"_a, "calibration"_a = nb::none(), "mesh"_a = nb::none(),
      "The roofline of every instruction of an HLO module: `source` is a path (HLO text or HloProto), HLO "
      "text, or HloProto bytes. mesh: a roofline.Mesh laid on `chip` whose devices are the module's (partition "
      "ids row-major); each replica group is then timed over the mesh axes it spans.");
}

}  // namespace roofline::python
