// Helpers the training-step tests share: built-in models, meshes by their
// text, a checked step, a part by its name.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "roofline/calibration.hpp"
#include "roofline/sharding/checked.hpp"
#include "roofline/sharding/model_config.hpp"
#include "roofline/sharding/parse.hpp"
#include "roofline/sharding/training_step.hpp"

namespace roofline::testing {

inline const ModelConfig& llama8b() { return *find_builtin_model("llama-3-8b"); }
inline const ModelConfig& llama70b() { return *find_builtin_model("llama-3-70b"); }

inline Mesh mesh(const char* spec, const char* chip_name) {
  auto m = parse_mesh(spec, chip(chip_name));
  REQUIRE(m.ok());
  return *m;
}

inline AxisMask axes(const Mesh& m, const char* names) { return mask_of(*resolve_axes(m, names)); }

// predict_training_step, which must accept the input.
inline TrainingStep step(const ModelConfig& model, const char* chip_name, const Mesh& m, ParallelLayout lay,
                         TrainingConfig cfg, const ChipCalibration* cal = nullptr) {
  auto s = predict_training_step(model, chip(chip_name), m, lay, cfg, cal);
  INFO((s.ok() ? "" : std::string(s.status().message())));
  REQUIRE(s.ok());
  return *s;
}

inline const StepPart& part(const TrainingStep& s, std::string_view name) {
  for (const auto& p : s.parts)
    if (p.name == name) return p;
  FAIL("no part " << name);
  return s.parts.front();
}

}  // namespace roofline::testing
