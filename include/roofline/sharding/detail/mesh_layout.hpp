// Implementation of roofline/sharding/mesh.hpp: laying mesh axes on a chip's
// interconnect (the torus placement search) and describe_layout. Included
// at the end of mesh.hpp; not a public header.
#pragma once

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "roofline/collectives/collective.hpp"
#include "roofline/collectives/network_dim.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/sharding/mesh.hpp"

namespace roofline::detail::layout {

inline std::string shape_text(const std::vector<int>& shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += cat(i ? "x" : "", shape[i]);
  return s;
}

// The chips a slice shape of dimensions >= 1 holds; none when the product
// passes a long long (three ints can: "66066x664660066x664666").
inline std::optional<long long> slice_chips(const std::vector<int>& shape) {
  long long product = 1;
  for (int x : shape)
    if (__builtin_mul_overflow(product, static_cast<long long>(x), &product)) return std::nullopt;
  return product;
}

inline std::string axes_text(const std::vector<MeshAxis>& axes) {
  std::string s;
  for (std::size_t i = 0; i < axes.size(); ++i)
    s += cat(i ? "," : "", axes[i].name, "=", axes[i].size,
                     axes[i].network == AxisNetwork::kDcn ? ":dcn" : "");
  return s;
}

// Does physical dimension `d` of a slice of shape `s` have wraparound?
inline bool slice_dim_wraps(const Interconnect& ici, const std::vector<int>& s, std::size_t d) {
  if (ici.wrap == WrapRule::kAxisMultiple) {
    // Whole cubes joined by optical switches: every dimension must be a
    // multiple of the cube edge, else the slice is an open mesh.
    for (int x : s)
      if (!ici.wraps(x)) return false;
    return true;
  }
  return ici.wraps(s[d]);
}

// Bytes per link of an all-gather of V = 1 over one ring, in units of one
// link's one-way bandwidth: the "time" a placement scores.
inline double ring_ag_time(int size, int stride, bool wraps) {
  const CollectiveDim d{.network = DimNetwork::kTorusRing, .size = size, .wraps = wraps,
                        .stride = stride, .bytes_per_s = 1};
  return torus_dim_cost(CollectiveKind::kAllGather, 1.0, d, 1).t_bandwidth_s;
}

struct Factor {
  int axis;  // index into the ICI axis list
  int dim;
  int size;
  int stride;
};

struct Search {
  Search(const Interconnect& i, std::vector<int> shape)
      : ici(i), target(std::move(shape)), ndims(target.size()), used(ndims, 1) {}

  const Interconnect& ici;
  std::vector<int> target;  // the slice shape the axes must fill exactly
  std::vector<int> sizes;  // ICI axes with size > 1, in mesh order
  std::size_t ndims;
  std::vector<int> used;
  std::vector<Factor> factors;
  // Best so far.
  bool found = false;
  int best_shared = 0;
  double best_time = 0;
  int best_factors = 0;
  std::vector<Factor> best;
  std::vector<int> best_shape;
  long long visited = 0;

  void evaluate() {
    ++visited;
    if (used != target) return;
    int shared = 0;
    std::vector<double> rate(sizes.size(), 0.0);
    for (const Factor& f : factors) {
      if (f.stride > 1) ++shared;
      const bool wraps = f.stride * f.size == used[f.dim] && slice_dim_wraps(ici, used, f.dim);
      rate[f.axis] += 1 / ring_ag_time(f.size, f.stride, wraps);
    }
    double time = 0;
    for (double r : rate) time += 1 / r;
    const int nf = static_cast<int>(factors.size());
    constexpr double kEps = 1e-12;
    const bool better =
        !found || shared < best_shared ||
        (shared == best_shared &&
         (time < best_time - kEps || (std::fabs(time - best_time) <= kEps && nf < best_factors)));
    if (!better) return;
    found = true;
    best_shared = shared;
    best_time = time;
    best_factors = nf;
    best = factors;
    best_shape = used;
  }

  // Splits what remains of axis `a` over dimensions d, d+1, ...
  void split(int a, int remaining, std::size_t d) {
    if (remaining == 1) {
      place(a - 1);
      return;
    }
    if (d == ndims) return;
    const int room = target[d] / used[d];
    for (int f = 1; f <= std::min(remaining, room); ++f) {
      if (remaining % f != 0) continue;
      if (f > 1) {
        factors.push_back({a, static_cast<int>(d), f, used[d]});
        used[d] *= f;
      }
      split(a, remaining / f, d + 1);
      if (f > 1) {
        used[d] /= f;
        factors.pop_back();
      }
    }
  }

  // Places axes a, a-1, ..., 0: the last mesh axis is the most minor.
  void place(int a) {
    if (a < 0) {
      evaluate();
      return;
    }
    split(a, sizes[static_cast<std::size_t>(a)], 0);
  }
};

// Every shape of `rest` chips over dimensions d, d+1, ... of the pod.
inline void factor_shapes(const std::vector<int>& max_shape, std::size_t d, int rest, std::vector<int>& cur,
                          std::vector<std::vector<int>>& out) {
  if (d == max_shape.size()) {
    if (rest == 1) out.push_back(cur);
    return;
  }
  for (int f = 1; f <= std::min(rest, max_shape[d]); ++f) {
    if (rest % f != 0) continue;
    cur[d] = f;
    factor_shapes(max_shape, d + 1, rest / f, cur, out);
  }
  cur[d] = 1;
}

// Is slice shape `a` more cube-like than `b`: a shorter longest dimension,
// then more dimensions in use, then the smaller shape.
inline bool more_cube_like(const std::vector<int>& a, const std::vector<int>& b) {
  auto longest_and_used = [](const std::vector<int>& s) {
    int longest = 0, used = 0;
    for (int x : s) {
      longest = std::max(longest, x);
      used += x > 1;
    }
    return std::pair{longest, used};
  };
  const auto [la, ua] = longest_and_used(a);
  const auto [lb, ub] = longest_and_used(b);
  if (la != lb) return la < lb;
  if (ua != ub) return ua > ub;
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

// Can a slice of shape `s` be provisioned on this interconnect? On chips
// whose wraparound comes from whole cubes joined by optical switches
// (WrapRule::kAxisMultiple: v4, v5p, 7x; cube edge c = wrap_axis_size = 4)
// a slice is either part of one cube, every dimension at most c (v5p's
// published 2x2x1, 2x2x2, 2x4x4), or whole cubes, every dimension a multiple
// of c (4x4x8, 4x4x12, 8x8x16): Google Cloud's v4 rule, "AxBxC with A, B, C
// all <= 4 or all integer multiples of 4". Other chips take any shape
// within the pod.
inline bool provisionable(const Interconnect& ici, const std::vector<int>& s) {
  if (ici.wrap != WrapRule::kAxisMultiple || ici.wrap_axis_size <= 0) return true;
  const int c = ici.wrap_axis_size;
  bool within_cube = true, whole_cubes = true;
  for (int x : s) {
    within_cube = within_cube && x <= c;
    whole_cubes = whole_cubes && x % c == 0;
  }
  return within_cube || whole_cubes;
}

// Does shape `s` fit the pod `max_shape`, turned any way: its dimensions
// sorted, each at most the pod's sorted dimensions.
inline bool fits_pod(std::vector<int> s, std::vector<int> max_shape) {
  if (s.size() != max_shape.size()) return false;
  for (std::size_t i = 1; i < s.size(); ++i)
    for (std::size_t k = i; k > 0 && s[k] < s[k - 1]; --k) std::swap(s[k], s[k - 1]);
  for (std::size_t i = 1; i < max_shape.size(); ++i)
    for (std::size_t k = i; k > 0 && max_shape[k] < max_shape[k - 1]; --k) std::swap(max_shape[k], max_shape[k - 1]);
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] > max_shape[i]) return false;
  return true;
}

// Slice shapes of `n` chips within the pod that the chip can provision
// (provisionable()), most cube-like first: the shapes TPU slices are
// provisioned in (v5e 32 chips: 4x8; v5p 64: 4x4x4, 192: 4x4x12, 256: 4x8x8).
inline std::vector<std::vector<int>> slice_shapes(int n, const Interconnect& ici) {
  std::vector<std::vector<int>> all, out;
  std::vector<int> cur(ici.max_shape.size(), 1);
  factor_shapes(ici.max_shape, 0, n, cur, all);
  for (std::vector<int>& s : all)
    if (provisionable(ici, s)) out.push_back(std::move(s));
  // An insertion sort: a pod has a few dozen shapes of n chips, and no
  // std::sort is instantiated in every file that includes roofline/core.hpp.
  for (std::size_t i = 1; i < out.size(); ++i)
    for (std::size_t k = i; k > 0 && more_cube_like(out[k], out[k - 1]); --k) std::swap(out[k], out[k - 1]);
  return out;
}

// Why `shape` cannot be a slice of `n` ICI chips on `chip`; "" when it can.
inline std::string slice_shape_problem(const std::vector<int>& shape, int n, const Chip& chip) {
  const Interconnect& ici = chip.ici;
  const std::string text = shape_text(shape);
  if (ici.topology == Topology::kSwitch)
    return cat("slice ", text, ": ", chip.name, " has no torus; its NVLink domain takes no slice shape");
  if (shape.size() != ici.max_shape.size())
    return cat("slice ", text, " has ", shape.size(), " dimensions; a ", chip.name, " slice has ",
               ici.max_shape.size(), " (e.g. ", shape_text(ici.max_shape), ")");
  for (int x : shape)
    if (x < 1) return cat("slice ", text, ": dimensions are >= 1");
  const std::optional<long long> product = slice_chips(shape);
  if (!product)
    return cat("slice ", text, " holds more chips than a long long counts; the mesh puts ", n, " chips on ICI");
  if (*product != n)
    return cat("slice ", text, " holds ", *product, " chips but the mesh puts ", n, " chips on ICI");
  if (!fits_pod(shape, ici.max_shape))
    return cat("slice ", text, " is larger than the ", chip.name, " pod (", shape_text(ici.max_shape), ")");
  if (!provisionable(ici, shape))
    return cat("slice ", text, " cannot be provisioned on ", chip.name, ": a slice is part of one ",
               ici.wrap_axis_size, "x", ici.wrap_axis_size, "x", ici.wrap_axis_size,
               " cube (every dimension at most ", ici.wrap_axis_size, ") or whole cubes (every dimension a multiple of ",
               ici.wrap_axis_size, ")");
  return "";
}

// Lays the ICI axes `ici_axes` of `mesh` on `chip`'s torus; false (and why)
// when no slice shape within the pod takes them.
// A non-empty `fixed` is the one shape to try (checked by slice_shape_problem).
inline bool lay_on_torus(Mesh& mesh, const Chip& chip, const std::vector<int>& ici_axes,
                         const std::vector<int>& fixed, std::string* why) {
  const Interconnect& ici = chip.ici;
  std::vector<int> sizes;
  int n = 1;
  for (int i : ici_axes) {
    sizes.push_back(mesh.axes[static_cast<std::size_t>(i)].size);
    n *= sizes.back();
  }
  // The first shape that takes every axis without sharing a dimension wins;
  // failing that, the one with the fewest shared dimensions.
  std::optional<Search> chosen;
  const std::vector<std::vector<int>> shapes =
      fixed.empty() ? slice_shapes(n, ici) : std::vector<std::vector<int>>{fixed};
  for (const std::vector<int>& shape : shapes) {
    Search cand(ici, shape);
    cand.sizes = sizes;
    cand.place(static_cast<int>(sizes.size()) - 1);
    if (!cand.found) continue;
    if (!chosen || cand.best_shared < chosen->best_shared) chosen.emplace(std::move(cand));
    if (chosen->best_shared == 0) break;
  }
  if (!chosen) {
    std::vector<MeshAxis> ici_only;
    for (int i : ici_axes) ici_only.push_back(mesh.axes[static_cast<std::size_t>(i)]);
    if (!why) return false;
    if (!fixed.empty())
      *why = cat("mesh ", axes_text(ici_only), " cannot be laid on slice ", shape_text(fixed),
                 ": every ICI axis must be a product of whole or shared dimensions of the slice");
    else if (shapes.empty())
      *why = cat("mesh ", axes_text(ici_only), " cannot be laid on a ", chip.name, " slice: ", n,
                 " chips make no slice within the pod's ", shape_text(ici.max_shape),
                 ici.wrap == WrapRule::kAxisMultiple
                     ? cat(", a slice is part of one cube (every dimension at most ", ici.wrap_axis_size,
                           ") or whole cubes (every dimension a multiple of ", ici.wrap_axis_size, ")")
                     : std::string(" no shape has that many chips"));
    else
      *why = cat("mesh ", axes_text(ici_only), " cannot be laid on a ", chip.name, " slice: every ICI axis must be ",
                 "a product of whole or shared torus dimensions within the pod's ", shape_text(ici.max_shape),
                 " (axis sizes must factor into dimensions of at most those lengths)");
    return false;
  }
  const Search& s = *chosen;
  mesh.slice_shape = s.best_shape;
  // Major first within each axis: the dimension with the largest stride leads.
  for (std::size_t k = 0; k < ici_axes.size(); ++k) {
    const std::size_t ax = static_cast<std::size_t>(ici_axes[k]);
    std::vector<Factor> mine;
    for (const Factor& f : s.best)
      if (f.axis == static_cast<int>(k)) mine.push_back(f);
    for (const Factor& f : mine) {
      const bool wraps = f.stride * f.size == s.best_shape[static_cast<std::size_t>(f.dim)] &&
                         slice_dim_wraps(ici, s.best_shape, static_cast<std::size_t>(f.dim));
      mesh.placement[ax].push_back({.dim = f.dim, .size = f.size, .stride = f.stride, .wraps = wraps});
      mesh.dims[ax].push_back({.network = DimNetwork::kTorusRing,
                               .size = f.size,
                               .wraps = wraps,
                               .stride = f.stride,
                               .bytes_per_s = ici.link_bytes_per_s,
                               .links = 1,
                               .hop_latency_s = ici.hop_latency_s});
    }
  }
  return true;
}

inline bool valid_axis_name(std::string_view n) {
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}


// Why `axes` cannot make a mesh on any chip: a bad or repeated name, a size
// below 1, more devices than an int counts; "" when they can.
inline std::string axes_problem(const std::vector<MeshAxis>& axes) {
  if (axes.empty()) return "a mesh needs at least one axis";
  if (axes.size() > static_cast<std::size_t>(kMaxMeshAxes)) return cat("a mesh has at most ", kMaxMeshAxes, " axes");
  double total = 1;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const MeshAxis& a = axes[i];
    if (!valid_axis_name(a.name))
      return cat("mesh axis name '", a.name, "' must be a letter or '_' followed by letters, digits or '_'");
    for (std::size_t j = 0; j < i; ++j)
      if (axes[j].name == a.name) return cat("mesh ", axes_text(axes), " names axis '", a.name, "' twice");
    if (a.size < 1) return cat("mesh axis ", a.name, " has size ", a.size, "; sizes are >= 1");
    total *= a.size;
  }
  if (total > std::numeric_limits<int>::max()) return cat("mesh ", axes_text(axes), " has more devices than fit an int");
  return "";
}

// Why the ICI axes of `mesh` do not fit one pod (TPU) or NVLink domain
// (GPU); "" when they do.
inline std::string domain_problem(const Mesh& mesh, const Chip& chip) {
  const double ici_total = mesh.ici_device_count();
  const int domain = chip.ici.domain_chips();
  if (ici_total <= domain) return "";
  const bool gpu = chip.ici.topology == Topology::kSwitch;
  return cat("mesh ", axes_text(mesh.axes), " puts ", static_cast<long long>(ici_total), " chips on ",
             gpu ? "NVLink" : "ICI", " but one ", chip.name, gpu ? " NVLink domain" : " pod", " (",
             shape_text(chip.ici.max_shape), ") holds ", domain, "; mark the axes that cross ",
             gpu ? "nodes" : "slices", " with ':dcn' (e.g. S=2:dcn)");
}

// DCN axes run over the scale-out network; false (and why) on a chip without one.
inline bool lay_on_dcn(Mesh& mesh, const Chip& chip, std::string* why) {
  for (std::size_t i = 0; i < mesh.axes.size(); ++i) {
    const MeshAxis& a = mesh.axes[i];
    if (a.network != AxisNetwork::kDcn || a.size == 1) continue;
    if (!(chip.dcn_bytes_per_s > 0)) {
      if (why) *why = cat("mesh axis ", a.name, " is on DCN but ", chip.name, " has no dcn_bytes_per_s");
      return false;
    }
    // Achieved DCN rate when measured, and the per-step DCN latency.
    mesh.dims[i].push_back(scale_out_dim(a.size, chip));
  }
  return true;
}

// On a switch every ICI axis is one NVLink domain dimension.
inline void lay_on_switch(Mesh& mesh, const Chip& chip, const std::vector<int>& ici_axes) {
  mesh.slice_shape = {mesh.ici_device_count()};
  for (int i : ici_axes)
    mesh.dims[static_cast<std::size_t>(i)].push_back({.network = DimNetwork::kSwitch,
                                                      .size = mesh.axes[static_cast<std::size_t>(i)].size,
                                                      .bytes_per_s = chip.ici.egress_bytes_per_s(),
                                                      .links = std::max(chip.ici.links_per_chip, 1),
                                                      .hop_latency_s = chip.ici.hop_latency_s});
}

}  // namespace roofline::detail::layout

namespace roofline {

inline std::optional<Mesh> lay_out_mesh(std::vector<MeshAxis> axes, const Chip& chip, std::string* why,
                                        std::span<const int> slice_shape) {
  namespace layout = detail::layout;
  auto refuse = [&](std::string reason) -> std::optional<Mesh> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  if (std::string p = layout::axes_problem(axes); !p.empty()) return refuse(std::move(p));
  Mesh mesh;
  mesh.chip_name = chip.name;
  mesh.topology = chip.ici.topology;
  mesh.axes = std::move(axes);
  mesh.dims.resize(mesh.axes.size());
  mesh.placement.resize(mesh.axes.size());
  if (std::string p = layout::domain_problem(mesh, chip); !p.empty()) return refuse(std::move(p));
  const std::vector<int> fixed(slice_shape.begin(), slice_shape.end());
  if (!fixed.empty())
    if (std::string p = layout::slice_shape_problem(fixed, mesh.ici_device_count(), chip); !p.empty())
      return refuse(std::move(p));
  if (!layout::lay_on_dcn(mesh, chip, why)) return std::nullopt;

  std::vector<int> ici_axes;
  for (std::size_t i = 0; i < mesh.axes.size(); ++i)
    if (mesh.axes[i].network == AxisNetwork::kIci && mesh.axes[i].size > 1) ici_axes.push_back(static_cast<int>(i));
  if (chip.ici.topology == Topology::kSwitch) {
    layout::lay_on_switch(mesh, chip, ici_axes);
    return mesh;
  }
  if (ici_axes.empty()) {
    if (fixed.empty()) mesh.slice_shape.assign(chip.ici.max_shape.size(), 1);
    else mesh.slice_shape = fixed;
    return mesh;
  }
  if (!layout::lay_on_torus(mesh, chip, ici_axes, fixed, why)) return std::nullopt;
  return mesh;
}

inline std::string describe_layout(const Mesh& mesh) {
  using detail::cat;
  std::string s;
  for (std::size_t i = 0; i < mesh.axes.size(); ++i) {
    const MeshAxis& a = mesh.axes[i];
    s += cat(i ? "; " : "", a.name, "=", a.size, ": ");
    if (a.size == 1) {
      s += "trivial";
      continue;
    }
    if (a.network == AxisNetwork::kDcn) {
      s += "DCN";
      continue;
    }
    if (mesh.topology == Topology::kSwitch) {
      s += "NVLink domain";
      continue;
    }
    for (std::size_t k = 0; k < mesh.placement[i].size(); ++k) {
      const TorusPlacement& p = mesh.placement[i][k];
      s += cat(k ? " x " : "", "torus dim ", p.dim, " (", p.size, p.wraps ? ", wraps" : ", no wrap",
               p.stride > 1 ? cat(", stride ", p.stride) : "", ")");
    }
  }
  if (mesh.topology != Topology::kSwitch && !mesh.slice_shape.empty())
    s += cat("; slice ", detail::layout::shape_text(mesh.slice_shape));
  return s;
}

}  // namespace roofline
