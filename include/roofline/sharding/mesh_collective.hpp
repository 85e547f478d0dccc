// Collectives over named axes of a mesh: the network dimensions of every
// axis in `axes` are used at once (formulas in roofline/collectives/network_dim.hpp,
// docs/collectives.md).
//
//   auto mesh = *roofline::lay_out_mesh({{.name = "X", .size = 4}, {.name = "Y", .size = 4},
//                                        {.name = "Z", .size = 4}}, roofline::chip("tpu-v4"));
//   // AllGather_XY of bf16[1024, 4096]: V = 8 MiB over two wrapping rings,
//   // T = V / (2 x 9e10 B/s) = 46.6 us
//   auto t = roofline::collective_time(mesh, roofline::CollectiveKind::kAllGather,
//                                      0b011, 2.0 * 1024 * 4096);
//
// Part of roofline::core. The same with axes named in text ("X,Y", "XY"),
// checked: collective_time in roofline/sharding/checked.hpp.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "roofline/collectives/network_dim.hpp"
#include "roofline/sharding/mesh.hpp"

namespace roofline {

// `v_bytes` is V: the whole array over the devices of `axes` (the gathered
// array, or the full unreduced one); when the array is also sharded over
// other axes, V excludes them (AllGather_X of [B_X, D_Y] has V = bytes / |Y|).
inline CollectiveTime collective_time(const Mesh& mesh, CollectiveKind kind, AxisMask axes,
                                      double v_bytes, int shift = 1) {
  if (v_bytes <= 0) return {};
  // Meshes have a handful of dimensions: keep them on the stack (the planner
  // calls this thousands of times), spilling to the heap only if needed.
  std::array<CollectiveDim, 12> local;
  std::vector<CollectiveDim> spill;
  std::size_t n = 0;
  for (std::size_t i = 0; i < mesh.axes.size(); ++i) {
    if (!(axes & (AxisMask{1} << i))) continue;
    for (const CollectiveDim& d : mesh.dims[i]) {
      if (n < local.size()) {
        local[n++] = d;
        continue;
      }
      if (spill.empty()) spill.assign(local.begin(), local.end());
      spill.push_back(d);
      ++n;
    }
  }
  if (n == 0) return {};
  if (!spill.empty()) return collective_time(kind, v_bytes, spill, shift);
  return collective_time(kind, v_bytes, std::span<const CollectiveDim>(local.data(), n), shift);
}

}  // namespace roofline
