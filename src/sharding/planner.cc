// Enumerates mesh factorisations and strategies, predicts each, ranks them.
#include "roofline/sharding/planner.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <tuple>

#include "roofline/detail/cat.hpp"
#include "roofline/sharding/checked.hpp"

namespace roofline {
namespace {

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

enum class DcnRole : unsigned char { kNone, kData, kFsdp, kPipeline };

struct MeshShape {
  int x, y, p, s;
  auto key() const { return std::tie(x, y, p, s); }
  bool operator<(const MeshShape& o) const { return key() < o.key(); }
};

// Axis order: slice / node (DCN, outermost), stage, data, model (innermost: the
// tensor-parallel collectives are the most frequent, so they get the most
// minor placement when axes share a torus dimension).
std::vector<MeshAxis> mesh_axes(const MeshShape& m, const char* scale_out_name) {
  std::vector<MeshAxis> axes;
  if (m.s > 1) axes.push_back({.name = scale_out_name, .size = m.s, .network = AxisNetwork::kDcn});
  if (m.p > 1) axes.push_back({.name = "stage", .size = m.p});
  if (m.x > 1 || (m.y == 1 && m.p == 1 && m.s == 1)) axes.push_back({.name = "data", .size = m.x});
  if (m.y > 1) axes.push_back({.name = "model", .size = m.y});
  return axes;
}

std::string mesh_text(const Mesh& mesh) {
  std::string s;
  for (const MeshAxis& a : mesh.axes)
    s += detail::cat(s.empty() ? "" : ",", a.name, "=", a.size, a.network == AxisNetwork::kDcn ? ":dcn" : "");
  return s;
}

AxisMask axis_bit(const Mesh& mesh, const char* name) {
  const std::optional<int> i = mesh.index(name);
  return i ? AxisMask{1} << *i : 0;
}

// The request's own checks, before any mesh is tried.
absl::Status check_request(const PlanRequest& req, std::int64_t seq) {
  if (absl::Status s = validate(req.model); !s.ok()) return s;
  if (req.chips < 1) return absl::InvalidArgumentError(detail::cat("chips must be >= 1, got ", req.chips));
  if (req.batch_tokens < 1)
    return absl::InvalidArgumentError(detail::cat("the batch must have >= 1 token, got ", req.batch_tokens));
  if (!req.chip.has(req.dtypes.compute))
    return absl::InvalidArgumentError(
        detail::cat(req.chip.name, " has no ", peak_class_name(peak_class(req.dtypes.compute)), " peak"));
  if (req.batch_tokens % seq != 0)
    return absl::InvalidArgumentError(detail::cat("the batch of ", req.batch_tokens,
                                                  " tokens is not a whole number of ", seq, "-token sequences"));
  return absl::OkStatus();
}

// One search: the meshes tried so far and the plan being filled.
class Search {
 public:
  Search(const PlanRequest& req, std::int64_t seq)
      : req_(req), model_(req.model), seq_(seq),
        // TPU slices are joined by DCN, GPU nodes by their scale-out network.
        scale_out_(req.chip.ici.topology == Topology::kSwitch ? "node" : "slice") {}

  // Every mesh shape S (DCN) x data x model x stages the model's sizes
  // divide, and every role of the DCN axis.
  Plan run() {
    const int domain = req_.chip.ici.domain_chips();
    for (int s : divisors(req_.chips)) {
      const int n_ici = req_.chips / s;
      if (n_ici > domain) continue;
      if (s > 1 && !(req_.chip.dcn_bytes_per_s > 0)) continue;
      for (int y : divisors(n_ici)) {
        if (model_.heads % y != 0 || model_.d_ff % y != 0 || model_.d_model % y != 0) continue;
        if (model_.kv_heads % y != 0 && y % model_.kv_heads != 0) continue;
        for (int p_ici : divisors(n_ici / y)) {
          if (model_.layers % p_ici != 0) continue;
          std::vector<DcnRole> roles = {DcnRole::kNone};
          if (s > 1) roles = {DcnRole::kData, DcnRole::kFsdp, DcnRole::kPipeline};
          for (DcnRole role : roles) {
            if (role == DcnRole::kPipeline && (p_ici > 1 || model_.layers % s != 0)) continue;
            try_shape(MeshShape{n_ici / (y * p_ici), y, p_ici, s}, role);
          }
        }
      }
    }
    return std::move(plan_);
  }

 private:
  // The layouts of one mesh shape: FSDP inside the slices or not.
  void try_shape(const MeshShape& shape, DcnRole role) {
    const absl::StatusOr<Mesh>& mesh_or = mesh(shape);
    if (!mesh_or.ok()) {
      ++plan_.skipped;
      return;
    }
    const Mesh& mesh = *mesh_or;
    const AxisMask data_ici = axis_bit(mesh, "data"), model_ax = axis_bit(mesh, "model");
    const AxisMask slice = axis_bit(mesh, scale_out_);
    const int stages = shape.p * (role == DcnRole::kPipeline ? shape.s : 1);
    std::vector<bool> fsdp_modes = {false};
    if (shape.x > 1) fsdp_modes = {false, true};
    for (bool ici_fsdp : fsdp_modes) {
      // FSDP across slices only on top of FSDP inside them.
      if (role == DcnRole::kFsdp && shape.x > 1 && !ici_fsdp) continue;
      ParallelLayout lay;
      lay.data = data_ici | ((role == DcnRole::kData || role == DcnRole::kFsdp) ? slice : 0);
      lay.fsdp = (ici_fsdp ? data_ici : 0) | (role == DcnRole::kFsdp ? slice : 0);
      lay.model = model_ax;
      if (role == DcnRole::kPipeline) lay.pipeline_axis = *mesh.index(scale_out_);
      else if (shape.p > 1) lay.pipeline_axis = *mesh.index("stage");
      try_layout(mesh, lay, stages, slice);
    }
  }

  // One layout with and without remat, over the microbatch counts a
  // pipeline of `stages` takes: predicted, kept if it fits (or if it is the
  // smallest miss so far).
  void try_layout(const Mesh& mesh, const ParallelLayout& lay, int stages, AxisMask slice) {
    for (Remat remat : {Remat::kNone, Remat::kFull}) {
      std::vector<int> mbs = {1};
      if (stages > 1) mbs = {stages, 2 * stages, 4 * stages, 8 * stages};
      for (int mb : mbs) {
        ++plan_.considered;
        const TrainingConfig cfg{.batch_tokens = req_.batch_tokens,
                                 .seq_len = seq_,
                                 .dtypes = req_.dtypes,
                                 .remat = remat,
                                 .mask = req_.mask,
                                 .microbatches = mb};
        if (!validate_training_step(model_, req_.chip, mesh, lay, cfg).ok()) {
          ++plan_.skipped;
          continue;
        }
        ++plan_.evaluated;
        TrainingStep step = training_step(model_, req_.chip, mesh, lay, cfg);
        const bool fits = step.memory.fits;
        if (!fits) {
          ++plan_.dropped_memory;
          if (plan_.smallest_that_does_not_fit &&
              plan_.smallest_that_does_not_fit->step.memory.total_bytes <= step.memory.total_bytes)
            continue;
        }
        PlanCandidate c{.mesh = mesh_text(mesh),
                        .layout = describe_layout(mesh),
                        .strategy = strategy_name(mesh, lay, mb),
                        .remat = remat,
                        .microbatches = mb,
                        .step = std::move(step),
                        .critical = critical_batch(req_.chip, mesh, lay.data & ~slice, lay.model, lay.data & slice,
                                                   model_.d_ff, req_.dtypes.compute)};
        if (fits) plan_.ranked.push_back(std::move(c));
        else plan_.smallest_that_does_not_fit = std::move(c);
      }
    }
  }

  // Each shape is laid once.
  const absl::StatusOr<Mesh>& mesh(const MeshShape& shape) {
    auto it = meshes_.find(shape);
    if (it == meshes_.end()) it = meshes_.emplace(shape, make_mesh(mesh_axes(shape, scale_out_), req_.chip)).first;
    return it->second;
  }

  const PlanRequest& req_;
  const ModelConfig& model_;
  std::int64_t seq_;
  const char* scale_out_;
  Plan plan_;
  std::map<MeshShape, absl::StatusOr<Mesh>> meshes_;
};

}  // namespace

absl::StatusOr<Plan> plan_training(const PlanRequest& req) {
  const auto start = std::chrono::steady_clock::now();
  const std::int64_t seq = req.seq_len > 0 ? req.seq_len : req.model.seq_len;
  if (absl::Status s = check_request(req, seq); !s.ok()) return s;
  Plan plan = Search(req, seq).run();
  std::sort(plan.ranked.begin(), plan.ranked.end(), [](const PlanCandidate& a, const PlanCandidate& b) {
    if (a.step.step_time_s != b.step.step_time_s) return a.step.step_time_s < b.step.step_time_s;
    if (a.step.roofline.t_upper_s != b.step.roofline.t_upper_s) return a.step.roofline.t_upper_s < b.step.roofline.t_upper_s;
    return a.step.memory.total_bytes < b.step.memory.total_bytes;
  });
  if (!plan.ranked.empty()) plan.smallest_that_does_not_fit.reset();
  plan.search_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace roofline
