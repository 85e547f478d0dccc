// The scope of an op from the name stack its trace or its HLO carries
// (roofline/match/scope.hpp).
#include "roofline/match/scope.hpp"

#include <array>
#include <string>
#include <string_view>
#include <utility>

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

OpScope op_scope(const Trace& trace, const OpGroup& group, const HloInstruction* instruction) {
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
}

}  // namespace roofline
