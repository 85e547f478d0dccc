// The ops beside Matmul: element-wise, a mesh and the collectives over its
// axes, the sharded matmul in the scaling book's notation; predict() for
// each and expected(), the calibrated time `roofline predict` prints beside
// the roofline. Text a user typed (a mesh, axes, an expression, dim sizes)
// is parsed when the value is built, so a mistake raises ValueError with
// the library's located message there, not at predict().
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.hpp"
#include "python/src/status.hpp"
#include "python/src/trace_values.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/ops/elementwise.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/ops/validate.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/report/prediction.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/planner.hpp"
#include "roofline/sharding/sharded_matmul.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace roofline::python {
namespace {

std::string name_of(DType t) { return std::string(dtype_name(t)); }

// A collective over named axes of a mesh: what `roofline predict collective`
// is asked. `array_bytes` is V, the whole (gathered / unreduced) array over
// the collective's devices.
struct Collective {
  CollectiveKind kind = CollectiveKind::kAllGather;
  Mesh mesh;
  std::vector<int> axes;  // indices into mesh.axes, as written
  double array_bytes = 0;
  int shift = 1;  // permute: positions each shard moves

  int group_size() const { return mesh.size(mask_of(axes)); }
  std::vector<std::string> axis_names() const {
    std::vector<std::string> out;
    for (int i : axes) out.push_back(mesh.axes[static_cast<std::size_t>(i)].name);
    return out;
  }
};

// "x[B_X, D] @ w[D, F_Y]" on a mesh with every dim sized: what `roofline
// predict EXPR` is asked.
struct ShardedMatmulOp {
  MatmulExpression expression;
  Mesh mesh;
  std::map<std::string, std::int64_t> dims;
  DType dtype = DType::kBF16;
};

// "4x4x12" or [4, 4, 12].
std::vector<int> slice_shape_from(const nb::object& shape) {
  if (shape.is_none()) return {};
  if (nb::isinstance<nb::str>(shape)) return value(parse_slice_shape(nb::cast<std::string>(shape)));
  return nb::cast<std::vector<int>>(shape);
}

// data=16 (ICI) or slice="2:dcn" (across slices / nodes).
MeshAxis axis_from(const std::string& name, const nb::handle& size) {
  if (nb::isinstance<nb::int_>(size)) return {.name = name, .size = nb::cast<int>(size)};
  if (nb::isinstance<nb::str>(size)) {
    std::vector<MeshAxis> one = value(parse_mesh_axes(name + "=" + nb::cast<std::string>(size)));
    return one.front();
  }
  throw nb::type_error(("mesh axis " + name + ": expected a size (int) or 'N:dcn'").c_str());
}

Mesh mesh_from(const Chip& chip, const std::optional<std::string>& spec, const nb::object& slice_shape,
               const nb::kwargs& axes) {
  if (spec && axes.size() > 0) throw nb::type_error("Mesh: give the axes as text ('X=8,Y=4') or as keywords, not both");
  std::vector<MeshAxis> list;
  if (spec) {
    list = value(parse_mesh_axes(*spec));
  } else {
    for (auto [name, size] : axes) list.push_back(axis_from(nb::cast<std::string>(name), size));
    if (list.empty()) throw nb::type_error("Mesh: expected axes, e.g. Mesh(chip, data=8, model=4) or Mesh(chip, 'X=8,Y=4')");
  }
  return value(make_mesh(std::move(list), chip, slice_shape_from(slice_shape)));
}

// ["X", "Y"], "X,Y" or the book's run-together "XY".
std::vector<int> axes_from(const Mesh& mesh, const nb::handle& axes) {
  std::string text;
  if (nb::isinstance<nb::str>(axes)) {
    text = nb::cast<std::string>(axes);
  } else {
    for (const std::string& a : nb::cast<std::vector<std::string>>(axes)) text += (text.empty() ? "" : ",") + a;
  }
  return value(resolve_axes(mesh, text));
}

std::map<std::string, std::int64_t> dims_from(const nb::handle& dims) {
  if (nb::isinstance<nb::str>(dims)) return value(parse_dim_sizes(nb::cast<std::string>(dims)));
  auto out = nb::cast<std::map<std::string, std::int64_t>>(dims);
  for (const auto& [name, size] : out) check_dimension(("dims['" + name + "']").c_str(), size);
  return out;
}

std::string collective_repr(const Collective& c) {
  std::string axes;
  for (const std::string& a : c.axis_names()) axes += (axes.empty() ? "'" : ", '") + a + "'";
  char v[32];
  std::snprintf(v, sizeof v, "%.6g", c.array_bytes);
  return "Collective(kind='" + std::string(collective_name(c.kind)) + "', mesh='" + mesh_text(c.mesh) + "', axes=[" +
         axes + "], array_bytes=" + v + ")";
}

// The expected seconds of one op or prediction, by its cost class.
double expected_of(const nb::handle& what, const Chip& chip, const nb::object& calibration,
                   const std::optional<std::string>& cost_class) {
  const ChipCalibration cal = calibration_for(chip, calibration);
  const auto no_class = [&](const char* what_kind) {
    if (cost_class) throw nb::type_error((std::string("expected: cost_class applies to a Prediction, not a ") + what_kind).c_str());
  };
  if (nb::isinstance<Matmul>(what)) {
    no_class("Matmul");
    return expected_s(predict(nb::cast<const Matmul&>(what), chip), CostClass::kMatmul, cal);
  }
  if (nb::isinstance<Elementwise>(what)) {
    no_class("Elementwise");
    return expected_s(predict(nb::cast<const Elementwise&>(what), chip), CostClass::kMemory, cal);
  }
  if (nb::isinstance<Collective>(what)) {
    no_class("Collective");
    const Collective& c = nb::cast<const Collective&>(what);
    check(check_mesh_chip(c.mesh, chip));
    return expected_collective_s({.kind = c.kind, .array_bytes = c.array_bytes, .group_size = c.mesh.size(mask_of(c.axes))},
                                 collective_time(c.mesh, c.kind, mask_of(c.axes), c.array_bytes, c.shift), chip, cal)
        .expected_s;
  }
  if (nb::isinstance<CollectiveTime>(what)) {
    no_class("CollectiveTime");
    return expected_s(nb::cast<const CollectiveTime&>(what), cal);
  }
  if (nb::isinstance<ShardedMatmulStrategy>(what)) {
    no_class("ShardedMatmulStrategy");
    return expected(nb::cast<const ShardedMatmulStrategy&>(what), chip, cal).whole_s;
  }
  if (nb::isinstance<ShardedMatmul>(what)) {
    no_class("ShardedMatmulPrediction");
    return expected(nb::cast<const ShardedMatmul&>(what).chosen(), chip, cal).whole_s;
  }
  if (nb::isinstance<ShardedMatmulOp>(what)) {
    no_class("ShardedMatmul");
    const ShardedMatmulOp& op = nb::cast<const ShardedMatmulOp&>(what);
    const ShardedMatmul r = value(predict_sharded_matmul(op.expression, op.mesh, chip, op.dims, op.dtype));
    return expected(r.chosen(), chip, cal).whole_s;
  }
  if (nb::isinstance<Prediction>(what)) {
    if (!cost_class)
      throw nb::type_error("expected: a Prediction needs cost_class= ('matmul', 'memory', 'collective' or 'host link')");
    for (int i = 0; i < kCostClassCount; ++i)
      if (cost_class_name(static_cast<CostClass>(i)) == *cost_class)
        return expected_s(nb::cast<const Prediction&>(what), static_cast<CostClass>(i), cal);
    throw nb::value_error(("expected: unknown cost_class '" + *cost_class +
                           "'; known: matmul, memory, collective, host link").c_str());
  }
  throw nb::type_error("expected: expected an op (Matmul, Elementwise, Collective, ShardedMatmul) or its prediction");
}

// What `roofline predict` prints for `op` (roofline/report/prediction.hpp),
// as text or JSON; the mesh as Mesh.text writes it.
nb::object render_prediction(const nb::handle& op, const Chip& chip, const nb::object& calibration,
                             const std::string& format) {
  if (format != "text" && format != "json")
    throw nb::value_error(("render_prediction: format: expected 'text' or 'json', got '" + format + "'").c_str());
  const bool json = format == "json";
  const ChipCalibration cal = calibration_for(chip, calibration);
  std::string out;
  if (nb::isinstance<Matmul>(op)) {
    const Matmul& mm = nb::cast<const Matmul&>(op);
    check(validate(mm, chip));
    const Prediction p = predict(mm, chip);
    out = json ? matmul_json(p, chip, cal).dump() + "\n" : matmul_text(mm, p, chip, cal);
  } else if (nb::isinstance<Collective>(op)) {
    const Collective& c = nb::cast<const Collective&>(op);
    check(check_mesh_chip(c.mesh, chip));
    const CollectiveQuery q{.op = std::string(collective_name(c.kind)),
                            .kind = c.kind,
                            .mesh_spec = mesh_text(c.mesh),
                            .mesh = &c.mesh,
                            .axes = c.axes,
                            .array_bytes = c.array_bytes,
                            .shift = c.shift};
    const CollectiveTime t = collective_time(c.mesh, c.kind, mask_of(c.axes), c.array_bytes, c.shift);
    out = json ? collective_json(q, t, chip, cal).dump() + "\n" : collective_text(q, t, chip, cal);
  } else if (nb::isinstance<ShardedMatmulOp>(op)) {
    const ShardedMatmulOp& s = nb::cast<const ShardedMatmulOp&>(op);
    const ShardedMatmul r = value(predict_sharded_matmul(s.expression, s.mesh, chip, s.dims, s.dtype));
    const ShardedMatmulQuery q{
        .expression = s.expression.text, .mesh_spec = mesh_text(s.mesh), .mesh = &s.mesh, .dtype = s.dtype};
    out = json ? sharded_matmul_json(q, r, chip, cal).dump() + "\n" : sharded_matmul_text(q, r, chip, cal);
  } else {
    throw nb::type_error("render_prediction: expected a Matmul, Collective or ShardedMatmul");
  }
  return text(out);
}

}  // namespace

void bind_ops(nb::module_& m) {
  nb::class_<Elementwise>(m, "Elementwise",
                          "`inputs` arrays of `elements` each in, one out: FLOPs = elements * flops_per_element, "
                          "bytes = elements * (inputs * |dtype| + |out_dtype|). Transcendentals are counted apart "
                          "and do not enter T_math.")
      .def(
          "__init__",
          [](Elementwise* self, std::int64_t elements, int inputs, double flops_per_element,
             double transcendentals_per_element, const std::string& dtype, std::optional<std::string> out_dtype) {
            // predict() of these is NaN ("invalid"): refused where typed.
            check_dimension("elements", elements);
            if (inputs < 0 || inputs > 1'000'000)
              throw nb::value_error(("inputs: expected 0 to 1000000 arrays, got " + std::to_string(inputs)).c_str());
            check_non_negative("flops_per_element", flops_per_element);
            check_non_negative("transcendentals_per_element", transcendentals_per_element);
            Elementwise op{.elements = elements,
                           .inputs = inputs,
                           .flops_per_element = flops_per_element,
                           .transcendentals_per_element = transcendentals_per_element,
                           .dtype = dtype_from(dtype)};
            if (out_dtype) op.out_dtype = dtype_from(*out_dtype);
            new (self) Elementwise(op);
          },
          nb::kw_only(), "elements"_a, "inputs"_a = 1, "flops_per_element"_a = 1.0,
          "transcendentals_per_element"_a = 0.0, "dtype"_a = "bf16", "out_dtype"_a = nb::none())
      .def_ro("elements", &Elementwise::elements)
      .def_ro("inputs", &Elementwise::inputs)
      .def_ro("flops_per_element", &Elementwise::flops_per_element)
      .def_ro("transcendentals_per_element", &Elementwise::transcendentals_per_element)
      .def_prop_ro("dtype", [](const Elementwise& e) { return name_of(e.dtype); })
      .def_prop_ro("out_dtype", [](const Elementwise& e) { return name_of(e.out()); })
      .def_prop_ro("flops", &Elementwise::flops)
      .def_prop_ro("hbm_bytes", &Elementwise::hbm_bytes)
      .def("__repr__", [](const Elementwise& e) {
        return "Elementwise(elements=" + std::to_string(e.elements) + ", inputs=" + std::to_string(e.inputs) +
               ", dtype='" + name_of(e.dtype) + "')";
      });

  nb::class_<MeshAxis>(m, "MeshAxis", "One named axis of a mesh: its size and whether it runs over ICI or DCN.")
      .def_ro("name", &MeshAxis::name)
      .def_ro("size", &MeshAxis::size)
      .def_prop_ro("network", [](const MeshAxis& a) { return a.network == AxisNetwork::kDcn ? "dcn" : "ici"; })
      .def("__repr__", [](const MeshAxis& a) {
        return "MeshAxis('" + a.name + "', " + std::to_string(a.size) + (a.network == AxisNetwork::kDcn ? ", dcn)" : ")");
      });

  nb::class_<Mesh>(m, "Mesh",
                   "Named axes laid on a chip's interconnect (the CLI's --mesh X=8,Y=4). Mesh(chip, data=8, "
                   "model=4), Mesh(chip, 'data=8,model=4,slice=2:dcn') or slice='2:dcn' as a keyword; "
                   "slice_shape='4x4x12' fixes the physical slice.")
      .def(
          "__init__",
          [](Mesh* self, const Chip& chip, std::optional<std::string> spec, const nb::object& slice_shape,
             const nb::kwargs& axes) { new (self) Mesh(mesh_from(chip, spec, slice_shape, axes)); },
          "chip"_a, "spec"_a = nb::none(), nb::kw_only(), "slice_shape"_a = nb::none(), "axes"_a)
      .def_ro("chip", &Mesh::chip_name, "The chip the mesh was laid on; it predicts only on that one.")
      .def_ro("axes", &Mesh::axes)
      .def_prop_ro("sizes",
                   [](const Mesh& mesh) {
                     // A dict keeps the mesh's axis order (major first).
                     nb::dict out;
                     for (const MeshAxis& a : mesh.axes) out[a.name.c_str()] = a.size;
                     return out;
                   })
      .def_ro("slice_shape", &Mesh::slice_shape)
      .def_prop_ro("device_count", &Mesh::device_count)
      .def_prop_ro("text", [](const Mesh& mesh) { return mesh_text(mesh); }, "'data=16,model=4': what Mesh(chip, text) reads back.")
      .def_prop_ro("layout", [](const Mesh& mesh) { return describe_layout(mesh); },
                   "How each axis lies on the torus or switch: 'X=4: torus dim 0 (4, wraps); ...'.")
      .def("__repr__", [](const Mesh& mesh) { return "Mesh(chip('" + mesh.chip_name + "'), '" + mesh_text(mesh) + "')"; });

  nb::class_<CollectiveTime>(m, "CollectiveTime",
                             "T_ici of one collective: the bandwidth term, the latency floor, their max.")
      .def_ro("t_ici_s", &CollectiveTime::t_ici_s)
      .def_ro("t_bandwidth_s", &CollectiveTime::t_bandwidth_s)
      .def_ro("t_latency_s", &CollectiveTime::t_latency_s)
      .def_ro("bytes_per_link", &CollectiveTime::bytes_per_link, "Bytes over the busiest link, one direction.")
      .def_ro("hops", &CollectiveTime::hops)
      .def_prop_ro("bound", [](const CollectiveTime& t) { return std::string(bound_name(t.bound)); })
      .def("__repr__", [](const CollectiveTime& t) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "CollectiveTime(t_ici_s=%.6g, t_bandwidth_s=%.6g, t_latency_s=%.6g, hops=%d)",
                      t.t_ici_s, t.t_bandwidth_s, t.t_latency_s, t.hops);
        return std::string(buf);
      });

  nb::class_<Collective>(m, "Collective",
                         "A collective over named mesh axes: kind all-gather | reduce-scatter | all-reduce | "
                         "all-to-all | permute; array_bytes is V, the whole (gathered / unreduced) array over "
                         "those axes; shift (permute only) how many positions each shard moves.")
      .def(
          "__init__",
          [](Collective* self, const std::string& kind, const Mesh& mesh, const nb::handle& axes, double array_bytes,
             int shift) {
            const std::optional<CollectiveKind> k = parse_collective(kind);
            if (!k)
              throw nb::value_error(("kind: expected all-gather, reduce-scatter, all-reduce, all-to-all or permute, got '" +
                                     kind + "'").c_str());
            check_non_negative("array_bytes", array_bytes);
            if (shift != 1 && *k != CollectiveKind::kPermute)
              throw nb::value_error("shift is the distance a permute moves each shard; it applies to kind='permute' only");
            if (shift < 1) throw nb::value_error(("shift: expected 1 or more, got " + std::to_string(shift)).c_str());
            new (self) Collective{.kind = *k, .mesh = mesh, .axes = axes_from(mesh, axes), .array_bytes = array_bytes,
                                  .shift = shift};
          },
          nb::kw_only(), "kind"_a, "mesh"_a, "axes"_a, "array_bytes"_a, "shift"_a = 1)
      .def_prop_ro("kind", [](const Collective& c) { return std::string(collective_name(c.kind)); })
      .def_ro("mesh", &Collective::mesh)
      .def_prop_ro("axes", &Collective::axis_names)
      .def_prop_ro("group_size", &Collective::group_size, "Devices taking part: the product of the axes' sizes.")
      .def_ro("array_bytes", &Collective::array_bytes)
      .def_ro("shift", &Collective::shift)
      .def("__repr__", &collective_repr);

  nb::class_<CollectiveStep>(m, "CollectiveStep", "One collective of a sharded-matmul strategy.")
      .def_prop_ro("kind", [](const CollectiveStep& c) { return std::string(collective_name(c.kind)); })
      .def_ro("axes", &CollectiveStep::axes)
      .def_ro("what", &CollectiveStep::what, "'AllGather_X w[D_X, F_Y] -> w[D, F_Y]'")
      .def_ro("array_bytes", &CollectiveStep::array_bytes)
      .def_ro("time", &CollectiveStep::time)
      .def("__repr__", [](const CollectiveStep& c) { return "CollectiveStep('" + c.what + "')"; });

  nb::class_<ShardedMatmulStrategy>(m, "ShardedMatmulStrategy",
                                    "One way to multiply: the collectives in order, the local matmul, the whole "
                                    "(communication overlapping compute at the lower bound).")
      .def_ro("name", &ShardedMatmulStrategy::name)
      .def_ro("collectives", &ShardedMatmulStrategy::collectives)
      .def_ro("local", &ShardedMatmulStrategy::local, "What one device multiplies (a Matmul).")
      .def_ro("local_text", &ShardedMatmulStrategy::local_text)
      .def_ro("result", &ShardedMatmulStrategy::result)
      .def_ro("local_prediction", &ShardedMatmulStrategy::local_prediction)
      .def_ro("whole", &ShardedMatmulStrategy::whole)
      .def("__repr__", [](const ShardedMatmulStrategy& s) { return "ShardedMatmulStrategy('" + s.name + "')"; });

  nb::class_<ShardedMatmul>(m, "ShardedMatmulPrediction",
                            "Every strategy of a sharded matmul, fastest first (by t_lower_s, then t_upper_s).")
      .def_ro("cases", &ShardedMatmul::cases, "The scaling book's cases (1-4) present in the expression as written.")
      .def_prop_ro("case_descriptions",
                   [](const ShardedMatmul& r) {
                     std::vector<std::string> out;
                     for (int c : r.cases) out.push_back(case_description(c));
                     return out;
                   })
      .def_ro("strategies", &ShardedMatmul::strategies)
      .def_prop_ro("chosen", &ShardedMatmul::chosen, nb::rv_policy::copy)
      .def("__repr__", [](const ShardedMatmul& r) {
        return "ShardedMatmulPrediction(chosen='" + r.chosen().name + "', " + std::to_string(r.strategies.size()) +
               " strategies)";
      });

  nb::class_<ShardedMatmulOp>(m, "ShardedMatmul",
                              "A matmul in the scaling book's notation on a mesh: ShardedMatmul('x[B_X, D] @ w[D, "
                              "F_Y]', mesh=..., dims={'B': 8192, 'D': 8192, 'F': 32768} or 'B=8192,D=8192,F=32768', "
                              "dtype='bf16').")
      .def(
          "__init__",
          [](ShardedMatmulOp* self, const std::string& expression, const Mesh& mesh, const nb::handle& dims,
             const std::string& dtype) {
            new (self) ShardedMatmulOp{.expression = value(parse_matmul_expression(expression)),
                                       .mesh = mesh,
                                       .dims = dims_from(dims),
                                       .dtype = dtype_from(dtype)};
          },
          "expression"_a, nb::kw_only(), "mesh"_a, "dims"_a, "dtype"_a = "bf16")
      .def_prop_ro("expression", [](const ShardedMatmulOp& op) { return op.expression.text; })
      .def_ro("mesh", &ShardedMatmulOp::mesh)
      .def_ro("dims", &ShardedMatmulOp::dims)
      .def_prop_ro("dtype", [](const ShardedMatmulOp& op) { return name_of(op.dtype); })
      .def("__repr__", [](const ShardedMatmulOp& op) {
        return "ShardedMatmul('" + op.expression.text + "', mesh='" + mesh_text(op.mesh) + "')";
      });

  // Overloads of predict() beside predict(Matmul, Chip), which stays first:
  // nanobind tries overloads in order and that one is the hot path.
  m.def("predict", nb::overload_cast<const Elementwise&, const Chip&>(&predict), "op"_a, "chip"_a);
  m.def(
      "predict",
      [](const Collective& c, const Chip& chip) {
        check(check_mesh_chip(c.mesh, chip));
        return collective_time(c.mesh, c.kind, mask_of(c.axes), c.array_bytes, c.shift);
      },
      "op"_a, "chip"_a);
  m.def(
      "predict",
      [](const ShardedMatmulOp& op, const Chip& chip) {
        return value(predict_sharded_matmul(op.expression, op.mesh, chip, op.dims, op.dtype));
      },
      "op"_a, "chip"_a);

  m.def("expected", &expected_of, "what"_a, "chip"_a, "calibration"_a = nb::none(), nb::kw_only(),
        "cost_class"_a = nb::none(),
        "The calibrated expected seconds `roofline predict` prints beside the roofline: floor + max(T_math / "
        "e_math, T_hbm / e_mem, T_ici / e_link) of the op's cost class (Matmul: matmul, Elementwise: memory, "
        "Collective: collective; a sharded matmul's chosen strategy overlaps its local matmul with its "
        "collectives). A bare Prediction needs cost_class=.");
  m.def("render_prediction", &render_prediction, "op"_a, "chip"_a, "calibration"_a = nb::none(), nb::kw_only(),
        "format"_a = "text",
        "What `roofline predict` prints for `op` on `chip`, byte for byte: a Matmul as `predict matmul`, a "
        "Collective as `predict collective`, a ShardedMatmul as `predict EXPR` (the mesh written as Mesh.text); "
        "format 'text' or 'json'.");
}

}  // namespace roofline::python
