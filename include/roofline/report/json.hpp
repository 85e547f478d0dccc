// The JSON of every machine-readable output: one function per value, built
// on the one JSON writer (roofline/format/json.hpp), and each quantity under
// one key everywhere (`hbm_bytes`, never `bytes`). docs/json.md lists every
// key, its unit, and where it appears; the CLI's --format json prints these
// values, adding only the arguments it was given ("chip", "mesh", ...).
//
//   const roofline::Chip& v5e = roofline::chip("tpu-v5e");
//   roofline::Json j = roofline::to_json(roofline::predict(mm, v5e));
//   j["chip"] = v5e.name;
//   std::printf("%s\n", j.dump().c_str());   // roofline predict matmul --format json
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>

#include "roofline/chip.hpp"
#include "roofline/collectives/collective_kind.hpp"
#include "roofline/format/json.hpp"
#include "roofline/hlo/predict.hpp"
#include "roofline/measure/op_stats.hpp"
#include "roofline/predict.hpp"
#include "roofline/expected/expected.hpp"
#include "roofline/match/report.hpp"
#include "roofline/sharding/sharded_matmul.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline {

// The figures of a Prediction, each with its one key.
enum class PredictionKey : unsigned char {
  kFlops,            // "flops"
  kTranscendentals,  // "transcendentals"
  kHbmBytes,         // "hbm_bytes"
  kIciBytes,         // "ici_bytes": over the busiest link (or PCIe)
  kTMath,            // "t_math_s"
  kTHbm,             // "t_hbm_s"
  kTIci,             // "t_ici_s"
  kTLower,           // "t_lower_s"
  kTUpper,           // "t_upper_s"
  kBound,            // "bound": compute | memory | communication | invalid
  kDtype,            // "dtype": the compute dtype
  kIntensity,        // "intensity_flops_per_byte"
  kRidge,            // "ridge_flops_per_byte"
};
std::string_view json_key(PredictionKey key);

// Writes the figures `keys` of `p` into the object `out`. Each output keeps
// the figures it has always had: a matmul's has no transcendentals, a
// training step's parts no bound.
void put(Json& out, const Prediction& p, std::initializer_list<PredictionKey> keys);

// One op's roofline: every figure but transcendentals (an HLO count; see the
// HloPredictionRow overload). `roofline predict matmul` adds "chip".
Json to_json(const Prediction& p);

// One row of `roofline hlo`: the instruction, its executions and cost, and
// notes in the words of hlo_row_notes (roofline/report/hlo_rows.hpp).
Json to_json(const HloPredictionRow& row, const Chip& chip);
// The same with the row's calibrated expectation of one execution:
// "expected_s" (null for an aggregate row) and "cost_class".
Json to_json(const HloPredictionRow& row, const Chip& chip, const ChipCalibration& cal);

// A collective's time: t_ici_s, t_bandwidth_s, t_latency_s, ici_bytes, hops,
// bound. `roofline predict collective` adds what it was asked.
Json to_json(const CollectiveTime& t);

// A sharded matmul's strategy: the local matmul, each collective, the whole.
Json to_json(const ShardedMatmulStrategy& s);
// The same with "expected_s" in the local matmul, each collective and the
// whole (`roofline predict EXPR`; roofline/expected/expected.hpp).
Json to_json(const ShardedMatmulStrategy& s, const ShardedExpected& expected);

// `roofline stats`: the whole document, `max_ops` ops at most.
Json to_json(const Trace& trace, const TraceStats& stats, std::size_t max_ops);

// The expected-vs-observed report (docs/report.md says what each figure
// means). Figures an op does not have are null, never 0.
Json to_json(const Report& report);

}  // namespace roofline
