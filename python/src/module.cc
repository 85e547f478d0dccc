// roofline._core: the C++ library as a Python extension. The package
// (python/roofline/__init__.py) re-exports it and adds the Python-side
// conveniences; see docs/python.md.
#include "python/src/bindings.hpp"

NB_MODULE(_core, m) {
  m.doc() = "roofline: roofline performance prediction for ML accelerators (C++ core)";
  roofline::python::bind_chips(m);
  roofline::python::bind_predict(m);
  roofline::python::bind_hlo(m);
  roofline::python::bind_ops(m);
  roofline::python::bind_calibrate(m);
  roofline::python::bind_plan(m);
  roofline::python::bind_trace(m);
  roofline::python::bind_partials(m);
}
