// Fusion of an unfused computation (fusion_groups.hpp). Three kinds of
// instruction:
//   producers  element-wise ops and data movement that only re-indexes
//              (broadcast, reshape, transpose, slice, ...): cheap to
//              recompute, fused into every kernel that uses them;
//   kernels    dots, convolutions, reductions, dynamic-update-slices: each
//              reads what it needs (through the producers fused into it)
//              and writes its result to HBM; a producer whose value must
//              reach HBM is a kernel too;
//   others     collectives, calls, loops, custom calls, gather, scatter,
//              sort, free ops: costed as they are; a producer they use is
//              written to HBM.
// A kernel reads each value in HBM it depends on through fused producers
// once: its "sources", kept per producer so the work stays linear. A
// producer whose recomputation in all its users would read more than
// writing it once and reading it back is written instead.
#include "src/hlo/analysis/fusion_groups.hpp"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "roofline/hlo/cost.hpp"
#include "src/hlo/cost/handlers.hpp"

namespace roofline::detail {
namespace {

enum class Kind : std::uint8_t { kOther, kProducer, kKernel };

// A producer with more sources than this is written to HBM instead (the
// bookkeeping stays small; it only ever adds bytes).
constexpr std::size_t kMaxSources = 32;

Kind kind_of(const HloInstruction& i) {
  if (!i.shape.is_array() || i.shape.memory_space() != kMemorySpaceDevice) return Kind::kOther;
  for (const HloInstruction* o : i.operands)
    if (o->shape.is_array() && o->shape.memory_space() != kMemorySpaceDevice) return Kind::kOther;  // host memory
  switch (i.opcode) {
    case HloOpcode::kDot: case HloOpcode::kConvolution: case HloOpcode::kReduce: case HloOpcode::kReduceWindow:
    case HloOpcode::kDynamicUpdateSlice:
      return Kind::kKernel;
    case HloOpcode::kBroadcast: case HloOpcode::kReshape: case HloOpcode::kTranspose: case HloOpcode::kSlice:
    case HloOpcode::kDynamicSlice: case HloOpcode::kConcatenate: case HloOpcode::kPad: case HloOpcode::kIota:
    case HloOpcode::kReverse: case HloOpcode::kCopy:
      return Kind::kProducer;
    default:
      return is_elementwise(i.opcode) ? Kind::kProducer : Kind::kOther;
  }
}

// A value in HBM a kernel reads, and how many bytes of it.
using Source = std::pair<const HloInstruction*, double>;

void add_source(std::vector<Source>* to, const Source& s) {
  for (Source& t : *to)
    if (t.first == s.first) {
      t.second = std::max(t.second, s.second);
      return;
    }
  to->push_back(s);
}

// The bytes `user` reads of operand `n`, a value in HBM: a slice or
// dynamic-slice only the slice, a dynamic-update-slice nothing of the array
// it updates in place, a one-element constant nothing (an immediate).
double bytes_seen(const HloInstruction& user, std::size_t n, const HloInstruction& o) {
  if (o.opcode == HloOpcode::kConstant && element_count(o.shape) <= 1) return 0;
  if (n == 0 && (user.opcode == HloOpcode::kSlice || user.opcode == HloOpcode::kDynamicSlice))
    return hbm_bytes_of(user.shape);
  if (n == 0 && user.opcode == HloOpcode::kDynamicUpdateSlice) return 0;
  return hbm_bytes_of(o.shape);
}

}  // namespace

FusionGroups fuse_computation(const HloComputation& comp) {
  const std::vector<HloInstruction>& ins = comp.instructions;
  const std::size_t n = ins.size();
  absl::flat_hash_map<const HloInstruction*, std::size_t> index;
  index.reserve(n);
  for (std::size_t k = 0; k < n; ++k) index.emplace(&ins[k], k);
  auto at = [&](const HloInstruction* i) -> std::ptrdiff_t {
    auto it = index.find(i);
    return it == index.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
  };

  std::vector<Kind> kind(n);
  for (std::size_t k = 0; k < n; ++k) kind[k] = kind_of(ins[k]);
  // A producer becomes a kernel (its value is written) when something that
  // cannot fuse it uses it, or it is the computation's result. The array a
  // dynamic-update-slice updates in place must be in HBM too.
  for (std::size_t k = 0; k < n; ++k) {
    if ((ins[k].is_root || &ins[k] == comp.root) && kind[k] == Kind::kProducer) kind[k] = Kind::kKernel;
    for (std::size_t m = 0; m < ins[k].operands.size(); ++m) {
      const std::ptrdiff_t o = at(ins[k].operands[m]);
      if (o < 0 || kind[static_cast<std::size_t>(o)] != Kind::kProducer) continue;
      const bool absorbs = kind[k] == Kind::kProducer ||
                           (kind[k] == Kind::kKernel && !(m == 0 && ins[k].opcode == HloOpcode::kDynamicUpdateSlice));
      if (!absorbs) kind[static_cast<std::size_t>(o)] = Kind::kKernel;
    }
  }

  // Sources of each producer, in program order (operands come first in a
  // valid module; one that does not is read as a value in HBM).
  std::vector<std::vector<Source>> sources(n);
  auto reads_of = [&](std::size_t k, std::vector<Source>* out) {
    const HloInstruction& i = ins[k];
    for (std::size_t m = 0; m < i.operands.size(); ++m) {
      const HloInstruction* o = i.operands[m];
      const std::ptrdiff_t p = at(o);
      if (p >= 0 && static_cast<std::size_t>(p) < k && kind[static_cast<std::size_t>(p)] == Kind::kProducer) {
        for (const Source& s : sources[static_cast<std::size_t>(p)]) add_source(out, s);
      } else {
        add_source(out, Source{o, bytes_seen(i, m, *o)});
      }
    }
  };
  std::vector<std::vector<std::size_t>> users(n);
  for (std::size_t k = 0; k < n; ++k)
    for (const HloInstruction* o : ins[k].operands)
      if (const std::ptrdiff_t p = at(o); p >= 0) users[static_cast<std::size_t>(p)].push_back(k);
  for (std::size_t k = 0; k < n; ++k) {
    if (kind[k] != Kind::kProducer) continue;
    reads_of(k, &sources[k]);
    // Recomputed in each of its u users, it costs u reads of its sources
    // (S bytes); written once, S + its own B, and u reads of B. XLA's
    // fusion merger weighs the same: a producer whose duplication moves
    // more bytes than its result is written instead.
    double source_bytes = 0;
    for (const Source& src : sources[k]) source_bytes += src.second;
    const double u = static_cast<double>(users[k].size());
    const double own = hbm_bytes_of(ins[k].shape);
    if (sources[k].size() > kMaxSources || u * source_bytes > source_bytes + own + u * own) {
      kind[k] = Kind::kKernel;  // written once; its users read it
      sources[k].clear();
    }
  }

  FusionGroups out{.fused = std::vector<bool>(n, false), .bytes_read = std::vector<double>(n, 0),
                   .bytes_written = std::vector<double>(n, 0), .group = std::vector<int>(n, -1), .count = 0};
  std::vector<int> kernel(n, -1);
  int kernels = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (kind[k] == Kind::kProducer) {
      out.fused[k] = true;  // recomputed where it is used: no bytes of its own
      continue;
    }
    if (kind[k] != Kind::kKernel) continue;
    out.fused[k] = true;
    kernel[k] = kernels++;
    std::vector<Source> reads;
    reads_of(k, &reads);
    for (const Source& s : reads) out.bytes_read[k] += s.second;
    const HloInstruction& i = ins[k];
    const bool in_place = i.opcode == HloOpcode::kDynamicUpdateSlice && i.operands.size() > 1;
    out.bytes_written[k] = in_place ? hbm_bytes_of(i.operands[1]->shape) : hbm_bytes_of(i.shape);
  }

  // Groups, for the roofline of a kernel with what it fuses: a producer
  // joins the kernel of its first user that is in one (users come later).
  std::vector<int> size(static_cast<std::size_t>(kernels), 1);
  for (std::size_t k = n; k-- > 0;) {
    if (kind[k] != Kind::kProducer) continue;
    for (std::size_t u : users[k])
      if (u > k && kernel[u] >= 0) {
        kernel[k] = kernel[u];
        ++size[static_cast<std::size_t>(kernel[u])];
        break;
      }
  }
  std::vector<int> id(static_cast<std::size_t>(kernels), -1);
  for (std::size_t k = 0; k < n; ++k) {
    if (kernel[k] < 0 || size[static_cast<std::size_t>(kernel[k])] < 2) continue;
    int& g = id[static_cast<std::size_t>(kernel[k])];
    if (g < 0) g = out.count++;
    out.group[k] = g;
  }
  return out;
}

}  // namespace roofline::detail
