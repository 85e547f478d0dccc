// The scope of an op from the name stack its trace or its HLO carries
// (roofline/match/scope.hpp).
#include "roofline/match/scope.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace roofline {
namespace {

// Components jax adds for its own calls, not scopes a user named.
constexpr std::array<std::string_view, 8> kPlumbing = {
    "closed_call", "core_call",       "remat",           "checkpoint",
    "rematted_computation", "custom_jvp_call", "custom_vjp_call", "custom_vjp_call_jaxpr"};

bool is_plumbing(std::string_view c) {
  for (std::string_view p : kPlumbing)
    if (c == p) return true;
  return false;
}

// "transpose(jvp(block))" -> "block": strips `f(` ... `)` while the
// component is one call whose parentheses close at its end.
std::string_view unwrap(std::string_view c) {
  while (!c.empty() && c.back() == ')') {
    const std::size_t open = c.find('(');
    if (open == std::string_view::npos || open == 0) break;
    c = c.substr(open + 1, c.size() - open - 2);
  }
  return c;
}

bool is_function_boundary(std::string_view c) { return c.starts_with("jit(") || c.starts_with("pjit("); }

}  // namespace

std::string scope_from_name_stack(std::string_view name_stack) {
  const std::size_t last = name_stack.rfind('/');
  if (last == std::string_view::npos) return {};  // only the primitive
  std::string_view rest = name_stack.substr(0, last);
  std::string out;
  while (!rest.empty()) {
    const std::size_t slash = rest.find('/');
    std::string_view c = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (c.empty() || is_function_boundary(c)) continue;
    c = unwrap(c);
    if (c.empty() || is_plumbing(c)) continue;
    if (!out.empty()) out += '/';
    out += c;
  }
  return out;
}

std::vector<std::string> scope_kind_names(std::uint8_t kinds) {
  std::vector<std::string> out;
  if (kinds & kScopeKindRecordFunction) out.emplace_back(kScopeFromRecordFunction);
  if (kinds & kScopeKindModule) out.emplace_back(kScopeFromModule);
  if (kinds & kScopeKindGpuAnnotation) out.emplace_back(kScopeFromGpuAnnotation);
  return out;
}

namespace {

// The leading '/'-components `a` and `b` share.
std::string_view common_prefix(std::string_view a, std::string_view b) {
  std::size_t end = 0;
  for (std::size_t i = 0;; ++i) {
    const bool a_end = i == a.size() || a[i] == '/';
    const bool b_end = i == b.size() || b[i] == '/';
    if (a_end && b_end) {
      end = i;
      if (i == a.size() || i == b.size()) break;
      continue;
    }
    if (a_end || b_end || a[i] != b[i]) break;
  }
  return a.substr(0, end);
}

// An eager op of a trace with scope ranges: its occurrences by scope.
OpScope eager_scope(const Trace& trace, const OpGroup& group) {
  OpScope s;
  std::int64_t count = 0, self_ps = 0;
  for (const auto& [scope, tally] : group.per_scope) {
    count += tally.count;
    self_ps += tally.self_ps;
  }
  std::optional<std::string_view> common;
  std::uint8_t kinds = 0;
  for (const auto& [scope, tally] : group.per_scope) {
    const std::string_view path = scope == kNoScopePath ? std::string_view() : std::string_view(trace.scopes[scope]);
    common = common ? common_prefix(*common, path) : path;
    kinds |= tally.kinds;
    s.shares.push_back({.path = std::string(path),
                        .sources = scope_kind_names(tally.kinds),
                        .count_fraction = count > 0 ? static_cast<double>(tally.count) / static_cast<double>(count) : 0,
                        .time_fraction = self_ps > 0 ? static_cast<double>(tally.self_ps) / static_cast<double>(self_ps) : 0});
  }
  s.path = std::string(common.value_or(""));
  if (!s.path.empty())
    for (const std::string& k : scope_kind_names(kinds)) s.source += (s.source.empty() ? "" : " + ") + k;
  return s;
}

}  // namespace

OpScope op_scope(const Trace& trace, const OpGroup& group, const HloInstruction* instruction) {
  if (!group.per_scope.empty()) return eager_scope(trace, group);
  OpScope s;
  const OpInfo& op = trace.ops[group.op];
  if (!op.framework_op.empty()) {
    s.path = scope_from_name_stack(op.framework_op);
    if (!s.path.empty()) s.source = kScopeFromFrameworkOp;
  }
  if (s.path.empty() && instruction != nullptr && !instruction->metadata.op_name.empty()) {
    s.path = scope_from_name_stack(instruction->metadata.op_name);
    if (!s.path.empty()) s.source = kScopeFromHloMetadata;
  }
  return s;
}

void set_op_scope(OpReport& o, const Trace& trace, const OpGroup& group, const HloInstruction* instruction) {
  OpScope s = op_scope(trace, group, instruction);
  o.scope = std::move(s.path);
  o.scope_source = std::move(s.source);
  o.scope_shares = std::move(s.shares);
}

}  // namespace roofline
