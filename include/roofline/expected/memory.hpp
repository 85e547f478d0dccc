// What share of HBM's peak a memory-bound op reaches, by the bytes it
// moves: a copy of a few kilobytes is over before the memory system is
// busy, one of hundreds of megabytes streams. Calculon (Isaev et al.
// SC'23: systems/a100_80g.json and h100_80g_nvl8.json, "mem1" /
// "MB_efficiency", MB = 1e6 bytes in calculon/memory.py): 0.90 of the
// peak from 100 MB, 0.75 from 10 MB, 0.60 from 1 MB, 0.30 below (read as
// points, size_curve.hpp). An op's launch floor is apart (calibration.hpp).
//
//   roofline::memory_size_efficiency(100e6);  // 1: as large ops stream
//   roofline::memory_size_efficiency(1e6);    // 0.6 / 0.9
//
// Part of roofline::core (header-only).
#pragma once

#include "roofline/expected/size_curve.hpp"

namespace roofline {

inline constexpr SizeStep kCalculonHbmSteps[] = {{0, 0.30}, {1e6, 0.60}, {10e6, 0.75}, {100e6, 0.90}};

// The share of the largest copies' rate an op moving `bytes` reaches.
inline double memory_size_efficiency(double bytes) { return relative_size_efficiency(kCalculonHbmSteps, bytes); }

}  // namespace roofline
