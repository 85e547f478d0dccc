// Binary HloProto / HloModuleProto into the same model as HLO text, decoded
// in place from the file's bytes by a hand-written wire decoder (the
// primitives are src/wire/proto_wire.hpp, shared with the XSpace decoder):
// no libprotobuf, no message objects, no 2 GiB limit, and every field a newer
// XLA adds is still there to read by its number. The fields are rendered as
// the attribute text HLO prints (dimensions={1}, window={...},
// dim_labels=..., replica_groups=...), and link_module reads the typed
// attributes from that text, as for HLO text: one set of attribute readers
// serves both formats, so both give the same typed attributes.
//
// Three passes over well-formed bytes: find_wire_error walks the whole
// message first (so a broken file gets one located error), then the
// computations and instruction ids are collected (operands refer to ids),
// then each instruction is decoded into one reused InstructionFields and
// converted. This file converts the module, its computations and
// instructions; proto_fields.cc decodes an instruction's fields and
// proto_shape.cc its shape (src/hlo/proto_fields.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/hlo/reader.hpp"
#include "src/hlo/attributes.hpp"
#include "src/hlo/module_data.hpp"
#include "src/hlo/proto_fields.hpp"
#include "src/hlo/proto_wire_error.hpp"
#include "src/wire/proto_wire.hpp"

namespace roofline {
namespace {

using detail::IntList;
using detail::WireField;
using namespace detail::hlo_proto;  // Wire, Span, InstructionFields, read_instruction, read_shape

struct ComputationFields {
  std::string_view name, execution_thread;
  std::int64_t id = 0, root_id = 0;
  std::vector<Span> instructions;
  std::size_t at = 0;  // byte offset of the computation's message
};

class Converter {
 public:
  Converter(detail::HloModuleData& d, std::string_view bytes, std::string_view origin)
      : d_(d), w_(bytes), origin_(origin) {}

  // The module's fields, from every occurrence of it (they merge).
  absl::Status convert(const std::vector<Span>& module) {
    std::int64_t entry_id = 0;
    std::string_view entry_name;
    std::vector<ComputationFields> comps;
    for (Span m : module) {
      w_.fields(m, [&](const WireField& f) {
        switch (f.number) {
          case 1: if (is_len(f)) d_.config.name = d_.arena.store(w_.str(f)); break;
          case 2: if (is_len(f)) entry_name = w_.str(f); break;
          case 3: if (is_len(f)) comps.push_back(computation(span(f))); break;
          case 6: set(f, &entry_id); break;
          case 15: if (is_len(f)) device_assignment(span(f)); break;
          case 17: if (is_len(f)) stack_frames(span(f)); break;
          default: break;
        }
      });
    }
    // Instruction names by id first: operands refer to instructions by id.
    for (const ComputationFields& c : comps) {
      for (Span s : c.instructions) {
        std::string_view name;
        std::int64_t id = 0;
        w_.fields(s, [&](const WireField& f) {
          if (f.number == 1 && is_len(f)) name = w_.str(f);
          if (f.number == 35) set(f, &id);
        });
        if (!name_by_id_.emplace(id, d_.arena.store(name)).second)
          return error(detail::cat("instruction id ", id, " is used twice"));
      }
    }
    for (const ComputationFields& c : comps) comp_name_by_id_[c.id] = c.name;
    d_.computations.reserve(comps.size());
    bool found_entry = false;
    for (const ComputationFields& c : comps) {
      HloComputation& comp = d_.computations.emplace_back();
      comp.name = d_.arena.store(c.name);
      comp.execution_thread = d_.arena.store(c.execution_thread);
      comp.instructions.reserve(c.instructions.size());
      bool has_root = false;
      for (Span s : c.instructions) {
        HloInstruction& ins = comp.instructions.emplace_back();
        fields_.clear();
        read_instruction(w_, s, &fields_);
        if (absl::Status st = instruction(fields_, ins); !st.ok()) return st;
        ins.is_root = fields_.id == c.root_id;
        has_root = has_root || ins.is_root;
      }
      // XLA writes every computation's root_id (proto3 leaves out an id of
      // 0, which is then the default): one that names none of its
      // instructions leaves nothing to cost as the result.
      if (!has_root && !c.instructions.empty())
        return error(detail::cat("byte ", c.at, ": computation '", c.name, "': root_id ", c.root_id,
                                 " is none of its instructions' ids (a computation without a root)"));
      const bool is_entry = (entry_id != 0 && c.id == entry_id) ||
                            (entry_id == 0 && !entry_name.empty() && c.name == entry_name) ||
                            (entry_id == 0 && entry_name.empty() && c.id == 0);
      if (is_entry && !found_entry) {
        d_.entry_index = d_.computations.size() - 1;
        found_entry = true;
      }
    }
    if (d_.computations.empty()) return error("the module has no computations");
    // XLA writes entry_computation_name and entry_computation_id: without
    // either (or with one that names no computation) there is nothing to
    // run, and guessing one costs the wrong program.
    if (!found_entry)
      return error(entry_name.empty() && entry_id == 0
                       ? std::string("the module names no entry computation (entry_computation_name, "
                                     "entry_computation_id)")
                       : detail::cat("the entry computation (name '", entry_name, "', id ", entry_id,
                                     ") is none of the module's computations"));
    d_.computations[d_.entry_index].is_entry = true;
    return absl::OkStatus();
  }

 private:
  void attr(std::string_view key, const std::string& value) { attributes_.push_back({key, d_.arena.store(value)}); }
  absl::Status error(const std::string& message) const {
    return absl::InvalidArgumentError(detail::cat(origin_, ": ", message));
  }

  ComputationFields computation(Span s) const {
    ComputationFields c;
    c.at = s.begin;
    w_.fields(s, [&](const WireField& f) {
      switch (f.number) {
        case 1: if (is_len(f)) c.name = w_.str(f); break;
        case 2: if (is_len(f)) c.instructions.push_back(span(f)); break;
        case 5: set(f, &c.id); break;
        case 6: set(f, &c.root_id); break;
        case 8: if (is_len(f)) c.execution_thread = w_.str(f); break;
        default: break;
      }
    });
    return c;
  }

  // xla.DeviceAssignmentProto: replica_count x computation_count devices.
  // It is what a compiled module carries in place of HLO text's
  // replica_count= / num_partitions= header, and what sizes replica_groups={}.
  void device_assignment(Span s) {
    std::int32_t replicas = 0, computations = 0;
    w_.fields(s, [&](const WireField& f) {
      if (f.number == 1) set(f, &replicas);
      if (f.number == 2) set(f, &computations);
    });
    if (replicas > 0) d_.config.replica_count = replicas;
    if (computations > 0) d_.config.num_partitions = computations;
  }

  void stack_frames(Span s) {
    detail::StackFrameTable& t = d_.stack_frames;
    w_.fields(s, [&](const WireField& f) {
      if (!is_len(f)) return;
      switch (f.number) {
        case 1: t.file_names.push_back(d_.arena.store(w_.str(f))); break;
        case 2: t.function_names.push_back(d_.arena.store(w_.str(f))); break;
        case 3: {
          std::int32_t file = 0, function = 0, line = 0;
          w_.fields(span(f), [&](const WireField& x) {
            if (x.number == 1) set(x, &file);
            if (x.number == 2) set(x, &function);
            if (x.number == 3) set(x, &line);
          });
          t.locations.push_back({file, function, line});
          break;
        }
        case 4: {
          std::int32_t location = 0, parent = 0;
          w_.fields(span(f), [&](const WireField& x) {
            if (x.number == 1) set(x, &location);
            if (x.number == 2) set(x, &parent);
          });
          t.frames.push_back({location, parent});
          break;
        }
        default: break;
      }
    });
  }

  static std::string groups_text(const IntList& values, const IntList& starts) {
    std::string s = "{";
    for (std::size_t g = 0; g < starts.size(); ++g) {
      s += g ? ",{" : "{";
      const auto b = static_cast<std::size_t>(starts[g]);
      const std::size_t e = g + 1 < starts.size() ? static_cast<std::size_t>(starts[g + 1]) : values.size();
      for (std::size_t i = b; i < e; ++i) s += detail::cat(i > b ? "," : "", values[i]);
      s += "}";
    }
    return s + "}";
  }

  static std::string join(const IntList& v) {
    std::string s;
    for (std::size_t k = 0; k < v.size(); ++k) s += detail::cat(k ? "," : "", v[k]);
    return s;
  }

  // [G,S]<=[dims]T(perm), as XLA prints an iota list.
  static std::string iota_text(const IotaList& g) {
    std::string s = detail::cat("[", g.num_replica_groups, ",", g.num_devices_per_group, "]<=[", join(g.reshape_dims), "]");
    if (!g.transpose_perm.empty()) s += "T(" + join(g.transpose_perm) + ")";
    return s;
  }

  // mesh['a'=2,'b'=4], device_ids=([4,2]T(1,0)) {'a','b':(1)2}, as XLA
  // prints a MeshAxesReplicaGroupList (roofline/hlo/replica_groups.hpp).
  // Device ids XLA keeps as a list are written out, comma-separated.
  static std::string mesh_text(const MeshAxesList& m) {
    std::string s = "mesh[";
    for (std::size_t k = 0; k < m.axes.size(); ++k)
      s += detail::cat(k ? "," : "", "'", m.axes[k].name, "'=", m.axes[k].size);
    s += "]";
    if (m.iota_transform && m.reshape_dims.size() > 1) {
      s += ", device_ids=([" + join(m.reshape_dims) + "]";
      if (!m.transpose_perm.empty()) s += "T(" + join(m.transpose_perm) + ")";
      s += ")";
    } else if (!m.device_ids.empty()) {
      s += ", device_ids=(" + join(m.device_ids) + ")";
    }
    s += " {";
    for (std::size_t k = 0; k < m.refs.size(); ++k) {
      const MeshAxesList::AxisRef& r = m.refs[k];
      s += k ? "," : "";
      if (r.index >= 0 && static_cast<std::size_t>(r.index) < m.axes.size()) {
        s += detail::cat("'", m.axes[static_cast<std::size_t>(r.index)].name, "'");
      } else {
        s += detail::cat("'<axis ", r.index, ">'");  // refused by the parser: not in the mesh
      }
      if (r.sub_axis) s += detail::cat(":(", r.pre_size, ")", r.size);
    }
    return s + "}";
  }

  std::string computation_ref(std::int64_t id) {
    auto it = comp_name_by_id_.find(id);
    return it == comp_name_by_id_.end() ? detail::cat("%<missing computation ", id, ">") : detail::cat("%", it->second);
  }

  absl::Status instruction(const InstructionFields& i, HloInstruction& ins) {
    const std::string where = detail::cat("instruction '", i.name, "'");
    ins.name = name_by_id_.find(i.id)->second;  // filled for every instruction above
    ins.opcode_name = d_.arena.store(i.opcode);
    detail::classify_opcode(ins);
    ROOFLINE_RETURN_IF_ERROR(read_shape(w_, i.shape, &ins.shape, origin_, where));
    operand_names_.clear();
    attributes_.clear();
    for (std::int64_t id : i.operand_ids) {
      auto it = name_by_id_.find(id);
      if (it == name_by_id_.end()) return error(detail::cat(where, ": operand id ", id, " is not an instruction"));
      operand_names_.push_back(it->second);
    }
    ins.operand_names = d_.arena.store_array(std::span<const std::string_view>(operand_names_));
    if (ins.opcode == HloOpcode::kParameter) ins.parameter_number = i.parameter_number;
    // An integer scalar constant's value as HLO text prints it (a loop
    // counter's start, step or bound: while_trip_count reads them).
    if (ins.opcode == HloOpcode::kConstant && i.literal_ints.size() == 1 && ins.shape.is_array() &&
        ins.shape.dims.empty()) {
      const bool is_unsigned = ins.shape.element_type == DType::kU32 || ins.shape.element_type == DType::kU64;
      const bool is_signed = ins.shape.element_type == DType::kS32 || ins.shape.element_type == DType::kS64;
      const std::int64_t v = i.literal_ints.front();
      if (is_signed || (is_unsigned && v >= 0)) ins.literal = d_.arena.store(std::to_string(v));
    }
    ins.metadata = OpMetadata{.op_type = d_.arena.store(i.op_type),
                              .op_name = d_.arena.store(i.op_name),
                              .source_file = d_.arena.store(i.source_file),
                              .source_line = i.source_line,
                              .stack_frame_id = i.stack_frame_id};

    // Attributes, in the spelling (and the order) HLO text uses.
    array_attributes(i, ins);
    window_and_convolution(i, ins);
    more_array_attributes(i);
    collective_attributes(i, ins);
    flag_attributes(i);
    called_computations(i, ins.opcode);
    if (!i.backend_config.empty()) {
      const std::string_view b = i.backend_config;
      // JSON configs print raw ({...}); anything else as a quoted string.
      attr("backend_config", b.front() == '{' ? std::string(b) : detail::cat("\"", b, "\""));
    }
    ins.attributes = d_.arena.store_array(std::span<const HloAttribute>(attributes_));
    return absl::OkStatus();
  }

  // kind=, index=, dimensions= (printed for the ops whose text always has it).
  void array_attributes(const InstructionFields& i, const HloInstruction& ins) {
    if (!i.fusion_kind.empty()) attr("kind", std::string(i.fusion_kind));
    const HloOpcode op = ins.opcode;
    if (op == HloOpcode::kGetTupleElement) attr("index", detail::cat(i.tuple_index));
    if (!i.dimensions.empty() || op == HloOpcode::kBroadcast || op == HloOpcode::kReduce ||
        op == HloOpcode::kTranspose || op == HloOpcode::kAllGather || op == HloOpcode::kReduceScatter)
      attr("dimensions", detail::format_int_list(i.dimensions));
  }

  // window=, dim_labels=, feature_group_count=, batch_group_count=.
  void window_and_convolution(const InstructionFields& i, const HloInstruction& ins) {
    if (!i.window.empty()) attr("window", detail::format_window(i.window));
    if (i.has_conv) {
      // Ranks: the operands' and result's (for a cudnn custom call the result is a tuple).
      const int out_rank = ins.shape.is_tuple() && !ins.shape.tuple_shapes.empty() ? ins.shape.tuple_shapes[0].rank()
                                                                                   : ins.shape.rank();
      const int spatial = static_cast<int>(i.conv.input_spatial.size()) + 2;
      attr("dim_labels", detail::format_dim_labels(i.conv, spatial, spatial, out_rank > 0 ? out_rank : spatial));
    }
    if (i.feature_group_count > 1) attr("feature_group_count", detail::cat(i.feature_group_count));
    if (i.batch_group_count > 1) attr("batch_group_count", detail::cat(i.batch_group_count));
  }

  // slice=, dynamic_slice_sizes=, padding=, the dot dims, fft_length=,
  // direction=, slice_sizes=.
  void more_array_attributes(const InstructionFields& i) {
    if (!i.slices.empty()) {
      std::string s = "{";
      for (std::size_t k = 0; k < i.slices.size(); ++k) {
        const auto& d = i.slices[k];
        s += detail::cat(k ? ", [" : "[", d[0], ":", d[1]);
        if (d[2] != 1) s += detail::cat(":", d[2]);
        s += "]";
      }
      attr("slice", s + "}");
    }
    if (!i.dynamic_slice_sizes.empty()) attr("dynamic_slice_sizes", detail::format_int_list(i.dynamic_slice_sizes));
    if (!i.padding.empty()) {
      std::string s;
      for (std::size_t k = 0; k < i.padding.size(); ++k) {
        const auto& d = i.padding[k];
        s += detail::cat(k ? "x" : "", d[0], "_", d[1]);
        if (d[2] != 0) s += detail::cat("_", d[2]);
      }
      attr("padding", s);
    }
    if (i.has_dot) {
      auto list = [&](const IntList& r, const char* key) {
        if (!r.empty()) attr(key, detail::format_int_list(r));
      };
      list(i.lhs_batch, "lhs_batch_dims");
      list(i.lhs_contracting, "lhs_contracting_dims");
      list(i.rhs_batch, "rhs_batch_dims");
      list(i.rhs_contracting, "rhs_contracting_dims");
    }
    if (!i.fft_length.empty()) attr("fft_length", detail::format_int_list(i.fft_length));
    if (!i.comparison_direction.empty()) attr("direction", std::string(i.comparison_direction));
    if (!i.gather_slice_sizes.empty()) attr("slice_sizes", detail::format_int_list(i.gather_slice_sizes));
  }

  // channel_id=, replica_groups= (mesh axes, iota, explicit, or {} for the
  // collectives whose text always has it), use_global_device_ids=,
  // source_target_pairs=. The mesh and iota lists are fields 93 and 92 of
  // today's XLA (a oneof with collective_device_list, 87, which held the
  // iota list as its field 2 before).
  void collective_attributes(const InstructionFields& i, const HloInstruction& ins) {
    const HloOpcode op = ins.opcode;
    if (i.channel_id > 0) attr("channel_id", detail::cat(i.channel_id));
    if (i.has_mesh) {
      attr("replica_groups", mesh_text(i.mesh));
    } else if (i.has_iota) {
      attr("replica_groups", iota_text(i.iota));
    } else if (i.has_device_list && i.has_list_iota) {
      attr("replica_groups", iota_text(i.list_iota));
    } else if (i.has_device_list && !i.list_group_starts.empty()) {
      attr("replica_groups", groups_text(i.list_groups, i.list_group_starts));
    } else if (!i.group_starts.empty()) {
      attr("replica_groups", groups_text(i.groups, i.group_starts));
    } else if (op == HloOpcode::kAllReduce || op == HloOpcode::kAllReduceStart || op == HloOpcode::kAllGather ||
               op == HloOpcode::kAllGatherStart || op == HloOpcode::kReduceScatter || op == HloOpcode::kAllToAll ||
               ins.wrapped_opcode == HloOpcode::kReduceScatter || ins.wrapped_opcode == HloOpcode::kAllToAll) {
      attr("replica_groups", "{}");
    }
    if (i.use_global_device_ids) attr("use_global_device_ids", "true");
    if (!i.source_target_pairs.empty()) {
      std::string s = "{";
      for (std::size_t k = 0; k < i.source_target_pairs.size(); ++k)
        s += detail::cat(k ? ",{" : "{", i.source_target_pairs[k].first, ",", i.source_target_pairs[k].second, "}");
      attr("source_target_pairs", s + "}");
    }
  }

  // custom_call_target= and the flags and small fields HLO prints when set.
  void flag_attributes(const InstructionFields& i) {
    if (!i.custom_call_target.empty()) attr("custom_call_target", detail::cat("\"", i.custom_call_target, "\""));
    if (i.is_host_transfer) attr("is_host_transfer", "true");
    if (i.k > 0) attr("k", detail::cat(i.k));
    if (i.largest) attr("largest", "true");
    if (i.is_stable) attr("is_stable", "true");
    if (i.custom_call_has_side_effect) attr("custom_call_has_side_effect", "true");
    if (i.exponent_bits > 0 || i.mantissa_bits > 0) {
      attr("exponent_bits", detail::cat(i.exponent_bits));
      attr("mantissa_bits", detail::cat(i.mantissa_bits));
    }
    if (!i.async_execution_thread.empty())
      attr("async_execution_thread", detail::cat("\"", i.async_execution_thread, "\""));
  }

  // Called computations, under the role HLO text prints them with.
  void called_computations(const InstructionFields& i, HloOpcode op) {
    const IntList& called = i.called;
    if (called.empty()) return;
    if (op == HloOpcode::kWhile && called.size() == 2) {  // XLA stores {body, condition}
      attr("condition", computation_ref(called[1]));
      attr("body", computation_ref(called[0]));
    } else if (op == HloOpcode::kSelectAndScatter && called.size() == 2) {
      attr("select", computation_ref(called[0]));
      attr("scatter", computation_ref(called[1]));
    } else if (op == HloOpcode::kConditional || op == HloOpcode::kCustomCall || called.size() > 1) {
      std::string s = "{";
      for (std::size_t k = 0; k < called.size(); ++k) s += (k ? ", " : "") + computation_ref(called[k]);
      attr(op == HloOpcode::kConditional ? "branch_computations" : "called_computations", s + "}");
    } else if (op == HloOpcode::kFusion || op == HloOpcode::kAsyncStart) {
      attr("calls", computation_ref(called[0]));
    } else {
      attr("to_apply", computation_ref(called[0]));
    }
  }

  detail::HloModuleData& d_;
  Wire w_;
  std::string_view origin_;
  // Instruction names already in the module's arena; computation names as
  // views into the bytes being converted.
  absl::flat_hash_map<std::int64_t, std::string_view> name_by_id_;
  absl::flat_hash_map<std::int64_t, std::string_view> comp_name_by_id_;
  InstructionFields fields_;  // reused for every instruction
  std::vector<std::string_view> operand_names_;
  std::vector<HloAttribute> attributes_;
};

// The occurrences of the module in a well-formed message of type `m`: the
// message itself for a bare HloModuleProto, field 1 of an HloProto; and
// whether any of them has a computation.
bool find_module(const Wire& w, Span all, detail::HloMsg m, std::vector<Span>* module) {
  module->clear();
  if (m == detail::HloMsg::kModule) {
    module->push_back(all);
  } else {
    w.fields(all, [&](const WireField& f) {
      if (f.number == 1 && is_len(f)) module->push_back(span(f));
    });
  }
  bool any = false;
  for (Span s : *module)
    w.fields(s, [&](const WireField& f) { any = any || (f.number == 3 && is_len(f)); });
  return any;
}

}  // namespace

absl::StatusOr<HloModule> parse_hlo_proto(std::string_view bytes, std::string_view origin) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const Wire w(bytes);
  const Span all{0, bytes.size()};
  // An xla.HloProto wraps the module in field 1; a bare HloModuleProto has
  // its name there. Try the wrapper first and fall back to the bare module.
  detail::WireError as_proto, as_module;
  const bool proto_bad = detail::find_wire_error(p, 0, bytes.size(), detail::HloMsg::kHloProto, 0, &as_proto);
  std::vector<Span> module;
  if (proto_bad || !find_module(w, all, detail::HloMsg::kHloProto, &module)) {
    // Well-formed as an HloProto but without its field 1: no wrapper at all.
    const bool no_wrapper = !proto_bad && module.empty();
    const bool module_bad = detail::find_wire_error(p, 0, bytes.size(), detail::HloMsg::kModule, 0, &as_module);
    if (module_bad || !find_module(w, all, detail::HloMsg::kModule, &module)) {
      // When neither reading is well-formed protobuf, report the wire error
      // of the one that got further into the bytes; a bare module's error
      // when the bytes hold no wrapper.
      if (module_bad && (proto_bad || no_wrapper)) {
        const detail::WireError& e = proto_bad && as_proto.offset > as_module.offset ? as_proto : as_module;
        return absl::InvalidArgumentError(detail::cat(origin, ": byte ", e.offset, ": ", e.message));
      }
      return absl::InvalidArgumentError(
          detail::cat(origin, ": byte 0: not an HloProto or HloModuleProto (no computations found)"));
    }
  }
  auto data = std::make_unique<detail::HloModuleData>();
  data->config.origin = data->arena.store(origin);
  Converter conv(*data, bytes, origin);
  if (absl::Status s = conv.convert(module); !s.ok()) return s;
  absl::Status linked = detail::link_module(*data, [&](std::string_view, const std::string& message) {
    return absl::InvalidArgumentError(detail::cat(origin, ": ", message));
  });
  if (!linked.ok()) return linked;
  return HloModule(std::move(data));
}

}  // namespace roofline
