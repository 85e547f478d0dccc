// What a chip is, as far as a roofline cares: peak arithmetic per element
// type, HBM capacity and bandwidth, on-chip memories, and the interconnect a
// mesh is laid on. Specs live as JSON in `hardware/` (docs/chip_spec.md lists
// every field with its unit); they are compiled into the library, so
//
//   const roofline::Chip& v5e = roofline::chip("tpu-v5e");
//
// needs no file at run time. All figures are SI base units stored as double.
//
// Part of roofline::core (header-only). Reading a spec file, names a user
// typed and profiler device names are in roofline/chip_io.hpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/dtype.hpp"

namespace roofline {

enum class ChipKind : std::uint8_t { kTpu, kGpu };

enum class Topology : std::uint8_t {
  kTorus2D,  // TPU v5e, v6e: 4 neighbours
  kTorus3D,  // TPU v4, v5p, 7x: 6 neighbours
  kSwitch,   // NVLink / Infinity Fabric: every GPU in the domain one hop away
};

// When does a mesh axis of a given size get a wraparound link (a full ring)?
// Without it a ring runs one way only and most collectives take about twice
// as long (scaling book, "TPU networking").
enum class WrapRule : std::uint8_t {
  kAlways,       // switch domains: every pair is connected
  kAxisEquals,   // only axes exactly `wrap_axis_size` long (v5e/v6e: 16)
  kAxisMultiple, // axes that are multiples of `wrap_axis_size` (v4/v5p: 4)
  kNever,
};

struct Interconnect {
  Topology topology = Topology::kSwitch;
  double link_bytes_per_s = 0;  // one direction, one link
  int links_per_chip = 0;
  double hop_latency_s = 0;
  WrapRule wrap = WrapRule::kNever;
  int wrap_axis_size = 0;
  // Largest ICI / NVLink domain, e.g. {16, 16} for a v5e pod, {8} for an
  // 8-GPU NVLink node, {16, 20, 28} for v5p.
  std::vector<int> max_shape;

  // Bandwidth of one link counting both directions, the W_ici of the
  // scaling book's collective formulas.
  double bidi_link_bytes_per_s() const { return 2 * link_bytes_per_s; }
  // All links of one chip, both directions (the GPU "egress" bandwidth on a
  // switch is links x one-way).
  double egress_bytes_per_s() const { return links_per_chip * link_bytes_per_s; }
  int domain_chips() const {
    int n = 1;
    for (int d : max_shape) n *= d;
    return n;
  }
  bool wraps(int axis_size) const {
    switch (wrap) {
      case WrapRule::kAlways: return true;
      case WrapRule::kAxisEquals: return axis_size == wrap_axis_size;
      case WrapRule::kAxisMultiple:
        return wrap_axis_size > 0 && axis_size % wrap_axis_size == 0;
      case WrapRule::kNever: return false;
    }
    return false;
  }
};

// One on-chip memory. Only a tier that keeps data between kernels (a GPU
// L2 or AMD's Infinity Cache: hardware caches over HBM) can serve an op
// whose operands the previous op left there; a compiler-managed scratchpad
// (TPU VMEM, which XLA fills from HBM inside each op, or shared memory, which
// lives for one kernel) cannot, so it never times an op's bytes.
struct OnChipMemory {
  std::string name;    // "vmem", "cmem", "l2", "smem_per_sm", "registers_per_sm", "lds_per_cu"
  double bytes = 0;
  double bytes_per_s = 0;          // peak bandwidth; 0: no published figure, not used for timing
  bool holds_working_set = false;  // true: a cache over HBM that keeps data between kernels
};

// Which memory times an op's bytes: HBM, or one of `Chip::on_chip` by index.
inline constexpr int kHbmTier = -1;
// A sum of ops whose bytes were timed at different tiers.
inline constexpr int kMixedTiers = -2;

// What real kernels reach on this chip, as published measurements (each
// with a source in the spec's "sources"): the built-in calibration of
// roofline/calibration.hpp (default_calibration). 0 where no measurement
// was found; the expectation then falls back to the peak (efficiency 1).
struct AchievedRates {
  // Largest dense GEMM rate measured, per peak class (cuBLAS / hipBLASLt /
  // XLA matmul benchmarks).
  std::array<double, kPeakClassCount> matmul_flops_per_s{};
  double hbm_bytes_per_s = 0;     // streaming copy / triad bandwidth
  double link_bytes_per_s = 0;    // per link, one direction, as a collective reaches it
  double pcie_bytes_per_s = 0;    // host <-> device copy, one direction
  // Per chip, one direction, as a collective over the scale-out network
  // (TPU DCN between slices, GPU InfiniBand between nodes) reaches it;
  // DCN collectives run at this rate when it is given (mesh_layout.hpp).
  double dcn_bytes_per_s = 0;
  double launch_s = 0;            // the shortest kernel / op a trace shows
  double collective_launch_s = 0; // the latency floor of a small collective
  double copy_launch_s = 0;       // the latency floor of a small host copy
};

struct SpecSource {
  std::vector<std::string> fields;  // JSON paths this source backs, e.g. "hbm_bytes_per_s"
  std::string reference;            // where the figure was read
  std::string read_on;              // ISO date the figure was read
};

struct Chip {
  std::string name;          // "tpu-v5e": the key `chip()` takes
  std::string display_name;  // "TPU v5e"
  std::string vendor;        // "google", "nvidia", "amd"
  ChipKind kind = ChipKind::kTpu;
  // The silicon the part is built on ("GA100"), where another embedded
  // chip shares it: a calibration of one is taken for the other when a
  // file has none of its own (roofline/calibrate/io.hpp), its efficiencies
  // being fractions of each part's own peaks. Empty: none named.
  std::string die;
  // Dense (not sparse) peak per class; 0 where the chip has no such unit.
  std::array<double, kPeakClassCount> peak_flops_per_s{};
  double hbm_bytes = 0;
  double hbm_bytes_per_s = 0;
  std::vector<OnChipMemory> on_chip;
  AchievedRates achieved;
  Interconnect ici;
  double dcn_bytes_per_s = 0;   // per chip, one direction (scale-out network)
  // Latency of one step of a collective over the scale-out network (one
  // message through host NICs and switches); 0 where no figure was found,
  // then not modelled. Optional in the spec ("dcn_latency_s").
  double dcn_latency_s = 0;
  double pcie_bytes_per_s = 0;  // per chip, one direction
  int chips_per_host = 1;
  int cores_per_chip = 1;
  // SMs (NVIDIA) or CUs (AMD) as the device reports them (CUDA's
  // multiProcessorCount), for totalling the per-SM memories (`_per_sm`,
  // `_per_cu`); 0: not given.
  int compute_units = 0;
  // Device names profilers report for this chip ("TPU v6 Lite",
  // "NVIDIA H100 80GB HBM3"), matched case-insensitively as substrings.
  std::vector<std::string> device_names;
  std::vector<SpecSource> sources;

  bool has(PeakClass c) const { return peak_flops_per_s[static_cast<int>(c)] > 0; }
  // Whether arithmetic in `t` can be timed on this chip, and at what peak:
  // select_peak(*this, peak_class(t)) (its exact rule), the one place a
  // peak is chosen.
  bool has(DType t) const;
  double peak_flops_per_s_for(DType t) const;
  // FLOPs per HBM byte at which T_math = T_hbm for arithmetic in `t`.
  double ridge_flops_per_byte(DType t) const {
    return peak_flops_per_s_for(t) / hbm_bytes_per_s;
  }
};

// Which of a chip's peaks times arithmetic of one precision. Peak selection
// lives here and only here, so every prediction picks a peak the same way
// and says so when it did not get the one it asked for.
struct PeakChoice {
  PeakClass wanted = PeakClass::kBf16;  // the precision the op computes in
  PeakClass used = PeakClass::kBf16;    // the chip's unit that times it
  double flops_per_s = 0;               // 0: the chip has no unit for it
  bool available() const { return flops_per_s > 0; }
  bool fallback() const { return used != wanted; }
};

// How far select_peak may look past the precision asked for.
enum class PeakSearch : std::uint8_t {
  // The unit the precision asks for, plus the one documented stand-in:
  // fp32 (and tf32) on a TPU run on the bf16 MXU, because XLA runs an f32
  // dot at DEFAULT precision as one bf16 pass (JAX docs, "Matmul precision";
  // HIGHEST takes 6 passes and is slower: the bound stays a lower bound).
  // TPU specs carry no fp32 figure of their own for that reason.
  kExact,
  // Also what a compiler does with a program whose type has no unit: run it
  // upcast, on fp32 (tf32, fp64, bf16 ...), then on bf16. For whole HLO
  // programs, which must be costed even where one instruction is odd.
  kUpcast,
};

inline PeakChoice select_peak(const Chip& chip, PeakClass wanted, PeakSearch search = PeakSearch::kExact) {
  const auto peak = [&](PeakClass c) { return chip.peak_flops_per_s[static_cast<int>(c)]; };
  const auto choose = [&](PeakClass c) { return PeakChoice{.wanted = wanted, .used = c, .flops_per_s = peak(c)}; };
  if (peak(wanted) > 0) return choose(wanted);
  const bool fp32_like = wanted == PeakClass::kFp32 || wanted == PeakClass::kTf32;
  if (chip.kind == ChipKind::kTpu && fp32_like && peak(PeakClass::kBf16) > 0) return choose(PeakClass::kBf16);
  if (wanted == PeakClass::kTf32 && peak(PeakClass::kFp32) > 0) return choose(PeakClass::kFp32);
  if (search == PeakSearch::kUpcast) {
    if (peak(PeakClass::kFp32) > 0) return choose(PeakClass::kFp32);
    if (peak(PeakClass::kBf16) > 0) return choose(PeakClass::kBf16);
  }
  return PeakChoice{.wanted = wanted, .used = wanted, .flops_per_s = 0};
}

// "bf16 MXU peak for fp32 (XLA's default precision)", "fp32 peak": which
// peak timed the arithmetic, in words fit for a report.
inline std::string peak_label(const PeakChoice& choice, const Chip& chip) {
  const std::string used(peak_class_name(choice.used));
  const std::string wanted(peak_class_name(choice.wanted));
  if (!choice.available()) return "no " + wanted + " peak";
  if (!choice.fallback()) return used + " peak";
  if (chip.kind == ChipKind::kTpu && choice.used == PeakClass::kBf16)
    return "bf16 MXU peak for " + wanted + " (XLA's default precision: one bf16 pass)";
  return used + " peak for " + wanted + " (no " + wanted + " unit: run upcast)";
}

// The memory whose bandwidth times an op that moves `bytes` unique bytes:
// the fastest on-chip tier that holds a working set between kernels, has a
// published bandwidth above HBM's and is at least `bytes` large; otherwise
// HBM. The roofline stays a lower bound: an op whose operands the previous
// kernel left in L2 reads them at L2 speed, and one whose operands must come
// from HBM is timed at a rate it can only fall short of. On a TPU no tier
// qualifies (VMEM is a scratchpad XLA fills from HBM per op), so every op is
// timed at HBM.
struct MemoryTierChoice {
  int tier = kHbmTier;     // kHbmTier or an index into Chip::on_chip
  double bytes_per_s = 0;  // the bandwidth that times the bytes
};

//
// A working set somewhat larger than the tier is still partly served by it:
// at most its capacity C can be there when the kernel starts (or absorb its
// writes), so at least bytes - C cross HBM, and every byte crosses the tier
// (on a GPU all HBM traffic passes through L2). Such an op is timed at
// max((bytes - C) / HBM bandwidth, bytes / tier bandwidth), reported as HBM
// (the tier stays kHbmTier) at the effective rate bytes / that time. It
// tends to plain HBM as the working set grows: a 7.1 MB fp32 add_ on a
// V100 (6 MB L2) is bounded by 2.3 us instead of 7.9 us, a 1.1 GB op
// on an A100 by 3.6% less than bytes / HBM bandwidth.
inline MemoryTierChoice select_memory_tier(const Chip& chip, double bytes) {
  MemoryTierChoice best{.tier = kHbmTier, .bytes_per_s = chip.hbm_bytes_per_s};
  for (std::size_t i = 0; i < chip.on_chip.size(); ++i) {
    const OnChipMemory& m = chip.on_chip[i];
    if (!m.holds_working_set || m.bytes_per_s <= chip.hbm_bytes_per_s) continue;
    if (bytes <= m.bytes) {
      if (m.bytes_per_s > best.bytes_per_s) best = {.tier = static_cast<int>(i), .bytes_per_s = m.bytes_per_s};
      continue;
    }
    if (chip.hbm_bytes_per_s <= 0) continue;
    const double t = std::max((bytes - m.bytes) / chip.hbm_bytes_per_s, bytes / m.bytes_per_s);
    if (t > 0 && bytes / t > best.bytes_per_s && best.tier == kHbmTier) best.bytes_per_s = bytes / t;
  }
  return best;
}

// "hbm", "l2", "infinity_cache", or "mixed" for a sum over several tiers.
inline std::string_view memory_tier_name(int tier, const Chip& chip) {
  if (tier == kHbmTier) return "hbm";
  if (tier >= 0 && static_cast<std::size_t>(tier) < chip.on_chip.size()) return chip.on_chip[tier].name;
  return "mixed";
}

// Everything on a GPU that can hold an operand's bytes between two passes
// over it: the chip-wide memories (L2, Infinity Cache) plus the per-SM or
// per-CU ones (shared memory and L1, tensor memory, the register file) times
// Chip::compute_units. 0 where it cannot be totalled: a TPU (XLA's fusions
// are costed from HLO, not here), or a spec without its SM count or its
// register file, since a total without them would be too small and the
// second pass it decides (ElementwiseModel::reread_bytes) charged where the
// chip holds the data.
inline double on_chip_capacity_bytes(const Chip& chip) {
  if (chip.kind != ChipKind::kGpu || chip.compute_units <= 0) return 0;
  double total = 0;
  bool registers = false;
  for (const OnChipMemory& m : chip.on_chip) {
    const bool per_unit = m.name.ends_with("_per_sm") || m.name.ends_with("_per_cu");
    total += per_unit ? m.bytes * chip.compute_units : m.bytes;
    registers = registers || m.name.starts_with("registers_per_");
  }
  return registers ? total : 0;
}

inline bool Chip::has(DType t) const { return select_peak(*this, peak_class(t)).available(); }
inline double Chip::peak_flops_per_s_for(DType t) const { return select_peak(*this, peak_class(t)).flops_per_s; }

// The embedded chip named `name`. For names written in code: a typo throws
// std::out_of_range whose message lists the known chips. A name a user typed
// goes through find_chip() (roofline/chip_io.hpp), which returns a Status.
inline const Chip& chip(std::string_view name);

// Every embedded chip, sorted by name. Built on first use from a constexpr
// table generated from hardware/*.json at build time: nothing is parsed.
inline std::span<const Chip> embedded_chips();

constexpr std::string_view topology_name(Topology t) {
  switch (t) {
    case Topology::kTorus2D: return "torus-2d";
    case Topology::kTorus3D: return "torus-3d";
    case Topology::kSwitch: return "switch";
  }
  return "?";
}

}  // namespace roofline

// The definitions of chip() and embedded_chips(), over the generated table.
#include "roofline/detail/embedded_chips.hpp"
