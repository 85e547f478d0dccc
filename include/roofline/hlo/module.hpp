// An HLO module as XLA prints or serializes it after optimization: named
// computations of instructions, one of them the entry. Both readers (HLO text
// and binary HloProto, roofline/hlo/reader.hpp) build this same model.
//
// Every instruction keeps its attributes as the text HLO prints after `key=`
// (`dimensions={1}`, `window={size=3x3 pad=1_1x1_1}`, `replica_groups=[4,2]<=[2,4]T(1,0)`,
// `backend_config={...}`), so attributes no one models are preserved, not
// rejected. The few the cost model needs are also read once, by the reader,
// into typed fields (HloInstruction::typed, roofline/hlo/attributes.hpp).
//
// Strings (names, attribute text) and the operand and attribute lists are
// views into storage the module owns: they live as long as the module. A
// module is move-only; moving it keeps every pointer and view valid.
//
//   absl::StatusOr<roofline::HloModule> m = roofline::read_hlo_file("module.hlo");
//   for (const roofline::HloInstruction& i : m->entry().instructions) ...
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "roofline/hlo/attributes.hpp"
#include "roofline/hlo/opcode.hpp"
#include "roofline/hlo/shape.hpp"

namespace roofline {

struct HloComputation;

// One `key=value` of an instruction or the module header, value as printed.
struct HloAttribute {
  std::string_view key;
  std::string_view value;
};

// Where an instruction came from in the user's program. Newer JAX writes a
// stack_frame_id instead of source_file/source_line; the readers resolve it
// through the module's stack-frame table into source_file/source_line.
struct OpMetadata {
  std::string_view op_type;
  std::string_view op_name;      // "jit(step)/jit(main)/dot_general"
  std::string_view source_file;
  int source_line = 0;
  int stack_frame_id = 0;
};

// A computation an instruction calls, with the attribute that names it
// (`calls`, `to_apply`, `body`, `condition`, `branch_computations`, ...).
struct CalledComputation {
  std::string_view role;
  const HloComputation* computation = nullptr;
};

struct HloInstruction {
  std::string_view name;         // without the '%'
  std::string_view opcode_name;  // as written: "all-reduce-start", "reduce-scatter-start"
  HloOpcode opcode = HloOpcode::kUnknown;
  // For async sugar (`reduce-scatter-start`, `custom-call-done`, ...) opcode
  // is kAsyncStart/kAsyncUpdate/kAsyncDone and this is the wrapped op.
  // kUnknown otherwise (also for opcodes that really end in -start, such as
  // all-reduce-start and copy-start).
  HloOpcode wrapped_opcode = HloOpcode::kUnknown;
  bool is_root = false;
  Shape shape;

  std::span<const std::string_view> operand_names;
  std::span<const HloInstruction* const> operands;  // resolved, same order

  std::int64_t parameter_number = -1;  // parameter(N)
  std::string_view literal;            // constant(...): the text inside the parentheses

  std::span<const HloAttribute> attributes;  // in the order written, as printed
  // The attributes the cost model reads (dot dimension numbers, windows,
  // replica groups, trip count, ...), typed and read once by the reader.
  // Never null: an instruction with none points to kNoTypedAttributes.
  const HloTypedAttributes* typed = &kNoTypedAttributes;
  absl::InlinedVector<CalledComputation, 1> called_computations;
  OpMetadata metadata;

  const HloComputation* parent = nullptr;

  // The text of attribute `key`, or an empty view when absent.
  std::string_view attribute(std::string_view key) const;
  bool has_attribute(std::string_view key) const;
  // The computation called in `role` ("calls", "to_apply", "body", ...), or nullptr.
  const HloComputation* called(std::string_view role) const;
  const HloInstruction& operand(std::size_t i) const { return *operands[i]; }
  std::size_t operand_count() const { return operands.size(); }
};

// Module-wide settings the cost model needs (group sizes of `replica_groups={}`).
struct HloModuleConfig {
  std::string_view name;        // HloModule name
  std::string_view origin;      // file the module was read from, for messages
  std::int64_t replica_count = 1;
  std::int64_t num_partitions = 1;
};

struct HloComputation {
  std::string_view name;
  bool is_entry = false;
  std::string_view execution_thread;  // empty = main thread
  std::vector<HloInstruction> instructions;
  const HloInstruction* root = nullptr;
  const HloModuleConfig* module = nullptr;

  // The instruction named `name` in this computation, or nullptr.
  const HloInstruction* find(std::string_view name) const;
  // parameter(i), or nullptr.
  const HloInstruction* parameter(std::int64_t i) const;
};

namespace detail {
struct HloModuleData;
}

class HloModule {
 public:
  explicit HloModule(std::unique_ptr<detail::HloModuleData> data);
  HloModule(HloModule&&) noexcept;
  HloModule& operator=(HloModule&&) noexcept;
  ~HloModule();

  std::string_view name() const;
  const HloModuleConfig& config() const;
  // Header attributes after the name (`is_scheduled=true`, `num_partitions=8`, ...).
  std::span<const HloAttribute> attributes() const;
  // In the order they were written: callees before callers.
  std::span<const HloComputation> computations() const;
  const HloComputation& entry() const;
  // The computation named `name`, or nullptr.
  const HloComputation* computation(std::string_view name) const;
  // The instruction named `name` in any computation, or nullptr. XLA keeps
  // names unique per module; the readers check uniqueness per computation,
  // and should a module repeat a name in two computations the first wins.
  const HloInstruction* instruction(std::string_view name) const;
  std::size_t instruction_count() const;

 private:
  std::unique_ptr<detail::HloModuleData> data_;
};

}  // namespace roofline
