// Chrome trace-event JSON, read one event at a time from a sliding window, so
// memory holds the events and distinct ops kept, not the text. Three flavours
// share the format and differ in what they mean:
//  - TSL / XProf (jax <host>.trace.json.gz, perfetto_trace.json.gz): devices
//    are processes named "/device:TPU:0", lines are threads named "XLA Ops";
//    args are strings; flops and program ids are not exported.
//  - Kineto (PyTorch profiler): GPU work is `cat` kernel / gpu_memcpy /
//    gpu_memset on pid = device index; cpu_ops carry "Input Dims"; kernels
//    link to the cpu_op that launched them (kineto_link.hpp).
//  - anything else: host timelines only.
// The read is a pipeline, one file per step:
//   json_stream      the window, refills, skipping, error places
//   chrome_document  the document's shape: traceEvents, top-level keys
//   chrome_event_scan   one event's JSON -> its fields (views)
//   chrome_event_decode fields -> checked times, ids, args, ops
//   chrome_event_sink events onto staged (pid, tid) lines (chrome_staged.hpp)
//   kineto_link      GPU work -> the cpu_op that launched it
//   chrome_json_assemble  staged lines -> devices, hosts, the Trace
#include "src/trace/chrome/chrome_json.hpp"

#include "roofline/detail/status_macros.hpp"
#include "src/trace/chrome/chrome_document.hpp"
#include "src/trace/chrome/chrome_event_decode.hpp"
#include "src/trace/chrome/chrome_event_sink.hpp"
#include "src/trace/chrome/chrome_json_assemble.hpp"
#include "src/trace/chrome/chrome_staged.hpp"
#include "src/trace/chrome/json_stream.hpp"
#include "src/trace/chrome/kineto_link.hpp"
#include "src/trace/trace_builder.hpp"

namespace roofline::detail {

absl::StatusOr<Trace> read_chrome_json(ByteStream& in, const std::string& origin, bool decompressed,
                                       const TraceReadOptions& options) {
  JsonStream stream(in, origin, decompressed, options.max_json_event_bytes);
  TraceBuilder builder(origin);
  ChromeStaging staging;
  staging.max_events = options.max_events;
  staging.max_ops = options.max_ops;
  EventDecoder decoder(stream, staging, builder.trace().warnings);
  ChromeStager stager(origin, decoder, staging, builder);
  ROOFLINE_RETURN_IF_ERROR(read_chrome_document(stream, stager));

  Trace& t = builder.trace();
  t.files = {origin};
  t.formats = {staging.format()};
  if (staging.format() == TraceFormat::kKinetoJson) link_kineto_launches(staging, builder);
  ROOFLINE_RETURN_IF_ERROR(assemble_chrome_trace(staging, origin, builder));
  return std::move(builder.trace());
}

}  // namespace roofline::detail
