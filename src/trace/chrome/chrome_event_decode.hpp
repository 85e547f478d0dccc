// One tokenized trace event (chrome_event_scan.hpp) to checked values: its
// phase, times in integer ps from the trace's time zero, category, pid and
// tid; args as integers or strings. Required fields that are malformed are
// errors naming the event and the byte; optional args of the wrong type are
// ignored with one warning per field. Also the value syntaxes themselves
// (µs timestamps split exactly into µs and ps, integers written as doubles)
// and Kineto's category names. Internal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "roofline/trace/trace.hpp"
#include "src/trace/chrome/chrome_event_scan.hpp"
#include "src/trace/chrome/chrome_staged.hpp"
#include "src/trace/chrome/json_stream.hpp"

namespace roofline::detail {

// A µs timestamp as written ("1234.567891", "8.1219999999999999",
// "9.9999999999999995e-07", "1623142623460111"), split exactly into whole µs
// and ps so that epoch-based µs never overflow int64 ps.
struct TimeUs {
  std::int64_t us = 0;
  std::int64_t frac_ps = 0;  // same sign as us
};
bool parse_time_us(std::string_view tok, TimeUs& out);

// Integers, also when written as integral doubles ("6637568.0").
std::optional<std::int64_t> parse_int(std::string_view s);
std::optional<std::uint64_t> parse_uint(std::string_view s);

// Kineto renamed its categories once; old traces say "Kernel", "Operator"...
std::string_view canonical_cat(std::string_view c);
// kernel, gpu_memcpy, gpu_memset: work on a GPU stream.
bool is_device_op_cat(std::string_view c);
// Categories only Kineto writes.
bool is_kineto_cat(std::string_view c);

// A timed event ('X', 'B' or 'E') with its checked fields.
struct TimedEvent {
  char ph = 'X';
  std::string_view category;  // canonical_cat
  IdKey pid, tid;
  std::int64_t start_ps = 0;
  std::int64_t duration_ps = 0;  // 'X' only
};

class EventDecoder {
 public:
  // Errors are placed in `stream`'s window; warnings go to `warnings`;
  // string ids are interned in `staging.ids`, the time base kept in
  // `staging.base_us`.
  EventDecoder(const JsonStream& stream, ChromeStaging& staging, std::vector<std::string>& warnings)
      : stream_(stream), staging_(staging), warnings_(warnings) {}

  // The index in traceEvents of the event being decoded, for messages.
  void set_event_index(std::uint64_t i) { event_index_ = i; }

  // ts, category, pid, tid and (for 'X') dur, checked in that order. False
  // for events that are not activity (Kineto's span of the whole capture).
  absl::StatusOr<bool> timed(const EventFields& f, char ph, TimedEvent& out);

  absl::StatusOr<IdKey> id(const Scalar& s, std::string_view field);
  std::optional<std::int64_t> int_arg(const Scalar& s, std::string_view key);
  // int_arg for a count: a negative value is warned about and ignored.
  std::optional<std::int64_t> count_arg(const Scalar& s, std::string_view key);
  std::string str_arg(const Scalar& s, std::string_view key);
  // NCCL/RCCL args of a kernel or its cpu_op; nullopt when there are none.
  std::optional<CallInfo> collective_args(const EventFields& f);
  // Whether collective_args has any to give.
  static bool has_collective_args(const EventFields& f) {
    return f.collective.present() || f.in_msg.present() || f.out_msg.present() || f.group_size.present() ||
           f.pg_name.present() || f.copy_bytes.present();
  }
  // The op an event stands for, from its name, category and HLO args.
  OpInfo op_info(const EventFields& f, std::string_view category);

  void warn_once(const std::string& key, std::string message);

 private:
  absl::Status field_error(std::string_view field, const char* at, std::string_view what) const;
  absl::StatusOr<TimeUs> time(const Scalar& s, std::string_view field);
  absl::StatusOr<std::int64_t> start_ps(const EventFields& f);
  absl::StatusOr<std::int64_t> duration_ps(const EventFields& f, std::int64_t start_ps);

  const JsonStream& stream_;
  ChromeStaging& staging_;
  std::vector<std::string>& warnings_;
  std::uint64_t event_index_ = 0;
  bool have_base_ = false;
  absl::flat_hash_map<std::string, bool> warned_;
};

}  // namespace roofline::detail
