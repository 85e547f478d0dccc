// HLO text: one pass over the text with the Cursor; names and attribute
// values stay views into the module's copy of the text. Grammar in
// docs/hlo.md; what XLA prints in xla/hlo/ir/hlo_instruction.cc and
// hlo_module.cc.
#include <algorithm>
#include <cstring>
#include <string>

#include "roofline/detail/cat.hpp"
#include "roofline/hlo/reader.hpp"
#include "src/hlo/cursor.hpp"
#include "src/hlo/module_data.hpp"
#include "src/hlo/text_util.hpp"

namespace roofline {
namespace {

using detail::Cursor;

// Lines from here to the first line that starts with '}' (memchr speed).
std::size_t lines_to_closing_brace(std::string_view text) {
  std::size_t lines = 1;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    if (nl == nullptr || nl + 1 >= end || nl[1] == '}') break;
    ++lines;
    p = nl + 1;
  }
  return lines;
}

bool is_table_keyword(std::string_view w) {
  return w == "FileNames" || w == "FunctionNames" || w == "FileLocations" || w == "StackFrames";
}

class TextParser {
 public:
  TextParser(std::string_view text, detail::HloModuleData& d) : c_(text), d_(d) {}

  bool parse() {
    c_.skip_space();
    if (!c_.consume("HloModule")) return c_.fail("'HloModule' at the start of the module");
    if (!header()) return false;
    if (!stack_frame_tables()) return false;
    bool have_entry = false;
    for (;;) {
      c_.skip_space();
      if (c_.at_end()) break;
      if (!computation(&have_entry)) return false;
    }
    if (d_.computations.empty()) return c_.fail("a computation");
    if (!have_entry) d_.entry_index = d_.computations.size() - 1;  // XLA: the last one
    d_.computations[d_.entry_index].is_entry = true;
    return true;
  }

  Cursor& cursor() { return c_; }

 private:
  bool header() {
    c_.skip_blanks();
    const std::string_view name = c_.name();
    if (name.empty()) return c_.fail("the module name after 'HloModule'");
    d_.config.name = name;
    for (;;) {
      c_.skip_blanks();
      if (!c_.consume(',')) break;
      c_.skip_blanks();
      const std::string_view key = c_.name();
      if (key.empty()) return c_.fail("a module attribute name");
      c_.skip_blanks();
      if (!c_.expect('=', "'=' after the attribute name")) return false;
      c_.skip_blanks();
      std::string_view value;
      if (!c_.balanced(&value, /*stop_at_newline=*/true)) return false;
      d_.attributes.push_back({key, value});
      if (key == "replica_count" || key == "num_partitions") {
        std::int64_t n = 0;
        if (!detail::parse_int(value, &n) || n < 1)
          return c_.fail_message(detail::cat(key, " must be a positive integer"), value.data());
        (key == "replica_count" ? d_.config.replica_count : d_.config.num_partitions) = n;
      }
    }
    if (!c_.at_end() && c_.peek() != '\n') return c_.fail("',' or the end of the HloModule line");
    return true;
  }

  // FileNames / FunctionNames / FileLocations / StackFrames, between the
  // header and the first computation (newer XLA, with metadata).
  bool stack_frame_tables() {
    for (;;) {
      c_.skip_space();
      const char* at = c_.pos();
      const std::string_view w = c_.word();
      if (!is_table_keyword(w)) {
        c_.set_pos(at);
        return true;
      }
      for (;;) {
        c_.skip_space();
        if (!Cursor::is_digit(c_.peek())) break;
        std::int64_t index;
        if (!c_.integer(&index, "a table index")) return false;
        c_.skip_blanks();
        if (w == "FileNames" || w == "FunctionNames") {
          std::string_view s;
          if (!c_.quoted(&s)) return false;
          const std::string_view v = detail::unescape(d_.arena, s);
          (w == "FileNames" ? d_.stack_frames.file_names : d_.stack_frames.function_names).push_back(v);
        } else {
          if (!c_.expect('{', "'{' to open a table entry")) return false;
          std::string_view inner;
          if (!c_.enclosed('}', &inner)) return false;
          std::int64_t a = 0, b = 0, line = 0;
          if (w == "FileLocations") {
            detail::sub_int(inner, "file_name_id", &a);
            detail::sub_int(inner, "function_name_id", &b);
            detail::sub_int(inner, "line", &line);
            d_.stack_frames.locations.push_back(
                {static_cast<int>(a), static_cast<int>(b), static_cast<int>(line)});
          } else {
            detail::sub_int(inner, "file_location_id", &a);
            detail::sub_int(inner, "parent_frame_id", &b);
            d_.stack_frames.frames.push_back({static_cast<int>(a), static_cast<int>(b)});
          }
        }
      }
    }
  }

  bool computation(bool* have_entry) {
    bool entry = false;
    const char* at = c_.pos();
    if (c_.consume("ENTRY") && !Cursor::is_name_char(c_.peek())) {
      entry = true;
    } else {
      c_.set_pos(at);
    }
    c_.skip_space();
    c_.consume('%');
    const std::string_view name = c_.name();
    if (name.empty()) return c_.fail("a computation name");
    c_.skip_space();
    if (c_.consume('(')) {  // the program shape: "(p: f32[8]) -> f32[8]"
      std::string_view params;
      if (!c_.enclosed(')', &params)) return false;
      c_.skip_space();
      if (!c_.consume("->")) return c_.fail("'->' after the parameter list");
      Shape result;
      if (!detail::parse_shape_at(c_, &result)) return false;
      c_.skip_space();
    }
    if (!c_.expect('{', "'{' to open the computation")) return false;
    if (entry) {
      if (*have_entry) return c_.fail_message("a second ENTRY computation", at);
      *have_entry = true;
      d_.entry_index = d_.computations.size();
    }
    d_.computations.emplace_back();
    HloComputation& comp = d_.computations.back();
    comp.name = name;
    // One instruction per line: reserve for the lines up to the closing brace
    // so a long computation is not moved while it grows.
    comp.instructions.reserve(lines_to_closing_brace(c_.rest()));
    for (;;) {
      c_.skip_space();
      if (c_.consume('}')) break;
      if (c_.at_end()) return c_.fail("'}' to close the computation");
      comp.instructions.emplace_back();
      if (!instruction(comp.instructions.back())) return false;
    }
    c_.skip_blanks();
    if (c_.consume(',')) {  // ", execution_thread=\"...\""
      c_.skip_space();
      const std::string_view key = c_.name();
      if (!c_.expect('=', "'=' after the computation attribute")) return false;
      std::string_view value;
      if (!c_.balanced(&value, true)) return false;
      if (key == "execution_thread" && value.size() >= 2 && value.front() == '"') comp.execution_thread = value.substr(1, value.size() - 2);
    }
    return true;
  }

  bool operand_shape_follows() {
    if (c_.peek() == '(') return true;
    if (c_.peek() == '%') return false;  // the long style's name, no shape
    const char* at = c_.pos();
    const std::string_view w = c_.word();
    const char next = c_.peek();
    c_.set_pos(at);
    if (next != '[' && next != '(') return false;
    DType ignored;
    if (next == '[') return w == "token" || w == "opaque" || w == "opaque_type" || parse_hlo_element_type(w, &ignored);
    return next == '(' && w == "b";
  }

  bool instruction(HloInstruction& ins) {
    const char* at = c_.pos();
    if (c_.consume("ROOT") && (c_.peek() == ' ' || c_.peek() == '\t' || c_.peek() == '%')) {
      ins.is_root = true;
      c_.skip_space();
    } else {
      c_.set_pos(at);
    }
    c_.consume('%');
    ins.name = c_.name();
    if (ins.name.empty()) return c_.fail("an instruction name or '}'");
    c_.skip_space();
    if (!c_.expect('=', "'=' after the instruction name")) return false;
    if (!detail::parse_shape_at(c_, &ins.shape)) return false;
    c_.skip_space();
    ins.opcode_name = c_.name();
    if (ins.opcode_name.empty()) return c_.fail("an opcode");
    detail::classify_opcode(ins);
    if (!c_.expect('(', "'(' after the opcode")) return false;
    c_.skip_space();
    operand_names_.clear();
    attributes_.clear();
    if (ins.opcode == HloOpcode::kParameter) {
      if (!c_.integer(&ins.parameter_number, "a parameter number")) return false;
      if (ins.parameter_number < 0) return c_.fail("a non-negative parameter number");
      c_.skip_space();
      if (!c_.expect(')', "')' after the parameter number")) return false;
    } else if (ins.opcode == HloOpcode::kConstant) {
      if (!c_.enclosed(')', &ins.literal)) return false;
    } else if (!c_.consume(')')) {
      for (;;) {
        c_.skip_space();
        if (operand_shape_follows()) {
          Shape ignored;
          if (!detail::parse_shape_at(c_, &ignored)) return false;
          c_.skip_space();
        }
        c_.consume('%');
        const std::string_view operand = c_.name();
        if (operand.empty()) return c_.fail("an operand name");
        operand_names_.push_back(operand);
        c_.skip_space();
        if (c_.consume(')')) break;
        if (!c_.expect(',', "',' or ')' after an operand")) return false;
      }
    }
    for (;;) {
      c_.skip_blanks();
      if (!c_.consume(',')) break;
      c_.skip_space();
      const std::string_view key = c_.name();
      if (key.empty()) return c_.fail("an attribute name");
      c_.skip_space();
      if (!c_.expect('=', "'=' after the attribute name")) return false;
      c_.skip_blanks();
      std::string_view value;
      if (!c_.balanced(&value, /*stop_at_newline=*/true)) return false;
      if (key == "replica_groups" && value.starts_with("mesh[") && value.find('{') == std::string_view::npos &&
          !mesh_device_ids(&value))
        return false;
      attributes_.push_back({key, value});
      if (key == "metadata" && !metadata(value, &ins.metadata)) return false;
    }
    if (!c_.at_end() && c_.peek() != '\n' && c_.peek() != '}')
      return c_.fail("',' or the end of the instruction");
    ins.operand_names = d_.arena.store_array(std::span<const std::string_view>(operand_names_));
    ins.attributes = d_.arena.store_array(std::span<const HloAttribute>(attributes_));
    return true;
  }

  // metadata={op_type="..." op_name="..." source_file="..." source_line=12 stack_frame_id=3 ...}
  bool metadata(std::string_view value, OpMetadata* m) {
    if (value.size() < 2 || value.front() != '{' || value.back() != '}')
      return c_.fail_message("metadata must be a {key=value ...} list", value.data());
    Cursor mc(value.substr(1, value.size() - 2));
    for (;;) {
      mc.skip_space();
      if (mc.at_end()) return true;
      const std::string_view key = mc.name();
      if (key.empty() || !mc.consume('=')) return c_.fail_message("metadata must be a {key=value ...} list", value.data());
      if (mc.peek() == '"') {
        std::string_view raw;
        if (!mc.quoted(&raw)) return c_.fail_message("unterminated string in metadata", value.data());
        const std::string_view s = detail::unescape(d_.arena, raw);
        if (key == "op_name") m->op_name = s;
        else if (key == "op_type") m->op_type = s;
        else if (key == "source_file") m->source_file = s;
      } else if (Cursor::is_digit(mc.peek()) || mc.peek() == '-') {
        std::int64_t v;
        if (!mc.integer(&v, "an integer")) return c_.fail_message("bad integer in metadata", value.data());
        if (key == "source_line") m->source_line = static_cast<int>(v);
        else if (key == "stack_frame_id") m->stack_frame_id = static_cast<int>(v);
      } else {
        std::string_view ignored;  // profile_type={...} and the like
        const char* before = mc.pos();
        if (mc.peek() == '{') {
          mc.advance();
          if (!mc.enclosed('}', &ignored)) return c_.fail_message("unbalanced braces in metadata", value.data());
        } else {
          while (!mc.at_end() && mc.peek() != ' ') mc.advance();
        }
        if (mc.pos() == before) return c_.fail_message("metadata must be a {key=value ...} list", value.data());
      }
    }
  }

  // A mesh's replica groups carry a comma of their own when the mesh is not
  // an iota: `mesh['a'=2,'b'=4], device_ids=([4,2]T(1,0)) {'a'}`. The
  // device_ids part and the axes after it belong to replica_groups=.
  bool mesh_device_ids(std::string_view* value) {
    const char* after = c_.pos();
    c_.skip_blanks();
    if (!c_.consume(',')) {
      c_.set_pos(after);
      return true;
    }
    c_.skip_space();
    if (!c_.consume("device_ids=")) {
      c_.set_pos(after);
      return true;
    }
    std::string_view rest;
    if (!c_.balanced(&rest, /*stop_at_newline=*/true)) return false;
    *value = {value->data(), static_cast<std::size_t>(rest.data() + rest.size() - value->data())};
    return true;
  }

  Cursor c_;
  detail::HloModuleData& d_;
  // Reused for every instruction, then copied into the module's arena.
  std::vector<std::string_view> operand_names_;
  std::vector<HloAttribute> attributes_;
};

}  // namespace

absl::StatusOr<HloModule> parse_hlo_text(std::string_view text, std::string_view origin) {
  auto data = std::make_unique<detail::HloModuleData>();
  data->config.origin = data->arena.store(origin);
  const std::string_view own = data->arena.store(text);
  TextParser p(own, *data);
  if (!p.parse()) return p.cursor().error_status(origin);
  const Cursor& c = p.cursor();
  absl::Status linked = detail::link_module(*data, [&](std::string_view at, const std::string& message) {
    int line = 0, column = 0;
    if (at.data() >= own.data() && at.data() <= own.data() + own.size()) c.line_column(at.data(), &line, &column);
    if (line == 0) return absl::InvalidArgumentError(detail::cat(origin, ": ", message));
    return absl::InvalidArgumentError(detail::cat(origin, ":", line, ":", column, ": ", message));
  });
  if (!linked.ok()) return linked;
  return HloModule(std::move(data));
}

}  // namespace roofline
