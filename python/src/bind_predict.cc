// Ops as keyword-constructed values and predict(op, chip): the same fields
// and units as roofline::Prediction.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "python/src/bindings.hpp"
#include "python/src/status.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/predict.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace roofline::python {
namespace {

std::string name_of(DType t) { return std::string(dtype_name(t)); }

std::string prediction_repr(const Prediction& p) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "Prediction(t_lower_s=%.6g, bound='%s', t_math_s=%.6g, t_hbm_s=%.6g, t_ici_s=%.6g, flops=%.6g, "
                "hbm_bytes=%.6g)",
                p.t_lower_s, std::string(bound_name(p.bound)).c_str(), p.t_math_s, p.t_hbm_s, p.t_ici_s, p.flops,
                p.hbm_bytes);
  return buf;
}

}  // namespace

void bind_predict(nb::module_& m) {
  nb::class_<Prediction>(m, "Prediction",
                         "The roofline of one op or a sum of ops: counts, the four times, the two bounds.")
      .def_ro("flops", &Prediction::flops)
      .def_ro("transcendentals", &Prediction::transcendentals)
      .def_ro("hbm_bytes", &Prediction::hbm_bytes)
      .def_ro("ici_bytes", &Prediction::ici_bytes, "Bytes over the busiest interconnect link (never the host link's).")
      .def_ro("host_bytes", &Prediction::host_bytes, "Bytes to or from host memory over the host link (PCIe).")
      .def_ro("t_math_s", &Prediction::t_math_s)
      .def_ro("t_hbm_s", &Prediction::t_hbm_s)
      .def_ro("t_hbm_cold_s", &Prediction::t_hbm_cold_s,
              "The bytes at HBM's bandwidth: the memory term the expected time stretches (t_hbm_s may be L2's).")
      .def_ro("t_ici_s", &Prediction::t_ici_s)
      .def_ro("t_host_s", &Prediction::t_host_s, "host_bytes at the chip's PCIe bandwidth (0 with no such figure).")
      .def_ro("t_lower_s", &Prediction::t_lower_s)
      .def_ro("t_upper_s", &Prediction::t_upper_s)
      .def_prop_ro("bound", [](const Prediction& p) { return std::string(bound_name(p.bound)); })
      .def_ro("intensity_flops_per_byte", &Prediction::intensity_flops_per_byte)
      .def_ro("ridge_flops_per_byte", &Prediction::ridge_flops_per_byte)
      .def_ro("memory_bytes_per_s", &Prediction::memory_bytes_per_s)
      .def_prop_ro("dtype", [](const Prediction& p) { return name_of(p.dtype); })
      .def_prop_ro("peak_flops_per_s", [](const Prediction& p) { return p.peak.flops_per_s; })
      .def_prop_ro("valid", &Prediction::valid)
      .def("__repr__", &prediction_repr);

  nb::class_<Matmul>(m, "Matmul", "[batch, m, k] @ [batch, k, n] -> [batch, m, n]; FLOPs = 2*batch*m*k*n.")
      .def(
          "__init__",
          [](Matmul* self, std::int64_t m_, std::int64_t k, std::int64_t n, std::int64_t batch,
             const std::string& dtype, std::optional<std::string> rhs_dtype, std::optional<std::string> out_dtype) {
            // predict() of a negative or zero dimension is NaN ("invalid"):
            // refused here, where the number was typed.
            for (auto [name, v] : {std::pair{"m", m_}, std::pair{"k", k}, std::pair{"n", n}, std::pair{"batch", batch}})
              check_dimension(name, v);
            Matmul mm{.batch = batch, .m = m_, .k = k, .n = n, .dtype = dtype_from(dtype)};
            if (rhs_dtype) mm.rhs_dtype = dtype_from(*rhs_dtype);
            if (out_dtype) mm.out_dtype = dtype_from(*out_dtype);
            new (self) Matmul(mm);
          },
          nb::kw_only(), "m"_a, "k"_a, "n"_a, "batch"_a = 1, "dtype"_a = "bf16", "rhs_dtype"_a = nb::none(),
          "out_dtype"_a = nb::none())
      .def_ro("m", &Matmul::m)
      .def_ro("k", &Matmul::k)
      .def_ro("n", &Matmul::n)
      .def_ro("batch", &Matmul::batch)
      .def_prop_ro("dtype", [](const Matmul& mm) { return name_of(mm.dtype); })
      .def_prop_ro("rhs_dtype", [](const Matmul& mm) { return name_of(mm.rhs()); })
      .def_prop_ro("out_dtype", [](const Matmul& mm) { return name_of(mm.out()); })
      .def_prop_ro("flops", &Matmul::flops)
      .def_prop_ro("hbm_bytes", &Matmul::hbm_bytes)
      .def("__repr__", [](const Matmul& mm) {
        return "Matmul(m=" + std::to_string(mm.m) + ", k=" + std::to_string(mm.k) + ", n=" + std::to_string(mm.n) +
               ", batch=" + std::to_string(mm.batch) + ", dtype='" + name_of(mm.dtype) + "')";
      });

  m.def("predict", nb::overload_cast<const Matmul&, const Chip&>(&predict), "op"_a, "chip"_a,
        "The roofline of `op` on `chip`: a Prediction (seconds, FLOPs, bytes).");
}

}  // namespace roofline::python
