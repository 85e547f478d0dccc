// What a measured op is, as far as its roofline cares: the cost source the
// match stage found for it (docs/report.md, "How each op gets a
// prediction"), as one typed value, and predict(model, chip), the one call
// that turns it into the roofline of one occurrence on any chip: the
// report's chip, or the what-if chip of ReportOptions::target_chip.
//
//   roofline::OpModel m = roofline::MatmulModel{.matmul = {.m = 64, .k = 128, .n = 256}};
//   roofline::Prediction p = roofline::predict(m, roofline::chip("h100-sxm"));
//   // memory-bound: (64*128 + 128*256 + 64*256) * 2 bytes / 3.35e12 B/s
//
// The models hold counts, not measurements; none owns anything except
// HloModel, which points into an HloModule that must outlive it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "roofline/calibration.hpp"
#include "roofline/chip.hpp"
#include "roofline/collectives/collective.hpp"
#include "roofline/expected/gemm.hpp"
#include "roofline/hlo/module.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/ops/generic.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/predict.hpp"

namespace roofline {

// An HLO instruction, costed by our HLO cost model (docs/hlo_cost.md). For
// the -done of an async pair it is the -start whose transfer the -done
// waits for (see cost_from_hlo, roofline/match/cost_source.hpp).
struct HloModel {
  const HloInstruction* instruction = nullptr;  // not owned; non-null
};

// The -start of an async pair whose -done is in the same computation: a
// quick launch that costs nothing here, its transfer being charged to the
// -done, where a profiler shows the wait.
struct AsyncStartModel {};

// A while loop (or call, conditional) whose body ops the profiler timed on
// rows of their own: those rows carry the loop's work, each occurrence one
// trip, and this row only what the loop spends outside them (condition,
// bookkeeping), so the loop is charged once (docs/report.md, "Loops").
struct LoopContainerModel {
  const HloInstruction* instruction = nullptr;  // the while; not owned
};

// Which peak times a matmul's arithmetic.
enum class MatmulPeak : unsigned char {
  kComputeDtype,  // the peak of Matmul::compute()
  // An fp32 GEMM that ran on TF32 tensor cores, as the cuBLAS / CUTLASS
  // kernel name says (A100/H100 "*tf32*", "*s1688*", "*s16816*"): timed at
  // select_peak(chip, PeakClass::kTf32), the chip's TF32 unit where it has
  // one (its fallbacks otherwise: fp32 on a GPU, the bf16 MXU on a TPU).
  kTf32TensorCores,
};

// A PyTorch matmul (mm, addmm, bmm, baddbmm, matmul, linear, _scaled_mm)
// from its Input Dims.
struct MatmulModel {
  Matmul matmul = {};
  MatmulPeak peak = MatmulPeak::kComputeDtype;
};

enum class AttentionPass : unsigned char { kForward, kBackward };

// Which query-key pairs an attention kernel scores.
enum class AttentionKernelMask : unsigned char {
  kFull,           // every one of T x S: no mask, or masking unknown (the op's reason says which)
  kCausalTopLeft,  // query i sees keys 0..i (PyTorch's is_causal; S(S+1)/2 pairs when T == S)
  kCausalBottomRight,  // query i sees keys 0..i+S-T (FlashAttention 2 with T != S)
  // is_causal without saying which alignment: the fewer pairs of the two,
  // so that the bound stays a bound (the same when T == S).
  kCausalEither,
};

// Query-key pairs scored per (batch, head): T x S, or under a causal mask
// the sum over the T queries of the keys each sees.
inline double attended_pairs(std::int64_t t, std::int64_t s, AttentionKernelMask mask) {
  const double T = static_cast<double>(t), S = static_cast<double>(s);
  // Top-left: query i sees min(i + 1, S) keys.
  const double top_left = T <= S ? T * (T + 1) / 2 : S * (S + 1) / 2 + (T - S) * S;
  // Bottom-right: query i sees min(max(i + 1 + S - T, 0), S) keys.
  const double bottom_right = T <= S ? T * S - T * (T - 1) / 2 : S * (S + 1) / 2;
  switch (mask) {
    case AttentionKernelMask::kFull: return T * S;
    case AttentionKernelMask::kCausalTopLeft: return top_left;
    case AttentionKernelMask::kCausalBottomRight: return bottom_right;
    case AttentionKernelMask::kCausalEither: return top_left < bottom_right ? top_left : bottom_right;
  }
  return T * S;
}

// A PyTorch attention kernel (flash / efficient / cuDNN / SDPA) from the
// shapes of Q and K. FLOPs are those of QK^T and PV over the pairs scored
// (attended_pairs: T x S, or about half under a causal mask), 4*B*H*pairs*D
// forward, twice that backward (the scaling book's convention;
// FlashAttention's recompute adds a matmul we do not count). Bytes: Q, K, V
// read and O written once forward; backward also reads dO and writes dQ,
// dK, dV.
struct AttentionModel {
  std::int64_t batch = 0, heads = 0, q_len = 0, kv_len = 0, head_dim = 0;
  std::int64_t q_elements = 0;   // elements of Q (and of O)
  std::int64_t kv_elements = 0;  // elements of K (and of V)
  AttentionPass pass = AttentionPass::kForward;
  DType dtype = DType::kBF16;
  AttentionKernelMask mask = AttentionKernelMask::kFull;

  double flops() const {
    const double forward = 4.0 * batch * heads * attended_pairs(q_len, kv_len, mask) * head_dim;
    return pass == AttentionPass::kBackward ? 2 * forward : forward;
  }
  double hbm_bytes() const {
    // Elements of Q, K and V, counted exactly; in double only where a
    // hostile shape would overflow the integer sum.
    std::int64_t n = 0;
    const double elements = __builtin_mul_overflow(kv_elements, 2, &n) || __builtin_add_overflow(n, q_elements, &n)
                                ? static_cast<double>(q_elements) + 2.0 * static_cast<double>(kv_elements)
                                : static_cast<double>(n);
    const double qkv = elements * bytes_per_element(dtype);
    const double o = static_cast<double>(q_elements) * bytes_per_element(dtype);
    return pass == AttentionPass::kBackward ? 2 * (qkv + o) : qkv + o;
  }
};

// A PyTorch convolution (forward, or one of its backward passes) from its
// Input Dims: 2 * N * Cout * (output positions) * Cin/groups * (kernel
// positions) FLOPs per pass, and the tensors it reads and writes, each once
// (docs/report.md, "Bytes an op moves"). A matrix-unit op, like a GEMM.
struct ConvolutionModel {
  double flops = 0;
  double read_bytes = 0;
  double written_bytes = 0;
  DType dtype = DType::kF32;
  MatmulPeak peak = MatmulPeak::kComputeDtype;
  // The pass as the implicit GEMM the libraries run (cost_convolution.cc):
  // forward M = N x output positions, N = Cout, K = Cin x kernel positions
  // (per group, batch = groups). Empty where the op is not one GEMM (both
  // gradients in one op, Winograd, FFT).
  std::optional<GemmDims> gemm = {};
};

// An element-wise, normalisation, reduction, copy or other memory-bound
// PyTorch op: the tensors it reads and the result it writes, one FLOP per
// element for arithmetic (none for moves and norms, memory-bound by far).
struct ElementwiseModel {
  double flops = 0;
  double read_bytes = 0;
  double written_bytes = 0;
  DType dtype = DType::kF32;
  // Bytes the usual kernels read a second time unless they stay on chip
  // between two passes (a training batch norm's input: its statistics, then
  // its output). Not needed for the bound, which a kernel working channel by
  // channel could reach in one pass: predict() adds what does not fit,
  // reread_bytes - on_chip_capacity_bytes(chip), to t_hbm_cold_s, the term
  // the expected time stretches, and nothing on a chip whose capacity is not
  // known.
  double reread_bytes = 0;
};

// The bytes of `m` read again on `chip` (ElementwiseModel::reread_bytes).
inline double second_pass_bytes(const ElementwiseModel& m, const Chip& chip) {
  const double capacity = on_chip_capacity_bytes(chip);
  return capacity > 0 ? std::max(0.0, m.reread_bytes - capacity) : 0;
}

// One collective over one group of devices, taken as one ring (or switch
// domain) of the chip's interconnect: which mesh axes a group spans is not
// in a trace.
struct GroupCollective {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  double array_bytes = 0;  // V: the whole array (an all-gather's result, the others' operand)
  int group_size = 1;
};

// An NCCL / RCCL kernel from its args (message size, group size, dtype).
struct CollectiveModel {
  GroupCollective collective = {};
  DType dtype = DType::kBF16;  // the message's: what the report names the op's dtype
};

// What XLA recorded for one occurrence (flops, bytes_accessed) when no HLO
// instruction was found; for a collective, the group size from the
// replica_groups in the op's HLO text.
struct XlaStatsModel {
  double flops = 0;
  double hbm_bytes = 0;
  DType dtype = DType::kF32;
  std::optional<GroupCollective> collective = {};
};

// A copy between host and device memory (a GPU memcpy HtoD / DtoH with its
// bytes from the trace): timed over the host link, the chip's PCIe
// bandwidth, as the HLO model times a host-offload copy (T_host). No PCIe
// figure: 0 s, and the report says the host link is not modelled.
struct HostTransferModel {
  double bytes = 0;  // raw bytes: named u8, as a device-to-device copy is
};

using OpModel = std::variant<HloModel, AsyncStartModel, LoopContainerModel, MatmulModel, AttentionModel,
                             ConvolutionModel, ElementwiseModel, CollectiveModel, XlaStatsModel, HostTransferModel>;

// The roofline of one occurrence of each model on `chip`.
inline Prediction predict(const HloModel& m, const Chip& chip) { return predict(*m.instruction, chip); }

inline Prediction predict(const AsyncStartModel&, const Chip& chip) { return predict(CostedOp{}, chip); }

inline Prediction predict(const LoopContainerModel&, const Chip& chip) { return predict(CostedOp{}, chip); }

// Defined in src/match/op_model.cc: a TF32 GEMM picks its own peak.
Prediction predict(const MatmulModel& m, const Chip& chip);

inline Prediction predict(const AttentionModel& m, const Chip& chip) {
  return predict(CostedOp{.flops = m.flops(), .hbm_bytes = m.hbm_bytes(), .dtype = m.dtype}, chip);
}

// Defined in src/match/op_model.cc: an fp32 convolution on TF32 tensor
// cores picks its own peak, as a GEMM does.
Prediction predict(const ConvolutionModel& m, const Chip& chip);

inline Prediction predict(const ElementwiseModel& m, const Chip& chip) {
  Prediction p =
      predict(CostedOp{.flops = m.flops, .hbm_bytes = m.read_bytes + m.written_bytes, .dtype = m.dtype}, chip);
  if (chip.hbm_bytes_per_s > 0) p.t_hbm_cold_s += second_pass_bytes(m, chip) / chip.hbm_bytes_per_s;
  return p;
}

inline Prediction predict(const CollectiveModel& m, const Chip& chip) {
  const GroupCollective& c = m.collective;
  const CollectiveTime t = collective_time_on_group(c.kind, c.array_bytes, c.group_size, chip);
  return predict(CostedOp{.ici_bytes = t.bytes_per_link, .t_ici_s = t.t_ici_s, .dtype = m.dtype}, chip);
}

inline Prediction predict(const XlaStatsModel& m, const Chip& chip) {
  CostedOp op{.flops = m.flops, .hbm_bytes = m.hbm_bytes, .dtype = m.dtype};
  if (const std::optional<GroupCollective>& c = m.collective) {
    const CollectiveTime t = collective_time_on_group(c->kind, c->array_bytes, c->group_size, chip);
    op.ici_bytes = t.bytes_per_link;
    op.t_ici_s = t.t_ici_s;
  }
  return predict(op, chip);
}

inline Prediction predict(const HostTransferModel& m, const Chip& chip) {
  Prediction p = predict(CostedOp{.dtype = DType::kU8}, chip);
  add_host_link(p, m.bytes, chip);
  return p;
}

// Which calibrated curve (roofline/calibration.hpp) times an op: matrix
// units for GEMMs, convolutions and attention (and HLO dots, convolutions and
// the fusions around them), the host link for host transfers, the network for
// collectives, memory for everything else. XLA's recorded figures alone say
// only counts: an op doing at least 4 FLOPs per byte is taken for a matrix
// op (element-wise arithmetic and reductions do at most about 1).
CostClass cost_class(const HloCost& cost);
CostClass cost_class(const OpModel& model);

// The GEMM an op runs, where its dimensions are known: a PyTorch matmul
// (batch x M x K @ K x N), a convolution's implicit GEMM, an HLO dot or
// library GEMM custom call whose operands and dimension numbers are read.
std::optional<GemmDims> gemm_dims(const OpModel& model);

// gemm_dims() on `chip`: the tile the kernel's name gives (gemm_tile_of),
// else kUsualGpuTile, over the chip's SMs / CUs. Empty where the dimensions
// are unknown or the chip gives no unit count (TPUs).
std::optional<GemmShape> gemm_shape(const OpModel& model, std::string_view kernel, const Chip& chip);

// The roofline of one occurrence of `model` on `chip`. Pure and cheap: call
// it again with another chip for a what-if.
inline Prediction predict(const OpModel& model, const Chip& chip) {
  return std::visit([&chip](const auto& m) { return predict(m, chip); }, model);
}

}  // namespace roofline
