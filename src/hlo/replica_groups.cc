#include "roofline/hlo/replica_groups.hpp"

#include <algorithm>
#include <numeric>
#include <span>
#include <string>

#include "roofline/detail/cat.hpp"
#include "src/hlo/attributes.hpp"
#include "src/hlo/cursor.hpp"
#include "src/hlo/int_math.hpp"

namespace roofline {
namespace {

using detail::Cursor;

constexpr std::int64_t kMaxListedDevices = std::int64_t{1} << 20;

absl::Status error_at(const Cursor& c, std::string_view what) {
  return absl::InvalidArgumentError(detail::cat("offset ", c.offset(), ": expected ", what));
}

using Ints = absl::InlinedVector<std::int64_t, 8>;  // iota shapes: no allocation

bool int_list(Cursor& c, Ints* out) {
  c.skip_space();
  if (!c.expect('[', "'['")) return false;
  for (;;) {
    c.skip_space();
    std::int64_t v;
    if (!c.integer(&v, "an integer")) return false;
    if (v < 0) return c.fail("a non-negative integer");
    out->push_back(v);
    c.skip_space();
    if (c.consume(']')) return true;
    if (!c.expect(',', "',' or ']'")) return false;
  }
}

// An optional `T(p0,p1,...)` after an iota's dimensions (the iota groups
// and mesh device_ids= share it); `perm` stays empty without one.
absl::Status transpose(Cursor& c, Ints* perm) {
  if (!c.consume('T')) return absl::OkStatus();
  c.skip_space();
  if (!c.expect('(', "'('")) return error_at(c, "'('");
  for (;;) {
    c.skip_space();
    std::int64_t v;
    if (!c.integer(&v, "a dimension")) return error_at(c, "a dimension");
    perm->push_back(v);
    c.skip_space();
    if (c.consume(')')) return absl::OkStatus();
    if (!c.expect(',', "','")) return error_at(c, "',' or ')'");
  }
}

// Walks the array of shape `dims` transposed by `perm` in row-major order:
// f(n, v) for its n-th element, v being the row-major index of the
// untransposed element it came from. perm is a permutation of dims' axes.
template <class F>
void for_each_transposed(std::span<const std::int64_t> dims, std::span<const std::int64_t> perm, F f) {
  const std::size_t k = dims.size();
  Ints tdims(k), stride(k), idx(k, 0);
  std::int64_t s = 1;
  for (std::size_t i = k; i-- > 0;) {
    stride[i] = s;
    s *= dims[i];
  }
  for (std::size_t j = 0; j < k; ++j) tdims[j] = dims[static_cast<std::size_t>(perm[j])];
  for (std::int64_t n = 0; n < s; ++n) {
    std::int64_t v = 0;
    for (std::size_t j = 0; j < k; ++j) v += idx[j] * stride[static_cast<std::size_t>(perm[j])];
    f(n, v);
    for (std::size_t j = k; j-- > 0;) {
      if (++idx[j] < tdims[j]) break;
      idx[j] = 0;
    }
  }
}

// Whether perm is a permutation of 0..n-1.
bool is_permutation(std::span<const std::int64_t> perm, std::size_t n) {
  if (perm.size() != n) return false;
  absl::InlinedVector<bool, 8> seen(n, false);
  for (std::int64_t p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(n) || seen[static_cast<std::size_t>(p)]) return false;
    seen[static_cast<std::size_t>(p)] = true;
  }
  return true;
}

// Whether a parse lists the devices of every group or only counts them.
enum class Listing { kDevices, kSizesOnly };

absl::StatusOr<ReplicaGroups> parse_iota(Cursor& c, Listing listing) {
  ReplicaGroups g;
  Ints shape, dims, perm;
  if (!int_list(c, &shape)) return error_at(c, "[groups,size]");
  if (shape.size() != 2) return absl::InvalidArgumentError("iota replica groups need [groups,size]");
  c.skip_space();
  if (!c.consume("<=")) return error_at(c, "'<='");
  if (!int_list(c, &dims)) return error_at(c, "the iota dimensions");
  c.skip_space();
  if (absl::Status st = transpose(c, &perm); !st.ok()) return st;
  c.skip_space();
  if (!c.at_end()) return error_at(c, "the end of the replica groups");
  if (dims.size() > 64) return absl::InvalidArgumentError("too many iota dimensions");
  std::int64_t total = 1;
  for (std::int64_t d : dims) total = detail::sat_mul(total, d);
  if (detail::sat_mul(shape[0], shape[1]) != total)
    return absl::InvalidArgumentError(
        detail::cat("iota replica groups [", shape[0], ",", shape[1], "] do not match ", total, " devices"));
  if (perm.empty()) {
    perm.resize(dims.size());
    std::iota(perm.begin(), perm.end(), 0);
  }
  if (perm.size() != dims.size()) return absl::InvalidArgumentError("T(...) must permute every iota dimension");
  if (!is_permutation(perm, dims.size())) return absl::InvalidArgumentError("T(...) is not a permutation");
  g.num_groups = shape[0];
  g.group_size = shape[1];
  if (total > kMaxListedDevices || total == 0 || listing == Listing::kSizesOnly) return g;
  g.groups.assign(static_cast<std::size_t>(shape[0]), {});
  for_each_transposed(dims, perm, [&](std::int64_t n, std::int64_t v) {
    g.groups[static_cast<std::size_t>(n / shape[1])].push_back(v);
  });
  return g;
}

// One axis name of a mesh: 'axis_0' as XLA prints it today, or bare.
bool axis_name(Cursor& c, std::string_view* out) {
  c.skip_space();
  if (c.consume('\'')) {
    const char* s = c.pos();
    while (!c.at_end() && c.peek() != '\'') c.advance();
    if (c.at_end()) return c.fail("a closing quote");
    *out = {s, static_cast<std::size_t>(c.pos() - s)};
    c.advance();
    return !out->empty() || c.fail("an axis name");
  }
  *out = c.name();
  return !out->empty() || c.fail("an axis name");
}

// One axis of the groups: a whole mesh axis, or the sub-axis `a:(pre)size`
// (the `size` devices of stride `pre` within axis a).
struct AxisRef {
  std::size_t axis = 0;
  std::int64_t pre_size = 1;
  std::int64_t size = 0;
  bool sub_axis = false;
};

absl::Status mesh_error(std::string_view what) {
  return absl::InvalidArgumentError(detail::cat("mesh replica groups: ", what));
}

// XLA's MeshAxesReplicaGroupList (xla/hlo/ir/replica_group.cc), printed as
//   mesh['a'=2,'b'=4] {'b'}
//   mesh['a'=2,'b'=4], device_ids=([4,2]T(1,0)) {'a','b':(1)2}
// The mesh's devices are iota(N) unless device_ids= gives them (an iota
// [reshape]T(perm), or every id in row-major mesh order). A group is the
// devices that differ only along the listed axes: each listed dimension is
// split into its sub-axes, the array is transposed to put the listed
// (sub-)axes last, in mesh-dimension order, and read G rows of S devices.
absl::StatusOr<ReplicaGroups> parse_mesh(Cursor& c, Listing listing) {
  if (!c.consume("mesh[")) return error_at(c, "'mesh['");
  std::vector<std::string_view> names;
  Ints sizes;
  for (;;) {
    std::string_view name;
    if (!axis_name(c, &name)) return error_at(c, "an axis name");
    c.skip_space();
    if (!c.expect('=', "'='")) return error_at(c, "'=' after the axis name");
    c.skip_space();
    std::int64_t v;
    if (!c.integer(&v, "an axis size") || v < 1) return error_at(c, "a positive axis size");
    if (std::find(names.begin(), names.end(), name) != names.end())
      return mesh_error(detail::cat("axis '", name, "' is named twice"));
    names.push_back(name);
    sizes.push_back(v);
    c.skip_space();
    if (c.consume(']')) break;
    if (!c.expect(',', "','")) return error_at(c, "',' or ']'");
  }
  if (sizes.size() > 64) return mesh_error("more than 64 axes");
  std::int64_t total = 1;
  for (std::int64_t v : sizes) total = detail::sat_mul(total, v);
  if (total > (std::int64_t{1} << 40)) return mesh_error("more than 2^40 devices");

  Ints ids, reshape, perm;  // device_ids=: every id, or an iota
  c.skip_space();
  if (c.consume(',')) {
    c.skip_space();
    if (!c.consume("device_ids=(")) return error_at(c, "'device_ids=('");
    c.skip_space();
    if (c.peek() == '[') {
      if (!int_list(c, &reshape)) return error_at(c, "the iota dimensions");
      c.skip_space();
      if (absl::Status st = transpose(c, &perm); !st.ok()) return st;
    } else {
      for (;;) {
        c.skip_space();
        std::int64_t v;
        if (!c.integer(&v, "a device id")) return error_at(c, "a device id");
        ids.push_back(v);
        c.skip_space();
        if (c.peek() == ')') break;
        if (!c.expect(',', "','")) return error_at(c, "',' or ')'");
      }
    }
    c.skip_space();
    if (!c.expect(')', "')'")) return error_at(c, "')' after the device ids");
  }

  c.skip_space();
  if (!c.consume('{')) return error_at(c, "'{' and the axes of the groups");
  std::vector<AxisRef> axes;
  c.skip_space();
  if (!c.consume('}')) {
    for (;;) {
      std::string_view name;
      if (!axis_name(c, &name)) return error_at(c, "an axis name");
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) return mesh_error(detail::cat("axis '", name, "' is not in the mesh"));
      AxisRef a{.axis = static_cast<std::size_t>(it - names.begin())};
      a.size = sizes[a.axis];
      c.skip_space();
      if (c.consume(":(")) {
        c.skip_space();
        if (!c.integer(&a.pre_size, "a sub-axis pre-size")) return error_at(c, "a sub-axis pre-size");
        c.skip_space();
        if (!c.expect(')', "')'")) return error_at(c, "')'");
        c.skip_space();
        if (!c.integer(&a.size, "a sub-axis size")) return error_at(c, "a sub-axis size");
        a.sub_axis = true;
        const std::int64_t full = sizes[a.axis];
        if (a.pre_size < 1 || a.size < 2 || a.size >= full || full % detail::sat_mul(a.pre_size, a.size) != 0)
          return mesh_error(detail::cat("sub-axis '", name, "':(", a.pre_size, ")", a.size, " does not divide ",
                                        "an axis of ", full));
      }
      axes.push_back(a);
      c.skip_space();
      if (c.consume('}')) break;
      if (!c.expect(',', "','")) return error_at(c, "',' or '}'");
    }
  }
  c.skip_space();
  if (!c.at_end()) return error_at(c, "the end of the replica groups");
  if (axes.empty()) return mesh_error("no axis is selected (a group of one device)");

  // Per mesh dimension: how it is reshaped and which of its parts are grouped
  // (XLA's GetDimToReshapeAndAggregateAxes): {a} -> [8], part 0;
  // {a:(1)2} -> [1,2,4], part 1; {a:(1)2,a:(4)2} -> [2,2,2], parts 0 and 2.
  Ints reindexed, grouped;
  std::int64_t group_size = 1;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    std::vector<std::size_t> on_d;  // positions in `axes`, as listed
    for (std::size_t k = 0; k < axes.size(); ++k)
      if (axes[k].axis == d) on_d.push_back(k);
    if (on_d.empty()) {
      reindexed.push_back(sizes[d]);
      continue;
    }
    const std::int64_t offset = static_cast<std::int64_t>(reindexed.size());
    if (on_d.size() == 1 && !axes[on_d[0]].sub_axis) {
      reindexed.push_back(sizes[d]);
      grouped.push_back(offset);
      group_size = detail::sat_mul(group_size, sizes[d]);
      continue;
    }
    if (on_d.size() == 1) {
      const AxisRef& a = axes[on_d[0]];
      reindexed.insert(reindexed.end(), {a.pre_size, a.size, sizes[d] / (a.pre_size * a.size)});
      grouped.push_back(offset + 1);
      group_size = detail::sat_mul(group_size, a.size);
      continue;
    }
    std::vector<std::size_t> by_pre = on_d;
    std::stable_sort(by_pre.begin(), by_pre.end(),
                     [&](std::size_t x, std::size_t y) { return axes[x].pre_size < axes[y].pre_size; });
    std::vector<std::int64_t> part_of(axes.size(), 0);
    std::int64_t prefix = 1, part = offset;
    for (std::size_t k : by_pre) {
      const AxisRef& a = axes[k];
      if (!a.sub_axis) return mesh_error(detail::cat("axis '", names[d], "' is listed whole and again"));
      if (a.pre_size % prefix != 0)
        return mesh_error(detail::cat("sub-axes of '", names[d], "' overlap"));
      if (a.pre_size != prefix) {
        reindexed.push_back(a.pre_size / prefix);
        ++part;
        prefix = a.pre_size;
      }
      reindexed.push_back(a.size);
      part_of[k] = part++;
      prefix = detail::sat_mul(prefix, a.size);
      group_size = detail::sat_mul(group_size, a.size);
    }
    if (sizes[d] % prefix != 0) return mesh_error(detail::cat("sub-axes of '", names[d], "' overlap"));
    if (prefix != sizes[d]) reindexed.push_back(sizes[d] / prefix);
    for (std::size_t k : on_d) grouped.push_back(part_of[k]);  // listing order within the dimension
  }
  ReplicaGroups g;
  g.group_size = group_size;
  g.num_groups = total / group_size;
  if (total > kMaxListedDevices || listing == Listing::kSizesOnly) {
    if (!ids.empty() || !reshape.empty()) {
      // Still refuse device ids that do not fit the mesh.
      std::int64_t n = static_cast<std::int64_t>(ids.size());
      if (!reshape.empty()) {
        n = 1;
        for (std::int64_t v : reshape) n = detail::sat_mul(n, v);
      }
      if (n != total) return mesh_error(detail::cat(n, " device ids for a mesh of ", total));
    }
    return g;
  }

  // The mesh's devices in row-major mesh order.
  std::vector<std::int64_t> devices(static_cast<std::size_t>(total));
  if (!reshape.empty()) {
    std::int64_t n = 1;
    for (std::int64_t v : reshape) n = detail::sat_mul(n, v);
    if (n != total) return mesh_error(detail::cat(n, " device ids for a mesh of ", total));
    if (perm.empty()) {
      perm.resize(reshape.size());
      std::iota(perm.begin(), perm.end(), 0);
    }
    if (!is_permutation(perm, reshape.size())) return mesh_error("device_ids T(...) is not a permutation");
    for_each_transposed(reshape, perm, [&](std::int64_t i, std::int64_t v) { devices[static_cast<std::size_t>(i)] = v; });
  } else if (!ids.empty()) {
    if (static_cast<std::int64_t>(ids.size()) != total)
      return mesh_error(detail::cat(ids.size(), " device ids for a mesh of ", total));
    std::vector<std::int64_t> sorted(ids.begin(), ids.end());
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] != static_cast<std::int64_t>(i)) return mesh_error("device ids are not a permutation of 0..N-1");
    devices.assign(ids.begin(), ids.end());
  } else {
    std::iota(devices.begin(), devices.end(), 0);
  }
  // Transpose the ungrouped parts first and the grouped ones last.
  Ints order;
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(reindexed.size()); ++k)
    if (std::find(grouped.begin(), grouped.end(), k) == grouped.end()) order.push_back(k);
  order.insert(order.end(), grouped.begin(), grouped.end());
  g.groups.assign(static_cast<std::size_t>(g.num_groups), {});
  for_each_transposed(reindexed, order, [&](std::int64_t n, std::int64_t v) {
    g.groups[static_cast<std::size_t>(n / group_size)].push_back(devices[static_cast<std::size_t>(v)]);
  });
  return g;
}

// `{{0,1},{1,2}}`: calls group() at each inner '{' and device(id) for each
// integer in it.
template <class Group, class Device>
absl::Status for_each_int_list(std::string_view text, Group group, Device device) {
  Cursor c(text);
  c.skip_space();
  if (!c.consume('{')) return error_at(c, "'{'");
  c.skip_space();
  if (c.consume('}')) {
    c.skip_space();
    if (!c.at_end()) return error_at(c, "the end of the list");
    return absl::OkStatus();
  }
  for (;;) {
    c.skip_space();
    if (!c.consume('{')) return error_at(c, "'{' to open a group");
    group();
    c.skip_space();
    if (!c.consume('}')) {
      for (;;) {
        c.skip_space();
        std::int64_t v;
        if (!c.integer(&v, "a device id")) return error_at(c, "a device id");
        device(v);
        c.skip_space();
        if (c.consume('}')) break;
        if (!c.consume(',')) return error_at(c, "',' or '}'");
      }
    }
    c.skip_space();
    if (c.consume('}')) break;
    if (!c.consume(',')) return error_at(c, "',' or '}'");
  }
  c.skip_space();
  if (!c.at_end()) return error_at(c, "the end of the list");
  return absl::OkStatus();
}

absl::StatusOr<ReplicaGroups> read_replica_groups(std::string_view text, Listing listing) {
  Cursor c(text);
  c.skip_space();
  if (c.peek() == '[') return parse_iota(c, listing);
  if (c.peek() == 'm') return parse_mesh(c, listing);
  ReplicaGroups g;
  std::int64_t size = 0;  // of the group being read
  auto group = [&] {
    g.group_size = std::max(g.group_size, size);
    size = 0;
    ++g.num_groups;
    if (listing == Listing::kDevices) g.groups.emplace_back();
  };
  auto device = [&](std::int64_t id) {
    ++size;
    if (listing == Listing::kDevices) g.groups.back().push_back(id);
  };
  if (absl::Status s = for_each_int_list(text, group, device); !s.ok()) return s;
  g.group_size = std::max(g.group_size, size);
  if (g.num_groups == 0) {
    g.all_devices = true;
    g.num_groups = 1;
    g.group_size = 0;
  }
  // Groups of one collective are the same size; the largest decides the time.
  return g;
}

}  // namespace

absl::StatusOr<std::vector<std::vector<std::int64_t>>> parse_int_lists(std::string_view text) {
  std::vector<std::vector<std::int64_t>> out;
  absl::Status s = for_each_int_list(text, [&] { out.emplace_back(); }, [&](std::int64_t v) { out.back().push_back(v); });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<ReplicaGroups> parse_replica_groups(std::string_view text) {
  return read_replica_groups(text, Listing::kDevices);
}

namespace detail {

bool read_int_lists(std::string_view text, IntList* values, IntList* starts) {
  auto group = [&] { starts->push_back(static_cast<std::int64_t>(values->size())); };
  auto value = [&](std::int64_t v) { values->push_back(v); };
  return for_each_int_list(text, group, value).ok();
}

std::optional<ReplicaGroupSizes> read_replica_group_sizes(std::string_view text) {
  absl::StatusOr<ReplicaGroups> g = read_replica_groups(text, Listing::kSizesOnly);
  if (!g.ok()) return std::nullopt;
  return ReplicaGroupSizes{.num_groups = g->num_groups, .group_size = g->group_size, .all_devices = g->all_devices};
}

}  // namespace detail
}  // namespace roofline
