// HLO opcodes. The enum names every opcode XLA prints (xla/hlo/ir/hlo_opcode.h,
// plus a few older spellings); an identifier the reader does not know becomes
// kUnknown and keeps its text in HloInstruction::opcode_name, so a newer XLA's
// module still loads (its unknown ops are flagged by the cost model).
#pragma once

#include <cstdint>
#include <string_view>

namespace roofline {

// X(enumerator, "hlo-spelling")
#define ROOFLINE_HLO_OPCODES(X) \
  X(kAbs, "abs") \
  X(kAcos, "acos") \
  X(kAcosh, "acosh") \
  X(kAdd, "add") \
  X(kAddDependency, "add-dependency") \
  X(kAfterAll, "after-all") \
  X(kAllGather, "all-gather") \
  X(kAllGatherDone, "all-gather-done") \
  X(kAllGatherStart, "all-gather-start") \
  X(kAllReduce, "all-reduce") \
  X(kAllReduceDone, "all-reduce-done") \
  X(kAllReduceStart, "all-reduce-start") \
  X(kAllToAll, "all-to-all") \
  X(kAnd, "and") \
  X(kAsin, "asin") \
  X(kAsinh, "asinh") \
  X(kAsyncDone, "async-done") \
  X(kAsyncStart, "async-start") \
  X(kAsyncUpdate, "async-update") \
  X(kAtan, "atan") \
  X(kAtan2, "atan2") \
  X(kAtanh, "atanh") \
  X(kBatchNormGrad, "batch-norm-grad") \
  X(kBatchNormInference, "batch-norm-inference") \
  X(kBatchNormTraining, "batch-norm-training") \
  X(kBitcast, "bitcast") \
  X(kBitcastConvert, "bitcast-convert") \
  X(kBroadcast, "broadcast") \
  X(kCall, "call") \
  X(kCbrt, "cbrt") \
  X(kCeil, "ceil") \
  X(kCholesky, "cholesky") \
  X(kClamp, "clamp") \
  X(kCountLeadingZeros, "count-leading-zeros") \
  X(kCollectiveBroadcast, "collective-broadcast") \
  X(kCollectivePermute, "collective-permute") \
  X(kCollectivePermuteDone, "collective-permute-done") \
  X(kCollectivePermuteStart, "collective-permute-start") \
  X(kCollectiveReduce, "collective-reduce") \
  X(kCompare, "compare") \
  X(kComplex, "complex") \
  X(kConcatenate, "concatenate") \
  X(kConditional, "conditional") \
  X(kConstant, "constant") \
  X(kConvert, "convert") \
  X(kConvolution, "convolution") \
  X(kCopy, "copy") \
  X(kCopyDone, "copy-done") \
  X(kCopyStart, "copy-start") \
  X(kCosine, "cosine") \
  X(kCosh, "cosh") \
  X(kCustomCall, "custom-call") \
  X(kDivide, "divide") \
  X(kDomain, "domain") \
  X(kDot, "dot") \
  X(kDynamicReshape, "dynamic-reshape") \
  X(kDynamicSlice, "dynamic-slice") \
  X(kDynamicUpdateSlice, "dynamic-update-slice") \
  X(kErf, "erf") \
  X(kExponential, "exponential") \
  X(kExponentialMinusOne, "exponential-minus-one") \
  X(kFft, "fft") \
  X(kFloor, "floor") \
  X(kFusion, "fusion") \
  X(kGather, "gather") \
  X(kGetDimensionSize, "get-dimension-size") \
  X(kGetTupleElement, "get-tuple-element") \
  X(kImag, "imag") \
  X(kInfeed, "infeed") \
  X(kIota, "iota") \
  X(kIsFinite, "is-finite") \
  X(kLog, "log") \
  X(kLogPlusOne, "log-plus-one") \
  X(kLogistic, "logistic") \
  X(kMap, "map") \
  X(kMaximum, "maximum") \
  X(kMinimum, "minimum") \
  X(kMulhi, "mulhi") \
  X(kMultiply, "multiply") \
  X(kNegate, "negate") \
  X(kNot, "not") \
  X(kOptBarrier, "opt-barrier") \
  X(kOr, "or") \
  X(kOutfeed, "outfeed") \
  X(kPad, "pad") \
  X(kParameter, "parameter") \
  X(kPartitionId, "partition-id") \
  X(kPopcnt, "popcnt") \
  X(kPower, "power") \
  X(kRaggedAllToAll, "ragged-all-to-all") \
  X(kRaggedDot, "ragged-dot") \
  X(kReal, "real") \
  X(kRecv, "recv") \
  X(kRecvDone, "recv-done") \
  X(kReduce, "reduce") \
  X(kReducePrecision, "reduce-precision") \
  X(kReduceScatter, "reduce-scatter") \
  X(kReduceWindow, "reduce-window") \
  X(kRemainder, "remainder") \
  X(kReplicaId, "replica-id") \
  X(kReshape, "reshape") \
  X(kReverse, "reverse") \
  X(kRng, "rng") \
  X(kRngBitGenerator, "rng-bit-generator") \
  X(kRngGetAndUpdateState, "rng-get-and-update-state") \
  X(kRoundNearestAfz, "round-nearest-afz") \
  X(kRoundNearestEven, "round-nearest-even") \
  X(kRsqrt, "rsqrt") \
  X(kScaledDot, "scaled-dot") \
  X(kScan, "scan") \
  X(kScatter, "scatter") \
  X(kSelect, "select") \
  X(kSelectAndScatter, "select-and-scatter") \
  X(kSend, "send") \
  X(kSendDone, "send-done") \
  X(kSetDimensionSize, "set-dimension-size") \
  X(kShiftLeft, "shift-left") \
  X(kShiftRightArithmetic, "shift-right-arithmetic") \
  X(kShiftRightLogical, "shift-right-logical") \
  X(kShuffle, "shuffle") \
  X(kSign, "sign") \
  X(kSine, "sine") \
  X(kSinh, "sinh") \
  X(kSlice, "slice") \
  X(kSort, "sort") \
  X(kSqrt, "sqrt") \
  X(kStochasticConvert, "stochastic-convert") \
  X(kSubtract, "subtract") \
  X(kTan, "tan") \
  X(kTanh, "tanh") \
  X(kTopk, "topk") \
  X(kTranspose, "transpose") \
  X(kTriangularSolve, "triangular-solve") \
  X(kTuple, "tuple") \
  X(kWhile, "while") \
  X(kXor, "xor") \
  X(kTupleSelect, "tuple-select") \
  X(kRngUniform, "rng-uniform") \
  X(kRngNormal, "rng-normal") \
  X(kTrace, "trace") \
  X(kCrossReplicaSum, "cross-replica-sum")

enum class HloOpcode : std::uint8_t {
#define ROOFLINE_HLO_OPCODE_ENUM_(e, s) e,
  ROOFLINE_HLO_OPCODES(ROOFLINE_HLO_OPCODE_ENUM_)
#undef ROOFLINE_HLO_OPCODE_ENUM_
  kUnknown,
};

// The HLO spelling ("all-reduce-start"); "unknown" for kUnknown.
std::string_view opcode_name(HloOpcode op);

// The opcode an HLO spelling names; kUnknown when there is none.
HloOpcode opcode_from_name(std::string_view name);

}  // namespace roofline
