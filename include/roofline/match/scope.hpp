// Where in the user's program an op ran: its scope, a '/'-separated path
// of the name scopes around it ("block/mlp" for a matmul inside
// jax.named_scope("block") / ("mlp"); "Encoder_0/MlpBlock_3/Dense_0" in a
// Flax model), for the report's per-scope breakdown (`report --by scope`,
// roofline/report/scopes.hpp; docs/report.md, "By scope").
//
//   roofline::scope_from_name_stack("jit(step)/transpose(jvp(block))/mlp/dot_general");  // "block/mlp"
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include <string_view>

#include "roofline/hlo/module.hpp"
#include "roofline/match/group.hpp"
#include "roofline/match/report.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

// Where an op's scope was read from (OpReport::scope_source).
inline constexpr std::string_view kScopeFromFrameworkOp = "framework op";   // the trace's tf_op (OpInfo::framework_op)
inline constexpr std::string_view kScopeFromHloMetadata = "hlo metadata";  // the HLO instruction's metadata op_name
// Eager PyTorch (Kineto): the ranges around a kernel's launch or the kernel.
inline constexpr std::string_view kScopeFromRecordFunction = "record_function";  // user_annotation
inline constexpr std::string_view kScopeFromModule = "nn.Module";                // python_function nn.Module ranges
inline constexpr std::string_view kScopeFromGpuAnnotation = "gpu annotation";    // gpu_user_annotation

struct OpScope {
  std::string path;    // "block/mlp"; empty when the op has none
  std::string source;  // one of the kScopeFrom* names (eager: several, joined by " + "); empty with the path
  std::vector<ScopeShare> shares;  // eager ops of a trace with scope ranges (OpReport::scope_shares)
};

// The kScopeFrom* names of CallInfo::scope_kinds bits, in bit order.
std::vector<std::string> scope_kind_names(std::uint8_t kinds);

// A jax name stack (or a TensorFlow op name) as a scope path. The last
// component is the primitive (dot_general, add) and goes; so do the
// function boundaries jit(...) and pjit(...) (jit(step), jit(main)) and the
// call plumbing jax adds on its own (closed_call, core_call, remat,
// checkpoint, rematted_computation, custom_jvp_call, custom_vjp_call,
// custom_vjp_call_jaxpr). A transformation around a scope is unwrapped:
// jvp(block), transpose(jvp(block)) and vmap(block) are all "block", so a
// layer's forward and backward pass share one scope. Empty components
// (a leading '/', "a//b") are skipped.
std::string scope_from_name_stack(std::string_view name_stack);

// The scope of one grouped op: from the trace's framework op when it has
// one, else from the metadata of the HLO instruction it was costed as
// (`instruction`, may be null). Eager PyTorch kernels have neither: where
// the trace has scope ranges (CallInfo::scope), the op's occurrences are
// split by them into `shares`, and its path is what they have in common.
OpScope op_scope(const Trace& trace, const OpGroup& group, const HloInstruction* instruction);

// op_scope into the report's row: sets `o.scope` and `o.scope_source`.
void set_op_scope(OpReport& o, const Trace& trace, const OpGroup& group, const HloInstruction* instruction);

}  // namespace roofline
