// The step from its parts: the two bounds, the calibrated expected time
// between them, and the MFU at each. Part of the training-step model
// (detail/training_step_parts.hpp); not a public header.
//
// Bounds (the scaling book's assumptions): compute is the sum of each op's
// roofline max(T_math, T_hbm), stretched by the pipeline bubble; every
// transfer off the chip runs one after another; t_lower_s hides all of them
// under compute, t_upper_s overlaps nothing.
//
// Expected (docs/layers.md, "Expected step time"): each op at its
// calibrated time (roofline::expected_s: matmuls kMatmul, streams kMemory,
// collectives kCollective, host copies kHostLink), then
//   C = sum of the compute parts' expected times x bubble
//   E = tensor-parallel collectives x bubble + pipeline transfers: exposed,
//       because the next op needs their result (the activations of this
//       microbatch); the TP collectives sit inside each microbatch's slot
//       of the pipeline schedule, so the bubble stretches them as it does
//       compute
//   H = FSDP gathers and reduce-scatters + gradient all-reduce + host
//       offload copies: hidden, because they move weights, gradients or
//       saved activations of another layer and run asynchronously (XLA's
//       async collectives and host copies), but only under compute that
//       exists: without a pipeline, each pass's under that pass's compute
//       (the forward's weight gathers and copies to the host under the
//       forward, C_f; the backward's gathers, gradient reductions and
//       copies back under the backward, C_b, recompute included), the
//       excess of each exposed. XLA reduces a layer's gradient inside the
//       backward loop's body, the data-parallel (DCN) all-reduce of its
//       FSDP shard too, so it can run behind the next layer's backward but
//       not behind a forward pass that is over (scripts/dcn_collectives.py).
//       With a pipeline, 1F1B interleaves the two passes of different
//       microbatches on each stage: there H hides under all of C
//   expected = C + max(0, H_f - C_f) + max(0, H_b - C_b) + E (with a
//   pipeline C + max(0, H - C) + E), and never below the lower bound.
#pragma once

#include <algorithm>

#include "roofline/sharding/detail/training_step_parts.hpp"

namespace roofline::detail::step {

inline void step_totals(const Context& c, TrainingStep& st) {
  st.bubble_factor = static_cast<double>(c.M + c.P - 1) / c.M;
  Prediction& r = st.roofline;
  double compute = 0, compute_expected = 0, compute_forward = 0, exposed = 0, hidden = 0, hidden_forward = 0;
  for (int i = 0; i < static_cast<int>(st.parts.size()); ++i) {
    const StepPart& p = st.parts[static_cast<std::size_t>(i)];
    accumulate(r, p.roofline);
    compute += p.roofline.t_lower_s;
    switch (overlap_of(i)) {
      case Overlap::kCompute:
        compute_expected += p.expected_s;
        compute_forward += p.expected_forward_s;
        break;
      case Overlap::kExposed: exposed += p.expected_s * (i == kTp ? st.bubble_factor : 1.0); break;
      case Overlap::kHidden:
        hidden += p.expected_s;
        hidden_forward += p.expected_forward_s;
        break;
    }
  }
  r.t_math_s *= st.bubble_factor;
  r.t_hbm_s *= st.bubble_factor;
  r.t_hbm_cold_s *= st.bubble_factor;
  st.t_compute_s = compute * st.bubble_factor;
  // Every transfer off the chip, the host link's last (kHostOffload is the
  // last part), one after another.
  const double transfers_s = r.t_ici_s + r.t_host_s;
  r.t_lower_s = std::max(st.t_compute_s, transfers_s);
  r.t_upper_s = st.t_compute_s + transfers_s;
  settle_sum(r, c.dt, select_peak(c.chip, peak_class(c.dt)), c.chip);
  st.step_time_s = r.t_lower_s;

  st.expected_compute_s = compute_expected * st.bubble_factor;
  const double excess =
      c.P > 1 ? std::max(0.0, hidden - st.expected_compute_s)
              : std::max(0.0, hidden_forward - compute_forward) +
                    std::max(0.0, (hidden - hidden_forward) - (compute_expected - compute_forward));
  st.expected_exposed_s = exposed + excess;
  // With efficiencies at most 1 (every built-in calibration) each op's
  // expected time is at least its roofline, so C >= t_compute_s and
  // H + E >= t_ici_s + t_host_s, and the sum is already >= the lower bound; a fitted
  // calibration above 1 cannot take the expectation below what the chip
  // cannot beat.
  st.expected_s = std::max(st.expected_compute_s + st.expected_exposed_s, st.step_time_s);

  st.model_flops = model_training_flops(c.model, static_cast<double>(c.cfg.batch_tokens), static_cast<double>(c.seq),
                                        c.cfg.mask);
  const double peak = c.chip.peak_flops_per_s_for(c.dt);
  const auto mfu_at = [&](double t_s) { return t_s > 0 ? st.model_flops / (t_s * st.chips * peak) : 0; };
  st.mfu = mfu_at(st.step_time_s);
  st.mfu_expected = mfu_at(st.expected_s);
  st.mfu_no_overlap = mfu_at(r.t_upper_s);
}

}  // namespace roofline::detail::step
