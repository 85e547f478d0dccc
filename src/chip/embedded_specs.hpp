// The chip specs compiled in from hardware/*.json (generated source).
#pragma once

#include <string_view>
#include <vector>

namespace roofline::detail {

struct EmbeddedSpec {
  std::string_view file_name;  // "tpu-v5e.json"
  std::string_view json;
};

const std::vector<EmbeddedSpec>& embedded_specs();

}  // namespace roofline::detail
