// The hand-built TPU plane of the XSpace tests (xplane_test.cc,
// xplane_lean_read_test.cc): its stat metadata ids, the plane, and a lookup
// of one event by op name and start.
#pragma once

#include <cstdint>
#include <string>

#include "roofline/trace/trace.hpp"
#include "tests/trace/xspace_writer.hpp"

namespace roofline::testing {

// Stat metadata ids of the TPU plane below (a test uses them unqualified:
// `using namespace roofline::testing::tpu_stats;`).
namespace tpu_stats {
enum : int {
  kDeviceType = 1, kPeakTflops, kPeakHbm, kHloCategory, kProgramId, kFlops, kBytes, kLoopFusion,
  kUnrelated, kHloOp, kHloModule, kCorrelation, kVendor, kCcMajor, kCcMinor, kCores, kMemSize,
  kMemBw, kClock, kModuleName, kOpName, kProfileStart
};
}  // namespace tpu_stats
using namespace tpu_stats;

// A TPU plane: XLA Modules holds jit_f(77) for 100 us; XLA Ops holds while.1
// (10..60 us) with fusion.1 nested twice (12..32, 35..50), then a zero-length
// fusion.1 at 70 us. Line start 1000 ns.
inline Pb tpu_plane(std::int64_t line_timestamp_ns = 1000) {
  Pb p;
  p.sint(1, 2).bytes(2, "/device:TPU:0");
  Pb modules, ops;
  modules.sint(1, 2).bytes(2, "XLA Modules").sint(3, line_timestamp_ns).msg(4, event(10, 0, 100'000'000));
  ops.sint(1, 3).bytes(2, "XLA Ops").sint(3, line_timestamp_ns);
  ops.msg(4, event(12, 10'000'000, 50'000'000));
  // An unknown field (15, length-delimited) inside an event is skipped.
  ops.msg(4, event(11, 12'000'000, 20'000'000, Pb().bytes(15, "future field")));
  ops.msg(4, event(11, 35'000'000, 15'000'000));
  ops.msg(4, event(11, 70'000'000, 0));
  p.msg(3, modules).msg(3, ops);
  p.msg(4, event_metadata(10, "jit_f(77)"));
  p.msg(4, event_metadata(11, "%fusion.1 = f32[8]{0} fusion(f32[8]{0} %p), kind=kLoop, calls=%c",
                              "fusion.1",
                              Pb().msg(5, stat_ref(kHloCategory, kLoopFusion))
                                  .msg(5, stat_uint(kProgramId, 77))
                                  .msg(5, stat_int(kFlops, 2048))
                                  .msg(5, stat_int(kBytes, 1024))));
  p.msg(4, event_metadata(12, "%while.1 = f32[8]{0} while(f32[8]{0} %p), condition=%c, body=%b",
                              "while.1",
                              Pb().msg(5, stat_str(kHloCategory, "while"))
                                  .msg(5, stat_uint(kProgramId, 77))));
  for (auto [id, name] : std::initializer_list<std::pair<int, const char*>>{
           {kDeviceType, "device_type_string"},
           {kPeakTflops, "peak_teraflops_per_second"},
           {kPeakHbm, "peak_hbm_bw_gigabytes_per_second"},
           {kHloCategory, "hlo_category"},
           {kProgramId, "program_id"},
           {kFlops, "flops"},
           {kBytes, "bytes_accessed"},
           {kLoopFusion, "loop fusion"},
           {kUnrelated, "something_else"}})
    p.msg(5, stat_metadata(id, name));
  p.msg(6, stat_str(kDeviceType, "TPU v6 Lite"));
  p.msg(6, stat_double(kPeakTflops, 918.0));
  p.msg(6, stat_double(kPeakHbm, 1638.0));
  return p;
}

inline const Event* find_event(const Trace& t, const Device& d, const std::string& name, std::int64_t start_ps) {
  for (const Event& e : d.events)
    if (t.ops[e.op].name == name && e.start_ps == start_ps) return &e;
  return nullptr;
}

}  // namespace roofline::testing
