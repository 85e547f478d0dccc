// The five collectives the library models and the time one of them takes.
#pragma once

#include <optional>
#include <string_view>

#include "roofline/predict.hpp"

namespace roofline {

enum class CollectiveKind : unsigned char { kAllGather, kReduceScatter, kAllReduce, kAllToAll, kPermute };

constexpr std::string_view collective_name(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::kAllGather: return "all-gather";
    case CollectiveKind::kReduceScatter: return "reduce-scatter";
    case CollectiveKind::kAllReduce: return "all-reduce";
    case CollectiveKind::kAllToAll: return "all-to-all";
    case CollectiveKind::kPermute: return "permute";
  }
  return "?";
}

// Accepts the names collective_name() prints ("all-gather", ...).
constexpr std::optional<CollectiveKind> parse_collective(std::string_view s) {
  for (CollectiveKind k : {CollectiveKind::kAllGather, CollectiveKind::kReduceScatter,
                           CollectiveKind::kAllReduce, CollectiveKind::kAllToAll,
                           CollectiveKind::kPermute})
    if (collective_name(k) == s) return k;
  return std::nullopt;
}

struct CollectiveTime {
  double t_ici_s = 0;          // predicted time (max of bandwidth term and latency floor)
  double t_bandwidth_s = 0;    // bandwidth term alone
  double t_latency_s = 0;      // latency floor: hop_latency_s x hops
  double bytes_per_link = 0;   // bytes crossing the busiest link (one direction)
  int hops = 0;
  Bound bound = Bound::kCommunication;  // kCommunication normally; kept as a Bound for uniformity
};

}  // namespace roofline
