// Binary HloProto / HloModuleProto into the same model as HLO text. The
// fields are rendered as the attribute text HLO prints (dimensions={1},
// window={...}, dim_labels=..., replica_groups=...), and link_module reads
// the typed attributes from that text, as for HLO text: one set of attribute
// readers serves both formats, so both give the same typed attributes.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/arena.h>

#include <algorithm>
#include <climits>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "hlo_subset.pb.h"
#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/hlo/reader.hpp"
#include "src/hlo/attributes.hpp"
#include "src/hlo/module_data.hpp"
#include "src/hlo/proto_wire_error.hpp"

namespace roofline {
namespace {

namespace pb = ::roofline::hlo;

// ---- conversion ----------------------------------------------------------

DType dtype_of(int primitive_type, bool* ok) {
  *ok = true;
  switch (primitive_type) {
    case 1: return DType::kPred;
    case 26: return DType::kS2;
    case 21: return DType::kS4;
    case 2: return DType::kS8;
    case 3: return DType::kS16;
    case 4: return DType::kS32;
    case 5: return DType::kS64;
    case 27: return DType::kU2;
    case 22: return DType::kU4;
    case 6: return DType::kU8;
    case 7: return DType::kU16;
    case 8: return DType::kU32;
    case 9: return DType::kU64;
    case 10: return DType::kF16;
    case 11: return DType::kF32;
    case 16: return DType::kBF16;
    case 12: return DType::kF64;
    case 19: return DType::kF8E5M2;
    case 28: return DType::kF8E4M3;
    case 20: return DType::kF8E4M3FN;
    case 23: return DType::kF8E4M3B11FNUZ;
    case 29: return DType::kF8E3M4;
    case 24: return DType::kF8E5M2FNUZ;
    case 25: return DType::kF8E4M3FNUZ;
    case 32: return DType::kF4E2M1FN;
    case 33: return DType::kF8E8M0FNU;
    case 15: return DType::kC64;
    case 18: return DType::kC128;
    default: *ok = false; return DType::kF32;
  }
}

class Converter {
 public:
  Converter(detail::HloModuleData& d, std::string_view origin) : d_(d), origin_(origin) {}

  absl::Status convert(const pb::HloModuleProto& m) {
    d_.config.name = store(m.name());
    stack_frames(m.stack_frame_index());
    for (const pb::HloComputationProto& c : m.computations()) {
      for (const pb::HloInstructionProto& i : c.instructions())
        if (!name_by_id_.emplace(i.id(), store(i.name())).second)
          return error(detail::cat("instruction id ", i.id(), " is used twice"));
    }
    for (const pb::HloComputationProto& c : m.computations()) comp_name_by_id_[c.id()] = c.name();
    d_.computations.reserve(static_cast<std::size_t>(m.computations_size()));
    bool found_entry = false;
    for (const pb::HloComputationProto& c : m.computations()) {
      HloComputation& comp = d_.computations.emplace_back();
      comp.name = store(c.name());
      comp.execution_thread = store(c.execution_thread());
      comp.instructions.reserve(static_cast<std::size_t>(c.instructions_size()));
      for (const pb::HloInstructionProto& i : c.instructions()) {
        HloInstruction& ins = comp.instructions.emplace_back();
        if (absl::Status s = instruction(i, ins); !s.ok()) return s;
        ins.is_root = i.id() == c.root_id();
      }
      const bool is_entry =
          (m.entry_computation_id() != 0 && c.id() == m.entry_computation_id()) ||
          (m.entry_computation_id() == 0 && !m.entry_computation_name().empty() && c.name() == m.entry_computation_name());
      if (is_entry && !found_entry) {
        d_.entry_index = d_.computations.size() - 1;
        found_entry = true;
      }
    }
    if (d_.computations.empty()) return error("the module has no computations");
    if (!found_entry) d_.entry_index = d_.computations.size() - 1;
    d_.computations[d_.entry_index].is_entry = true;
    return absl::OkStatus();
  }

 private:
  std::string_view store(const std::string& s) { return d_.arena.store(s); }
  void attr(std::string_view key, const std::string& value) {
    attributes_.push_back({key, d_.arena.store(value)});
  }
  absl::Status error(const std::string& message) const {
    return absl::InvalidArgumentError(detail::cat(origin_, ": ", message));
  }

  void stack_frames(const pb::StackFrameIndexProto& s) {
    for (const std::string& f : s.file_names()) d_.stack_frames.file_names.push_back(store(f));
    for (const std::string& f : s.function_names()) d_.stack_frames.function_names.push_back(store(f));
    for (const auto& l : s.file_locations()) d_.stack_frames.locations.push_back({l.file_name_id(), l.function_name_id(), l.line()});
    for (const auto& f : s.stack_frames()) d_.stack_frames.frames.push_back({f.file_location_id(), f.parent_frame_id()});
  }

  absl::Status shape(const pb::ShapeProto& p, Shape* s, const std::string& where, int depth) {
    if (depth > kMaxShapeRank) return error(where + ": shape nested too deep");
    switch (p.element_type()) {
      case 13:
        s->kind = ShapeKind::kTuple;
        break;
      case 14:
        s->kind = ShapeKind::kOpaque;
        s->element_type = DType::kToken;
        return absl::OkStatus();
      case 17:
        s->kind = ShapeKind::kToken;
        s->element_type = DType::kToken;
        return absl::OkStatus();
      case 34:
        s->kind = ShapeKind::kBuffer;
        break;
      default: {
        bool ok;
        s->element_type = dtype_of(p.element_type(), &ok);
        if (!ok) return error(detail::cat(where, ": unsupported element type ", p.element_type()));
      }
    }
    if (s->kind == ShapeKind::kTuple || s->kind == ShapeKind::kBuffer) {
      for (const pb::ShapeProto& e : p.tuple_shapes()) {
        s->tuple_shapes.emplace_back();
        ROOFLINE_RETURN_IF_ERROR(shape(e, &s->tuple_shapes.back(), where, depth + 1));
      }
      return absl::OkStatus();
    }
    if (p.dimensions_size() > kMaxShapeRank) return error(where + ": rank above 64");
    for (int i = 0; i < p.dimensions_size(); ++i) {
      const std::int64_t dim = p.dimensions(i);
      const bool dynamic = i < p.is_dynamic_dimension_size() && p.is_dynamic_dimension(i);
      if (dim < 0 && !dynamic) return error(detail::cat(where, ": negative dimension ", dim));
      if (dynamic) {
        s->dynamic_dims |= std::uint64_t{1} << i;
        if (dim < 0) s->unbounded_dims |= std::uint64_t{1} << i;
      }
      s->dims.push_back(dim < 0 ? 0 : dim);
    }
    if (!p.has_layout()) return absl::OkStatus();
    const pb::LayoutProto& l = p.layout();
    s->has_layout = true;
    Layout& out = s->layout;
    if (l.minor_to_major_size() != s->rank())
      return error(detail::cat(where, ": layout lists ", l.minor_to_major_size(), " dimensions of a rank-", s->rank(), " shape"));
    std::uint64_t seen = 0;
    for (std::int64_t m : l.minor_to_major()) {
      if (m < 0 || m >= s->rank() || (seen & (std::uint64_t{1} << m))) return error(where + ": layout is not a permutation");
      seen |= std::uint64_t{1} << m;
      out.minor_to_major.push_back(m);
    }
    if (l.tiles_size() > 8) return error(where + ": more than 8 levels of tiling");
    for (const pb::TileProto& t : l.tiles()) {
      Tile& tile = out.tiles.emplace_back();
      if (t.dimensions_size() > kMaxShapeRank) return error(where + ": tile of rank above 64");
      for (std::int64_t v : t.dimensions()) {
        if (v <= 0 && v != Tile::kCombine) return error(detail::cat(where, ": tile size ", v));
        tile.dims.push_back(v);
      }
    }
    if (l.element_size_in_bits() < 0 || l.element_size_in_bits() > 1024) return error(where + ": bad element size");
    out.element_size_in_bits = l.element_size_in_bits();
    out.memory_space = l.memory_space() < 0 ? 0 : l.memory_space();
    out.tail_padding_alignment_in_elements =
        l.tail_padding_alignment_in_elements() > 0 ? l.tail_padding_alignment_in_elements() : 1;
    out.dynamic_shape_metadata_prefix_bytes =
        l.dynamic_shape_metadata_prefix_bytes() > 0 ? l.dynamic_shape_metadata_prefix_bytes() : 0;
    return absl::OkStatus();
  }

  static std::string groups_text(const google::protobuf::RepeatedPtrField<pb::ReplicaGroup>& groups) {
    std::string s = "{";
    for (int g = 0; g < groups.size(); ++g) {
      s += g ? ",{" : "{";
      for (int i = 0; i < groups[g].replica_ids_size(); ++i) s += detail::cat(i ? "," : "", groups[g].replica_ids(i));
      s += "}";
    }
    return s + "}";
  }

  std::string computation_ref(std::int64_t id) {
    auto it = comp_name_by_id_.find(id);
    return it == comp_name_by_id_.end() ? detail::cat("%<missing computation ", id, ">") : detail::cat("%", it->second);
  }

  absl::Status instruction(const pb::HloInstructionProto& i, HloInstruction& ins) {
    const std::string where = detail::cat("instruction '", i.name(), "'");
    ins.name = name_by_id_.find(i.id())->second;  // filled for every instruction above
    ins.opcode_name = store(i.opcode());
    detail::classify_opcode(ins);
    ROOFLINE_RETURN_IF_ERROR(shape(i.shape(), &ins.shape, where, 0));
    operand_names_.clear();
    attributes_.clear();
    for (std::int64_t id : i.operand_ids()) {
      auto it = name_by_id_.find(id);
      if (it == name_by_id_.end()) return error(detail::cat(where, ": operand id ", id, " is not an instruction"));
      operand_names_.push_back(it->second);
    }
    ins.operand_names = d_.arena.store_array(std::span<const std::string_view>(operand_names_));
    if (ins.opcode == HloOpcode::kParameter) ins.parameter_number = i.parameter_number();
    const OpMetadata m{.op_type = store(i.metadata().op_type()),
                       .op_name = store(i.metadata().op_name()),
                       .source_file = store(i.metadata().source_file()),
                       .source_line = i.metadata().source_line(),
                       .stack_frame_id = i.metadata().stack_frame_id()};
    ins.metadata = m;

    // Attributes, in the spelling (and the order) HLO text uses.
    array_attributes(i, ins);
    window_and_convolution(i, ins);
    more_array_attributes(i);
    collective_attributes(i, ins);
    flag_attributes(i);
    called_computations(i, ins.opcode);
    if (!i.backend_config().empty()) {
      const std::string& b = i.backend_config();
      // JSON configs print raw ({...}); anything else as a quoted string.
      attr("backend_config", b.front() == '{' ? b : "\"" + b + "\"");
    }
    ins.attributes = d_.arena.store_array(std::span<const HloAttribute>(attributes_));
    return absl::OkStatus();
  }

  // kind=, index=, dimensions= (printed for the ops whose text always has it).
  void array_attributes(const pb::HloInstructionProto& i, const HloInstruction& ins) {
    if (!i.fusion_kind().empty()) attr("kind", i.fusion_kind());
    const HloOpcode op = ins.opcode;
    if (op == HloOpcode::kGetTupleElement) attr("index", detail::cat(i.tuple_index()));
    if (i.dimensions_size() > 0 || op == HloOpcode::kBroadcast || op == HloOpcode::kReduce ||
        op == HloOpcode::kTranspose || op == HloOpcode::kAllGather || op == HloOpcode::kReduceScatter) {
      detail::IntList v(i.dimensions().begin(), i.dimensions().end());
      attr("dimensions", detail::format_int_list(v));
    }
  }

  // window=, dim_labels=, feature_group_count=, batch_group_count=.
  void window_and_convolution(const pb::HloInstructionProto& i, const HloInstruction& ins) {
    if (i.window().dimensions_size() > 0) {
      std::vector<WindowDimension> w;
      for (const pb::WindowDimension& d : i.window().dimensions())
        w.push_back({.size = d.size(),
                     .stride = d.stride() > 0 ? d.stride() : 1,
                     .pad_low = d.padding_low(),
                     .pad_high = d.padding_high(),
                     .window_dilation = d.window_dilation() > 0 ? d.window_dilation() : 1,
                     .base_dilation = d.base_dilation() > 0 ? d.base_dilation() : 1,
                     .reversal = d.window_reversal()});
      attr("window", detail::format_window(w));
    }
    if (i.has_convolution_dimension_numbers()) {
      const pb::ConvolutionDimensionNumbers& c = i.convolution_dimension_numbers();
      detail::ConvDims cd{
          .input_batch = c.input_batch_dimension(),
          .input_feature = c.input_feature_dimension(),
          .input_spatial = {c.input_spatial_dimensions().begin(), c.input_spatial_dimensions().end()},
          .kernel_input_feature = c.kernel_input_feature_dimension(),
          .kernel_output_feature = c.kernel_output_feature_dimension(),
          .kernel_spatial = {c.kernel_spatial_dimensions().begin(), c.kernel_spatial_dimensions().end()},
          .output_batch = c.output_batch_dimension(),
          .output_feature = c.output_feature_dimension(),
          .output_spatial = {c.output_spatial_dimensions().begin(), c.output_spatial_dimensions().end()}};
      // Ranks: the operands' and result's (for a cudnn custom call the result is a tuple).
      const int out_rank = ins.shape.is_tuple() && !ins.shape.tuple_shapes.empty() ? ins.shape.tuple_shapes[0].rank()
                                                                                   : ins.shape.rank();
      const int spatial = static_cast<int>(cd.input_spatial.size()) + 2;
      attr("dim_labels", detail::format_dim_labels(cd, spatial, spatial, out_rank > 0 ? out_rank : spatial));
    }
    if (i.feature_group_count() > 1) attr("feature_group_count", detail::cat(i.feature_group_count()));
    if (i.batch_group_count() > 1) attr("batch_group_count", detail::cat(i.batch_group_count()));
  }

  // slice=, dynamic_slice_sizes=, padding=, the dot dims, fft_length=,
  // direction=, slice_sizes=.
  void more_array_attributes(const pb::HloInstructionProto& i) {
    if (i.slice_dimensions_size() > 0) {
      std::string s = "{";
      for (int k = 0; k < i.slice_dimensions_size(); ++k) {
        const auto& d = i.slice_dimensions(k);
        s += detail::cat(k ? ", [" : "[", d.start(), ":", d.limit());
        if (d.stride() != 1) s += detail::cat(":", d.stride());
        s += "]";
      }
      attr("slice", s + "}");
    }
    if (i.dynamic_slice_sizes_size() > 0)
      attr("dynamic_slice_sizes",
           detail::format_int_list({i.dynamic_slice_sizes().begin(), i.dynamic_slice_sizes().end()}));
    if (i.padding_config().dimensions_size() > 0) {
      std::string s;
      for (int k = 0; k < i.padding_config().dimensions_size(); ++k) {
        const auto& d = i.padding_config().dimensions(k);
        s += detail::cat(k ? "x" : "", d.edge_padding_low(), "_", d.edge_padding_high());
        if (d.interior_padding() != 0) s += detail::cat("_", d.interior_padding());
      }
      attr("padding", s);
    }
    if (i.has_dot_dimension_numbers()) {
      const pb::DotDimensionNumbers& dd = i.dot_dimension_numbers();
      auto list = [&](const google::protobuf::RepeatedField<std::int64_t>& r, const char* key) {
        if (r.size() > 0) attr(key, detail::format_int_list({r.begin(), r.end()}));
      };
      list(dd.lhs_batch_dimensions(), "lhs_batch_dims");
      list(dd.lhs_contracting_dimensions(), "lhs_contracting_dims");
      list(dd.rhs_batch_dimensions(), "rhs_batch_dims");
      list(dd.rhs_contracting_dimensions(), "rhs_contracting_dims");
    }
    if (i.fft_length_size() > 0)
      attr("fft_length", detail::format_int_list({i.fft_length().begin(), i.fft_length().end()}));
    if (!i.comparison_direction().empty()) attr("direction", i.comparison_direction());
    if (i.gather_slice_sizes_size() > 0)
      attr("slice_sizes", detail::format_int_list({i.gather_slice_sizes().begin(), i.gather_slice_sizes().end()}));
  }

  // channel_id=, replica_groups= (iota, explicit, or {} for the collectives
  // whose text always has it), use_global_device_ids=, source_target_pairs=.
  void collective_attributes(const pb::HloInstructionProto& i, const HloInstruction& ins) {
    const HloOpcode op = ins.opcode;
    if (i.channel_id() > 0) attr("channel_id", detail::cat(i.channel_id()));
    if (i.has_collective_device_list() && i.collective_device_list().has_iota_replica_group_list()) {
      const pb::IotaReplicaGroupListProto& g = i.collective_device_list().iota_replica_group_list();
      std::string s = detail::cat("[", g.num_replica_groups(), ",", g.num_devices_per_group(), "]<=[");
      for (int k = 0; k < g.iota_reshape_dims_size(); ++k) s += detail::cat(k ? "," : "", g.iota_reshape_dims(k));
      s += "]";
      if (g.iota_transpose_perm_size() > 0) {
        s += "T(";
        for (int k = 0; k < g.iota_transpose_perm_size(); ++k) s += detail::cat(k ? "," : "", g.iota_transpose_perm(k));
        s += ")";
      }
      attr("replica_groups", s);
    } else if (i.has_collective_device_list() && i.collective_device_list().replica_groups_size() > 0) {
      attr("replica_groups", groups_text(i.collective_device_list().replica_groups()));
    } else if (i.replica_groups_size() > 0) {
      attr("replica_groups", groups_text(i.replica_groups()));
    } else if (op == HloOpcode::kAllReduce || op == HloOpcode::kAllReduceStart || op == HloOpcode::kAllGather ||
               op == HloOpcode::kAllGatherStart || op == HloOpcode::kReduceScatter || op == HloOpcode::kAllToAll ||
               ins.wrapped_opcode == HloOpcode::kReduceScatter || ins.wrapped_opcode == HloOpcode::kAllToAll) {
      attr("replica_groups", "{}");
    }
    if (i.use_global_device_ids()) attr("use_global_device_ids", "true");
    if (i.source_target_pairs_size() > 0) {
      std::string s = "{";
      for (int k = 0; k < i.source_target_pairs_size(); ++k)
        s += detail::cat(k ? ",{" : "{", i.source_target_pairs(k).source(), ",", i.source_target_pairs(k).target(), "}");
      attr("source_target_pairs", s + "}");
    }
  }

  // custom_call_target= and the flags and small fields HLO prints when set.
  void flag_attributes(const pb::HloInstructionProto& i) {
    if (!i.custom_call_target().empty()) attr("custom_call_target", "\"" + i.custom_call_target() + "\"");
    if (i.is_host_transfer()) attr("is_host_transfer", "true");
    if (i.k() > 0) attr("k", detail::cat(i.k()));
    if (i.largest()) attr("largest", "true");
    if (i.is_stable()) attr("is_stable", "true");
    if (i.custom_call_has_side_effect()) attr("custom_call_has_side_effect", "true");
    if (i.exponent_bits() > 0 || i.mantissa_bits() > 0) {
      attr("exponent_bits", detail::cat(i.exponent_bits()));
      attr("mantissa_bits", detail::cat(i.mantissa_bits()));
    }
    if (!i.async_execution_thread().empty()) attr("async_execution_thread", "\"" + i.async_execution_thread() + "\"");
  }

  // Called computations, under the role HLO text prints them with.
  void called_computations(const pb::HloInstructionProto& i, HloOpcode op) {
    const auto& called = i.called_computation_ids();
    if (called.size() == 0) return;
    if (op == HloOpcode::kWhile && called.size() == 2) {  // XLA stores {body, condition}
      attr("condition", computation_ref(called[1]));
      attr("body", computation_ref(called[0]));
    } else if (op == HloOpcode::kSelectAndScatter && called.size() == 2) {
      attr("select", computation_ref(called[0]));
      attr("scatter", computation_ref(called[1]));
    } else if (op == HloOpcode::kConditional || op == HloOpcode::kCustomCall || called.size() > 1) {
      std::string s = "{";
      for (int k = 0; k < called.size(); ++k) s += (k ? ", " : "") + computation_ref(called[k]);
      attr(op == HloOpcode::kConditional ? "branch_computations" : "called_computations", s + "}");
    } else if (op == HloOpcode::kFusion || op == HloOpcode::kAsyncStart) {
      attr("calls", computation_ref(called[0]));
    } else {
      attr("to_apply", computation_ref(called[0]));
    }
  }

  detail::HloModuleData& d_;
  std::string_view origin_;
  // Instruction names already in the module's arena; computation names as
  // views into the proto being converted.
  absl::flat_hash_map<std::int64_t, std::string_view> name_by_id_;
  absl::flat_hash_map<std::int64_t, std::string_view> comp_name_by_id_;
  std::vector<std::string_view> operand_names_;
  std::vector<HloAttribute> attributes_;
};

}  // namespace

absl::StatusOr<HloModule> parse_hlo_proto(std::string_view bytes, std::string_view origin) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    return absl::InvalidArgumentError(detail::cat(origin, ": larger than 2 GiB, which libprotobuf cannot parse"));
  const int size = static_cast<int>(bytes.size());
  // The messages live in an arena: a module has hundreds of thousands of
  // small messages and strings, which malloc/free one by one would dominate.
  google::protobuf::ArenaOptions options;
  options.start_block_size = std::max<std::size_t>(4096, bytes.size() / 2);
  options.max_block_size = std::max<std::size_t>(options.start_block_size, 64u << 20);
  google::protobuf::Arena arena(options);
  auto* wrapped = google::protobuf::Arena::CreateMessage<pb::HloProto>(&arena);
  const pb::HloModuleProto* module = nullptr;
  // An xla.HloProto wraps the module in field 1; a bare HloModuleProto has
  // its name there. Try the wrapper first and fall back to the bare module.
  if (wrapped->ParseFromArray(bytes.data(), size) && wrapped->hlo_module().computations_size() > 0) {
    module = &wrapped->hlo_module();
  } else if (auto* bare = google::protobuf::Arena::CreateMessage<pb::HloModuleProto>(&arena);
             bare->ParseFromArray(bytes.data(), size) && bare->computations_size() > 0) {
    module = bare;
  } else {
    // When neither reading is well-formed protobuf, report the wire error of
    // the one that got further into the bytes.
    detail::WireError as_module, as_proto;
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    if (detail::find_wire_error(p, 0, bytes.size(), pb::HloModuleProto::descriptor(), 0, &as_module) &&
        detail::find_wire_error(p, 0, bytes.size(), pb::HloProto::descriptor(), 0, &as_proto)) {
      const detail::WireError& e = as_proto.offset > as_module.offset ? as_proto : as_module;
      return absl::InvalidArgumentError(detail::cat(origin, ": byte ", e.offset, ": ", e.message));
    }
    return absl::InvalidArgumentError(
        detail::cat(origin, ": byte 0: not an HloProto or HloModuleProto (no computations found)"));
  }
  auto data = std::make_unique<detail::HloModuleData>();
  data->config.origin = data->arena.store(origin);
  Converter conv(*data, origin);
  if (absl::Status s = conv.convert(*module); !s.ok()) return s;
  absl::Status linked = detail::link_module(*data, [&](std::string_view, const std::string& message) {
    return absl::InvalidArgumentError(detail::cat(origin, ": ", message));
  });
  if (!linked.ok()) return linked;
  return HloModule(std::move(data));
}

}  // namespace roofline
