// What share of HBM's streaming rate a memory-bound op reaches, by the
// bytes it moves: a copy of a few kilobytes is over before the memory
// system is busy, one of hundreds of megabytes streams.
//
// Where a published bandwidth-by-size curve of the chip's die exists, the
// curve is read from it (gpu-benches, below); elsewhere Calculon's coarse
// steps stand (Isaev et al. SC'23: systems/a100_80g.json and
// h100_80g_nvl8.json, "mem1" / "MB_efficiency", MB = 1e6 bytes in
// calculon/memory.py: 0.90 of the peak from 100 MB, 0.75 from 10 MB, 0.60
// from 1 MB, 0.30 below; read as points, size_curve.hpp). An op's launch
// floor is apart (calibration.hpp).
//
//   roofline::memory_size_efficiency(100e6);  // 1: as large ops stream
//   roofline::memory_size_efficiency(1e6);    // 0.6 / 0.9
//   roofline::stream_size_steps(roofline::kA100StreamCurve, 1e-6, 1.732e12);
//
// Part of roofline::core (header-only).
#pragma once

#include <algorithm>
#include <span>
#include <string_view>
#include <vector>

#include "roofline/expected/size_curve.hpp"

namespace roofline {

inline constexpr SizeStep kCalculonHbmSteps[] = {{0, 0.30}, {1e6, 0.60}, {10e6, 0.75}, {100e6, 0.90}};

// The share of the largest copies' rate an op moving `bytes` reaches.
inline double memory_size_efficiency(double bytes) { return relative_size_efficiency(kCalculonHbmSteps, bytes); }

// One published measurement: a streaming kernel moving `bytes` (read and
// written, one launch) at `bytes_per_s`, its time the launch's share of a
// queue of back-to-back launches.
struct StreamPoint {
  double bytes = 0;
  double bytes_per_s = 0;
};

// gpu-benches (github.com/te42kyfo/gpu-benches, Dominik Ernst, GPL-3.0;
// read at commit 1c36d50), gpu-small-kernels: 10,000 back-to-back launches
// of SCALE, A[i] = B[i] * 0.25 in fp64, data volume 16 B per element, at
// block sizes 32 .. 1024; the best block size's GB/s per size (a library
// tunes its block size). We read the files launched as one CUDA / HIP
// graph (`-graph`, *_graph.txt): a trace's kernel time holds no gap
// between launches, and under a graph the gap is smallest (a 64 KB kernel
// on an A100: 1.34 us per launch under a graph, 2.62 us without). The
// points kept are those where the operands come from HBM as in a training
// step: the launch-bound size, 64 KB (its bytes take under 3% of its time
// at the HBM rate, so where the operands sit hardly matters), and sizes
// of at least twice the L2 (the working set cannot stay there). In between, the benchmark re-reads buffers that stay in L2 and
// runs at L2's rate (an A100 peaks at 3.12 TB/s at 22.7 MB), which an op
// finding its operands in HBM does not reach (calibration.hpp: the
// expectation takes HBM's time, t_hbm_cold_s): those points are left out
// and the curve is interpolated in log(size) across them. Below 64 KB
// the 64 KB kernel's efficiency is kept: no smaller size is published.
// Held out, not used here (tests/calibrate/memory_curve_test.cc): A100
// 123.4 MB 1674 GB/s and 266.5 MB 1715; H200 143.2 MB 3277; MI210
// 42.0 MB 1251 and 422.8 MB 1353. At 1 MB the benchmark's operands are
// in L2 already (an A100: 1.57 us, 0.57 us beyond a 1 us floor, faster
// than HBM streams 1 MB): left out too.
struct StreamCurve {
  std::string_view measured_on;  // the device the points were measured on
  std::span<const StreamPoint> points;  // rising sizes; the last is the largest measured
};

// gpu-small-kernels/a100_80_graph.txt (L2 40 MB).
inline constexpr StreamPoint kA100StreamPoints[] = {
    {65536, 49e9}, {84000528, 1641e9}, {167917344, 1694e9}, {391522512, 1726e9}};
// gpu-small-kernels/h200_graph.txt (L2 50 MB).
inline constexpr StreamPoint kH200StreamPoints[] = {
    {65536, 52e9}, {100971120, 3222e9}, {203173600, 3316e9}, {288205600, 3346e9}};
// gpu-small-kernels/mi210_graph.txt (L2 8 MB): one CDNA2 die with 4 HBM2e
// stacks at 1.6384 TB/s, as each of an MI250's two dies.
inline constexpr StreamPoint kMi210StreamPoints[] = {{65536, 32e9},      {16687248, 1103e9},
                                                     {33357824, 1223e9}, {66682352, 1296e9},  {133298208, 1333e9},
                                                     {266463664, 1351e9}};

inline constexpr StreamCurve kA100StreamCurve{"NVIDIA A100 80GB", kA100StreamPoints};
inline constexpr StreamCurve kH200StreamCurve{"NVIDIA H200", kH200StreamPoints};
inline constexpr StreamCurve kMi210StreamCurve{"AMD Instinct MI210", kMi210StreamPoints};

// The published curve of the chip's die (Chip::die), or none (empty
// points): the A100's for GA100 parts (both A100s), the H200's for GH100
// parts (H100 SXM, H200, GH200), the MI210's for the MI250 (its two dies
// are CDNA2 dies with the MI210's memory). We found no published curve of
// the other chips' dies.
inline StreamCurve stream_curve_of(std::string_view die, std::string_view chip_name) {
  if (die == "GA100") return kA100StreamCurve;
  if (die == "GH100") return kH200StreamCurve;
  if (chip_name == "mi250") return kMi210StreamCurve;
  return {};
}

// The size steps of `curve` for a chip whose large copies stream at
// `bytes_per_s` and whose launch floor is `launch_s`. Each point's time,
// bytes / rate, less the floor (the expectation adds the floor apart), is
// what the bytes take beyond it: the step's efficiency is bytes at the
// largest point's rate over that time, as a share of the largest point's
// own (its time holds the floor too). Sizes scale by the chip's rate over
// the measured chip's (the same fixed costs, a faster stream: as Habitat
// scales a kernel between chips by bandwidth). The first step is at size
// 0 with the smallest point's efficiency. Empty where the curve is, or
// where a point's time is not above the floor.
inline std::vector<SizeStep> stream_size_steps(const StreamCurve& curve, double launch_s, double bytes_per_s) {
  std::vector<SizeStep> steps;
  if (curve.points.empty() || !(bytes_per_s > 0)) return steps;
  const double largest_bytes_per_s = curve.points.back().bytes_per_s;
  const double scale = bytes_per_s / largest_bytes_per_s;
  for (const StreamPoint& p : curve.points) {
    const double beyond_floor_s = p.bytes / p.bytes_per_s - launch_s;
    if (!(beyond_floor_s > 0)) return {};
    const double efficiency = p.bytes / largest_bytes_per_s / beyond_floor_s;
    if (steps.empty()) steps.push_back({0, efficiency});
    steps.push_back({p.bytes * scale, efficiency});
  }
  // As shares of the largest point's (a calibration file holds
  // efficiencies of at most 1; relative_size_efficiency reads them so).
  const double largest = steps.back().efficiency;
  for (SizeStep& s : steps) s.efficiency = std::min(1.0, s.efficiency / largest);
  return steps;
}

}  // namespace roofline
