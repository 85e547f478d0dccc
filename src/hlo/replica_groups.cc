#include "roofline/hlo/replica_groups.hpp"

#include <algorithm>
#include <numeric>
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
  if (c.consume('T')) {
    c.skip_space();
    if (!c.expect('(', "'('")) return error_at(c, "'('");
    for (;;) {
      c.skip_space();
      std::int64_t v;
      if (!c.integer(&v, "a dimension")) return error_at(c, "a dimension");
      perm.push_back(v);
      c.skip_space();
      if (c.consume(')')) break;
      if (!c.expect(',', "','")) return error_at(c, "',' or ')'");
    }
  }
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
  absl::InlinedVector<bool, 8> seen(dims.size(), false);
  for (std::int64_t p : perm) {
    if (p < 0 || p >= static_cast<std::int64_t>(dims.size()) || seen[static_cast<std::size_t>(p)])
      return absl::InvalidArgumentError("T(...) is not a permutation");
    seen[static_cast<std::size_t>(p)] = true;
  }
  g.num_groups = shape[0];
  g.group_size = shape[1];
  if (total > kMaxListedDevices || total == 0 || listing == Listing::kSizesOnly) return g;
  // Walk the transposed array in row-major order; each position's value is
  // the row-major index of the untransposed element it came from.
  const std::size_t k = dims.size();
  Ints tdims(k), stride(k), idx(k, 0);
  std::int64_t s = 1;
  for (std::size_t i = k; i-- > 0;) {
    stride[i] = s;
    s *= dims[i];
  }
  for (std::size_t j = 0; j < k; ++j) tdims[j] = dims[static_cast<std::size_t>(perm[j])];
  g.groups.assign(static_cast<std::size_t>(shape[0]), {});
  for (std::int64_t n = 0; n < total; ++n) {
    std::int64_t v = 0;
    for (std::size_t j = 0; j < k; ++j) v += idx[j] * stride[static_cast<std::size_t>(perm[j])];
    g.groups[static_cast<std::size_t>(n / shape[1])].push_back(v);
    for (std::size_t j = k; j-- > 0;) {
      if (++idx[j] < tdims[j]) break;
      idx[j] = 0;
    }
  }
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
