// What an HloModule owns, and the step both readers end with: resolving
// operand and computation names into pointers.
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "roofline/hlo/module.hpp"

namespace roofline::detail {

// Bump allocator for the module's strings: one block per 64 KiB of text, so a
// module costs a handful of allocations however many names it has.
class StringArena {
 public:
  std::string_view store(std::string_view s) {
    if (s.empty()) return {};
    char* p = allocate(s.size());
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }
  // A copy of `v` in the arena (trivially copyable elements only).
  template <class T>
  std::span<const T> store_array(std::span<const T> v) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
    if (v.empty()) return {};
    T* p = reinterpret_cast<T*>(allocate(v.size() * sizeof(T), alignof(T)));
    std::memcpy(static_cast<void*>(p), v.data(), v.size() * sizeof(T));
    return {p, v.size()};
  }
  char* allocate(std::size_t n, std::size_t align = 1) {
    if (align > 1 && left_ > 0) {  // blocks start max-aligned; pad the bump pointer
      const std::size_t pad = (align - reinterpret_cast<std::uintptr_t>(next_) % align) % align;
      if (pad <= left_) {
        next_ += pad;
        left_ -= pad;
      } else {
        left_ = 0;
      }
    }
    // new[] without value-initialisation: the bytes are overwritten at once.
    if (n > kBlockBytes / 4) {  // a big string (the module text) gets its own block
      blocks_.push_back(std::unique_ptr<char[]>(new char[n]));
      return blocks_.back().get();
    }
    if (n > left_) {
      blocks_.push_back(std::unique_ptr<char[]>(new char[kBlockBytes]));
      next_ = blocks_.back().get();
      left_ = kBlockBytes;
    }
    char* p = next_;
    next_ += n;
    left_ -= n;
    return p;
  }

 private:
  static constexpr std::size_t kBlockBytes = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  std::size_t left_ = 0;
};

// The module's stack-frame table (HLO text "FileNames ... StackFrames"
// sections, HloModuleProto.stack_frame_index). Ids are 1-based.
struct StackFrameTable {
  struct Location {
    int file_name_id = 0;
    int function_name_id = 0;
    int line = 0;
  };
  struct Frame {
    int location_id = 0;
    int parent_frame_id = 0;
  };
  std::vector<std::string_view> file_names;
  std::vector<std::string_view> function_names;
  std::vector<Location> locations;
  std::vector<Frame> frames;
};

struct HloModuleData {
  HloModuleConfig config;
  StringArena arena;
  std::vector<HloAttribute> attributes;
  std::vector<HloComputation> computations;
  std::size_t entry_index = 0;
  StackFrameTable stack_frames;
  // Built on the first HloModule::instruction() call.
  std::once_flag instruction_index_once;
  absl::flat_hash_map<std::string_view, const HloInstruction*> instruction_index;
  absl::flat_hash_map<std::string_view, std::size_t> computation_index;
  std::size_t instruction_count = 0;
};

// Builds a located error for a name that could not be resolved; `at` is the
// view (into the module's text, when there is one) the error is about.
using LinkError = std::function<absl::Status(std::string_view at, const std::string& message)>;

// Resolves every operand and called-computation name, sets parents, roots and
// the module pointer, indexes names, fills source_file/source_line from the
// stack-frame table and reads every instruction's typed attributes. The
// readers call it once everything is parsed.
absl::Status link_module(HloModuleData& data, const LinkError& error);

// Reads the attributes the cost model needs from `ins.attributes` into
// `ins.typed` (stored in `arena`; roofline/hlo/attributes.hpp). Needs the
// opcode classified; never fails (unreadable values are recorded as such).
void read_typed_attributes(HloInstruction& ins, StringArena& arena);

// Sets opcode (and wrapped_opcode for async sugar such as
// "reduce-scatter-start") from opcode_name.
void classify_opcode(HloInstruction& ins);

// The role (attribute key) `key` names when its value names computations
// (`calls`, `to_apply`, `body`, ...), as a string literal; empty otherwise.
std::string_view computation_role(std::string_view key);

// The computation names in a role's value: "%c", "{%a, %b}".
std::vector<std::string_view> computation_names(std::string_view value);

}  // namespace roofline::detail
