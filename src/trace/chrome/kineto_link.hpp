// Kineto: which cpu_op launched each kernel, memcpy and memset. Kineto writes
// the launching op's External id on the GPU work and on its runtime call
// (cudaLaunchKernel, hipModuleLaunchKernel...), which shares the work's
// correlation id; older Kineto wrote the correlation id there instead, a
// number from another sequence that may name an unrelated cpu_op. So an
// External id match counts only when that op holds the runtime call on the
// same thread (or, with no runtime call to check against, when the id is not
// just the correlation); otherwise the launcher is the innermost cpu_op on
// the runtime call's thread whose span holds the call. docs/traces.md has
// the figures per real trace. Runs once all events are staged, before any
// staged event moves, and frees the spans and id lists it used. Internal.
#pragma once

#include "src/trace/chrome/chrome_staged.hpp"
#include "src/trace/trace_builder.hpp"

namespace roofline::detail {

// Sets each staged GPU event's (device_ops lines and GPU annotations)
// `own_call` to its launcher's call, merged with the collective arguments the
// work carries itself; interns the merged calls in `builder`. Then frees
// the lines' cpu_op spans and `staging.launches`.
void link_kineto_launches(ChromeStaging& staging, TraceBuilder& builder);

}  // namespace roofline::detail
