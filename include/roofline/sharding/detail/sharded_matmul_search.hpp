// Implementation of roofline/sharding/sharded_matmul.hpp: which mesh axes
// to all-gather off which operand, the local matmul that leaves, and the
// reductions and reshards after it. Included at the end of
// sharded_matmul.hpp; not a public header.
//
// The search, in the order sharded_matmul() runs it:
//   dim_roles          contracting, batch, lhs-free and rhs-free dims
//   book_cases         the book's cases present as written
//   gather_candidates  mesh axes worth gathering (on a contracting dim, or
//                      used by both operands), up to 4 choices each
//   Gatherings         every choice, in order
//   strategy           per choice: the local result (local_result), the
//                      gathers, the local matmul, the reductions of the
//                      partial sums (reduce_partial_sums) and the reshards
//                      to the requested result (reshard_result)
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/sharding/mesh_collective.hpp"
#include "roofline/sharding/sharded_matmul.hpp"

namespace roofline::detail::sharded {

using Axes = std::vector<int>;

enum class Role { kContract, kBatch, kLhsFree, kRhsFree };

inline bool contains(const Axes& a, int x) { return std::find(a.begin(), a.end(), x) != a.end(); }

// One list is a prefix of the other: the two shardings agree as far as the
// shorter goes.
inline bool is_prefix(const Axes& a, const Axes& b) {
  const Axes& s = a.size() <= b.size() ? a : b;
  const Axes& l = a.size() <= b.size() ? b : a;
  return std::equal(s.begin(), s.end(), l.begin());
}

inline const Axes& longer(const Axes& a, const Axes& b) { return a.size() >= b.size() ? a : b; }

inline int find_dim(const ShardedArray& op, const std::string& name) {
  for (std::size_t i = 0; i < op.dims.size(); ++i)
    if (op.dims[i] == name) return static_cast<int>(i);
  return -1;
}

inline const Axes& axes_of(const ShardedArray& op, const std::string& dim) {
  return op.axes[static_cast<std::size_t>(find_dim(op, dim))];
}

// Dims named in both operands are contracted, unless the result names them
// too (batch dims). `result_dims` are the dims the contraction leaves, lhs
// first, in the operands' order.
struct Roles {
  std::vector<std::pair<std::string, Role>> of;  // every dim, in the order first named
  std::vector<std::string> result_dims;

  Role at(const std::string& dim) const {
    for (const auto& [d, r] : of)
      if (d == dim) return r;
    return Role::kLhsFree;  // not reached: every dim has a role
  }
  bool has(const std::string& dim) const {
    for (const auto& [d, r] : of)
      if (d == dim) return true;
    return false;
  }
};

inline Roles dim_roles(const ShardedArray& lhs, const ShardedArray& rhs, const std::optional<ShardedArray>& out) {
  Roles r;
  for (const std::string& d : lhs.dims) {
    const bool in_rhs = find_dim(rhs, d) >= 0;
    const bool in_out = out && find_dim(*out, d) >= 0;
    r.of.emplace_back(d, in_rhs ? (in_out ? Role::kBatch : Role::kContract) : Role::kLhsFree);
  }
  for (const std::string& d : rhs.dims)
    if (!r.has(d)) r.of.emplace_back(d, Role::kRhsFree);
  for (const std::string& d : lhs.dims)
    if (r.at(d) != Role::kContract) r.result_dims.push_back(d);
  for (const std::string& d : rhs.dims)
    if (r.at(d) == Role::kRhsFree) r.result_dims.push_back(d);
  return r;
}

// The book's cases present in the expression as written (case_description).
inline std::vector<int> book_cases(const ShardedArray& lhs, const ShardedArray& rhs, const Roles& roles) {
  bool present[5] = {};
  for (const auto& [d, r] : roles.of) {
    if (r != Role::kContract) continue;
    const Axes& al = axes_of(lhs, d);
    const Axes& ar = axes_of(rhs, d);
    if (al.empty() && ar.empty()) continue;
    present[al == ar ? 3 : 2] = true;
  }
  for (std::size_t i = 0; i < lhs.dims.size(); ++i) {
    if (roles.at(lhs.dims[i]) != Role::kLhsFree) continue;
    for (int a : lhs.axes[i])
      for (std::size_t j = 0; j < rhs.dims.size(); ++j)
        if (roles.at(rhs.dims[j]) == Role::kRhsFree && contains(rhs.axes[j], a)) present[4] = true;
  }
  std::vector<int> cases;
  for (int c = 2; c <= 4; ++c)
    if (present[c]) cases.push_back(c);
  if (cases.empty()) cases.push_back(1);
  return cases;
}

// A mesh axis worth gathering, and off which operands it can be.
struct Candidate {
  int axis;
  bool in_lhs, in_rhs;
};

// Axes on a contracting dim and axes both operands use, in mesh order.
inline std::vector<Candidate> gather_candidates(const ShardedArray& lhs, const ShardedArray& rhs, const Roles& roles,
                                                const Mesh& mesh) {
  std::vector<Candidate> candidates;
  for (std::size_t a = 0; a < mesh.axes.size(); ++a) {
    const int ax = static_cast<int>(a);
    int dl = -1, dr = -1;
    for (std::size_t i = 0; i < lhs.dims.size(); ++i)
      if (contains(lhs.axes[i], ax)) dl = static_cast<int>(i);
    for (std::size_t i = 0; i < rhs.dims.size(); ++i)
      if (contains(rhs.axes[i], ax)) dr = static_cast<int>(i);
    const bool on_contract =
        (dl >= 0 && roles.at(lhs.dims[static_cast<std::size_t>(dl)]) == Role::kContract) ||
        (dr >= 0 && roles.at(rhs.dims[static_cast<std::size_t>(dr)]) == Role::kContract);
    if (on_contract || (dl >= 0 && dr >= 0)) candidates.push_back({ax, dl >= 0, dr >= 0});
  }
  return candidates;
}

// 4 choices per candidate axis: the search stays small for the few axes
// real expressions touch.
inline constexpr std::size_t kMaxCandidateAxes = 8;

// Writes arrays in the book's notation and sizes them on the mesh.
class Notation {
 public:
  Notation(const Mesh& mesh, const ShardedMatmulSpec& spec)
      : mesh_(mesh), sizes_(spec.sizes), elem_bytes_(bytes_per_element(spec.dtype)) {}

  // "X", "XY", or "{data,fsdp}" when an axis name is longer than a letter.
  std::string subscript(const Axes& axes) const {
    bool single = true;
    for (int a : axes) single = single && name(a).size() == 1;
    std::string s;
    for (std::size_t i = 0; i < axes.size(); ++i) s += cat(single || i == 0 ? "" : ",", name(axes[i]));
    return single ? s : cat("{", s, "}");
  }

  // "x[B_X, D]{U_Y}".
  std::string array(const std::string& name, const std::vector<std::string>& dims, const std::vector<Axes>& axes,
                    const Axes& unreduced = {}) const {
    std::string s = name + "[";
    for (std::size_t i = 0; i < dims.size(); ++i) {
      s += cat(i ? ", " : "", dims[i]);
      if (!axes[i].empty()) s += "_" + subscript(axes[i]);
    }
    s += "]";
    if (!unreduced.empty()) s += cat("{U_", subscript(unreduced), "}");
    return s;
  }
  std::string array(const ShardedArray& a) const { return array(a.name, a.dims, a.axes); }

  double shards(const Axes& axes) const {
    double n = 1;
    for (int a : axes) n *= mesh_.axes[static_cast<std::size_t>(a)].size;
    return n;
  }

  double size(const std::string& dim) const { return static_cast<double>(sizes_.at(dim)); }

  double local_bytes(const std::vector<std::string>& dims, const std::vector<Axes>& axes) const {
    double n = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) n *= size(dims[i]) / shards(axes[i]);
    return n * elem_bytes_;
  }

  CollectiveStep step(CollectiveKind kind, const Axes& axes, double v, std::string what) const {
    static constexpr const char* kBook[] = {"AllGather", "ReduceScatter", "AllReduce", "AllToAll", "Permute"};
    CollectiveStep s;
    s.kind = kind;
    for (int a : axes) s.axes.push_back(name(a));
    s.what = cat(kBook[static_cast<int>(kind)], "_", subscript(axes), " ", what);
    s.array_bytes = v;
    s.group_size = mesh_.size(mask_of(axes));
    s.time = collective_time(mesh_, kind, mask_of(axes), v);
    return s;
  }

 private:
  const std::string& name(int axis) const { return mesh_.axes[static_cast<std::size_t>(axis)].name; }

  const Mesh& mesh_;
  const std::map<std::string, std::int64_t>& sizes_;
  double elem_bytes_;
};

// The result of the local matmul: its dims and their sharding, the mesh
// axes its partial sums are unreduced over, and the local contracting size.
struct LocalResult {
  std::vector<std::string> dims;
  std::vector<Axes> axes;
  Axes unreduced;
  double k_local = 1;
};

// The local matmul of `l` @ `r` (operands after the gathers), or nullopt
// when the shardings leave none: a batch or contracting dim sharded
// differently on the two sides, or a mesh axis twice in the result.
inline std::optional<LocalResult> local_result(const ShardedArray& l, const ShardedArray& r, const Roles& roles,
                                               const std::vector<std::string>& result_dims, const Notation& n) {
  LocalResult res;
  res.dims = result_dims;
  for (const std::string& d : result_dims) {
    switch (roles.at(d)) {
      case Role::kBatch: {
        const Axes& al = axes_of(l, d);
        const Axes& ar = axes_of(r, d);
        if (!is_prefix(al, ar)) return std::nullopt;
        res.axes.push_back(longer(al, ar));
        break;
      }
      case Role::kLhsFree: res.axes.push_back(axes_of(l, d)); break;
      case Role::kRhsFree: res.axes.push_back(axes_of(r, d)); break;
      case Role::kContract: break;
    }
  }
  for (const std::string& d : l.dims) {
    if (roles.at(d) != Role::kContract) continue;
    const Axes& al = axes_of(l, d);
    const Axes& ar = axes_of(r, d);
    if (!is_prefix(al, ar)) return std::nullopt;
    const Axes& u = longer(al, ar);
    res.unreduced.insert(res.unreduced.end(), u.begin(), u.end());
    res.k_local *= n.size(d) / n.shards(u);
  }
  // A mesh axis may appear once in the result and its unreduced set.
  Axes all = res.unreduced;
  for (const Axes& a : res.axes) all.insert(all.end(), a.begin(), a.end());
  for (std::size_t i = 0; i < all.size(); ++i)
    if (std::find(all.begin() + static_cast<long>(i) + 1, all.end(), all[i]) != all.end()) return std::nullopt;
  return res;
}

// What one device multiplies: [b, m, k] @ [b, k, n].
inline Matmul local_matmul(const LocalResult& res, const Roles& roles, const Notation& n, DType dtype) {
  double m_local = 1, n_local = 1, b_local = 1;
  for (std::size_t i = 0; i < res.dims.size(); ++i) {
    const double local = n.size(res.dims[i]) / n.shards(res.axes[i]);
    switch (roles.at(res.dims[i])) {
      case Role::kBatch: b_local *= local; break;
      case Role::kLhsFree: m_local *= local; break;
      case Role::kRhsFree: n_local *= local; break;
      case Role::kContract: break;
    }
  }
  return Matmul{.batch = static_cast<std::int64_t>(b_local),
                .m = static_cast<std::int64_t>(m_local),
                .k = static_cast<std::int64_t>(res.k_local),
                .n = static_cast<std::int64_t>(n_local),
                .dtype = dtype};
}

// The result as the collectives after the matmul leave it: its sharding
// and its size on one device.
struct ResultState {
  std::vector<Axes> axes;
  double local_bytes = 0;
};

// Reduces the partial sums: a reduce-scatter over the unreduced axes the
// requested result shards a dim over, an all-reduce over the rest.
inline void reduce_partial_sums(const LocalResult& res, const std::optional<ShardedArray>& out,
                                const std::string& result_name, const Notation& n, ResultState& cur,
                                std::vector<CollectiveStep>& steps) {
  if (res.unreduced.empty()) return;
  Axes rs, ar;
  std::vector<Axes> after = cur.axes;
  for (int u : res.unreduced) {
    int target = -1;
    if (out)
      for (std::size_t i = 0; i < out->dims.size(); ++i)
        if (contains(axes_of(*out, res.dims[i]), u)) target = static_cast<int>(i);
    if (target >= 0) {
      rs.push_back(u);
      after[static_cast<std::size_t>(target)].push_back(u);
    } else {
      ar.push_back(u);
    }
  }
  auto text = [&](const std::vector<Axes>& axes, const Axes& u) { return n.array(result_name, res.dims, axes, u); };
  if (!rs.empty()) {
    steps.push_back(n.step(CollectiveKind::kReduceScatter, rs, cur.local_bytes,
                           cat(text(cur.axes, res.unreduced), " -> ", text(after, ar))));
    cur.local_bytes /= n.shards(rs);
    cur.axes = after;
  }
  if (!ar.empty())
    steps.push_back(n.step(CollectiveKind::kAllReduce, ar, cur.local_bytes,
                           cat(text(cur.axes, ar), " -> ", text(cur.axes, {}))));
}

// Brings the reduced result to the sharding `out` asks for: an all-to-all
// for axes that move between dims, an all-gather for axes it drops, a free
// slice for axes it gains.
inline void reshard_result(const LocalResult& res, const ShardedArray& out, const std::string& result_name,
                           const Notation& n, ResultState& cur, std::vector<CollectiveStep>& steps) {
  std::vector<Axes> target(res.dims.size());
  for (std::size_t i = 0; i < res.dims.size(); ++i) target[i] = axes_of(out, res.dims[i]);
  Axes extra_all, missing_all;
  for (std::size_t i = 0; i < res.dims.size(); ++i) {
    for (int a : cur.axes[i])
      if (!contains(target[i], a)) extra_all.push_back(a);
    for (int a : target[i])
      if (!contains(cur.axes[i], a)) missing_all.push_back(a);
  }
  Axes a2a, ag, slice;
  for (int a : extra_all) (contains(missing_all, a) ? a2a : ag).push_back(a);
  for (int a : missing_all)
    if (!contains(a2a, a)) slice.push_back(a);
  auto text = [&](const std::vector<Axes>& axes) { return n.array(result_name, res.dims, axes); };
  auto without = [](Axes axes, const Axes& drop) {
    axes.erase(std::remove_if(axes.begin(), axes.end(), [&](int a) { return contains(drop, a); }), axes.end());
    return axes;
  };
  if (!a2a.empty()) {
    std::vector<Axes> after = cur.axes;
    for (std::size_t i = 0; i < after.size(); ++i) {
      after[i] = without(after[i], a2a);
      for (int a : target[i])
        if (contains(a2a, a)) after[i].push_back(a);
    }
    steps.push_back(n.step(CollectiveKind::kAllToAll, a2a, cur.local_bytes * n.shards(a2a),
                           cat(text(cur.axes), " -> ", text(after))));
    cur.axes = after;
  }
  if (!ag.empty()) {
    std::vector<Axes> after = cur.axes;
    for (Axes& ax : after) ax = without(ax, ag);
    cur.local_bytes *= n.shards(ag);
    steps.push_back(n.step(CollectiveKind::kAllGather, ag, cur.local_bytes, cat(text(cur.axes), " -> ", text(after))));
    cur.axes = after;
  }
  // Axes the result gains by slicing what every device already holds: no communication.
  if (!slice.empty()) cur.axes = target;
}

// The axes gathered off each operand before the matmul.
struct Gathers {
  Axes lhs, rhs;
};

inline ShardedArray gathered(ShardedArray op, const Axes& g) {
  for (Axes& axes : op.axes)
    axes.erase(std::remove_if(axes.begin(), axes.end(), [&](int a) { return contains(g, a); }), axes.end());
  return op;
}

// One strategy: gather, multiply locally, reduce, reshard. nullopt when the
// gathers leave no valid local matmul.
inline std::optional<ShardedMatmulStrategy> strategy(const ShardedMatmulSpec& spec, const Roles& roles,
                                                     const Gathers& g, const Notation& n, const Chip& chip) {
  const ShardedArray l = gathered(spec.lhs, g.lhs), r = gathered(spec.rhs, g.rhs);
  const std::vector<std::string>& result_dims = spec.out ? spec.out->dims : roles.result_dims;
  const std::optional<LocalResult> res = local_result(l, r, roles, result_dims, n);
  if (!res) return std::nullopt;
  const std::string result_name = spec.out ? spec.out->name : "out";

  ShardedMatmulStrategy s;
  for (const auto& [before, after, axes] : {std::tie(spec.lhs, l, g.lhs), std::tie(spec.rhs, r, g.rhs)})
    if (!axes.empty())
      s.collectives.push_back(n.step(CollectiveKind::kAllGather, axes, n.local_bytes(after.dims, after.axes),
                                     cat(n.array(before), " -> ", n.array(after))));
  const std::size_t n_gathers = s.collectives.size();
  s.local = local_matmul(*res, roles, n, spec.dtype);
  s.local_text = cat(n.array(l), " @ ", n.array(r), " -> ", n.array(result_name, res->dims, res->axes, res->unreduced));
  s.local_prediction = predict(s.local, chip);

  ResultState cur{.axes = res->axes, .local_bytes = n.local_bytes(res->dims, res->axes)};
  reduce_partial_sums(*res, spec.out, result_name, n, cur, s.collectives);
  if (spec.out) reshard_result(*res, *spec.out, result_name, n, cur, s.collectives);
  s.result = n.array(result_name, res->dims, cur.axes);

  // The name lists the steps in order: the gathers, the matmul, the rest.
  double t_ici = 0, ici_bytes = 0;
  std::vector<std::string> names;
  for (const CollectiveStep& c : s.collectives) {
    t_ici += c.time.t_ici_s;
    ici_bytes += c.time.bytes_per_link;
    names.push_back(c.what);
  }
  names.insert(names.begin() + static_cast<long>(n_gathers), s.local_text);
  for (std::size_t i = 0; i < names.size(); ++i) s.name += cat(i ? "; " : "", names[i]);
  s.whole = make_prediction(s.local.flops(), s.local.hbm_bytes(), ici_bytes, t_ici, s.local.compute(), chip);
  return s;
}

// Every way of gathering the candidate axes (bit 0 of a choice: off the lhs,
// bit 1: off the rhs), the first candidate varying slowest.
class Gatherings {
 public:
  explicit Gatherings(const std::vector<Candidate>& candidates)
      : candidates_(candidates), choice_(candidates.size(), 0) {}

  // The current way; next() moves to the following one, false after the last.
  Gathers current() const {
    Gathers g;
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
      if (choice_[i] & 1) g.lhs.push_back(candidates_[i].axis);
      if (choice_[i] & 2) g.rhs.push_back(candidates_[i].axis);
    }
    return g;
  }
  bool next() {
    for (std::size_t i = candidates_.size(); i-- > 0;) {
      for (int opt = choice_[i] + 1; opt < 4; ++opt)
        if (allowed(i, opt)) {
          choice_[i] = opt;
          return true;
        }
      choice_[i] = 0;
    }
    return false;
  }

 private:
  bool allowed(std::size_t i, int opt) const {
    return !((opt & 1) && !candidates_[i].in_lhs) && !((opt & 2) && !candidates_[i].in_rhs);
  }

  const std::vector<Candidate>& candidates_;
  std::vector<int> choice_;  // 0 (gather nothing) is always allowed
};

}  // namespace roofline::detail::sharded

namespace roofline {

inline ShardedMatmul sharded_matmul(const ShardedMatmulSpec& spec, const Mesh& mesh, const Chip& chip) {
  namespace sh = detail::sharded;
  const sh::Roles roles = sh::dim_roles(spec.lhs, spec.rhs, spec.out);
  const sh::Notation notation(mesh, spec);
  ShardedMatmul res;
  res.cases = sh::book_cases(spec.lhs, spec.rhs, roles);
  // Different gatherings can give the same steps: keep the first.
  std::set<std::string> seen;
  const std::vector<sh::Candidate> candidates = sh::gather_candidates(spec.lhs, spec.rhs, roles, mesh);
  sh::Gatherings ways(candidates);
  do {
    std::optional<ShardedMatmulStrategy> s = sh::strategy(spec, roles, ways.current(), notation, chip);
    if (s && seen.insert(s->name).second) res.strategies.push_back(*std::move(s));
  } while (ways.next());
  std::stable_sort(res.strategies.begin(), res.strategies.end(),
                   [](const ShardedMatmulStrategy& a, const ShardedMatmulStrategy& b) {
                     if (a.whole.t_lower_s != b.whole.t_lower_s) return a.whole.t_lower_s < b.whole.t_lower_s;
                     if (a.whole.t_upper_s != b.whole.t_upper_s) return a.whole.t_upper_s < b.whole.t_upper_s;
                     return a.collectives.size() < b.collectives.size();
                   });
  return res;
}

}  // namespace roofline
