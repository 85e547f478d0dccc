// Critical batch sizes: where data parallelism, FSDP, tensor parallelism and
// their mix stop being communication-bound. They come out of the scaling
// book's per-layer model (training.md: a block of two D x F matrices, B
// tokens, C = peak FLOP/s of the dtype, W = effective bandwidth of the
// axes) with W taken from this library's collective model, not from a
// constant:
//
//   W_eff(axes) = V / T_allgather(V)   (bandwidth term; a bidirectional ring:
//                                       2 x link, n rings: n times that)
//   DP / FSDP   T_math = 8BDF/(XC) vs T_comm = 2 all-reduces of |dtype| DF
//               -> B/X > (|dtype|/2) C / W_data         (v5p, 1 axis: 2550; 3 axes: 850)
//   TP          T_math = 4BDF/(YC) vs AllGather + ReduceScatter of |dtype| BD
//               -> Y < (2/|dtype|) F W_model / C         (v5p: F / 2550)
//   FSDP + TP   T_FSDP = 2|dtype|DF/(Y W_X), T_TP = 2|dtype|BD/(X W_Y), T_math = 4BDF/(NC);
//               X_opt = sqrt(B N W_X / (F W_Y)) balances the two, and
//               -> B/N > (|dtype|/2)^2 C^2 / (F W_X W_Y)  (v5p, F = 32768, M_X M_Y = 2: 99)
//   DCN DP      as DP with W_eff of the DCN axes, per slice (the book's
//               C/W_dcn = 73,440 on v5p is the many-slice limit; S slices
//               give (S-1)/S of it)
//
// Part of roofline::core. `mesh` must be laid on `chip` (Mesh::chip_name).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "roofline/chip.hpp"
#include "roofline/sharding/mesh.hpp"
#include "roofline/sharding/mesh_collective.hpp"

namespace roofline {

// V / T_allgather(V) over `axes`, from the bandwidth term; infinity for no axes.
inline double effective_bandwidth(const Mesh& mesh, AxisMask axes) {
  constexpr double kV = 1e9;
  const CollectiveTime t = collective_time(mesh, CollectiveKind::kAllGather, axes, kV);
  return t.t_bandwidth_s > 0 ? kV / t.t_bandwidth_s : std::numeric_limits<double>::infinity();
}

// Each figure is present when its axes are (nullopt: no such axes, e.g. no TP).
struct CriticalBatch {
  std::optional<double> data_parallel_tokens_per_chip;  // DP or FSDP over `data`: compute-bound above this
  std::optional<double> tensor_parallel_max_ways;       // TP over `model`: compute-bound below this many ways
  std::optional<double> fsdp_tp_tokens_per_chip;        // FSDP over `data` x TP over `model`, X at its optimum
  std::optional<double> dcn_tokens_per_slice;           // DP over `dcn`, tokens per slice (one replica)
};

inline CriticalBatch critical_batch(const Chip& chip, const Mesh& mesh, AxisMask data, AxisMask model,
                                    AxisMask dcn, std::int64_t d_ff, DType dtype) {
  const double c = chip.peak_flops_per_s_for(dtype);
  const double half_bytes = bytes_per_element(dtype) / 2;  // 1 for bf16
  const double w_x = effective_bandwidth(mesh, data), w_y = effective_bandwidth(mesh, model);
  const double f = static_cast<double>(d_ff);
  const bool has_x = mesh.size(data) > 1, has_y = mesh.size(model) > 1;
  CriticalBatch cb;
  if (has_x) cb.data_parallel_tokens_per_chip = half_bytes * c / w_x;
  if (has_y) cb.tensor_parallel_max_ways = f * w_y / (half_bytes * c);
  if (has_x && has_y) cb.fsdp_tp_tokens_per_chip = half_bytes * half_bytes * c * c / (f * w_x * w_y);
  if (mesh.size(dcn) > 1) cb.dcn_tokens_per_slice = half_bytes * c / effective_bandwidth(mesh, dcn);
  return cb;
}

// The FSDP ways that balance FSDP's weight gathers against TP's activation
// gathers for `batch_tokens` over `chips`: sqrt(B N W_X / (F W_Y)) (the
// book's sqrt((B/F)(M_X/M_Y)N) when W = M x a ring).
inline double fsdp_tp_optimal_x(double batch_tokens, double chips, double d_ff, double w_data, double w_model) {
  return std::sqrt(batch_tokens * chips * w_data / (d_ff * w_model));
}

}  // namespace roofline
