// What kind of work a measured op is (OpClass, roofline/trace/trace.hpp):
// the one rule `roofline stats` and `roofline report` share. Decided once per
// op when a reader interns it, from the profiler's category and the names.
#include <cctype>
#include <string>
#include <string_view>

#include "src/trace/trace_builder.hpp"

namespace roofline {

std::string_view op_class_name(OpClass c) {
  switch (c) {
    case OpClass::kCompute: return "compute";
    case OpClass::kCollective: return "collective";
    case OpClass::kDataMovement: return "data_movement";
    case OpClass::kSync: return "sync";
  }
  return "compute";
}

namespace detail {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

template <std::size_t N>
bool contains_any(std::string_view haystack, const std::string_view (&needles)[N]) {
  for (std::string_view n : needles)
    if (haystack.find(n) != std::string_view::npos) return true;
  return false;
}

// CUPTI's synchronization records, as Kineto writes them (category
// "cuda_sync", the kind as the name): the device waiting for the host or for
// another stream, not doing work.
bool is_sync(std::string_view category, std::string_view name) {
  if (category == "cuda_sync") return true;
  static constexpr std::string_view kSyncNames[] = {"Stream Sync", "Stream Wait Event", "Context Sync",
                                                    "Event Sync"};
  for (std::string_view n : kSyncNames)
    if (name == n) return true;
  return false;
}

// A copy kernel (ROCm's blit kernels "__amd_rocclr_copyBuffer",
// "__amd_rocclr_fillBufferAligned") moves memory whether it is the event's
// name (an eager copy) or the kernel of an HLO op.
bool is_copy_kernel(std::string_view lowered) {
  return starts_with(lowered, "memcpy") || starts_with(lowered, "memset") ||
         lowered.find("copybuffer") != std::string::npos || lowered.find("fillbuffer") != std::string::npos;
}

// XLA:CPU thunks carry no HLO category, only the instruction's name, and
// jax names a collective instruction after its primitive: psum.7,
// psum_invariant.7, pmax.2, ppermute.3 (all_gather / reduce_scatter /
// all_to_all are caught by the words above).
bool is_jax_collective_name(std::string_view n) {
  static constexpr std::string_view kPrimitives[] = {"psum", "pmax", "pmin", "ppermute", "pbroadcast"};
  for (std::string_view p : kPrimitives) {
    if (!starts_with(n, p)) continue;
    const std::string_view rest = n.substr(p.size());
    if (rest.empty() || rest[0] == '.' || rest[0] == '_') return true;
  }
  return false;
}

}  // namespace

OpClass classify_op(std::string_view category, std::string_view name, std::string_view kernel) {
  if (is_sync(category, name)) return OpClass::kSync;
  const std::string cat = lower(category);
  const std::string n = lower(name);
  const std::string k = lower(kernel);
  static constexpr std::string_view kCollectiveWords[] = {
      "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute",
      "collective-broadcast", "ragged-all-to-all", "nccl", "rccl", "all_reduce", "allreduce",
      "all_gather", "allgather", "reduce_scatter", "reducescatter", "alltoall", "all_to_all",
      "sendrecv", "collective"};
  if (contains_any(cat, kCollectiveWords) || contains_any(n, kCollectiveWords) ||
      contains_any(k, kCollectiveWords) || cat == "send" || cat == "recv" ||
      starts_with(n, "send.") || starts_with(n, "recv.") || n == "send" || n == "recv" ||
      starts_with(n, "send-done") || starts_with(n, "recv-done") || is_jax_collective_name(n))
    return OpClass::kCollective;
  static constexpr std::string_view kMoveCategories[] = {
      "gpu_memcpy", "gpu_memset", "memcpy", "memset", "copy", "copy-start", "copy-done",
      "async-copy", "host offload"};
  for (std::string_view m : kMoveCategories)
    if (cat == m) return OpClass::kDataMovement;
  if (starts_with(n, "copy-start") || starts_with(n, "copy-done") || n == "copy" || starts_with(n, "copy.") ||
      is_copy_kernel(n) || is_copy_kernel(k))
    return OpClass::kDataMovement;
  return OpClass::kCompute;
}

}  // namespace detail
}  // namespace roofline
