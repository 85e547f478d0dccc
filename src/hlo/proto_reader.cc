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
// converted.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "roofline/hlo/reader.hpp"
#include "src/hlo/attributes.hpp"
#include "src/hlo/module_data.hpp"
#include "src/hlo/proto_wire_error.hpp"
#include "src/wire/proto_wire.hpp"

namespace roofline {
namespace {

using detail::IntList;
using detail::WireField;

struct Span {
  std::size_t begin = 0, end = 0;
};

// Reading fields of bytes find_wire_error has already walked.
class Wire {
 public:
  explicit Wire(std::string_view bytes) : p_(reinterpret_cast<const std::uint8_t*>(bytes.data())) {}

  template <class F>
  void fields(Span s, F f) const {
    std::size_t pos = s.begin;
    WireField w;
    while (pos < s.end && detail::read_wire_field(p_, pos, s.end, w) == detail::WireFault::kNone) f(w);
  }
  std::string_view str(const WireField& w) const {
    return {reinterpret_cast<const char*>(p_) + w.begin, w.end - w.begin};
  }
  // A repeated integer, one value or packed.
  void ints(const WireField& w, IntList* out) const {
    if (w.type == detail::kVarint) {
      out->push_back(static_cast<std::int64_t>(w.value));
    } else if (w.type == detail::kLen) {
      std::size_t q = w.begin;
      std::uint64_t v;
      while (q < w.end && detail::read_varint(p_, q, w.end, v)) out->push_back(static_cast<std::int64_t>(v));
    }
  }

 private:
  const std::uint8_t* p_;
};

// Scalars as libprotobuf reads them: a field of another wire type is an
// unknown field and leaves the value alone.
void set(const WireField& w, std::int64_t* v) {
  if (w.type == detail::kVarint) *v = static_cast<std::int64_t>(w.value);
}
void set(const WireField& w, std::int32_t* v) {
  if (w.type == detail::kVarint) *v = static_cast<std::int32_t>(static_cast<std::uint32_t>(w.value));
}
void set(const WireField& w, bool* v) {
  if (w.type == detail::kVarint) *v = w.value != 0;
}
bool is_len(const WireField& w) { return w.type == detail::kLen; }
Span span(const WireField& w) { return {w.begin, w.end}; }

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

// xla.IotaReplicaGroupListProto.
struct IotaList {
  std::int64_t num_replica_groups = 0, num_devices_per_group = 0;
  IntList reshape_dims, transpose_perm;
};

// xla.MeshAxesReplicaGroupListProto: the mesh (axes, device_ids or an iota
// transform) and the axes the groups span.
struct MeshAxesList {
  struct Axis {
    std::string_view name;
    std::int64_t size = 0;
  };
  struct AxisRef {
    std::int64_t index = 0, pre_size = 0, size = 0;
    bool sub_axis = false;
  };
  std::vector<Axis> axes;
  IntList device_ids, reshape_dims, transpose_perm;
  bool iota_transform = false;
  std::vector<AxisRef> refs;
};

// The fields of one xla.HloInstructionProto the reader uses. Message fields
// seen twice merge, as libprotobuf merges them.
struct InstructionFields {
  std::string_view name, opcode, fusion_kind, custom_call_target, backend_config, comparison_direction,
      async_execution_thread;
  std::vector<Span> shape;
  std::string_view op_type, op_name, source_file;
  std::int32_t source_line = 0, stack_frame_id = 0;
  std::int64_t parameter_number = 0, tuple_index = 0, feature_group_count = 0, batch_group_count = 0,
               channel_id = 0, id = 0, k = 0;
  std::int32_t exponent_bits = 0, mantissa_bits = 0;
  bool is_host_transfer = false, is_stable = false, custom_call_has_side_effect = false,
       use_global_device_ids = false, largest = false;
  IntList dimensions, dynamic_slice_sizes, fft_length, gather_slice_sizes, operand_ids, called;
  IntList literal_ints;  // literal (8): its s32s/s64s/u32s/u64s (4-7), for integer scalar constants
  std::vector<WindowDimension> window;
  bool has_conv = false;
  detail::ConvDims conv;
  std::vector<std::array<std::int64_t, 3>> slices, padding;
  bool has_dot = false;
  IntList lhs_contracting, rhs_contracting, lhs_batch, rhs_batch;
  IntList groups, group_starts;  // replica_groups (49), flattened
  std::vector<std::pair<std::int64_t, std::int64_t>> source_target_pairs;
  bool has_device_list = false;  // collective_device_list (87)
  IntList list_groups, list_group_starts;
  bool has_list_iota = false;  // its iota list (field 2, older XLA)
  IotaList list_iota;
  bool has_iota = false;  // iota_collective_device_list (92)
  IotaList iota;
  bool has_mesh = false;  // mesh_axes_replica_group_list (93)
  MeshAxesList mesh;

  void clear() { *this = InstructionFields{}; }
};

void read_iota(const Wire& w, Span s, IotaList* out) {
  w.fields(s, [&](const WireField& f) {
    switch (f.number) {
      case 1: set(f, &out->num_replica_groups); break;
      case 2: set(f, &out->num_devices_per_group); break;
      case 3: w.ints(f, &out->reshape_dims); break;
      case 4: {
        IntList v;
        w.ints(f, &v);
        for (std::int64_t x : v) out->transpose_perm.push_back(static_cast<std::int32_t>(x));  // int32 field
        break;
      }
      default: break;
    }
  });
}

void read_replica_group(const Wire& w, Span s, IntList* values, IntList* starts) {
  starts->push_back(static_cast<std::int64_t>(values->size()));
  w.fields(s, [&](const WireField& f) {
    if (f.number == 1) w.ints(f, values);
  });
}

void read_mesh_axes(const Wire& w, Span s, MeshAxesList* out) {
  w.fields(s, [&](const WireField& f) {
    if (f.number == 1 && is_len(f)) {  // MeshProto
      w.fields(span(f), [&](const WireField& m) {
        if (m.number == 1 && is_len(m)) {
          MeshAxesList::Axis& a = out->axes.emplace_back();
          w.fields(span(m), [&](const WireField& x) {
            if (x.number == 1 && is_len(x)) a.name = w.str(x);
            if (x.number == 2) set(x, &a.size);
          });
        } else if (m.number == 2) {
          w.ints(m, &out->device_ids);
        } else if (m.number == 3 && is_len(m)) {
          out->iota_transform = true;
          w.fields(span(m), [&](const WireField& x) {
            if (x.number == 1) w.ints(x, &out->reshape_dims);
            if (x.number == 2) w.ints(x, &out->transpose_perm);
          });
        }
      });
    } else if (f.number == 2 && is_len(f)) {  // AxisRefProto
      MeshAxesList::AxisRef& r = out->refs.emplace_back();
      w.fields(span(f), [&](const WireField& x) {
        if (x.number == 1) set(x, &r.index);
        if (x.number == 2 && is_len(x)) {
          r.sub_axis = true;
          w.fields(span(x), [&](const WireField& y) {
            if (y.number == 1) set(y, &r.pre_size);
            if (y.number == 2) set(y, &r.size);
          });
        }
      });
    }
  });
}

void read_instruction(const Wire& w, Span s, InstructionFields* i) {
  w.fields(s, [&](const WireField& f) {
    switch (f.number) {
      case 1: if (is_len(f)) i->name = w.str(f); break;
      case 2: if (is_len(f)) i->opcode = w.str(f); break;
      case 3: if (is_len(f)) i->shape.push_back(span(f)); break;
      case 7:
        if (is_len(f))
          w.fields(span(f), [&](const WireField& m) {
            switch (m.number) {
              case 1: if (is_len(m)) i->op_type = w.str(m); break;
              case 2: if (is_len(m)) i->op_name = w.str(m); break;
              case 3: if (is_len(m)) i->source_file = w.str(m); break;
              case 4: set(m, &i->source_line); break;
              case 15: set(m, &i->stack_frame_id); break;
              default: break;
            }
          });
        break;
      case 8:
        if (is_len(f))
          w.fields(span(f), [&](const WireField& x) {
            if (x.number >= 4 && x.number <= 7) w.ints(x, &i->literal_ints);
          });
        break;
      case 9: set(f, &i->parameter_number); break;
      case 11: if (is_len(f)) i->fusion_kind = w.str(f); break;
      case 13: set(f, &i->tuple_index); break;
      case 14: w.ints(f, &i->dimensions); break;
      case 15:
        if (is_len(f))
          w.fields(span(f), [&](const WireField& d) {
            if (d.number != 1 || !is_len(d)) return;
            std::int64_t size = 0, stride = 0, low = 0, high = 0, wd = 0, bd = 0;
            bool reversal = false;
            w.fields(span(d), [&](const WireField& x) {
              switch (x.number) {
                case 1: set(x, &size); break;
                case 2: set(x, &stride); break;
                case 3: set(x, &low); break;
                case 4: set(x, &high); break;
                case 5: set(x, &wd); break;
                case 6: set(x, &bd); break;
                case 7: set(x, &reversal); break;
                default: break;
              }
            });
            i->window.push_back({.size = size,
                                 .stride = stride > 0 ? stride : 1,
                                 .pad_low = low,
                                 .pad_high = high,
                                 .window_dilation = wd > 0 ? wd : 1,
                                 .base_dilation = bd > 0 ? bd : 1,
                                 .reversal = reversal});
          });
        break;
      case 16:
        if (!is_len(f)) break;
        i->has_conv = true;
        w.fields(span(f), [&](const WireField& x) {
          detail::ConvDims& c = i->conv;
          switch (x.number) {
            case 7: set(x, &c.input_batch); break;
            case 8: set(x, &c.input_feature); break;
            case 11: w.ints(x, &c.input_spatial); break;
            case 3: set(x, &c.kernel_input_feature); break;
            case 4: set(x, &c.kernel_output_feature); break;
            case 6: w.ints(x, &c.kernel_spatial); break;
            case 9: set(x, &c.output_batch); break;
            case 10: set(x, &c.output_feature); break;
            case 12: w.ints(x, &c.output_spatial); break;
            default: break;
          }
        });
        break;
      case 17:
      case 21:
        if (!is_len(f)) break;
        if (f.number == 17) {
          std::array<std::int64_t, 3>& v = i->slices.emplace_back();
          v = {0, 0, 0};
          w.fields(span(f), [&](const WireField& x) {
            if (x.number >= 1 && x.number <= 3) set(x, &v[x.number - 1]);
          });
        } else {
          w.fields(span(f), [&](const WireField& d) {
            if (d.number != 1 || !is_len(d)) return;
            std::array<std::int64_t, 3>& v = i->padding.emplace_back();
            v = {0, 0, 0};
            w.fields(span(d), [&](const WireField& x) {
              if (x.number >= 1 && x.number <= 3) set(x, &v[x.number - 1]);
            });
          });
        }
        break;
      case 18: set(f, &i->exponent_bits); break;
      case 19: set(f, &i->mantissa_bits); break;
      case 20: w.ints(f, &i->dynamic_slice_sizes); break;
      case 26: set(f, &i->channel_id); break;
      case 28: if (is_len(f)) i->custom_call_target = w.str(f); break;
      case 30:
        if (!is_len(f)) break;
        i->has_dot = true;
        w.fields(span(f), [&](const WireField& x) {
          switch (x.number) {
            case 1: w.ints(x, &i->lhs_contracting); break;
            case 2: w.ints(x, &i->rhs_contracting); break;
            case 3: w.ints(x, &i->lhs_batch); break;
            case 4: w.ints(x, &i->rhs_batch); break;
            default: break;
          }
        });
        break;
      case 32: w.ints(f, &i->fft_length); break;
      case 34: w.ints(f, &i->gather_slice_sizes); break;
      case 35: set(f, &i->id); break;
      case 36: w.ints(f, &i->operand_ids); break;
      case 38: w.ints(f, &i->called); break;
      case 43: if (is_len(f)) i->backend_config = w.str(f); break;
      case 47: set(f, &i->is_host_transfer); break;
      case 49: if (is_len(f)) read_replica_group(w, span(f), &i->groups, &i->group_starts); break;
      case 50: set(f, &i->feature_group_count); break;
      case 52:
        if (is_len(f)) {
          auto& p = i->source_target_pairs.emplace_back(0, 0);
          w.fields(span(f), [&](const WireField& x) {
            if (x.number == 1) set(x, &p.first);
            if (x.number == 2) set(x, &p.second);
          });
        }
        break;
      case 58: set(f, &i->batch_group_count); break;
      case 60: set(f, &i->is_stable); break;
      case 63: if (is_len(f)) i->comparison_direction = w.str(f); break;
      case 65: set(f, &i->custom_call_has_side_effect); break;
      case 71: set(f, &i->use_global_device_ids); break;
      case 79: if (is_len(f)) i->async_execution_thread = w.str(f); break;
      case 81: set(f, &i->k); break;
      case 85: set(f, &i->largest); break;
      case 87:
        if (!is_len(f)) break;
        i->has_device_list = true;
        w.fields(span(f), [&](const WireField& x) {
          if (x.number == 1 && is_len(x)) read_replica_group(w, span(x), &i->list_groups, &i->list_group_starts);
          if (x.number == 2 && is_len(x)) {
            i->has_list_iota = true;
            read_iota(w, span(x), &i->list_iota);
          }
        });
        break;
      case 92:
        if (!is_len(f)) break;
        i->has_iota = true;
        read_iota(w, span(f), &i->iota);
        break;
      case 93:
        if (!is_len(f)) break;
        i->has_mesh = true;
        read_mesh_axes(w, span(f), &i->mesh);
        break;
      default: break;
    }
  });
}

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

  absl::Status layout(const std::vector<Span>& spans, Shape* s, const std::string& where) {
    IntList minor_to_major;
    std::vector<Span> tiles;
    std::int64_t element_size_in_bits = 0, memory_space = 0, prefix_bytes = 0, tail_padding = 0;
    for (Span l : spans)
      w_.fields(l, [&](const WireField& f) {
        switch (f.number) {
          case 1: w_.ints(f, &minor_to_major); break;
          case 6: if (is_len(f)) tiles.push_back(span(f)); break;
          case 7: set(f, &element_size_in_bits); break;
          case 8: set(f, &memory_space); break;
          case 15: set(f, &prefix_bytes); break;
          case 16: set(f, &tail_padding); break;
          default: break;
        }
      });
    s->has_layout = true;
    Layout& out = s->layout;
    if (static_cast<int>(minor_to_major.size()) != s->rank())
      return error(detail::cat(where, ": layout lists ", minor_to_major.size(), " dimensions of a rank-", s->rank(),
                               " shape"));
    std::uint64_t seen = 0;
    for (std::int64_t m : minor_to_major) {
      if (m < 0 || m >= s->rank() || (seen & (std::uint64_t{1} << m))) return error(where + ": layout is not a permutation");
      seen |= std::uint64_t{1} << m;
      out.minor_to_major.push_back(m);
    }
    if (tiles.size() > 8) return error(where + ": more than 8 levels of tiling");
    for (Span t : tiles) {
      IntList dims;
      w_.fields(t, [&](const WireField& f) {
        if (f.number == 1) w_.ints(f, &dims);
      });
      Tile& tile = out.tiles.emplace_back();
      if (dims.size() > kMaxShapeRank) return error(where + ": tile of rank above 64");
      for (std::int64_t v : dims) {
        if (v <= 0 && v != Tile::kCombine) return error(detail::cat(where, ": tile size ", v));
        tile.dims.push_back(v);
      }
    }
    if (element_size_in_bits < 0 || element_size_in_bits > 1024) return error(where + ": bad element size");
    out.element_size_in_bits = element_size_in_bits;
    out.memory_space = memory_space < 0 ? 0 : memory_space;
    out.tail_padding_alignment_in_elements = tail_padding > 0 ? tail_padding : 1;
    out.dynamic_shape_metadata_prefix_bytes = prefix_bytes > 0 ? prefix_bytes : 0;
    return absl::OkStatus();
  }

  absl::Status shape(const std::vector<Span>& spans, Shape* s, const std::string& where, int depth) {
    if (depth > kMaxShapeRank) return error(where + ": shape nested too deep");
    std::int32_t element_type = 0;
    IntList dims, dynamic;
    std::vector<Span> tuple, layouts;
    for (Span p : spans)
      w_.fields(p, [&](const WireField& f) {
        switch (f.number) {
          case 2: set(f, &element_type); break;
          case 3: w_.ints(f, &dims); break;
          case 4: if (is_len(f)) tuple.push_back(span(f)); break;
          case 5: if (is_len(f)) layouts.push_back(span(f)); break;
          case 6: w_.ints(f, &dynamic); break;
          default: break;
        }
      });
    switch (element_type) {
      case 13: s->kind = ShapeKind::kTuple; break;
      case 14:
        s->kind = ShapeKind::kOpaque;
        s->element_type = DType::kToken;
        return absl::OkStatus();
      case 17:
        s->kind = ShapeKind::kToken;
        s->element_type = DType::kToken;
        return absl::OkStatus();
      case 34: s->kind = ShapeKind::kBuffer; break;
      default: {
        bool ok;
        s->element_type = dtype_of(element_type, &ok);
        if (!ok) return error(detail::cat(where, ": unsupported element type ", element_type));
      }
    }
    if (s->kind == ShapeKind::kTuple || s->kind == ShapeKind::kBuffer) {
      for (Span e : tuple) {
        s->tuple_shapes.emplace_back();
        ROOFLINE_RETURN_IF_ERROR(shape({e}, &s->tuple_shapes.back(), where, depth + 1));
      }
      return absl::OkStatus();
    }
    if (dims.size() > kMaxShapeRank) return error(where + ": rank above 64");
    for (std::size_t i = 0; i < dims.size(); ++i) {
      const std::int64_t dim = dims[i];
      const bool is_dynamic = i < dynamic.size() && dynamic[i] != 0;
      if (dim < 0 && !is_dynamic) return error(detail::cat(where, ": negative dimension ", dim));
      if (is_dynamic) {
        s->dynamic_dims |= std::uint64_t{1} << i;
        if (dim < 0) s->unbounded_dims |= std::uint64_t{1} << i;
      }
      s->dims.push_back(dim < 0 ? 0 : dim);
    }
    if (layouts.empty()) return absl::OkStatus();
    return layout(layouts, s, where);
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
    ROOFLINE_RETURN_IF_ERROR(shape(i.shape, &ins.shape, where, 0));
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
