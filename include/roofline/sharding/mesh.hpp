// A device mesh: named axes with sizes, laid on a chip's interconnect.
//
//   auto mesh = roofline::parse_mesh("X=4,Y=4,Z=4", roofline::chip("tpu-v4"));
//   // -> a 4x4x4 slice; each axis one torus dimension with wraparound
//
// ICI axes (the default) live inside one TPU slice or one GPU NVLink domain;
// axes marked ":dcn" ("S=2:dcn") run across slices (TPU data-center network)
// or across nodes (GPU InfiniBand), at the chip's dcn_bytes_per_s per chip.
//
// Laying ICI axes on a TPU torus. The slice takes the most cube-like shape
// of its chip count within the pod (`ici.max_shape`), the shapes TPU slices
// are provisioned in: v5e 32 chips -> 4x8, v5p 64 -> 4x4x4, 256 -> 4x8x8.
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
// Errors (absl::InvalidArgumentError) say why: a duplicate axis, a size < 1,
// more ICI chips than the pod or NVLink domain holds, a shape no slice of
// the pod can take.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
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

// Lays `axes` on `chip` (see the header comment for the rules).
absl::StatusOr<Mesh> make_mesh(std::vector<MeshAxis> axes, const Chip& chip);

// "X=8,Y=4" or "data=16,model=4,slice=2:dcn". Errors name the column:
// "mesh 'X=8,Y': column 5: expected '=' after axis name 'Y'".
absl::StatusOr<std::vector<MeshAxis>> parse_mesh_axes(std::string_view spec);

// parse_mesh_axes then make_mesh.
absl::StatusOr<Mesh> parse_mesh(std::string_view spec, const Chip& chip);

// Mesh axes named by `text`: "X,Y", "X" or, when no axis is called that,
// the book's run-together subscripts "XY" read as X then Y (longest axis
// names first). The order is returned as written. Errors name unknown or
// repeated axes.
absl::StatusOr<std::vector<int>> resolve_axes(const Mesh& mesh, std::string_view text);
AxisMask mask_of(std::span<const int> axes);

// "X=4(torus 4, wraps) Y=4(...)": how each axis was laid, for reports.
std::string describe_layout(const Mesh& mesh);

}  // namespace roofline
