// A training step's collective takes the expected time `roofline predict
// collective` gives the same collective on the same chip (issue 37: one
// all-gather, one figure, whichever path asks): the published model of its
// shape under the built-in calibration (NCCL's cost model on an NVIDIA GPU,
// the TPU figures), the collective curve under a calibration without
// ChipCalibration::collective_shape_model.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/calibration.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/report/prediction.hpp"
#include "training_support.hpp"

using roofline::AxisMask;
using roofline::chip;
using roofline::ChipCalibration;
using roofline::CollectiveKind;
using roofline::Mesh;
using roofline::ParallelLayout;
using roofline::TrainingConfig;
using roofline::testing::llama8b;
using roofline::testing::mesh;
using roofline::testing::part;
using roofline::testing::step;

namespace {

// `roofline predict collective --op all-reduce --mesh SPEC --axes X
// --bytes V` on `chip_name`: its JSON's expected_s and expected_model.
struct Predicted {
  double expected_s = 0;
  std::string model;
};
Predicted predict_collective(const char* chip_name, const char* spec, const Mesh& m, CollectiveKind kind, double v,
                             const ChipCalibration& cal) {
  const roofline::CollectiveQuery q{.op = std::string(roofline::collective_name(kind)), .kind = kind,
                                    .mesh_spec = spec, .mesh = &m, .axes = {0}, .array_bytes = v};
  // What the CLI prints: the JSON's text, read back.
  const nlohmann::json j = nlohmann::json::parse(
      roofline::collective_json(q, roofline::collective_time(m, kind, AxisMask{1}, v), chip(chip_name), cal).dump());
  return {.expected_s = j.at("expected_s").get<double>(),
          .model = j.at("expected_model").is_null() ? std::string() : j.at("expected_model").get<std::string>()};
}

// The gradient all-reduce of pure data parallelism over the one axis X of
// `spec`: one all-reduce of each layer's gradient (layers times) and one of
// each embedding table's (2: Llama 3 8B's are not tied), as
// layer_collectives and embedding_and_loss add them.
void check_gradient_all_reduce(const char* chip_name, const char* spec, const ChipCalibration& cal,
                               bool published_model) {
  const Mesh m = mesh(spec, chip_name);
  const ParallelLayout lay{.data = AxisMask{1}};
  const TrainingConfig cfg{.batch_tokens = 64 * 8192};
  const roofline::TrainingStep s = step(llama8b(), chip_name, m, lay, cfg, &cal);
  const auto c = roofline::detail::step::context(llama8b(), chip(chip_name), m, lay, cfg, cal);
  REQUIRE(c.Xf == 1);
  REQUIRE(c.has_embed);
  REQUIRE(!llama8b().tied_embeddings);
  const Predicted layer = predict_collective(chip_name, spec, m, CollectiveKind::kAllReduce, c.layer_grad_bytes(), cal);
  const Predicted table = predict_collective(chip_name, spec, m, CollectiveKind::kAllReduce, c.embed_grad_bytes(), cal);
  INFO(chip_name << " " << spec << ": " << layer.model);
  CHECK(!layer.model.empty() == published_model);
  CHECK(!table.model.empty() == published_model);
  const double expected_s = c.L_s * layer.expected_s + 2 * table.expected_s;
  CHECK(part(s, "gradient all-reduce").expected_s == Approx(expected_s).epsilon(1e-12));
  // The link curve alone (what the step used before) gives another figure
  // wherever a published model applies: the check above can tell them apart.
  const double curve_s = c.L_s * roofline::expected_s(roofline::collective_time(m, CollectiveKind::kAllReduce,
                                                                                AxisMask{1}, c.layer_grad_bytes()),
                                                      cal) +
                         2 * roofline::expected_s(roofline::collective_time(m, CollectiveKind::kAllReduce, AxisMask{1},
                                                                            c.embed_grad_bytes()),
                                                  cal);
  if (published_model)
    CHECK(std::abs(expected_s / curve_s - 1) > 0.05);
  else
    CHECK(expected_s == Approx(curve_s).epsilon(1e-12));
}

}  // namespace

TEST_CASE("a step's gradient all-reduce on 8 H100s takes predict collective's NCCL figure") {
  check_gradient_all_reduce("h100-sxm", "X=8", roofline::default_calibration(chip("h100-sxm")), true);
}

TEST_CASE("a step's gradient all-reduce on a v5p ring of 16 takes predict collective's TPU figure") {
  check_gradient_all_reduce("tpu-v5p", "X=16", roofline::default_calibration(chip("tpu-v5p")), true);
}

TEST_CASE("without the shape model a step's collective takes the collective curve, as predict does") {
  ChipCalibration cal = roofline::default_calibration(chip("h100-sxm"));
  cal.collective_shape_model = false;
  check_gradient_all_reduce("h100-sxm", "X=8", cal, false);
}

TEST_CASE("a GPU group of one rank a node over DCN keeps the collective curve") {
  // FSDP over the 8 H100s of a node, data parallelism over 4 nodes: the
  // gradient all-reduce runs over the DCN axis alone, 4 ranks, one a node.
  // NCCL's model (nccl_system) would take 4 ranks as one node over NVLink:
  // the step keeps the curve, at the DCN's bandwidth.
  const char* spec = "slice=4:dcn,fsdp=8";
  const Mesh m = mesh(spec, "h100-sxm");
  const ChipCalibration cal = roofline::default_calibration(chip("h100-sxm"));
  const AxisMask slice = roofline::testing::axes(m, "slice"), fsdp = roofline::testing::axes(m, "fsdp");
  const ParallelLayout lay{.data = slice | fsdp, .fsdp = fsdp};
  const TrainingConfig cfg{.batch_tokens = 64 * 8192, .remat = roofline::Remat::kFull};
  const roofline::TrainingStep s = step(llama8b(), "h100-sxm", m, lay, cfg, &cal);
  const auto c = roofline::detail::step::context(llama8b(), chip("h100-sxm"), m, lay, cfg, cal);
  const auto all_reduce = [&](double v) {
    return roofline::expected_s(roofline::collective_time(m, CollectiveKind::kAllReduce, slice, v), cal);
  };
  CHECK(part(s, "gradient all-reduce").expected_s ==
        Approx(c.L_s * all_reduce(c.layer_grad_bytes() / c.Xf) + 2 * all_reduce(c.embed_grad_bytes() / c.Xf))
            .epsilon(1e-12));
}
