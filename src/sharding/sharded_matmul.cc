// Strategies for a sharded matmul: which mesh axes to all-gather off which
// operand, the local matmul that leaves, and the reductions after it.
#include "roofline/sharding/sharded_matmul.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include "roofline/detail/cat.hpp"
#include "roofline/sharding/mesh_collective.hpp"

namespace roofline {
namespace {

using Axes = std::vector<int>;

enum class Role { kContract, kBatch, kLhsFree, kRhsFree };

struct Operand {
  std::string name;
  std::vector<std::string> dims;
  std::vector<Axes> axes;  // per dim, mesh axes major first
};

struct Result {
  std::vector<std::string> dims;
  std::vector<Axes> axes;
  Axes unreduced;
};

bool contains(const Axes& a, int x) { return std::find(a.begin(), a.end(), x) != a.end(); }

bool is_prefix(const Axes& a, const Axes& b) {
  const Axes& s = a.size() <= b.size() ? a : b;
  const Axes& l = a.size() <= b.size() ? b : a;
  return std::equal(s.begin(), s.end(), l.begin());
}

const Axes& longer(const Axes& a, const Axes& b) { return a.size() >= b.size() ? a : b; }

class Analysis {
 public:
  Analysis(const Mesh& mesh, const Chip& chip, DType dtype, const std::map<std::string, std::int64_t>& sizes)
      : mesh_(mesh), chip_(chip), dtype_(dtype), sizes_(sizes), elem_bytes_(bytes_per_element(dtype)) {}

  std::string subscript(const Axes& axes) const {
    bool single = true;
    for (int a : axes) single = single && mesh_.axes[static_cast<std::size_t>(a)].name.size() == 1;
    std::string s;
    for (std::size_t i = 0; i < axes.size(); ++i)
      s += detail::cat(single || i == 0 ? "" : ",", mesh_.axes[static_cast<std::size_t>(axes[i])].name);
    return single ? s : detail::cat("{", s, "}");
  }

  std::string array(const std::string& name, const std::vector<std::string>& dims, const std::vector<Axes>& axes,
                    const Axes& unreduced = {}) const {
    std::string s = name + "[";
    for (std::size_t i = 0; i < dims.size(); ++i) {
      s += detail::cat(i ? ", " : "", dims[i]);
      if (!axes[i].empty()) s += "_" + subscript(axes[i]);
    }
    s += "]";
    if (!unreduced.empty()) s += detail::cat("{U_", subscript(unreduced), "}");
    return s;
  }

  double shards(const Axes& axes) const {
    double n = 1;
    for (int a : axes) n *= mesh_.axes[static_cast<std::size_t>(a)].size;
    return n;
  }

  double local_elements(const std::vector<std::string>& dims, const std::vector<Axes>& axes) const {
    double n = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) n *= static_cast<double>(sizes_.at(dims[i])) / shards(axes[i]);
    return n;
  }

  std::vector<std::string> axis_names(const Axes& axes) const {
    std::vector<std::string> out;
    for (int a : axes) out.push_back(mesh_.axes[static_cast<std::size_t>(a)].name);
    return out;
  }

  CollectiveStep step(CollectiveKind kind, const Axes& axes, double v, std::string what) const {
    static constexpr const char* kBook[] = {"AllGather", "ReduceScatter", "AllReduce", "AllToAll", "Permute"};
    CollectiveStep s;
    s.kind = kind;
    s.axes = axis_names(axes);
    s.what = detail::cat(kBook[static_cast<int>(kind)], "_", subscript(axes), " ", what);
    s.array_bytes = v;
    s.time = collective_time(mesh_, kind, mask_of(axes), v);
    return s;
  }

  const Mesh& mesh_;
  const Chip& chip_;
  DType dtype_;
  const std::map<std::string, std::int64_t>& sizes_;
  double elem_bytes_;
};

absl::StatusOr<Operand> resolve(const ShardedOperand& op, const Mesh& mesh,
                                const std::map<std::string, std::int64_t>& sizes) {
  Operand out;
  out.name = op.name;
  for (const ShardedDim& d : op.dims) {
    Axes axes;
    if (!d.subscript.empty()) {
      absl::StatusOr<std::vector<int>> r = resolve_axes(mesh, d.subscript);
      if (!r.ok())
        return absl::InvalidArgumentError(detail::cat("expression:1:", d.column, ": ", std::string(r.status().message())));
      axes = *r;
    }
    for (int a : axes)
      for (std::size_t j = 0; j < out.axes.size(); ++j)
        if (contains(out.axes[j], a))
          return absl::InvalidArgumentError(detail::cat(
              "expression:1:", d.column, ": ", op.name, " shards dims ", out.dims[j], " and ", d.name,
              " over the same mesh axis ", mesh.axes[static_cast<std::size_t>(a)].name,
              " (a mesh axis can shard one dim of an array)"));
    auto it = sizes.find(d.name);
    if (it == sizes.end())
      return absl::InvalidArgumentError(detail::cat("expression:1:", d.column, ": no size given for dim '", d.name,
                                                    "' (--dims ", d.name, "=...)"));
    double n = 1;
    for (int a : axes) n *= mesh.axes[static_cast<std::size_t>(a)].size;
    if (it->second <= 0)
      return absl::InvalidArgumentError(detail::cat("dim ", d.name, "=", it->second, " must be positive"));
    if (it->second % static_cast<std::int64_t>(n) != 0)
      return absl::InvalidArgumentError(detail::cat("expression:1:", d.column, ": dim ", d.name, "=", it->second,
                                                    " does not divide evenly over its ", static_cast<long long>(n),
                                                    " shards"));
    out.dims.push_back(d.name);
    out.axes.push_back(std::move(axes));
  }
  return out;
}

int find_dim(const Operand& op, const std::string& name) {
  for (std::size_t i = 0; i < op.dims.size(); ++i)
    if (op.dims[i] == name) return static_cast<int>(i);
  return -1;
}

}  // namespace

std::string case_description(int book_case) {
  switch (book_case) {
    case 1: return "case 1: no contracting dim sharded; local matmul, no communication";
    case 2: return "case 2: one operand sharded on the contracting dim; all-gather it first, or reduce the partial sums after";
    case 3: return "case 3: both operands sharded alike on the contracting dim; local matmul then all-reduce / reduce-scatter";
    case 4: return "case 4: a mesh axis shards a free dim of both operands; invalid until one is all-gathered";
  }
  return "?";
}

absl::StatusOr<ShardedMatmul> predict_sharded_matmul(const MatmulExpression& expr, const Mesh& mesh,
                                                     const Chip& chip,
                                                     const std::map<std::string, std::int64_t>& dims,
                                                     DType dtype) {
  if (!chip.has(dtype))
    return absl::InvalidArgumentError(detail::cat(chip.name, " has no ", peak_class_name(peak_class(dtype)), " peak"));
  absl::StatusOr<Operand> lhs_or = resolve(expr.lhs, mesh, dims);
  if (!lhs_or.ok()) return lhs_or.status();
  absl::StatusOr<Operand> rhs_or = resolve(expr.rhs, mesh, dims);
  if (!rhs_or.ok()) return rhs_or.status();
  const Operand lhs = *lhs_or, rhs = *rhs_or;
  std::optional<Operand> out;
  if (expr.out) {
    absl::StatusOr<Operand> o = resolve(*expr.out, mesh, dims);
    if (!o.ok()) return o.status();
    out = *o;
  }
  for (const auto& [name, size] : dims) {
    (void)size;
    if (find_dim(lhs, name) < 0 && find_dim(rhs, name) < 0)
      return absl::InvalidArgumentError(detail::cat("--dims names '", name, "', which the expression does not use"));
  }

  // Element counts stay exact in a double and fit the int64 of Matmul.
  constexpr double kMaxElements = 9007199254740992.0;  // 2^53
  for (const Operand* op : {&lhs, &rhs}) {
    double n = 1;
    for (const std::string& d : op->dims) n *= static_cast<double>(dims.at(d));
    if (n > kMaxElements)
      return absl::InvalidArgumentError(detail::cat(op->name, " has more than 2^53 elements"));
  }

  // Roles of the dims.
  std::map<std::string, Role> roles;
  std::vector<std::string> result_dims;
  for (const std::string& d : lhs.dims) {
    const bool in_rhs = find_dim(rhs, d) >= 0;
    const bool in_out = out && find_dim(*out, d) >= 0;
    roles[d] = in_rhs ? (in_out ? Role::kBatch : Role::kContract) : Role::kLhsFree;
  }
  for (const std::string& d : rhs.dims)
    if (!roles.count(d)) roles[d] = Role::kRhsFree;
  for (const std::string& d : lhs.dims)
    if (roles[d] != Role::kContract) result_dims.push_back(d);
  for (const std::string& d : rhs.dims)
    if (roles[d] == Role::kRhsFree) result_dims.push_back(d);
  if (out) {
    std::set<std::string> want(out->dims.begin(), out->dims.end()), have(result_dims.begin(), result_dims.end());
    if (want != have) {
      std::string listed;
      for (const std::string& d : result_dims) listed += detail::cat(listed.empty() ? "" : ", ", d);
      return absl::InvalidArgumentError(detail::cat("expression:1:", expr.out->column, ": the result ",
                                                    to_string(*expr.out), " must have the dims [", listed,
                                                    "] left after contracting the operands"));
    }
    result_dims = out->dims;
  }
  bool any_contract = false;
  for (const auto& [d, r] : roles) any_contract = any_contract || r == Role::kContract;
  if (!any_contract)
    return absl::InvalidArgumentError(detail::cat("expression:1:", expr.rhs.column, ": ", expr.lhs.name, " and ",
                                                  expr.rhs.name, " share no dim to contract"));

  Analysis an(mesh, chip, dtype, dims);
  const std::string result_name = out ? out->name : "out";

  ShardedMatmul res;
  // The book's cases, as written.
  {
    std::set<int> cases;
    for (const auto& [d, r] : roles) {
      if (r != Role::kContract) continue;
      const Axes& al = lhs.axes[static_cast<std::size_t>(find_dim(lhs, d))];
      const Axes& ar = rhs.axes[static_cast<std::size_t>(find_dim(rhs, d))];
      if (al.empty() && ar.empty()) continue;
      cases.insert(al == ar ? 3 : 2);
    }
    for (std::size_t i = 0; i < lhs.dims.size(); ++i) {
      if (roles[lhs.dims[i]] != Role::kLhsFree) continue;
      for (int a : lhs.axes[i])
        for (std::size_t j = 0; j < rhs.dims.size(); ++j)
          if (roles[rhs.dims[j]] == Role::kRhsFree && contains(rhs.axes[j], a)) cases.insert(4);
    }
    if (cases.empty()) cases.insert(1);
    res.cases.assign(cases.begin(), cases.end());
  }

  // Axes worth gathering: those on a contracting dim and those both operands use.
  struct Candidate {
    int axis;
    bool in_lhs, in_rhs;
  };
  std::vector<Candidate> candidates;
  for (std::size_t a = 0; a < mesh.axes.size(); ++a) {
    const int ax = static_cast<int>(a);
    int dl = -1, dr = -1;
    for (std::size_t i = 0; i < lhs.dims.size(); ++i)
      if (contains(lhs.axes[i], ax)) dl = static_cast<int>(i);
    for (std::size_t i = 0; i < rhs.dims.size(); ++i)
      if (contains(rhs.axes[i], ax)) dr = static_cast<int>(i);
    const bool on_contract = (dl >= 0 && roles[lhs.dims[static_cast<std::size_t>(dl)]] == Role::kContract) ||
                             (dr >= 0 && roles[rhs.dims[static_cast<std::size_t>(dr)]] == Role::kContract);
    if (on_contract || (dl >= 0 && dr >= 0)) candidates.push_back({ax, dl >= 0, dr >= 0});
  }

  // 4 choices per axis: keep the search small (real expressions touch a few axes).
  constexpr std::size_t kMaxCandidateAxes = 8;
  if (candidates.size() > kMaxCandidateAxes)
    return absl::InvalidArgumentError(detail::cat("the expression shards contracting or shared dims over ",
                                                  candidates.size(), " mesh axes; at most ", kMaxCandidateAxes,
                                                  " are enumerated"));
  std::set<std::string> seen;
  // Option per candidate: bit 0 = gather from lhs, bit 1 = gather from rhs.
  std::vector<int> choice(candidates.size(), 0);
  std::function<void(std::size_t)> enumerate = [&](std::size_t c) {
    if (c < candidates.size()) {
      for (int opt = 0; opt < 4; ++opt) {
        if ((opt & 1) && !candidates[c].in_lhs) continue;
        if ((opt & 2) && !candidates[c].in_rhs) continue;
        choice[c] = opt;
        enumerate(c + 1);
      }
      return;
    }
    Operand l = lhs, r = rhs;
    Axes gl, gr;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (choice[i] & 1) gl.push_back(candidates[i].axis);
      if (choice[i] & 2) gr.push_back(candidates[i].axis);
    }
    auto drop = [](Operand& op, const Axes& g) {
      for (Axes& axes : op.axes)
        axes.erase(std::remove_if(axes.begin(), axes.end(), [&](int a) { return contains(g, a); }), axes.end());
    };
    drop(l, gl);
    drop(r, gr);
    // Is the local matmul valid, and what does it leave?
    Result result;
    result.dims = result_dims;
    for (const std::string& d : result_dims) {
      const int il = find_dim(l, d), ir = find_dim(r, d);
      switch (roles[d]) {
        case Role::kBatch: {
          const Axes& al = l.axes[static_cast<std::size_t>(il)];
          const Axes& ar = r.axes[static_cast<std::size_t>(ir)];
          if (!is_prefix(al, ar)) return;
          result.axes.push_back(longer(al, ar));
          break;
        }
        case Role::kLhsFree: result.axes.push_back(l.axes[static_cast<std::size_t>(il)]); break;
        case Role::kRhsFree: result.axes.push_back(r.axes[static_cast<std::size_t>(ir)]); break;
        case Role::kContract: break;
      }
    }
    double k_local = 1;
    for (const std::string& d : lhs.dims) {
      if (roles[d] != Role::kContract) continue;
      const Axes& al = l.axes[static_cast<std::size_t>(find_dim(l, d))];
      const Axes& ar = r.axes[static_cast<std::size_t>(find_dim(r, d))];
      if (!is_prefix(al, ar)) return;
      const Axes& u = longer(al, ar);
      result.unreduced.insert(result.unreduced.end(), u.begin(), u.end());
      k_local *= static_cast<double>(dims.at(d)) / an.shards(u);
    }
    // A mesh axis may appear once in the result and its unreduced set.
    {
      Axes all = result.unreduced;
      for (const Axes& a : result.axes) all.insert(all.end(), a.begin(), a.end());
      std::sort(all.begin(), all.end());
      if (std::adjacent_find(all.begin(), all.end()) != all.end()) return;
    }

    ShardedMatmulStrategy s;
    std::vector<std::string> names;
    auto gather = [&](const Operand& before, const Operand& after, const Axes& g) {
      if (g.empty()) return;
      const double v = an.local_elements(after.dims, after.axes) * an.elem_bytes_;
      s.collectives.push_back(an.step(CollectiveKind::kAllGather, g, v,
                                      detail::cat(an.array(before.name, before.dims, before.axes), " -> ",
                                                  an.array(after.name, after.dims, after.axes))));
    };
    gather(lhs, l, gl);
    gather(rhs, r, gr);
    // The local matmul.
    double m_local = 1, n_local = 1, b_local = 1;
    for (std::size_t i = 0; i < result.dims.size(); ++i) {
      const double local = static_cast<double>(dims.at(result.dims[i])) / an.shards(result.axes[i]);
      switch (roles[result.dims[i]]) {
        case Role::kBatch: b_local *= local; break;
        case Role::kLhsFree: m_local *= local; break;
        case Role::kRhsFree: n_local *= local; break;
        case Role::kContract: break;
      }
    }
    s.local = Matmul{.batch = static_cast<std::int64_t>(b_local),
                     .m = static_cast<std::int64_t>(m_local),
                     .k = static_cast<std::int64_t>(k_local),
                     .n = static_cast<std::int64_t>(n_local),
                     .dtype = dtype};
    s.local_text = detail::cat(an.array(l.name, l.dims, l.axes), " @ ", an.array(r.name, r.dims, r.axes), " -> ",
                               an.array(result_name, result.dims, result.axes, result.unreduced));
    s.local_prediction = predict(s.local, chip);

    // Reductions and reshards of the result.
    std::vector<Axes> cur = result.axes;
    double local_bytes = an.local_elements(result.dims, cur) * an.elem_bytes_;
    auto text = [&](const std::vector<Axes>& axes, const Axes& u) {
      return an.array(result_name, result.dims, axes, u);
    };
    if (!result.unreduced.empty()) {
      Axes rs, ar;
      std::vector<Axes> after = cur;
      for (int u : result.unreduced) {
        int target = -1;
        if (out)
          for (std::size_t i = 0; i < out->dims.size(); ++i)
            if (contains(out->axes[static_cast<std::size_t>(find_dim(*out, result.dims[i]))], u))
              target = static_cast<int>(i);
        if (target >= 0) {
          rs.push_back(u);
          after[static_cast<std::size_t>(target)].push_back(u);
        } else {
          ar.push_back(u);
        }
      }
      if (!rs.empty()) {
        s.collectives.push_back(an.step(CollectiveKind::kReduceScatter, rs, local_bytes,
                                        detail::cat(text(cur, result.unreduced), " -> ", text(after, ar))));
        local_bytes /= an.shards(rs);
        cur = after;
      }
      if (!ar.empty())
        s.collectives.push_back(an.step(CollectiveKind::kAllReduce, ar, local_bytes,
                                        detail::cat(text(cur, ar), " -> ", text(cur, {}))));
    }
    if (out) {
      Axes extra_all, missing_all;
      for (std::size_t i = 0; i < result.dims.size(); ++i) {
        const Axes& want = out->axes[static_cast<std::size_t>(find_dim(*out, result.dims[i]))];
        for (int a : cur[i])
          if (!contains(want, a)) extra_all.push_back(a);
        for (int a : want)
          if (!contains(cur[i], a)) missing_all.push_back(a);
      }
      Axes a2a, ag, slice;
      for (int a : extra_all) (contains(missing_all, a) ? a2a : ag).push_back(a);
      for (int a : missing_all)
        if (!contains(a2a, a)) slice.push_back(a);
      std::vector<Axes> target(result.dims.size());
      for (std::size_t i = 0; i < result.dims.size(); ++i)
        target[i] = out->axes[static_cast<std::size_t>(find_dim(*out, result.dims[i]))];
      if (!a2a.empty()) {
        std::vector<Axes> after = cur;
        for (std::size_t i = 0; i < after.size(); ++i) {
          after[i].erase(std::remove_if(after[i].begin(), after[i].end(), [&](int a) { return contains(a2a, a); }),
                         after[i].end());
          for (int a : target[i])
            if (contains(a2a, a)) after[i].push_back(a);
        }
        s.collectives.push_back(an.step(CollectiveKind::kAllToAll, a2a, local_bytes * an.shards(a2a),
                                        detail::cat(text(cur, {}), " -> ", text(after, {}))));
        cur = after;
      }
      if (!ag.empty()) {
        std::vector<Axes> after = cur;
        for (Axes& ax : after)
          ax.erase(std::remove_if(ax.begin(), ax.end(), [&](int a) { return contains(ag, a); }), ax.end());
        local_bytes *= an.shards(ag);
        s.collectives.push_back(an.step(CollectiveKind::kAllGather, ag, local_bytes,
                                        detail::cat(text(cur, {}), " -> ", text(after, {}))));
        cur = after;
      }
      // Axes the result gains by slicing what every device already holds: no communication.
      if (!slice.empty()) cur = target;
    }
    s.result = text(cur, {});

    double t_ici = 0, ici_bytes = 0;
    for (const CollectiveStep& c : s.collectives) {
      t_ici += c.time.t_ici_s;
      ici_bytes += c.time.bytes_per_link;
      names.push_back(c.what);
    }
    // The matmul sits after the gathers and before the reductions.
    std::size_t n_gathers = (gl.empty() ? 0 : 1) + (gr.empty() ? 0 : 1);
    names.insert(names.begin() + static_cast<long>(n_gathers), s.local_text);
    for (std::size_t i = 0; i < names.size(); ++i) s.name += detail::cat(i ? "; " : "", names[i]);
    if (!seen.insert(s.name).second) return;
    s.whole = make_prediction(s.local.flops(), s.local.hbm_bytes(), ici_bytes, t_ici, s.local.compute(), chip);
    res.strategies.push_back(std::move(s));
  };
  enumerate(0);
  if (res.strategies.empty())
    return absl::InvalidArgumentError(detail::cat("no valid way to multiply ", to_string(expr.lhs), " @ ",
                                                  to_string(expr.rhs), " on this mesh"));
  std::stable_sort(res.strategies.begin(), res.strategies.end(),
                   [](const ShardedMatmulStrategy& a, const ShardedMatmulStrategy& b) {
                     if (a.whole.t_lower_s != b.whole.t_lower_s) return a.whole.t_lower_s < b.whole.t_lower_s;
                     if (a.whole.t_upper_s != b.whole.t_upper_s) return a.whole.t_upper_s < b.whole.t_upper_s;
                     return a.collectives.size() < b.collectives.size();
                   });
  return res;
}

}  // namespace roofline
