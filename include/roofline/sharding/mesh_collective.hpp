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

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "roofline/collectives/network_dim.hpp"
#include "roofline/sharding/mesh.hpp"

namespace roofline {

namespace detail {

// Axes that share a physical torus dimension (the minor one consecutive
// chips, the major one a stride) are, taken together, the part of that
// dimension their strides nest into: a collective over both runs over one
// dimension of their product, stride the smallest, wrapping where it is the
// whole dimension and that wraps. Without this two pieces of one wrapping
// ring would count as two lines (and be merged into one strided line).
// `dims` holds the dims of `axes` in mesh order, as collective_time(mesh,...)
// gathers them; *n shrinks as pieces join.
inline void join_shared_dims(const Mesh& mesh, AxisMask axes, CollectiveDim* dims, std::size_t* n) {
  struct Piece {
    int dim;
    std::size_t at;  // index into dims
    TorusPlacement p;
  };
  std::array<Piece, 12> pieces;
  std::size_t count = 0, at = 0;
  for (std::size_t i = 0; i < mesh.axes.size(); ++i) {
    if (!(axes & (AxisMask{1} << i))) continue;
    const bool torus = mesh.placement.size() > i && mesh.placement[i].size() == mesh.dims[i].size();
    for (std::size_t k = 0; k < mesh.dims[i].size(); ++k, ++at)
      if (torus && count < pieces.size()) pieces[count++] = {mesh.placement[i][k].dim, at, mesh.placement[i][k]};
  }
  std::array<bool, 12> drop{};
  for (std::size_t a = 0; a < count; ++a) {
    if (drop[a]) continue;
    // The pieces on a's physical dimension, by stride.
    std::array<std::size_t, 12> same;
    std::size_t m = 0;
    for (std::size_t b = 0; b < count; ++b)
      if (!drop[b] && pieces[b].dim == pieces[a].dim) same[m++] = b;
    if (m < 2) continue;
    std::sort(same.begin(), same.begin() + m,
              [&](std::size_t x, std::size_t y) { return pieces[x].p.stride < pieces[y].p.stride; });
    bool nested = true;
    for (std::size_t k = 1; k < m; ++k)
      nested &= pieces[same[k]].p.stride == pieces[same[k - 1]].p.stride * pieces[same[k - 1]].p.size;
    if (!nested) continue;
    const TorusPlacement& low = pieces[same[0]].p;
    const TorusPlacement& top = pieces[same[m - 1]].p;
    CollectiveDim& joined = dims[pieces[same[0]].at];
    int size = 1;
    for (std::size_t k = 0; k < m; ++k) size *= pieces[same[k]].p.size;
    const int length = mesh.slice_shape.size() > static_cast<std::size_t>(low.dim) ? mesh.slice_shape[low.dim] : 0;
    joined.size = size;
    joined.stride = low.stride;
    joined.wraps = top.wraps && low.stride == 1 && size == length;
    for (std::size_t k = 1; k < m; ++k) drop[same[k]] = true;
  }
  std::size_t out = 0;
  for (std::size_t i = 0; i < *n; ++i) {
    bool dropped = false;
    for (std::size_t b = 0; b < count; ++b)
      if (pieces[b].at == i) dropped = drop[b];
    if (!dropped) dims[out++] = dims[i];
  }
  *n = out;
}

}  // namespace detail

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
  detail::join_shared_dims(mesh, axes, local.data(), &n);
  return collective_time(kind, v_bytes, std::span<const CollectiveDim>(local.data(), n), shift);
}

}  // namespace roofline
