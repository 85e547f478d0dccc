// The module model's accessors and the name-resolution step both readers end with.
#include <algorithm>
#include <string>
#include <vector>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/hlo/module.hpp"
#include "src/hlo/module_data.hpp"

namespace roofline {

std::string_view HloInstruction::attribute(std::string_view key) const {
  for (const HloAttribute& a : attributes)
    if (a.key == key) return a.value;
  return {};
}

bool HloInstruction::has_attribute(std::string_view key) const {
  for (const HloAttribute& a : attributes)
    if (a.key == key) return true;
  return false;
}

const HloComputation* HloInstruction::called(std::string_view role) const {
  for (const CalledComputation& c : called_computations)
    if (c.role == role) return c.computation;
  return nullptr;
}

const HloInstruction* HloComputation::find(std::string_view n) const {
  for (const HloInstruction& i : instructions)
    if (i.name == n) return &i;
  return nullptr;
}

const HloInstruction* HloComputation::parameter(std::int64_t i) const {
  for (const HloInstruction& p : instructions)
    if (p.opcode == HloOpcode::kParameter && p.parameter_number == i) return &p;
  return nullptr;
}

HloModule::HloModule(std::unique_ptr<detail::HloModuleData> data) : data_(std::move(data)) {}
HloModule::HloModule(HloModule&&) noexcept = default;
HloModule& HloModule::operator=(HloModule&&) noexcept = default;
HloModule::~HloModule() = default;

std::string_view HloModule::name() const { return data_->config.name; }
const HloModuleConfig& HloModule::config() const { return data_->config; }
std::span<const HloAttribute> HloModule::attributes() const { return data_->attributes; }
std::span<const HloComputation> HloModule::computations() const { return data_->computations; }
const HloComputation& HloModule::entry() const { return data_->computations[data_->entry_index]; }
std::size_t HloModule::instruction_count() const { return data_->instruction_count; }

const HloComputation* HloModule::computation(std::string_view n) const {
  auto it = data_->computation_index.find(n);
  return it == data_->computation_index.end() ? nullptr : &data_->computations[it->second];
}

const HloInstruction* HloModule::instruction(std::string_view n) const {
  // Built on first use: parsing resolves operands per computation and most
  // callers never look an instruction up by name.
  std::call_once(data_->instruction_index_once, [d = data_.get()] {
    d->instruction_index.reserve(d->instruction_count);
    for (const HloComputation& c : d->computations)
      for (const HloInstruction& i : c.instructions) d->instruction_index.emplace(i.name, &i);
  });
  auto it = data_->instruction_index.find(n);
  return it == data_->instruction_index.end() ? nullptr : it->second;
}

namespace detail {

std::string_view computation_role(std::string_view key) {
  // Roles are compared on every called() lookup; returning these literals
  // keeps their bytes in one hot place instead of in the module's text.
  auto is = [key](std::string_view role) { return key == role ? role : std::string_view(); };
  switch (key.size()) {  // most keys are of other lengths and cost one compare
    case 4: return is("body");
    case 5: return is("calls");
    case 6: return is("select");
    case 7: return is("scatter");
    case 8: return is("to_apply");
    case 9: return is("condition");
    case 10: return is("comparator");
    case 16: return is("true_computation");
    case 17: return is("false_computation");
    case 19: {
      const std::string_view r = is("branch_computations");
      return r.empty() ? is("called_computations") : r;
    }
    default: return {};
  }
}

std::vector<std::string_view> computation_names(std::string_view v) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < v.size()) {
    const char c = v[i];
    if (c == '{' || c == '}' || c == ',' || c == ' ' || c == '%' || c == '\n' || c == '\t') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < v.size() && v[j] != ',' && v[j] != '}' && v[j] != ' ' && v[j] != '\n' && v[j] != '\t') ++j;
    out.push_back(v.substr(i, j - i));
    i = j;
  }
  return out;
}

// Async sugar: "reduce-scatter-start" is an async-start wrapping reduce-scatter.
void classify_opcode(HloInstruction& ins) {
  ins.opcode = opcode_from_name(ins.opcode_name);
  if (ins.opcode != HloOpcode::kUnknown) return;
  struct Suffix {
    std::string_view text;
    HloOpcode op;
  };
  for (const Suffix s : {Suffix{"-start", HloOpcode::kAsyncStart}, Suffix{"-update", HloOpcode::kAsyncUpdate},
                         Suffix{"-done", HloOpcode::kAsyncDone}}) {
    const std::string_view n = ins.opcode_name;
    if (n.size() > s.text.size() && n.substr(n.size() - s.text.size()) == s.text) {
      const HloOpcode wrapped = opcode_from_name(n.substr(0, n.size() - s.text.size()));
      if (wrapped != HloOpcode::kUnknown) {
        ins.opcode = s.op;
        ins.wrapped_opcode = wrapped;
      }
      return;
    }
  }
}

namespace {

// source_file/source_line of a stack frame: its own location is the innermost
// call site, which is where the op was written.
void resolve_frame(const StackFrameTable& t, OpMetadata& m) {
  if (m.stack_frame_id <= 0 || !m.source_file.empty()) return;
  const auto frame = static_cast<std::size_t>(m.stack_frame_id);
  if (frame > t.frames.size()) return;
  const auto loc = static_cast<std::size_t>(t.frames[frame - 1].location_id);
  if (loc == 0 || loc > t.locations.size()) return;
  const StackFrameTable::Location& l = t.locations[loc - 1];
  if (l.file_name_id > 0 && static_cast<std::size_t>(l.file_name_id) <= t.file_names.size())
    m.source_file = t.file_names[static_cast<std::size_t>(l.file_name_id) - 1];
  m.source_line = l.line;
}

}  // namespace

namespace {

// Where an unresolved operand name is defined, if anywhere: only on the
// error path, so a linear search is fine.
const HloInstruction* find_anywhere(const HloModuleData& d, std::string_view name) {
  for (const HloComputation& c : d.computations)
    for (const HloInstruction& i : c.instructions)
      if (i.name == name) return &i;
  return nullptr;
}

// Computations at most this long resolve names by scanning; longer ones
// through a hash map (reused from one computation to the next).
constexpr std::size_t kScanLimit = 16;

// Names of one computation mostly differ in their last characters
// ("param_0.12" / "param_1.12" / "add.12"): check those before memcmp.
inline bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || (a.back() == b.back() && a.front() == b.front() && a == b));
}

// The computations `ins` calls, in the order its attributes name them.
absl::Status link_called(HloModuleData& d, HloInstruction& ins, const LinkError& error) {
  ins.called_computations.clear();
  for (const HloAttribute& a : ins.attributes) {
    const std::string_view role = computation_role(a.key);
    if (role.empty()) continue;
    for (std::string_view cn : computation_names(a.value)) {
      auto it = d.computation_index.find(cn);
      if (it == d.computation_index.end())
        return error(cn, detail::cat("instruction '", ins.name, "' calls '", cn, "', which is not defined"));
      ins.called_computations.push_back({role, &d.computations[it->second]});
    }
  }
  return absl::OkStatus();
}

// " -> "-joined names of `path` from `from` on, then `back` again: the
// cycle an error names (at most 8 names; a longer one ends in "...").
template <typename T, typename Name>
std::string cycle_text(const std::vector<T>& path, std::size_t from, std::string_view back, Name name) {
  std::string out;
  const std::size_t shown = std::min<std::size_t>(path.size() - from, 8);
  for (std::size_t k = from; k < from + shown; ++k) out += detail::cat("'", name(path[k]), "' -> ");
  if (from + shown < path.size()) out += "... -> ";
  return out + detail::cat("'", back, "'");
}

// An instruction's operands are computed before it: a use cycle (`a` uses
// `b` uses `a`, or an instruction its own operand) is no program, and
// costing it would count work that never runs. Depth-first without
// recursion (a computation can hold a million instructions).
absl::Status check_use_cycles(const HloComputation& comp, const LinkError& error) {
  const std::size_t n = comp.instructions.size();
  if (n == 0) return absl::OkStatus();
  enum State : unsigned char { kNew, kOpen, kDone };
  std::vector<State> state(n, kNew);
  struct Frame {
    std::size_t ins;
    std::size_t next_operand;
  };
  std::vector<Frame> stack;
  const HloInstruction* first = comp.instructions.data();
  for (std::size_t start = 0; start < n; ++start) {
    if (state[start] != kNew) continue;
    stack.push_back({start, 0});
    state[start] = kOpen;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const HloInstruction& ins = comp.instructions[f.ins];
      if (f.next_operand == ins.operands.size()) {
        state[f.ins] = kDone;
        stack.pop_back();
        continue;
      }
      const auto op = static_cast<std::size_t>(ins.operands[f.next_operand++] - first);
      if (state[op] == kDone) continue;
      if (state[op] == kOpen) {
        if (op == f.ins) return error(ins.name, detail::cat("instruction '", ins.name, "' uses itself"));
        std::size_t from = 0;
        while (stack[from].ins != op) ++from;
        return error(ins.name, detail::cat("instructions of computation '", comp.name, "' use each other in a cycle: ",
                                           cycle_text(stack, from, comp.instructions[op].name,
                                                      [&](const Frame& g) { return comp.instructions[g.ins].name; })));
      }
      state[op] = kOpen;
      stack.push_back({op, 0});
    }
  }
  return absl::OkStatus();
}

// HLO has no recursion: a computation that calls itself, directly (a
// while body whose while runs the body) or through others, would be
// costed without end, or with a count that means nothing.
absl::Status check_call_cycles(const HloModuleData& d, const LinkError& error) {
  const std::size_t n = d.computations.size();
  enum State : unsigned char { kNew, kOpen, kDone };
  std::vector<State> state(n, kNew);
  struct Frame {
    std::size_t comp;
    std::size_t next_ins = 0, next_call = 0;
  };
  std::vector<Frame> stack;
  const HloComputation* first = d.computations.data();
  for (std::size_t start = 0; start < n; ++start) {
    if (state[start] != kNew) continue;
    stack.push_back({start});
    state[start] = kOpen;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const HloComputation& comp = d.computations[f.comp];
      if (f.next_ins == comp.instructions.size()) {
        state[f.comp] = kDone;
        stack.pop_back();
        continue;
      }
      const HloInstruction& ins = comp.instructions[f.next_ins];
      if (f.next_call == ins.called_computations.size()) {
        ++f.next_ins;
        f.next_call = 0;
        continue;
      }
      const auto callee = static_cast<std::size_t>(ins.called_computations[f.next_call++].computation - first);
      if (state[callee] == kDone) continue;
      if (state[callee] == kOpen) {
        const std::string_view name = d.computations[callee].name;
        if (callee == f.comp)
          return error(ins.name, detail::cat("instruction '", ins.name, "' of computation '", name, "' calls '", name,
                                             "' itself (HLO has no recursion)"));
        std::size_t from = 0;
        while (stack[from].comp != callee) ++from;
        return error(ins.name,
                     detail::cat("instruction '", ins.name, "' closes a cycle of calls (HLO has no recursion): ",
                                 cycle_text(stack, from, name,
                                            [&](const Frame& g) { return d.computations[g.comp].name; })));
      }
      state[callee] = kOpen;
      stack.push_back({callee});
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status link_module(HloModuleData& d, const LinkError& error) {
  d.computation_index.clear();
  d.computation_index.reserve(d.computations.size());
  std::size_t count = 0;
  for (std::size_t ci = 0; ci < d.computations.size(); ++ci) {
    HloComputation& comp = d.computations[ci];
    if (!d.computation_index.emplace(comp.name, ci).second)
      return error(comp.name, detail::cat("computation '", comp.name, "' is defined twice"));
    count += comp.instructions.size();
    // Parents first: an error about an operand names the computation it is in.
    for (HloInstruction& ins : comp.instructions) ins.parent = &comp;
  }
  d.instruction_count = count;
  absl::flat_hash_map<std::string_view, HloInstruction*> local;
  std::vector<const HloInstruction*> operands;
  for (HloComputation& comp : d.computations) {
    comp.module = &d.config;
    comp.root = nullptr;
    const std::size_t n = comp.instructions.size();
    const bool scan = n <= kScanLimit;
    if (!scan) {
      local.clear();
      local.reserve(n);
    }
    for (std::size_t k = 0; k < n; ++k) {
      HloInstruction& ins = comp.instructions[k];
      bool duplicate = false;
      if (scan) {
        for (std::size_t j = 0; j < k && !duplicate; ++j) duplicate = same_name(comp.instructions[j].name, ins.name);
      } else {
        duplicate = !local.emplace(ins.name, &ins).second;
      }
      if (duplicate) return error(ins.name, detail::cat("instruction '", ins.name, "' is defined twice"));
      if (ins.is_root) comp.root = &ins;
    }
    if (comp.root == nullptr && n > 0) {
      // Without a ROOT marker the last instruction is the root (XLA's rule).
      comp.instructions.back().is_root = true;
      comp.root = &comp.instructions.back();
    }
    for (HloInstruction& ins : comp.instructions) {
      operands.clear();
      for (std::string_view on : ins.operand_names) {
        const HloInstruction* found = nullptr;
        if (scan) {
          // Operands are usually defined just before their user: search backwards.
          for (std::size_t j = n; j-- > 0;)
            if (same_name(comp.instructions[j].name, on)) {
              found = &comp.instructions[j];
              break;
            }
        } else if (auto it = local.find(on); it != local.end()) {
          found = it->second;
        }
        if (found == nullptr) {
          if (const HloInstruction* other = find_anywhere(d, on))
            return error(on, detail::cat("instruction '", ins.name, "' uses '", on, "' from computation '",
                                         other->parent->name, "'"));
          return error(on, detail::cat("instruction '", ins.name, "' uses '", on, "', which is not defined"));
        }
        operands.push_back(found);
      }
      ins.operands = d.arena.store_array(std::span<const HloInstruction* const>(operands));
      ROOFLINE_RETURN_IF_ERROR(link_called(d, ins, error));
      resolve_frame(d.stack_frames, ins.metadata);
      read_typed_attributes(ins, d.arena);
    }
    ROOFLINE_RETURN_IF_ERROR(check_use_cycles(comp, error));
  }
  return check_call_cycles(d, error);
}

}  // namespace detail
}  // namespace roofline
