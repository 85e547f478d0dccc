// Enumerates mesh factorisations and strategies within the request's
// constraints, predicts each, ranks those that fit and keeps the rest with
// the reason (roofline/sharding/planner.hpp).
#include "roofline/sharding/planner.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include "roofline/detail/cat.hpp"
#include "roofline/sharding/checked.hpp"
#include "src/sharding/planner_detail.hpp"

namespace roofline {
namespace {

using detail::cat;

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

// Slices across DCN: as asked, else one up to the pod size and beyond it
// the fewest that hold the chips (a 64-chip v5p pod is one slice, never
// split into DCN "slices" that the hardware would not be).
absl::StatusOr<int> choose_slices(const PlanRequest& req) {
  const int domain = req.chip.ici.domain_chips();
  const char* unit = req.chip.ici.topology == Topology::kSwitch ? "node" : "slice";
  int s = req.constraints.slices;
  if (s > 0) {
    if (req.chips % s != 0)
      return absl::InvalidArgumentError(cat(s, " ", unit, "s do not divide ", req.chips, " chips"));
    if (req.chips / s > domain)
      return absl::InvalidArgumentError(cat(req.chips / s, " chips per ", unit, " > the ", domain, " a ",
                                            req.chip.name, " ", unit, " holds"));
  } else {
    for (int d : divisors(req.chips))
      if (req.chips / d <= domain) {
        s = d;
        break;
      }
  }
  if (s > 1 && !(req.chip.dcn_bytes_per_s > 0))
    return absl::InvalidArgumentError(cat(req.chip.name, " has no DCN: ", req.chips, " chips need ", s, " ",
                                          unit, "s of at most ", domain));
  if (!req.constraints.slice_shape.empty()) {
    const std::optional<long long> held = detail::layout::slice_chips(req.constraints.slice_shape);
    if (!held)
      return absl::InvalidArgumentError(cat("the slice shape holds more chips than a long long counts, but each of the ",
                                            s, " ", unit, "s has ", req.chips / s));
    if (*held != req.chips / s)
      return absl::InvalidArgumentError(cat("the slice shape holds ", *held, " chips, but each of the ", s, " ",
                                            unit, "s has ", req.chips / s));
  }
  return s;
}

enum class DcnRole : unsigned char { kNone, kData, kFsdp, kPipeline };

struct MeshShape {
  int x, y, p, s;
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

AxisMask axis_bit(std::span<const MeshAxis> axes, std::string_view name) {
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return AxisMask{1} << i;
  return 0;
}

int axis_index(std::span<const MeshAxis> axes, std::string_view name) {
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return static_cast<int>(i);
  return -1;
}

// Why `y`-way tensor parallelism cannot split the model, or "".
std::string tp_reason(const ModelConfig& m, int y) {
  if (m.heads % y != 0) return cat("tensor parallel ", y, " does not divide ", m.heads, " heads");
  if (m.d_ff % y != 0) return cat("tensor parallel ", y, " does not divide d_ff ", m.d_ff);
  if (m.d_model % y != 0) return cat("tensor parallel ", y, " does not divide d_model ", m.d_model);
  if (m.kv_heads % y != 0 && y % m.kv_heads != 0)
    return cat("tensor parallel ", y, " and ", m.kv_heads, " kv heads: neither divides the other");
  return "";
}

class Search {
 public:
  Search(const PlanRequest& req, int slices)
      : req_(req), model_(req.model), seq_(plan_seq_len(req)), slices_(slices), cal_(detail::calibration_for(req)),
        remats_(req.constraints.remat.begin(), req.constraints.remat.end()),
        // TPU slices are joined by DCN, GPU nodes by their scale-out network.
        scale_out_(req.chip.ici.topology == Topology::kSwitch ? "node" : "slice") {
    if (remats_.empty()) {
      // Every policy that runs as itself under the request's attention
      // kernel: one that runs as another (minimal-with-context as minimal
      // with a materialised core) would only repeat that one's candidates.
      for (Remat r : kAllRemats)
        if (detail::step::remat_with_kernel(r, req.attention) == r) remats_.push_back(r);
    }
    plan_.slices = slices;
  }

  // Every mesh data x model x stages on ICI the slices hold, and every role
  // of the DCN axis.
  Plan run() {
    const int s = slices_, n_ici = req_.chips / s;
    for (int y : divisors(n_ici))
      for (int p : divisors(n_ici / y)) {
        std::vector<DcnRole> roles = {DcnRole::kNone};
        if (s > 1) roles = {DcnRole::kData, DcnRole::kFsdp, DcnRole::kPipeline};
        for (DcnRole role : roles) {
          if (role == DcnRole::kPipeline && p > 1) continue;  // one pipeline axis
          try_shape(MeshShape{n_ici / (y * p), y, p, s}, role);
        }
      }
    return std::move(plan_);
  }

 private:
  void reject(std::vector<MeshAxis> axes, const ParallelLayout& lay, RejectKind kind, std::string reason,
              std::optional<Remat> remat = std::nullopt, int microbatches = 0, const MemoryPerChip& memory = {}) {
    plan_.rejected.push_back({.axes = std::move(axes),
                              .layout = lay,
                              .remat = remat,
                              .microbatches = microbatches,
                              .kind = kind,
                              .memory = memory,
                              .reason = std::move(reason)});
  }

  // One mesh shape and DCN role: its shape checks, then the layouts of the
  // ICI data axis (FSDP or not).
  void try_shape(const MeshShape& shape, DcnRole role) {
    std::vector<MeshAxis> axes = mesh_axes(shape, scale_out_);
    const AxisMask data_ici = axis_bit(axes, "data"), slice = axis_bit(axes, scale_out_);
    ParallelLayout base;
    base.data = data_ici | ((role == DcnRole::kData || role == DcnRole::kFsdp) ? slice : 0);
    base.fsdp = role == DcnRole::kFsdp ? data_ici | slice : 0;
    base.model = axis_bit(axes, "model");
    base.pipeline_axis = axis_index(axes, role == DcnRole::kPipeline ? scale_out_ : "stage");
    const int stages = shape.p * (role == DcnRole::kPipeline ? shape.s : 1);
    const int data_ways = shape.x * ((role == DcnRole::kData || role == DcnRole::kFsdp) ? shape.s : 1);
    const std::int64_t sequences = req_.batch_tokens / seq_;
    std::string why = tp_reason(model_, shape.y);
    if (why.empty() && model_.layers % stages != 0)
      why = cat(stages, " pipeline stages do not divide ", model_.layers, " layers");
    if (why.empty() && sequences % data_ways != 0)
      why = cat(sequences, " sequences do not split over ", data_ways, " data shards");
    if (!why.empty()) return reject(std::move(axes), base, RejectKind::kShape, std::move(why));
    if (std::string c = detail::stages_reason(stages, req_.constraints); !c.empty())
      return reject(std::move(axes), base, RejectKind::kConstraint, std::move(c));
    absl::StatusOr<Mesh> mesh = make_mesh(axes, req_.chip, req_.constraints.slice_shape);
    if (!mesh.ok()) return reject(std::move(axes), base, RejectKind::kShape, std::string(mesh.status().message()));
    // FSDP across slices only on top of FSDP inside them; DP on ICI both ways.
    std::vector<bool> fsdp_modes = {false};
    if (role == DcnRole::kFsdp) fsdp_modes = {true};
    else if (shape.x > 1) fsdp_modes = {false, true};
    for (bool ici_fsdp : fsdp_modes) {
      ParallelLayout lay = base;
      lay.fsdp = (ici_fsdp ? data_ici : 0) | (role == DcnRole::kFsdp ? slice : 0);
      try_layout(*mesh, lay, stages);
    }
  }

  // The microbatch counts of a pipeline of `stages`: 1, 2, 4, 8 per stage,
  // under the cap (the cap itself when even one per stage is over it).
  std::vector<int> microbatch_counts(int stages) const {
    if (stages <= 1) return {1};
    const int cap = req_.constraints.max_microbatches;
    std::vector<int> mbs;
    for (int k : {1, 2, 4, 8})
      if (cap == 0 || k * stages <= cap) mbs.push_back(k * stages);
    if (mbs.empty()) mbs.push_back(cap);
    return mbs;
  }

  // One layout with every remat policy and microbatch count: predicted,
  // ranked if it fits, kept with its reason if not.
  void try_layout(const Mesh& mesh, const ParallelLayout& lay, int stages) {
    for (Remat remat : remats_)
      for (int mb : microbatch_counts(stages)) {
        const TrainingConfig cfg{.batch_tokens = req_.batch_tokens,
                                 .seq_len = seq_,
                                 .dtypes = req_.dtypes,
                                 .remat = remat,
                                 .mask = req_.mask,
                                 .attention = req_.attention,
                                 .microbatches = mb};
        if (absl::Status v = validate_training_step(model_, req_.chip, mesh, lay, cfg); !v.ok()) {
          reject(mesh.axes, lay, RejectKind::kShape, std::string(v.message()), remat, mb);
          continue;
        }
        TrainingStep step = training_step(model_, req_.chip, mesh, lay, cfg, &cal_);
        if (!step.memory.fits) {
          reject(mesh.axes, lay, RejectKind::kMemory, detail::memory_reason(step.memory, remat), remat, mb,
                 step.memory);
          continue;
        }
        plan_.ranked.push_back({.mesh = mesh,
                                .layout = lay,
                                .remat = remat,
                                .microbatches = mb,
                                .step = std::move(step),
                                .critical = detail::critical_of(req_, mesh, lay)});
      }
  }

  const PlanRequest& req_;
  const ModelConfig& model_;
  std::int64_t seq_;
  int slices_;
  ChipCalibration cal_;
  std::vector<Remat> remats_;
  const char* scale_out_;
  Plan plan_;
};

// Closest to fitting first: memory misses by total / HBM, then constraint
// breaks, then shapes; within a kind by mesh and layout text.
void sort_rejected(std::vector<RejectedCandidate>& rejected) {
  struct Key {
    RejectKind kind;
    double over;
    std::string mesh, layout;
    int remat, microbatches;
    std::size_t index;
  };
  std::vector<Key> keys;
  keys.reserve(rejected.size());
  for (std::size_t i = 0; i < rejected.size(); ++i) {
    const RejectedCandidate& r = rejected[i];
    const double over = r.kind == RejectKind::kMemory && r.memory.hbm_bytes > 0
                            ? r.memory.total_bytes / r.memory.hbm_bytes
                            : 0;
    keys.push_back({r.kind, over, mesh_text(r.axes), layout_text(r.axes, r.layout),
                    r.remat ? static_cast<int>(*r.remat) : -1, r.microbatches, i});
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    return std::tie(a.kind, a.over, a.mesh, a.layout, a.remat, a.microbatches) <
           std::tie(b.kind, b.over, b.mesh, b.layout, b.remat, b.microbatches);
  });
  std::vector<RejectedCandidate> sorted;
  sorted.reserve(rejected.size());
  for (const Key& k : keys) sorted.push_back(std::move(rejected[k.index]));
  rejected = std::move(sorted);
}

}  // namespace

absl::StatusOr<Plan> plan_training(const PlanRequest& req) {
  const auto start = std::chrono::steady_clock::now();
  if (absl::Status s = detail::check_request(req); !s.ok()) return s;
  absl::StatusOr<int> slices = choose_slices(req);
  if (!slices.ok()) return slices.status();
  Plan plan = Search(req, *slices).run();
  std::sort(plan.ranked.begin(), plan.ranked.end(), plan_order);
  sort_rejected(plan.rejected);
  for (const RejectedCandidate& r : plan.rejected) {
    if (r.kind == RejectKind::kMemory) ++plan.rejected_memory;
    else if (r.kind == RejectKind::kConstraint) ++plan.rejected_constraint;
    else ++plan.rejected_shape;
  }
  plan.considered = static_cast<int>(plan.ranked.size() + plan.rejected.size());
  plan.evaluated = static_cast<int>(plan.ranked.size()) + plan.rejected_memory;
  plan.search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

}  // namespace roofline
