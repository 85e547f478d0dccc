// The report's ops totalled per scope (roofline/report/scopes.hpp).
#include "roofline/report/scopes.hpp"

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

// A node while the tree is built: children by name, so that every op
// finds its path in one walk.
struct Building {
  ScopeNode node;
  std::set<std::string> sources;
  std::map<std::string, Building> children;
};

void add_op(ScopeNode& n, std::set<std::string>& sources, const OpReport& o) {
  n.ops += 1;
  n.measured_s += o.measured_s;
  // As ReportSummary::predicted_s: async waits and ops below their roofline are out.
  if (o.predicted && !o.async && !o.below_roofline) {
    n.predicted_s += o.prediction.t_lower_s;
    n.expected_s += o.expected_s;
    n.flops += o.prediction.flops;
  }
  if (!o.scope_source.empty()) sources.insert(o.scope_source);
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
  for (const OpReport& o : report.ops) {
    add_op(root.node, root.sources, o);
    const auto parts = components(o.scope, depth);
    if (parts.empty()) {
      add_op(unscoped.node, unscoped.sources, o);
      continue;
    }
    Building* at = &root;
    std::string path;
    for (std::string_view c : parts) {
      path += (path.empty() ? "" : "/") + std::string(c);
      Building& child = at->children[std::string(c)];
      child.node.name = std::string(c);
      child.node.path = path;
      add_op(child.node, child.sources, o);
      at = &child;
    }
  }
  // Keyed apart from the named scopes: a scope a user called "(no scope)" stays its own.
  ScopeTree t;
  t.depth = depth;
  const double mfu_denom = report.summary.wall_s * report.peak_flops_per_s;
  const bool any_unscoped = unscoped.node.ops > 0;
  t.root = finish(root, root.node.measured_s, mfu_denom);
  if (any_unscoped) t.root.children.push_back(finish(unscoped, t.root.measured_s, mfu_denom));
  if (!report.ops.empty() && unscoped.node.ops == t.root.ops)
    t.notes.push_back(
        "no op carries a scope: the profile's name stacks hold no named scope (jax.named_scope, Flax modules, "
        "PyTorch/XLA's xp.Trace with XLA_HLO_DEBUG=1), or its ops are eager PyTorch kernels, whose module and "
        "record_function ranges are not read (docs/report.md, \"By scope\")");
  return t;
}

}  // namespace roofline
