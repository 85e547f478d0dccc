// Any bytes given as a mesh spec, a sharded-matmul expression, a dims list,
// a model config, a parallel layout, a slice shape or a calibration file
// must parse or be refused, never crash. The first byte picks the parser;
// parsed expressions are predicted on a small mesh, parsed layouts
// evaluated as a training step, parsed slice shapes laid out.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "roofline/calibrate/io.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/matmul_expression.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/model_config.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/planner.hpp"
#include "roofline/sharding/sharded_matmul.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const roofline::Chip& v4 = roofline::chip("tpu-v4");
  switch (data[0] % 7) {
    case 0: {
      auto mesh = roofline::parse_mesh(text, v4);
      if (mesh.ok()) (void)roofline::describe_layout(*mesh);
      break;
    }
    case 1: {
      auto expr = roofline::parse_matmul_expression(text);
      if (!expr.ok()) break;
      static const roofline::Mesh mesh = *roofline::parse_mesh("X=4,Y=4,Z=4", v4);
      std::map<std::string, std::int64_t> dims;
      for (const auto* op : {&expr->lhs, &expr->rhs})
        for (const auto& d : op->dims) dims[d.name] = 64;
      (void)roofline::predict_sharded_matmul(*expr, mesh, v4, dims);
      break;
    }
    case 2: (void)roofline::parse_dim_sizes(text); break;
    case 3: (void)roofline::parse_model_config(text, "fuzz.json"); break;
    case 4: {
      static const roofline::Mesh mesh = *roofline::parse_mesh("slice=2:dcn,stage=2,data=4,model=4", v4);
      auto layout = roofline::parse_layout(text, mesh);
      if (!layout.ok()) break;
      (void)roofline::layout_text(mesh, *layout);
      roofline::PlanRequest req{.model = *roofline::find_builtin_model("llama-3-8b"), .chip = v4, .chips = 64,
                                .batch_tokens = 64 * 8192};
      (void)roofline::evaluate_layout(req, mesh, *layout, roofline::Remat::kFull, 4);
      break;
    }
    case 5: {
      auto shape = roofline::parse_slice_shape(text);
      if (!shape.ok()) break;
      (void)roofline::make_mesh({{.name = "X", .size = 64}}, v4, *shape);
      break;
    }
    case 6: (void)roofline::parse_calibration(text, "fuzz.json"); break;
  }
  return 0;
}
