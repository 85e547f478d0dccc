// Opcode families that both the reader (which instructions get typed
// attributes, src/hlo/typed_attributes.cc) and the cost model
// (src/hlo/cost/) need to agree on.
#pragma once

#include "roofline/hlo/opcode.hpp"

namespace roofline::detail {

// Collectives, their -start/-done halves and host send/recv.
inline bool is_collective(HloOpcode op) {
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

// The -done / -update halves of async pairs: the -start carries the cost.
inline bool is_async_tail(HloOpcode op) {
  switch (op) {
    case HloOpcode::kAsyncDone: case HloOpcode::kAsyncUpdate: case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone: case HloOpcode::kCollectivePermuteDone: case HloOpcode::kCopyDone:
    case HloOpcode::kSendDone: case HloOpcode::kRecvDone:
      return true;
    default:
      return false;
  }
}

}  // namespace roofline::detail
