// The fields of one xla.HloInstructionProto, decoded into plain values
// (src/hlo/proto_fields.hpp): replica groups as iota lists, explicit lists
// or mesh axes, windows, convolution and dot dimensions, metadata.
#include <array>
#include <string>
#include <vector>

#include "src/hlo/proto_fields.hpp"

namespace roofline::detail::hlo_proto {
namespace {

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

}  // namespace

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

}  // namespace roofline::detail::hlo_proto
