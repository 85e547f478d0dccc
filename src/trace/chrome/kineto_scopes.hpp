// Kineto: where in the user's program each kernel, memcpy and memset ran.
// Its scope is the chain of host ranges around its launch (the runtime call
// that shares its correlation id) on the launching thread: record_function
// ranges (user_annotation) and nn.Module ranges (python_function
// "nn.Module: Linear_0", with_modules=True), outermost first; then the GPU
// annotations (gpu_user_annotation) whose span holds the work's start on its
// device, those not already named by a host range. ProfilerStep#N is a step,
// not a scope; cpu_ops (aten::mm) are launchers, not scopes.
//
// Hostile input stays bounded: ranges that overlap without nesting nest as
// sorted (the later one inside the earlier); ranges deeper than
// kMaxScopeDepth fold into their ancestor at that depth; names longer than
// kMaxScopeNameBytes are cut; once the scope paths hold kMaxScopePathBytes,
// further work gets none. Each of these is a warning on the trace. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "src/trace/chrome/chrome_staged.hpp"
#include "src/trace/trace_builder.hpp"

namespace roofline::detail {

inline constexpr std::uint32_t kMaxScopeDepth = 64;
inline constexpr std::size_t kMaxScopeNameBytes = 256;
inline constexpr std::size_t kMaxScopePathBytes = std::size_t{64} << 20;

struct FoundScope {
  std::uint32_t scope = kNoScopePath;  // index into Trace::scopes
  std::uint8_t kinds = 0;              // kScopeKind* bits
};

class ScopeFinder {
 public:
  // Indexes the host threads' scope ranges (StagedLine::scopes) and the GPU
  // annotations of `lines`.
  ScopeFinder(std::vector<StagedLine>& lines, TraceBuilder& builder);
  // The scope of `work`, an event of line `work_line`, launched by `launch`
  // on line `launch_line` (null when the launch was not found).
  FoundScope scope_of(std::uint32_t work_line, const StagedEvent& work, std::uint32_t launch_line,
                      const StagedEvent* launch);
  // Says what was cut or dropped, once, on the trace.
  void warn() const;

 private:
  // Every span, host range or GPU annotation, as it is indexed.
  struct Span {
    std::int64_t start_ps = 0, end_ps = 0;
    std::uint32_t op = 0;
    std::uint8_t kind = 0;
    std::int32_t parent = -1, capped = -1;
    std::uint32_t depth = 0;
  };
  // The '/'-joined names of span `i`'s chain, outermost first, into path_;
  // false past the budget.
  bool chain(const std::vector<Span>& spans, std::int32_t i, std::uint8_t& kinds);
  std::int32_t innermost(const std::vector<Span>& v, std::int64_t start_ps, std::int64_t end_ps) const;
  bool spend(std::size_t bytes);

  TraceBuilder& builder_;
  // Per host line, its scope ranges; per device pid, its GPU annotations:
  // by start, longest first.
  std::vector<std::vector<Span>> host_;
  absl::flat_hash_map<IdKey, std::uint32_t> gpu_slot_;
  std::vector<std::vector<Span>> gpu_;
  const std::vector<StagedLine>& lines_;
  // (host line, span) -> host scope; (gpu slot, span) -> index into
  // gpu_paths_; (host scope, gpu path) -> the scope of both.
  absl::flat_hash_map<std::uint64_t, FoundScope> host_memo_, joined_;
  absl::flat_hash_map<std::uint64_t, std::uint32_t> gpu_memo_;
  std::vector<std::string> gpu_paths_;
  std::string path_;  // scratch
  std::size_t path_bytes_ = 0;
  std::uint64_t deep_ = 0, cut_names_ = 0, over_budget_ = 0;
};

}  // namespace roofline::detail
