// A device mesh: named axes with sizes, laid on a chip's interconnect.
//
//   std::optional<roofline::Mesh> mesh = roofline::lay_out_mesh(
//       {{.name = "X", .size = 4}, {.name = "Y", .size = 4}, {.name = "Z", .size = 4}},
//       roofline::chip("tpu-v4"));
//   // -> a 4x4x4 slice; each axis one torus dimension with wraparound
//
// Part of roofline::core (header-only). Text ("X=4,Y=4,Z=4", "XY") is read by
// parse_mesh and resolve_axes, and make_mesh returns the reason a mesh cannot
// be laid as an absl::Status: roofline/sharding/parse.hpp and checked.hpp,
// in the compiled roofline::roofline.
//
// ICI axes (the default) live inside one TPU slice or one GPU NVLink domain;
// axes marked ":dcn" ("S=2:dcn") run across slices (TPU data-center network)
// or across nodes (GPU InfiniBand), at the chip's achieved DCN rate per chip
// when its spec has one (else dcn_bytes_per_s), each step of a DCN
// collective paying the spec's dcn_latency_s (scale_out_dim, collective.hpp).
//
// Laying ICI axes on a TPU torus. The slice takes the most cube-like shape
// of its chip count within the pod (`ici.max_shape`) that the chip can
// provision: v5e 32 chips -> 4x8, v5p 64 -> 4x4x4, 256 -> 4x8x8. On v4, v5p
// and 7x a slice is part of one 4x4x4 cube (every dimension <= 4: 2x2x1,
// 2x2x2, 2x2x4, 2x4x4) or whole cubes (every dimension a multiple of 4:
// 192 -> 4x4x12, never 3x8x8); Google Cloud's v4 topology rule. A given
// `slice_shape` is used as is (turned any way within the pod) or refused.
// Every ICI axis then occupies one or more whole physical dimensions (an
// axis of 64 on v5p spans 4x4x4 and gathers over three dimensions at once).
// When the axes do not fit the dimensions whole, a less cube-like shape
// that takes them whole is used; failing that, axes share a dimension: the
// minor (later) axis gets consecutive chips, the major one a stride, so its
// rings are `stride` links per hop and share their links (network_dim.hpp).
// Within a shape, the placement with the smallest summed all-gather time
// over the axes wins, then the one splitting axes over fewer dimensions.
// Wraparound: per the chip's rule (`Interconnect::wrap`); on chips whose
// rule is "axis is a multiple of N" (v4, v5p, 7x: whole 4x4x4 cubes joined
// by optical switches), a dimension wraps only when every dimension of the
// slice is such a multiple (a 2x2x4 slice has no wraparound).
//
// On a switch (GPU) the ICI axes together must fit one NVLink domain
// (`ici.max_shape`, 8 GPUs); every peer is one hop away.
//
// A mesh cannot be laid when an axis name is not an identifier or is used
// twice, a size is < 1, there are more ICI chips than the pod or NVLink
// domain holds, a DCN axis is on a chip without DCN, a given slice shape is
// not one the chip provisions for that many chips, or no slice shape of
// the pod takes the axes; lay_out_mesh says which.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/chip.hpp"
#include "roofline/collectives/network_dim.hpp"

namespace roofline {

enum class AxisNetwork : unsigned char { kIci, kDcn };

struct MeshAxis {
  std::string name;
  int size = 1;
  AxisNetwork network = AxisNetwork::kIci;
};

// Where part of an ICI axis sits on the physical torus.
struct TorusPlacement {
  int dim = 0;      // physical dimension of the slice
  int size = 1;     // chips of the axis along it
  int stride = 1;   // links between consecutive chips of the axis
  bool wraps = false;
};

// Bit i stands for mesh axis i.
using AxisMask = std::uint32_t;
inline constexpr int kMaxMeshAxes = 32;

struct Mesh {
  // The chip the mesh was laid on: its dims carry that chip's link figures,
  // so a mesh predicts only on it. The checked entry points that take a
  // mesh and a chip (predict_sharded_matmul, predict_training_step) refuse
  // another chip.
  std::string chip_name;
  Topology topology = Topology::kSwitch;
  std::vector<MeshAxis> axes;
  // Per axis, the network dimensions it is laid on, major first.
  std::vector<std::vector<CollectiveDim>> dims;
  // Per axis, its torus placement (empty for switch and DCN axes).
  std::vector<std::vector<TorusPlacement>> placement;
  // Physical shape of the ICI slice (TPU), or {GPUs in the NVLink group}.
  std::vector<int> slice_shape;

  int device_count() const {
    int n = 1;
    for (const MeshAxis& a : axes) n *= a.size;
    return n;
  }
  int ici_device_count() const {
    int n = 1;
    for (const MeshAxis& a : axes)
      if (a.network == AxisNetwork::kIci) n *= a.size;
    return n;
  }
  std::optional<int> index(std::string_view name) const {
    for (std::size_t i = 0; i < axes.size(); ++i)
      if (axes[i].name == name) return static_cast<int>(i);
    return std::nullopt;
  }
  // Devices along the axes of `mask`.
  int size(AxisMask mask) const {
    int n = 1;
    for (std::size_t i = 0; i < axes.size(); ++i)
      if (mask & (AxisMask{1} << i)) n *= axes[i].size;
    return n;
  }
  AxisMask all_axes() const {
    return axes.size() >= 32 ? ~AxisMask{0} : (AxisMask{1} << axes.size()) - 1;
  }
};

// Lays `axes` on `chip` (see the header comment for the rules), or nullopt
// when they cannot be laid; then `*why`, if given, says why ("mesh axis X
// has size 0; sizes are >= 1"). A non-empty `slice_shape` fixes the
// physical shape of each slice (4x4x12) instead of choosing one. make_mesh
// (roofline/sharding/checked.hpp) returns the same as an absl::Status.
inline std::optional<Mesh> lay_out_mesh(std::vector<MeshAxis> axes, const Chip& chip, std::string* why = nullptr,
                                        std::span<const int> slice_shape = {});

inline AxisMask mask_of(std::span<const int> axes) {
  AxisMask m = 0;
  for (int i : axes) m |= AxisMask{1} << i;
  return m;
}

// "X=4: torus dim 0 (4, wraps); ...; slice 4x4x4": how each axis was laid,
// for reports.
inline std::string describe_layout(const Mesh& mesh);

}  // namespace roofline

// The layout search and describe_layout.
#include "roofline/sharding/detail/mesh_layout.hpp"
