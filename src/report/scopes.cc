// The report's ops totalled per scope (roofline/report/scopes.hpp).
#include "roofline/report/scopes.hpp"

#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace roofline {
namespace {

using detail::cat;

// A node while the tree is built: children by name, so that every op
// finds its path in one walk.
struct Building {
  ScopeNode node;
  std::set<std::string> sources;
  std::map<std::string, Building> children;
  std::size_t last_op = ~std::size_t{0};  // the op last added: an op split over scopes counts once
};

// What of an op lands in one scope: all of it, or one of its ScopeShares.
struct Part {
  double time_fraction = 1;   // of measured
  double count_fraction = 1;  // of roofline, expected and FLOPs
  const std::vector<std::string>* sources = nullptr;  // else the op's scope_source
};

void add_op(Building& b, const OpReport& o, std::size_t index, const Part& p) {
  ScopeNode& n = b.node;
  if (b.last_op != index) n.ops += 1;
  b.last_op = index;
  n.measured_s += o.measured_s * p.time_fraction;
  // As ReportSummary::predicted_s: async waits and ops below their roofline are out.
  if (o.predicted && !o.async && !o.below_roofline) {
    n.predicted_s += o.prediction.t_lower_s * p.count_fraction;
    n.expected_s += o.expected_s * p.count_fraction;
    n.flops += o.prediction.flops * p.count_fraction;
  }
  if (p.sources != nullptr) b.sources.insert(p.sources->begin(), p.sources->end());
  else if (!o.scope_source.empty()) b.sources.insert(o.scope_source);
}

// The first `depth` components of `path`.
std::vector<std::string_view> components(std::string_view path, int depth) {
  std::vector<std::string_view> out;
  while (!path.empty() && static_cast<int>(out.size()) < depth) {
    const std::size_t slash = path.find('/');
    const std::string_view c = path.substr(0, slash);
    if (!c.empty()) out.push_back(c);
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  }
  return out;
}

ScopeNode finish(Building& b, double root_measured_s, double mfu_denom) {
  ScopeNode n = std::move(b.node);
  n.sources.assign(b.sources.begin(), b.sources.end());
  n.share = root_measured_s > 0 ? n.measured_s / root_measured_s : 0;
  n.mfu = mfu_denom > 0 ? n.flops / mfu_denom : 0;
  if (n.mfu > 1) n.mfu = std::numeric_limits<double>::quiet_NaN();  // as ReportSummary::mfu
  for (auto& [name, child] : b.children) n.children.push_back(finish(child, root_measured_s, mfu_denom));
  std::stable_sort(n.children.begin(), n.children.end(), [](const ScopeNode& x, const ScopeNode& y) {
    if (x.unscoped != y.unscoped) return y.unscoped;
    return x.measured_s > y.measured_s;
  });
  return n;
}

}  // namespace

ScopeTree scope_tree(const Report& report, int depth) {
  if (depth < 1) depth = 1;
  Building root;
  root.node.name = "(all)";
  Building unscoped;
  unscoped.node.name = std::string(kNoScope);
  unscoped.node.unscoped = true;
  auto add_path = [&](const OpReport& o, std::size_t index, std::string_view scope, const Part& p) {
    const auto parts = components(scope, depth);
    if (parts.empty()) {
      add_op(unscoped, o, index, p);
      return;
    }
    Building* at = &root;
    std::string path;
    for (std::string_view c : parts) {
      path += (path.empty() ? "" : "/") + std::string(c);
      Building& child = at->children[std::string(c)];
      child.node.name = std::string(c);
      child.node.path = path;
      add_op(child, o, index, p);
      at = &child;
    }
  };
  bool eager_scopes = false;
  for (std::size_t i = 0; i < report.ops.size(); ++i) {
    const OpReport& o = report.ops[i];
    if (o.scope_shares.empty()) {
      add_op(root, o, i, {});
      add_path(o, i, o.scope, {});
      continue;
    }
    eager_scopes = true;
    const std::vector<std::string> none;
    add_op(root, o, i, {.sources = &none});
    for (const ScopeShare& s : o.scope_shares) {
      root.sources.insert(s.sources.begin(), s.sources.end());
      add_path(o, i, s.path, {.time_fraction = s.time_fraction, .count_fraction = s.count_fraction, .sources = &s.sources});
    }
  }
  // Keyed apart from the named scopes: a scope a user called "(no scope)" stays its own.
  ScopeTree t;
  t.depth = depth;
  const double mfu_denom = report.summary.wall_s * report.peak_flops_per_s;
  const bool any_unscoped = unscoped.node.ops > 0;
  const double unscoped_s = unscoped.node.measured_s;
  t.root = finish(root, root.node.measured_s, mfu_denom);
  if (any_unscoped) t.root.children.push_back(finish(unscoped, t.root.measured_s, mfu_denom));
  if (!report.ops.empty() && !eager_scopes && unscoped.node.ops == t.root.ops)
    t.notes.push_back(
        "no op carries a scope: the profile's name stacks hold no named scope (jax.named_scope, Flax modules, "
        "PyTorch/XLA's xp.Trace with XLA_HLO_DEBUG=1), or its eager PyTorch kernels ran outside any "
        "record_function, nn.Module (with_modules=True) or GPU annotation range (docs/report.md, \"By scope\")");
  if (eager_scopes)
    t.notes.push_back(cat("eager PyTorch kernels are put under the record_function and nn.Module ranges around their "
                          "launch and the GPU annotations around them; an op run under several scopes is split by "
                          "its occurrences (measured by their self time)",
                          unscoped_s > 0 ? cat("; ", format_percent(unscoped_s / t.root.measured_s),
                                               " of the measured time ran outside any range")
                                         : std::string()));
  return t;
}

}  // namespace roofline
