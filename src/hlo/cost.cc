// One small handler per opcode family, each with its formula in plain sight
// (the shape of XLA's HloCostAnalysis, not its code). docs/hlo_cost.md lists
// every rule and where we depart from XLA.
#include "roofline/hlo/cost.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

#include "roofline/hlo/replica_groups.hpp"
#include "src/hlo/attributes.hpp"
#include "src/hlo/int_math.hpp"
#include "src/hlo/text_util.hpp"

namespace roofline {
namespace {

// Recursion through called computations is bounded: a malformed module
// could make a while body call itself.
constexpr int kMaxDepth = 64;

struct Arith;

// Per-call memo: a computation called from many places (or, in a malformed
// module, from itself) is costed once, so the work stays linear in the
// module's size whatever its call graph looks like.
struct Ctx {
  absl::flat_hash_map<const HloComputation*, HloCost> computation_cost;
  absl::flat_hash_map<const HloComputation*, std::unique_ptr<Arith>> computation_arith;
  absl::flat_hash_map<const HloInstruction*, double> fused_read;
  absl::flat_hash_set<const HloComputation*> in_progress;  // a cycle costs nothing more
};

// ---- shapes ---------------------------------------------------------------

double bytes_in_space(const Shape& s, bool host) {
  switch (s.kind) {
    case ShapeKind::kArray: {
      const bool in_host = s.memory_space() == kMemorySpaceHost;
      if (host ? in_host : s.memory_space() == kMemorySpaceDevice) return static_cast<double>(padded_bytes(s));
      return 0;
    }
    case ShapeKind::kTuple:
    case ShapeKind::kBuffer: {
      double n = 0;
      for (const Shape& e : s.tuple_shapes) n += bytes_in_space(e, host);
      return n;
    }
    default: return 0;
  }
}

double elements(const Shape& s) { return static_cast<double>(element_count(s)); }

const Shape& first_array(const Shape& s) {
  const Shape* p = &s;
  while ((p->is_tuple() || p->kind == ShapeKind::kBuffer) && !p->tuple_shapes.empty()) p = &p->tuple_shapes.front();
  return *p;
}

bool has_unbounded(const Shape& s) {
  if (s.unbounded_dims) return true;
  for (const Shape& e : s.tuple_shapes)
    if (has_unbounded(e)) return true;
  return false;
}

DType array_type(const Shape& s) {
  const Shape& a = first_array(s);
  return a.is_array() ? a.element_type : DType::kF32;
}

// ---- opcode families ------------------------------------------------------

bool is_transcendental(HloOpcode op) {
  switch (op) {  // XLA's list (HandleElementwiseOp)
    case HloOpcode::kExponential: case HloOpcode::kLog: case HloOpcode::kLogistic:
    case HloOpcode::kPower: case HloOpcode::kSqrt: case HloOpcode::kCbrt:
    case HloOpcode::kRsqrt: case HloOpcode::kTanh: case HloOpcode::kSine:
    case HloOpcode::kCosine: case HloOpcode::kExponentialMinusOne:
    case HloOpcode::kLogPlusOne: case HloOpcode::kAtan2:
      return true;
    default:
      return false;
  }
}

bool is_elementwise(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAbs: case HloOpcode::kAcos: case HloOpcode::kAcosh: case HloOpcode::kAdd:
    case HloOpcode::kAnd: case HloOpcode::kAsin: case HloOpcode::kAsinh: case HloOpcode::kAtan:
    case HloOpcode::kAtan2: case HloOpcode::kAtanh: case HloOpcode::kCbrt: case HloOpcode::kCeil:
    case HloOpcode::kClamp: case HloOpcode::kCompare: case HloOpcode::kComplex: case HloOpcode::kConvert:
    case HloOpcode::kCosine: case HloOpcode::kCosh: case HloOpcode::kCountLeadingZeros:
    case HloOpcode::kDivide: case HloOpcode::kErf: case HloOpcode::kExponential:
    case HloOpcode::kExponentialMinusOne: case HloOpcode::kFloor: case HloOpcode::kImag:
    case HloOpcode::kIsFinite: case HloOpcode::kLog: case HloOpcode::kLogPlusOne:
    case HloOpcode::kLogistic: case HloOpcode::kMaximum: case HloOpcode::kMinimum:
    case HloOpcode::kMulhi: case HloOpcode::kMultiply: case HloOpcode::kNegate: case HloOpcode::kNot:
    case HloOpcode::kOr: case HloOpcode::kPopcnt: case HloOpcode::kPower: case HloOpcode::kReal:
    case HloOpcode::kReducePrecision: case HloOpcode::kRemainder: case HloOpcode::kRoundNearestAfz:
    case HloOpcode::kRoundNearestEven: case HloOpcode::kRsqrt: case HloOpcode::kSelect:
    case HloOpcode::kShiftLeft: case HloOpcode::kShiftRightArithmetic: case HloOpcode::kShiftRightLogical:
    case HloOpcode::kSign: case HloOpcode::kSine: case HloOpcode::kSinh: case HloOpcode::kSqrt:
    case HloOpcode::kStochasticConvert: case HloOpcode::kSubtract: case HloOpcode::kTan:
    case HloOpcode::kTanh: case HloOpcode::kXor: case HloOpcode::kTupleSelect:
      return true;
    default:
      return false;
  }
}

// Ops that cost nothing: they forward buffers or only order other ops.
bool is_free(HloOpcode op) {
  switch (op) {
    case HloOpcode::kParameter: case HloOpcode::kConstant: case HloOpcode::kGetTupleElement:
    case HloOpcode::kBitcast: case HloOpcode::kTuple: case HloOpcode::kAfterAll:
    case HloOpcode::kAddDependency: case HloOpcode::kDomain: case HloOpcode::kOptBarrier:
    case HloOpcode::kPartitionId: case HloOpcode::kReplicaId: case HloOpcode::kGetDimensionSize:
    case HloOpcode::kTrace:
      return true;
    default:
      return false;
  }
}

// The -done / -update halves of async pairs: the -start carries the cost.
bool is_async_tail(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAsyncDone: case HloOpcode::kAsyncUpdate: case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone: case HloOpcode::kCollectivePermuteDone: case HloOpcode::kCopyDone:
    case HloOpcode::kSendDone: case HloOpcode::kRecvDone:
      return true;
    default:
      return false;
  }
}

bool is_collective(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAllReduce: case HloOpcode::kAllReduceStart: case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGather: case HloOpcode::kAllGatherStart: case HloOpcode::kAllGatherDone:
    case HloOpcode::kReduceScatter: case HloOpcode::kAllToAll: case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectivePermute: case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone: case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectiveReduce: case HloOpcode::kSend: case HloOpcode::kSendDone:
    case HloOpcode::kRecv: case HloOpcode::kRecvDone: case HloOpcode::kCrossReplicaSum:
      return true;
    default:
      return false;
  }
}

// ---- the view of an instruction a handler costs ---------------------------

// An instruction seen as the op that does the work: for async sugar
// (`reduce-scatter-start`) and the real -start ops, the wrapped op with its
// result taken out of the start's tuple.
struct View {
  const HloInstruction* ins;
  HloOpcode op;
  const Shape* out;
  absl::InlinedVector<const Shape*, 4> in;
};

View view_of(const HloInstruction& i) {
  View v{&i, i.opcode, &i.shape, {}};
  for (const HloInstruction* o : i.operands) v.in.push_back(&o->shape);
  const bool tuple2 = i.shape.is_tuple() && i.shape.tuple_shapes.size() >= 2;
  switch (i.opcode) {
    case HloOpcode::kAsyncStart:
      if (i.wrapped_opcode != HloOpcode::kUnknown) {
        v.op = i.wrapped_opcode;
        if (tuple2) v.out = &i.shape.tuple_shapes[1];
      }
      break;
    case HloOpcode::kAllReduceStart: v.op = HloOpcode::kAllReduce; break;
    case HloOpcode::kAllGatherStart:
      v.op = HloOpcode::kAllGather;
      if (tuple2) v.out = &i.shape.tuple_shapes[1];
      break;
    case HloOpcode::kCollectivePermuteStart:
      v.op = HloOpcode::kCollectivePermute;
      if (tuple2) v.out = &i.shape.tuple_shapes[1];
      break;
    case HloOpcode::kCrossReplicaSum: v.op = HloOpcode::kAllReduce; break;
    default: break;
  }
  return v;
}

void default_bytes(const View& v, HloCost* c) {
  for (const Shape* s : v.in) {
    c->bytes_read += hbm_bytes_of(*s);
    c->host_bytes += host_bytes_of(*s);
  }
  c->bytes_written += hbm_bytes_of(*v.out);
  c->host_bytes += host_bytes_of(*v.out);
}

// ---- arithmetic -------------------------------------------------------------

struct Arith {
  double flops = 0;
  double transcendentals = 0;
  HloCostFlags flags;
  bool has_dot = false;
  bool has_conv = false;
  DType dtype = DType::kF32;
};

Arith computation_arith(const HloComputation* comp, int depth, Ctx& ctx);
void arith_of(const View& v, int depth, Ctx& ctx, Arith* a);

double dot_flops(const View& v, DType* dtype) {
  if (v.in.size() < 2) return 0;
  const Shape& lhs = *v.in[0];
  detail::DotDims d;
  if (!detail::dot_dims_from_attributes(*v.ins, &d)) return 0;
  double reduction = 1;
  for (std::int64_t k : d.lhs_contracting)
    if (k >= 0 && k < lhs.rank()) reduction *= static_cast<double>(lhs.dims[static_cast<std::size_t>(k)]);
  *dtype = compute_dtype(lhs.element_type, v.in[1]->element_type);
  return 2 * elements(first_array(*v.out)) * reduction;
}

// XLA's GetConvolutionFlops: 2 x (input features / feature groups) x output
// features x (batch / batch groups) x the number of (kernel, output) position
// pairs that land inside the (dilated, padded) input, per spatial dimension.
bool conv_flops(const HloInstruction& ins, const Shape& lhs, const Shape& rhs, const Shape& out, double* flops) {
  detail::ConvDims d;
  if (!detail::parse_dim_labels(ins.attribute("dim_labels"), &d)) return false;
  std::vector<detail::WindowDim> window;
  if (const std::string_view w = ins.attribute("window"); !w.empty() && !detail::parse_window(w, &window)) return false;
  auto dim = [](const Shape& s, std::int64_t i) -> std::int64_t {
    return i >= 0 && i < s.rank() ? s.dims[static_cast<std::size_t>(i)] : 0;
  };
  const std::size_t spatial = d.input_spatial.size();
  if (window.size() != spatial) {
    if (!window.empty()) return false;
    window.assign(spatial, detail::WindowDim{});
  }
  std::int64_t fgc = 1, bgc = 1;
  if (const std::string_view g = ins.attribute("feature_group_count"); !g.empty() && !detail::parse_int(g, &fgc)) return false;
  if (const std::string_view g = ins.attribute("batch_group_count"); !g.empty() && !detail::parse_int(g, &bgc)) return false;
  if (fgc < 1 || bgc < 1) return false;
  double positions = 1;
  double budget = 1e7;  // pair checks; beyond it (absurd windows) count every pair
  for (std::size_t s = 0; s < spatial; ++s) {
    const std::int64_t in = dim(lhs, d.input_spatial[s]);
    const std::int64_t k = dim(rhs, d.kernel_spatial[s]);
    const std::int64_t o = dim(out, d.output_spatial[s]);
    const detail::WindowDim& w = window[s];
    // Count (kernel, output) index pairs whose input index is real (not a
    // dilation hole, not padding). O(k * o) per dimension, like XLA.
    double valid = 0;
    const double pairs = static_cast<double>(k) * static_cast<double>(o);
    if (pairs > budget) {
      valid = pairs;
    } else {
      budget -= pairs;
      for (std::int64_t ki = 0; ki < k; ++ki)
        for (std::int64_t oi = 0; oi < o; ++oi) {
          // 128-bit: strides and pads are whatever the module says.
          const detail::int128 undilated = static_cast<detail::int128>(oi) * w.stride - w.pad_low +
                                           static_cast<detail::int128>(ki) * w.window_dilation;
          if (undilated % w.base_dilation != 0) continue;
          const detail::int128 idx = undilated / w.base_dilation;
          if (undilated >= 0 && idx < in) valid += 1;
        }
    }
    positions *= valid;
  }
  const double in_features = static_cast<double>(dim(lhs, d.input_feature) / fgc);
  const double out_features = static_cast<double>(dim(out, d.output_feature));
  const double batch = static_cast<double>(dim(lhs, d.input_batch) / bgc);
  *flops = 2 * in_features * out_features * batch * positions;
  return true;
}

std::int64_t window_elements(const HloInstruction& ins) {
  std::vector<detail::WindowDim> w;
  if (!detail::parse_window(ins.attribute("window"), &w)) return 1;
  std::int64_t n = 1;
  for (const detail::WindowDim& d : w) n = detail::sat_mul(n, std::max<std::int64_t>(d.size, 0));
  return n;
}

void arith_of(const View& v, int depth, Ctx& ctx, Arith* a) {
  const HloInstruction& ins = *v.ins;
  const double out_elems = elements(first_array(*v.out));
  switch (v.op) {
    case HloOpcode::kDot: {
      DType t = a->dtype;
      a->flops += dot_flops(v, &t);
      if (!a->has_dot && !a->has_conv) a->dtype = t;
      a->has_dot = true;
      return;
    }
    case HloOpcode::kConvolution: {
      double f = 0;
      if (v.in.size() >= 2 && conv_flops(ins, *v.in[0], *v.in[1], first_array(*v.out), &f)) {
        a->flops += f;
      } else {
        a->flags.unknown_opcode = true;  // dimension numbers we could not read
      }
      if (!a->has_conv && v.in.size() >= 2) a->dtype = compute_dtype(v.in[0]->element_type, v.in[1]->element_type);
      a->has_conv = true;
      return;
    }
    case HloOpcode::kReduce: {
      const Arith sub = computation_arith(ins.called("to_apply"), depth + 1, ctx);
      const double count = v.in.empty() ? 0 : std::max(0.0, elements(first_array(*v.in[0])) - out_elems);
      a->flops += sub.flops * count;
      a->transcendentals += sub.transcendentals * count;
      a->flags |= sub.flags;
      return;
    }
    case HloOpcode::kReduceWindow: {
      const Arith sub = computation_arith(ins.called("to_apply"), depth + 1, ctx);
      const double count = static_cast<double>(std::max<std::int64_t>(window_elements(ins) - 1, 0)) * out_elems;
      a->flops += sub.flops * count;
      a->transcendentals += sub.transcendentals * count;
      a->flags |= sub.flags;
      return;
    }
    case HloOpcode::kMap: {
      const Arith sub = computation_arith(ins.called("to_apply"), depth + 1, ctx);
      a->flops += sub.flops * out_elems;
      a->transcendentals += sub.transcendentals * out_elems;
      return;
    }
    case HloOpcode::kSelectAndScatter: {
      const Arith sel = computation_arith(ins.called("select"), depth + 1, ctx);
      const Arith sca = computation_arith(ins.called("scatter"), depth + 1, ctx);
      const double source = v.in.size() > 1 ? elements(*v.in[1]) : 0;
      const double selects = source * static_cast<double>(std::max<std::int64_t>(window_elements(ins) - 1, 0));
      a->flops += sel.flops * selects + sca.flops * source;
      a->transcendentals += sel.transcendentals * selects + sca.transcendentals * source;
      return;
    }
    case HloOpcode::kScatter: {
      const Arith sub = computation_arith(ins.called("to_apply"), depth + 1, ctx);
      const std::size_t n = (v.in.size() - 1) / 2;  // operands..., indices, updates...
      const double updates = v.in.size() >= 3 ? elements(*v.in[n + 1]) : 0;
      a->flops += sub.flops * updates;
      a->transcendentals += sub.transcendentals * updates;
      return;
    }
    case HloOpcode::kSort: {
      const double n = v.in.empty() ? 0 : elements(*v.in[0]);
      a->flops += n > 1 ? n * std::ceil(std::log2(n)) : 0;
      return;
    }
    case HloOpcode::kFft: {
      detail::IntList lengths;
      detail::parse_int_list(ins.attribute("fft_length"), &lengths);
      double log_factors = 1;
      for (std::int64_t l : lengths) log_factors *= l > 0 ? std::floor(std::log2(static_cast<double>(l))) : 0;
      a->flops += 2 * 4 * log_factors * (v.in.empty() ? 0 : elements(first_array(*v.in[0])));
      return;
    }
    case HloOpcode::kRng:
    case HloOpcode::kRngBitGenerator:
    case HloOpcode::kRngUniform:
    case HloOpcode::kRngNormal:
      a->transcendentals += elements(*v.out);
      return;
    case HloOpcode::kTriangularSolve: {
      if (v.in.size() < 2 || v.in[0]->rank() == 0) return;
      a->flops += 2 * static_cast<double>(v.in[0]->dims.back()) * elements(*v.in[1]);
      return;
    }
    case HloOpcode::kCholesky: {
      if (v.in.empty() || v.in[0]->rank() == 0) return;
      a->flops += static_cast<double>(v.in[0]->dims.back()) * elements(*v.in[0]) / 3;
      return;
    }
    case HloOpcode::kAllReduce: {
      // XLA counts one add per result element ("assume 2 replicas").
      double n = 0;
      for (const Shape* s : {v.out}) n += elements(*s);
      a->flops += n;
      return;
    }
    case HloOpcode::kFusion: {
      const Arith sub = computation_arith(ins.called("calls"), depth + 1, ctx);
      a->flops += sub.flops;
      a->transcendentals += sub.transcendentals;
      a->flags |= sub.flags;
      if (sub.has_dot || sub.has_conv) {
        if (!a->has_dot && !a->has_conv) a->dtype = sub.dtype;
        a->has_dot |= sub.has_dot;
        a->has_conv |= sub.has_conv;
      }
      return;
    }
    case HloOpcode::kBatchNormGrad:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kUnknown:
      a->flags.unknown_opcode = true;
      return;
    default:
      break;
  }
  if (is_elementwise(v.op)) {
    if (is_transcendental(v.op)) a->transcendentals += out_elems;
    else a->flops += out_elems;
  }
}

Arith computation_arith(const HloComputation* comp, int depth, Ctx& ctx) {
  Arith a;
  if (comp == nullptr || depth > kMaxDepth || ctx.in_progress.contains(comp)) return a;
  if (auto it = ctx.computation_arith.find(comp); it != ctx.computation_arith.end()) return *it->second;
  ctx.in_progress.insert(comp);
  for (const HloInstruction& i : comp->instructions) arith_of(view_of(i), depth, ctx, &a);
  ctx.in_progress.erase(comp);
  ctx.computation_arith[comp] = std::make_unique<Arith>(a);
  return a;
}

// ---- fusion bytes (XLA's FusionParameterReadBytes) ---------------------------

double fused_read_bytes(const HloInstruction& p, int depth, Ctx& ctx);

double fused_read_bytes_of_users(const HloInstruction& p, int depth, Ctx& ctx) {
  double size = 0;
  bool seen_trivial = false;
  auto trivial = [&] {
    if (!seen_trivial) {
      seen_trivial = true;
      size += hbm_bytes_of(p.shape);
    }
  };
  for (const HloInstruction& user : p.parent->instructions) {
    bool uses = false;
    for (const HloInstruction* o : user.operands) uses |= o == &p;
    if (!uses) continue;
    switch (user.opcode) {
      case HloOpcode::kFusion: {
        const HloComputation* inner = user.called("calls");
        for (std::size_t k = 0; k < user.operands.size(); ++k) {
          if (user.operands[k] != &p) continue;
          const HloInstruction* param = inner ? inner->parameter(static_cast<std::int64_t>(k)) : nullptr;
          size += param ? fused_read_bytes(*param, depth + 1, ctx) : hbm_bytes_of(p.shape);
        }
        break;
      }
      case HloOpcode::kSlice:
        size += hbm_bytes_of(user.shape);
        break;
      case HloOpcode::kDynamicSlice:
        if (user.operands.front() == &p) size += hbm_bytes_of(user.shape);
        else trivial();
        break;
      case HloOpcode::kDynamicUpdateSlice:
        if (user.operands.front() != &p) trivial();  // operand 0 is aliased to the output
        break;
      case HloOpcode::kBroadcast:
      case HloOpcode::kReshape:
        size += hbm_bytes_of(p.shape);
        break;
      case HloOpcode::kGetTupleElement:
        size += fused_read_bytes(user, depth + 1, ctx);
        break;
      default:
        trivial();  // other readers share one read from memory
    }
  }
  return size;
}

double fused_read_bytes(const HloInstruction& p, int depth, Ctx& ctx) {
  if (depth > kMaxDepth) return hbm_bytes_of(p.shape);
  if (auto it = ctx.fused_read.find(&p); it != ctx.fused_read.end()) return it->second;
  // Seeded with the whole shape so a cycle through this instruction ends
  // at an upper bound instead of recursing.
  ctx.fused_read[&p] = hbm_bytes_of(p.shape);
  double size = fused_read_bytes_of_users(p, depth, ctx);
  // A parameter that is its computation's root (the operand blocks of a
  // Triton GEMM fusion) is read to be produced, though nothing in the
  // computation uses it. XLA's base analysis counts 0 here.
  if (p.is_root && size == 0) size = hbm_bytes_of(p.shape);
  ctx.fused_read[&p] = size;
  return size;
}

void fusion_bytes(const HloInstruction& fusion, Ctx& ctx, HloCost* c) {
  const HloComputation* body = fusion.called("calls");
  if (body == nullptr || body->root == nullptr) {
    default_bytes(view_of(fusion), c);
    return;
  }
  for (const HloInstruction& i : body->instructions) {
    if (i.opcode == HloOpcode::kParameter) c->bytes_read += fused_read_bytes(i, 0, ctx);
    // Constants with more than one element live in memory and are read.
    if (i.opcode == HloOpcode::kConstant && element_count(i.shape) > 1) c->bytes_read += hbm_bytes_of(i.shape);
  }
  const HloInstruction& root = *body->root;
  auto written = [](const HloInstruction& r, const Shape& s) {
    // A dynamic-update-slice writes only its update in place.
    if (r.opcode == HloOpcode::kDynamicUpdateSlice && r.operands.size() > 1) return hbm_bytes_of(r.operands[1]->shape);
    return hbm_bytes_of(s);
  };
  if (fusion.shape.is_tuple() && root.opcode == HloOpcode::kTuple) {
    for (std::size_t k = 0; k < fusion.shape.tuple_shapes.size(); ++k)
      c->bytes_written += k < root.operands.size() ? written(*root.operands[k], fusion.shape.tuple_shapes[k])
                                                   : hbm_bytes_of(fusion.shape.tuple_shapes[k]);
  } else {
    c->bytes_written += written(root, fusion.shape);
  }
  c->host_bytes += host_bytes_of(fusion.shape);
}

HloCategory fusion_category(const HloInstruction& fusion, const Arith& a) {
  if (a.has_conv) return HloCategory::kConvolution;
  if (a.has_dot) return HloCategory::kMatmul;
  const std::string_view kind = fusion.attribute("kind");
  if (kind == "kInput") return HloCategory::kInputFusion;
  if (kind == "kOutput") return HloCategory::kOutputFusion;
  if (kind == "kCustom") return HloCategory::kCustomFusion;
  return HloCategory::kLoopFusion;
}

// ---- transposes that are bitcasts -----------------------------------------

bool transpose_is_bitcast(const HloInstruction& t) {
  if (t.operands.size() != 1) return false;
  const Shape& in = t.operands[0]->shape;
  const Shape& out = t.shape;
  if (!in.has_layout || !out.has_layout || in.rank() != out.rank() || in.layout.tiles != out.layout.tiles) return false;
  detail::IntList perm;
  if (!detail::parse_int_list(t.attribute("dimensions"), &perm) || static_cast<int>(perm.size()) != out.rank()) return false;
  for (int k = 0; k < out.rank(); ++k) {
    const std::int64_t out_dim = out.layout.minor_to_major[static_cast<std::size_t>(k)];
    const std::int64_t p = perm[static_cast<std::size_t>(out_dim)];
    if (p != in.layout.minor_to_major[static_cast<std::size_t>(k)]) return false;
  }
  return true;
}

// ---- collectives ------------------------------------------------------------

// Devices per group: explicit or iota replica_groups, or, for `{}` (all
// devices), the module's replica count / partition count by XLA's group
// modes (channel_id set: partitions; else replicas).
void collective_group(const HloInstruction& ins, HloCollective* c, HloCostFlags* flags) {
  const HloModuleConfig* m = ins.parent ? ins.parent->module : nullptr;
  const std::int64_t replicas = m ? m->replica_count : 1;
  const std::int64_t partitions = m ? m->num_partitions : 1;
  const std::string_view text = ins.attribute("replica_groups");
  std::int64_t channel = 0;
  const bool has_channel = detail::parse_int(ins.attribute("channel_id"), &channel) && channel > 0;
  const bool global_ids = ins.attribute("use_global_device_ids") == "true";
  auto all = [&]() -> std::int64_t {
    if (!has_channel) return replicas;
    if (global_ids) return detail::sat_mul(replicas, partitions);
    return partitions;
  };
  if (text.empty()) {
    c->group_size = all();
    c->num_groups = 1;
    return;
  }
  auto groups = parse_replica_groups(text);
  if (!groups.ok()) {
    flags->collective_not_timed = true;
    return;
  }
  c->num_groups = groups->num_groups;
  c->group_size = groups->all_devices ? all() : groups->group_size;
}

void permute_group(const HloInstruction& ins, HloCollective* c, HloCostFlags* flags) {
  auto pairs = parse_int_lists(ins.attribute("source_target_pairs"));
  if (!pairs.ok()) {
    flags->collective_not_timed = true;
    return;
  }
  std::vector<std::int64_t> devices;
  for (const auto& p : *pairs)
    for (std::int64_t d : p) devices.push_back(d);
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  c->group_size = static_cast<std::int64_t>(devices.size());
  c->num_groups = 1;
  // The shift of the first pair, in positions among the participants.
  for (const auto& p : *pairs) {
    if (p.size() != 2 || p[0] == p[1]) continue;
    auto pos = [&](std::int64_t d) { return std::lower_bound(devices.begin(), devices.end(), d) - devices.begin(); };
    const auto n = static_cast<std::int64_t>(devices.size());
    c->permute_shift = static_cast<int>(((pos(p[1]) - pos(p[0])) % n + n) % n);
    break;
  }
}

void collective_cost(const View& v, HloCost* c) {
  const HloInstruction& ins = *v.ins;
  c->category = HloCategory::kCollective;
  c->dtype = array_type(*v.out);
  default_bytes(v, c);
  double in_bytes = 0;
  for (const Shape* s : v.in) in_bytes += static_cast<double>(padded_bytes(*s));
  HloCollective col;
  switch (v.op) {
    case HloOpcode::kAllReduce:
      col.kind = CollectiveKind::kAllReduce;
      col.array_bytes = in_bytes;
      c->flops = elements(*v.out);  // XLA: one add per result element
      collective_group(ins, &col, &c->flags);
      break;
    case HloOpcode::kAllGather:
      col.kind = CollectiveKind::kAllGather;
      col.array_bytes = static_cast<double>(padded_bytes(*v.out));
      collective_group(ins, &col, &c->flags);
      break;
    case HloOpcode::kReduceScatter:
      col.kind = CollectiveKind::kReduceScatter;
      col.array_bytes = in_bytes;
      collective_group(ins, &col, &c->flags);
      break;
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
      col.kind = CollectiveKind::kAllToAll;
      collective_group(ins, &col, &c->flags);
      // Each device holds V/X: the whole array is X times what it sends.
      col.array_bytes = (v.op == HloOpcode::kRaggedAllToAll && !v.in.empty() ? static_cast<double>(padded_bytes(*v.in[0]))
                                                                               : in_bytes) *
                        static_cast<double>(std::max<std::int64_t>(col.group_size, 1));
      break;
    case HloOpcode::kCollectivePermute:
      col.kind = CollectiveKind::kPermute;
      permute_group(ins, &col, &c->flags);
      col.array_bytes = (v.in.empty() ? 0 : static_cast<double>(padded_bytes(*v.in[0]))) *
                        static_cast<double>(std::max<std::int64_t>(col.group_size, 1));
      break;
    default:
      // send/recv, collective-broadcast: bytes only, no network model.
      if (ins.attribute("is_host_transfer") == "true") {
        c->host_bytes += v.op == HloOpcode::kSend && !v.in.empty() ? hbm_bytes_of(*v.in[0]) : hbm_bytes_of(first_array(*v.out));
      } else {
        c->flags.collective_not_timed = true;
      }
      return;
  }
  c->collective = col;
}

// ---- custom calls ------------------------------------------------------------

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view call_target(const HloInstruction& ins) {
  std::string_view t = ins.attribute("custom_call_target");
  if (t.size() >= 2 && t.front() == '"') t = t.substr(1, t.size() - 2);
  return t;
}

bool is_gemm_target(std::string_view t) {
  return starts_with(t, "__cublas$gemm") || starts_with(t, "__cublas$lt$matmul") || starts_with(t, "__rocblas$gemm") ||
         starts_with(t, "__hipblaslt$matmul");
}

bool is_conv_target(std::string_view t) { return starts_with(t, "__cudnn$conv") || starts_with(t, "__miopen$conv"); }

// Targets that only annotate (sharding, host offload placement) and run no kernel.
bool is_annotation_target(std::string_view t) {
  return t == "Sharding" || t == "SPMDFullToShardShape" || t == "SPMDShardToFullShape" || t == "MoveToHost" ||
         t == "MoveToDevice" || t == "AllocateBuffer" || t == "annotate_device_placement" || t == "LayoutConstraint" ||
         t == "ShardBarrierFrom" || t == "ShardBarrierTo";
}

// The library call's real result: element 0 of its tuple, without the
// trailing s8/u8 workspace buffer (scratch the library may not even touch).
double library_written_bytes(const Shape& s) {
  if (!s.is_tuple()) return hbm_bytes_of(s);
  double b = 0;
  for (std::size_t k = 0; k < s.tuple_shapes.size(); ++k) {
    const Shape& e = s.tuple_shapes[k];
    const bool workspace = k + 1 == s.tuple_shapes.size() && k > 0 && e.is_array() && e.rank() == 1 &&
                           (e.element_type == DType::kS8 || e.element_type == DType::kU8);
    if (!workspace) b += hbm_bytes_of(e);
  }
  return b;
}

void custom_call_cost(const View& v, HloCost* c) {
  const HloInstruction& ins = *v.ins;
  const std::string_view target = call_target(ins);
  if (is_annotation_target(target)) {
    c->category = HloCategory::kControl;
    return;
  }
  const Shape& result = first_array(*v.out);
  c->dtype = result.is_array() ? result.element_type : DType::kF32;
  if (is_gemm_target(target) && v.in.size() >= 2) {
    c->category = HloCategory::kMatmul;
    for (const Shape* s : v.in) c->bytes_read += hbm_bytes_of(*s);
    c->bytes_written += library_written_bytes(*v.out);
    detail::DotDims d;
    bool have = false;
    if (auto j = detail::backend_config_json(ins)) {
      const nlohmann::json* g = j->contains("gemm_backend_config") ? &(*j)["gemm_backend_config"] : &*j;
      if (g->is_object() && g->contains("dot_dimension_numbers"))
        have = detail::dot_dims_from_json((*g)["dot_dimension_numbers"], &d);
    }
    if (!have) have = detail::dot_dims_from_attributes(ins, &d) && !d.lhs_contracting.empty();
    if (!have) {
      c->flags.unknown_custom_call = true;
      return;
    }
    double reduction = 1;
    for (std::int64_t k : d.lhs_contracting)
      if (k >= 0 && k < v.in[0]->rank()) reduction *= static_cast<double>(v.in[0]->dims[static_cast<std::size_t>(k)]);
    c->flops = 2 * elements(result) * reduction;
    c->dtype = compute_dtype(v.in[0]->element_type, v.in[1]->element_type);
    return;
  }
  if (is_conv_target(target) && v.in.size() >= 2) {
    c->category = HloCategory::kConvolution;
    for (const Shape* s : v.in) c->bytes_read += hbm_bytes_of(*s);
    c->bytes_written += library_written_bytes(*v.out);
    // The window and dim_labels describe the forward convolution; the
    // backward kinds compute the same products with the roles swapped.
    const Shape *lhs = v.in[0], *rhs = v.in[1], *out = &result;
    if (target.find("BackwardInput") != std::string_view::npos) {
      lhs = &result;
      out = v.in[0];
    } else if (target.find("BackwardFilter") != std::string_view::npos) {
      rhs = &result;
      out = v.in[1];
    }
    double f = 0;
    if (!conv_flops(ins, *lhs, *rhs, *out, &f)) {
      c->flags.unknown_custom_call = true;
      return;
    }
    c->flops = f;
    c->dtype = compute_dtype(v.in[0]->element_type, v.in[1]->element_type);
    return;
  }
  c->category = HloCategory::kCustomCall;
  if (target == "__cub$DeviceRadixSort") {
    const double n = v.in.empty() ? 0 : elements(*v.in[0]);
    c->flops = n > 1 ? n * std::ceil(std::log2(n)) : 0;
    default_bytes(v, c);
    return;
  }
  // Unknown kernel (Pallas/Mosaic, Triton custom calls, user FFI): it reads
  // its operands and writes its results at least; its FLOPs are unknown.
  default_bytes(v, c);
  c->flags.unknown_custom_call = true;
}

// ---- control flow ------------------------------------------------------------

HloCost cost_at(const HloInstruction& i, int depth, Ctx& ctx);

HloCost computation_cost(const HloComputation* comp, int depth, Ctx& ctx) {
  HloCost total;
  total.category = HloCategory::kControl;
  if (comp == nullptr || depth > kMaxDepth || ctx.in_progress.contains(comp)) return total;
  if (auto it = ctx.computation_cost.find(comp); it != ctx.computation_cost.end()) return it->second;
  ctx.in_progress.insert(comp);
  for (const HloInstruction& i : comp->instructions) {
    const HloCost c = cost_at(i, depth + 1, ctx);
    total.flops += c.flops;
    total.transcendentals += c.transcendentals;
    total.bytes_read += c.bytes_read;
    total.bytes_written += c.bytes_written;
    total.host_bytes += c.host_bytes;
    total.flags |= c.flags;
  }
  ctx.in_progress.erase(comp);
  ctx.computation_cost[comp] = total;
  return total;
}

void add_scaled(HloCost* to, const HloCost& c, double k) {
  to->flops += c.flops * k;
  to->transcendentals += c.transcendentals * k;
  to->bytes_read += c.bytes_read * k;
  to->bytes_written += c.bytes_written * k;
  to->host_bytes += c.host_bytes * k;
  to->flags |= c.flags;
}

HloCost cost_at(const HloInstruction& i, int depth, Ctx& ctx) {
  HloCost c;
  c.dtype = array_type(i.shape);
  if (depth > kMaxDepth) return c;
  const View v = view_of(i);
  bool unbounded = has_unbounded(i.shape);
  for (const Shape* s : v.in) unbounded |= has_unbounded(*s);
  c.flags.unbounded_dynamic_shape = unbounded;

  if (is_free(i.opcode)) {
    c.category = i.opcode == HloOpcode::kConstant || i.opcode == HloOpcode::kBitcast ? HloCategory::kDataMovement
                                                                                      : HloCategory::kControl;
    return c;
  }
  if (is_async_tail(i.opcode)) {
    c.category = is_collective(i.opcode) || is_collective(i.wrapped_opcode) ? HloCategory::kCollective
                                                                             : HloCategory::kDataMovement;
    return c;
  }
  switch (i.opcode) {
    case HloOpcode::kWhile: {
      const std::optional<std::int64_t> trip = known_trip_count(i);
      c.category = HloCategory::kControl;
      c.trip_count = trip ? *trip : 1;
      c.flags.trip_count_unknown = !trip.has_value();
      const double n = static_cast<double>(c.trip_count);
      // The body runs n times, the condition once more to stop.
      add_scaled(&c, computation_cost(i.called("body"), depth, ctx), n);
      add_scaled(&c, computation_cost(i.called("condition"), depth, ctx), n + 1);
      return c;
    }
    case HloOpcode::kCall:
      add_scaled(&c, computation_cost(i.called("to_apply"), depth, ctx), 1);
      c.category = HloCategory::kControl;
      return c;
    case HloOpcode::kConditional: {
      c.category = HloCategory::kControl;
      c.flags.conditional_max = true;
      for (const CalledComputation& b : i.called_computations) {
        const HloCost bc = computation_cost(b.computation, depth, ctx);
        c.flops = std::max(c.flops, bc.flops);
        c.transcendentals = std::max(c.transcendentals, bc.transcendentals);
        c.bytes_read = std::max(c.bytes_read, bc.bytes_read);
        c.bytes_written = std::max(c.bytes_written, bc.bytes_written);
        c.host_bytes = std::max(c.host_bytes, bc.host_bytes);
        c.flags |= bc.flags;
      }
      return c;
    }
    case HloOpcode::kAsyncStart:
      if (const HloComputation* wrapped = i.called("calls")) {
        // The async wrapper runs its computation's root op.
        if (wrapped->root != nullptr) {
          HloCost inner = cost_at(*wrapped->root, depth + 1, ctx);
          return inner;
        }
        return c;
      }
      break;
    case HloOpcode::kFusion: {
      Arith a;
      arith_of(v, depth, ctx, &a);
      c.flops = a.flops;
      c.transcendentals = a.transcendentals;
      c.flags |= a.flags;
      c.category = fusion_category(i, a);
      if (a.has_dot || a.has_conv) c.dtype = a.dtype;
      fusion_bytes(i, ctx, &c);
      return c;
    }
    case HloOpcode::kCustomCall:
      custom_call_cost(v, &c);
      return c;
    case HloOpcode::kCopyStart: {
      // An async copy between memory spaces (TPU host offload, prefetch):
      // reads the source where it lives, writes the destination (element 0).
      const Shape& dst = i.shape.is_tuple() && !i.shape.tuple_shapes.empty() ? i.shape.tuple_shapes[0] : i.shape;
      c.category = HloCategory::kDataMovement;
      for (const Shape* s : v.in) {
        c.bytes_read += hbm_bytes_of(*s);
        c.host_bytes += host_bytes_of(*s);
      }
      c.bytes_written += hbm_bytes_of(dst);
      c.host_bytes += host_bytes_of(dst);
      return c;
    }
    case HloOpcode::kInfeed:
    case HloOpcode::kOutfeed: {
      c.category = HloCategory::kDataMovement;
      const double b = i.opcode == HloOpcode::kInfeed ? hbm_bytes_of(i.shape) : (v.in.empty() ? 0 : hbm_bytes_of(*v.in[0]));
      (i.opcode == HloOpcode::kInfeed ? c.bytes_written : c.bytes_read) = b;
      c.host_bytes = b;
      return c;
    }
    default:
      break;
  }

  if (is_collective(v.op)) {
    collective_cost(v, &c);
    return c;
  }

  Arith a;
  a.dtype = c.dtype;
  arith_of(v, depth, ctx, &a);
  c.flops = a.flops;
  c.transcendentals = a.transcendentals;
  c.flags |= a.flags;
  if (a.has_dot || a.has_conv) c.dtype = a.dtype;
  if ((v.op == HloOpcode::kCompare || v.op == HloOpcode::kConvert || v.op == HloOpcode::kIsFinite) && !v.in.empty())
    c.dtype = array_type(*v.in[0]);

  // Bytes.
  switch (v.op) {
    case HloOpcode::kSlice:
      c.bytes_read = hbm_bytes_of(*v.out);
      c.bytes_written = hbm_bytes_of(*v.out);
      break;
    case HloOpcode::kDynamicSlice:
      c.bytes_read = hbm_bytes_of(*v.out);
      for (std::size_t k = 1; k < v.in.size(); ++k) c.bytes_read += hbm_bytes_of(*v.in[k]);
      c.bytes_written = hbm_bytes_of(*v.out);
      break;
    case HloOpcode::kDynamicUpdateSlice:
      // Operand 0 is updated in place: only the update is read and written.
      for (std::size_t k = 1; k < v.in.size(); ++k) c.bytes_read += hbm_bytes_of(*v.in[k]);
      c.bytes_written = v.in.size() > 1 ? hbm_bytes_of(*v.in[1]) : 0;
      break;
    case HloOpcode::kGather:
      c.bytes_read = hbm_bytes_of(*v.out) + (v.in.size() > 1 ? hbm_bytes_of(*v.in[1]) : 0);
      c.bytes_written = hbm_bytes_of(*v.out);
      break;
    case HloOpcode::kScatter: {
      // Reads the updated elements of the operand and the updates, writes them back.
      const std::size_t n = (v.in.size() - 1) / 2;
      double updates = 0;
      for (std::size_t k = n + 1; k < v.in.size(); ++k) updates += hbm_bytes_of(*v.in[k]);
      c.bytes_read = 2 * updates + (n < v.in.size() ? hbm_bytes_of(*v.in[n]) : 0);
      c.bytes_written = updates;
      break;
    }
    case HloOpcode::kTriangularSolve:
      c.bytes_read = (v.in.size() > 0 ? hbm_bytes_of(*v.in[0]) / 2 : 0) + (v.in.size() > 1 ? hbm_bytes_of(*v.in[1]) : 0);
      c.bytes_written = hbm_bytes_of(*v.out);
      break;
    case HloOpcode::kCholesky:
      c.bytes_read = v.in.empty() ? 0 : hbm_bytes_of(*v.in[0]) / 2;
      c.bytes_written = c.bytes_read;
      break;
    case HloOpcode::kTranspose:
      if (!transpose_is_bitcast(i)) default_bytes(v, &c);
      break;
    default:
      default_bytes(v, &c);
  }

  if (v.op == HloOpcode::kDot) c.category = HloCategory::kMatmul;
  else if (v.op == HloOpcode::kConvolution) c.category = HloCategory::kConvolution;
  else if (v.op == HloOpcode::kReduce || v.op == HloOpcode::kReduceWindow || v.op == HloOpcode::kSelectAndScatter)
    c.category = HloCategory::kReduction;
  else if (is_elementwise(v.op) || v.op == HloOpcode::kMap || v.op == HloOpcode::kRng ||
           v.op == HloOpcode::kRngBitGenerator || v.op == HloOpcode::kClamp)
    c.category = HloCategory::kElementwise;
  else if (v.op == HloOpcode::kUnknown)
    c.category = HloCategory::kCustomCall;
  else
    c.category = HloCategory::kDataMovement;
  return c;
}

}  // namespace

std::string_view category_name(HloCategory c) {
  switch (c) {
    case HloCategory::kMatmul: return "matmul";
    case HloCategory::kConvolution: return "convolution";
    case HloCategory::kLoopFusion: return "loop fusion";
    case HloCategory::kInputFusion: return "input fusion";
    case HloCategory::kOutputFusion: return "output fusion";
    case HloCategory::kCustomFusion: return "custom fusion";
    case HloCategory::kElementwise: return "elementwise";
    case HloCategory::kReduction: return "reduction";
    case HloCategory::kDataMovement: return "data movement";
    case HloCategory::kCollective: return "collective";
    case HloCategory::kCustomCall: return "custom call";
    case HloCategory::kControl: return "control";
  }
  return "?";
}

double hbm_bytes_of(const Shape& shape) { return bytes_in_space(shape, false); }
double host_bytes_of(const Shape& shape) { return bytes_in_space(shape, true); }

std::optional<std::int64_t> known_trip_count(const HloInstruction& w) {
  auto j = detail::backend_config_json(w);
  if (!j || !j->is_object()) return std::nullopt;
  auto it = j->find("known_trip_count");
  if (it == j->end() || !it->is_object()) return std::nullopt;
  auto n = it->find("n");
  std::int64_t v;
  if (n == it->end() || !detail::json_int(*n, &v) || v < 0) return std::nullopt;
  return v;
}

HloCost cost(const HloInstruction& instruction) {
  Ctx ctx;
  return cost_at(instruction, 0, ctx);
}

}  // namespace roofline
