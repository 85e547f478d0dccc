// One element of a Chrome trace's traceEvents, tokenized: the fields a reader
// uses (ph, name, cat, pid, tid, ts, dur and the args it knows) as views into
// the JSON window, every other key skipped without being kept. Nothing is
// converted or checked beyond JSON syntax here; chrome_event_decode.hpp turns
// the fields into numbers and ids. Kept apart so the hot loop of the reader
// (about one event per 350 bytes of a Kineto trace) is one small file. Internal.
#pragma once

#include <cstdint>
#include <string_view>

#include "src/trace/chrome/json_scan.hpp"

namespace roofline::detail {

// A JSON value as written: a string's contents, a number's token, or the raw
// text of anything else (an object, an array, true, null).
struct Scalar {
  enum Kind : std::uint8_t { kAbsent, kString, kNumber, kOther };
  Kind kind = kAbsent;
  std::string_view text;
  const char* at = nullptr;  // where the value starts, for errors
  bool present() const { return kind != kAbsent; }
};

struct EventFields {
  bool any = false;          // the object had at least one key ({} ends TSL's traceEvents)
  const char* at = nullptr;  // the event's '{'
  std::string_view ph, name, cat;
  Scalar pid, tid, ts, dur;
  // args
  Scalar a_name, a_labels, long_name, hlo_category, hlo_module, hlo_op, program_id, flops,
      model_flops, bytes_accessed, shape_with_layout, tf_op, source, correlation, external_id,
      in_msg, out_msg, group_size, collective, dtype, pg_name, input_dims, input_types, concrete_inputs, step_name,
      step_num,  // a host TraceMe that marks a step (jax StepTraceAnnotation, PyTorch/XLA StepTrace)
      copy_bytes,  // a gpu_memcpy / gpu_memset's "bytes"
      device_ordinal;  // an XLA:CPU thunk's virtual device
};

// How scanning one element of traceEvents ended.
struct EventEnd {
  bool closed = false;  // the object's '}' was read (a bare array may stop right after it)
  bool last = false;    // ']' followed: the array ended
};

// Scans the event at `p` (whitespace first) into `f`, then the ',' or ']'
// after it. kMore when the window ends first: refill and scan again.
R scan_event(JsonScanner& sc, const char*& p, EventFields& f, EventEnd& end);

}  // namespace roofline::detail
