#include "python/src/status.hpp"

#include <filesystem>
#include <system_error>

namespace roofline::python {

void raise(const absl::Status& status, const std::string* path) {
  const std::string message(status.message());
  std::error_code ec;
  const bool missing = path != nullptr && !std::filesystem::exists(*path, ec);
  PyObject* type = status.code() == absl::StatusCode::kNotFound && missing ? PyExc_FileNotFoundError
                                                                          : PyExc_ValueError;
  PyErr_SetString(type, message.c_str());
  throw nanobind::python_error();
}

}  // namespace roofline::python
