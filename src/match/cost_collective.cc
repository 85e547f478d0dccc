// NCCL / RCCL kernels costed from their collective args: which collective,
// how many elements, how many devices, which dtype.
#include <cctype>
#include <optional>
#include <string>
#include <variant>

#include "roofline/detail/cat.hpp"
#include "roofline/hlo/cost.hpp"
#include "roofline/match/cost_source.hpp"
#include "src/match/expected_collective.hpp"
#include "src/match/torch_dtype.hpp"

namespace roofline {
namespace {

using detail::cat;

CostSource unmatched(std::string why) {
  CostSource c;
  c.note = std::move(why);
  return c;
}

// "allreduce", "AllReduce", "all_reduce", "_allgather_base", "send", ...
std::optional<CollectiveKind> nccl_collective(std::string name) {
  for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  if (has("allreduce") || has("all_reduce")) return CollectiveKind::kAllReduce;
  if (has("allgather") || has("all_gather")) return CollectiveKind::kAllGather;
  if (has("reduce_scatter") || has("reducescatter")) return CollectiveKind::kReduceScatter;
  if (has("all_to_all") || has("alltoall")) return CollectiveKind::kAllToAll;
  if (name == "send" || name == "recv" || has("sendrecv")) return CollectiveKind::kPermute;
  return std::nullopt;
}

}  // namespace

CostSource cost_from_collective_args(const CallInfo& call) {
  const std::optional<CollectiveKind> kind = nccl_collective(call.collective);
  if (!kind) return unmatched(cat("no collective model for '", call.collective, "'"));
  if (!call.in_msg_nelems || !call.group_size || *call.group_size < 1)
    return unmatched(cat(call.collective, ": message size or group size missing in the kernel args"));
  const std::optional<DType> dt = detail::torch_dtype(call.dtype);
  if (!dt) return unmatched(cat(call.collective, ": unknown message dtype '", call.dtype, "'"));
  const double elem = bytes_per_element(*dt);
  const int n = static_cast<int>(*call.group_size);
  // V is the whole array: an all-gather's output, the input of the others.
  double v = static_cast<double>(*call.in_msg_nelems) * elem;
  if (*kind == CollectiveKind::kAllGather)
    v = call.out_msg_nelems ? static_cast<double>(*call.out_msg_nelems) * elem : v * n;
  CostSource c;
  c.source = MatchSource::kCollectiveArgs;
  c.hlo_category = "collective";
  c.note = cat(collective_name(*kind), " of ", v, " bytes over ", n, " devices");
  if (n == 1) c.note += "; a group of one moves nothing";
  c.model = CollectiveModel{.collective = {.kind = *kind, .array_bytes = v, .group_size = n}, .dtype = *dt};
  return c;
}

}  // namespace roofline

namespace roofline {

std::optional<CollectiveShape> collective_shape(const OpModel& model) {
  const auto from_group = [](const GroupCollective& g) {
    return CollectiveShape{.kind = g.kind, .array_bytes = g.array_bytes, .group_size = g.group_size};
  };
  if (const auto* m = std::get_if<CollectiveModel>(&model)) return from_group(m->collective);
  if (const auto* m = std::get_if<XlaStatsModel>(&model); m && m->collective) return from_group(*m->collective);
  if (const auto* m = std::get_if<HloModel>(&model)) {
    const std::optional<HloCollective> c = cost(*m->instruction).collective;
    if (c && c->group_size > 0)
      return CollectiveShape{.kind = c->kind, .array_bytes = c->array_bytes, .group_size = static_cast<int>(c->group_size)};
  }
  return std::nullopt;
}

std::optional<CollectiveExpectation> expected_collective(const OpModel& model, std::string_view name,
                                                         const Prediction& p, const Chip& chip) {
  const std::optional<CollectiveShape> shape = collective_shape(model);
  if (!shape) return std::nullopt;
  return expected_collective(*shape, name, chip, p.t_ici_s);
}

}  // namespace roofline
