// Chrome trace-event JSON, read one event at a time from a sliding window
// (json_window.hpp), so memory holds the events and distinct ops kept, not
// the text. Three flavours share the format and differ in what they mean:
//  - TSL / XProf (jax <host>.trace.json.gz, perfetto_trace.json.gz): devices
//    are processes named "/device:TPU:0", lines are threads named "XLA Ops";
//    args are strings; flops and program ids are not exported.
//  - Kineto (PyTorch profiler): GPU work is `cat` kernel / gpu_memcpy /
//    gpu_memset on pid = device index; cpu_ops carry "Input Dims"; kernels
//    link to the cpu_op that launched them through "External id", checked
//    against the runtime call sharing their "correlation", else to the
//    innermost cpu_op holding that runtime call on its thread (launcher_of).
//  - anything else: host timelines only.
// Events need not be sorted and metadata may come last, so events are staged
// per (pid, tid) and turned into devices and hosts at the end.
#include "src/trace/chrome_json.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "roofline/chip_io.hpp"
#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"
#include "src/trace/json_scan.hpp"
#include "src/trace/json_window.hpp"
#include "src/trace/trace_builder.hpp"

namespace roofline::detail {
namespace {

struct Scalar {
  enum Kind : std::uint8_t { kAbsent, kString, kNumber, kOther };
  Kind kind = kAbsent;
  std::string_view text;  // string contents, number token, or raw JSON of other values
  const char* at = nullptr;
  bool present() const { return kind != kAbsent; }
};

struct EventFields {
  bool any = false;
  const char* at = nullptr;
  std::string_view ph, name, cat;
  Scalar pid, tid, ts, dur;
  // args
  Scalar a_name, a_labels, long_name, hlo_category, hlo_module, hlo_op, program_id, flops,
      model_flops, bytes_accessed, shape_with_layout, tf_op, source, correlation, external_id,
      in_msg, out_msg, group_size, collective, dtype, pg_name, input_dims, input_types, step_name;
};

// `key` equals the literal `lit`; the constant length lets the compiler
// compare in registers instead of calling memcmp.
template <std::size_t N>
inline bool is(std::string_view key, const char (&lit)[N]) {
  return key.size() == N - 1 && std::memcmp(key.data(), lit, N - 1) == 0;
}

// The args read, by key; every other arg is skipped without being kept.
Scalar EventFields::*arg_field(std::string_view k) {
  switch (k.size()) {
    case 4: return is(k, "name") ? &EventFields::a_name : nullptr;
    case 5:
      if (is(k, "flops")) return &EventFields::flops;
      if (is(k, "tf_op")) return &EventFields::tf_op;
      if (is(k, "dtype")) return &EventFields::dtype;
      return nullptr;
    case 6:
      if (is(k, "labels")) return &EventFields::a_labels;
      if (is(k, "hlo_op")) return &EventFields::hlo_op;
      if (is(k, "source")) return &EventFields::source;
      return nullptr;
    case 9:
      if (is(k, "long_name")) return &EventFields::long_name;
      if (is(k, "step_name")) return &EventFields::step_name;
      return nullptr;
    case 10:
      if (is(k, "hlo_module")) return &EventFields::hlo_module;
      if (is(k, "program_id")) return &EventFields::program_id;
      if (is(k, "Group size")) return &EventFields::group_size;
      if (is(k, "Input Dims")) return &EventFields::input_dims;
      if (is(k, "Input type")) return &EventFields::input_types;
      return nullptr;
    case 11:
      if (is(k, "correlation")) return &EventFields::correlation;
      if (is(k, "External id") || is(k, "external id")) return &EventFields::external_id;
      if (is(k, "model_flops")) return &EventFields::model_flops;
      return nullptr;
    case 12: return is(k, "hlo_category") ? &EventFields::hlo_category : nullptr;
    case 13: return is(k, "In msg nelems") ? &EventFields::in_msg : nullptr;
    case 14:
      if (is(k, "bytes_accessed")) return &EventFields::bytes_accessed;
      if (is(k, "correlation_id")) return &EventFields::correlation;
      if (is(k, "Out msg nelems")) return &EventFields::out_msg;
      return nullptr;
    case 15: return is(k, "Collective name") ? &EventFields::collective : nullptr;
    case 17: return is(k, "shape_with_layout") ? &EventFields::shape_with_layout : nullptr;
    case 18: return is(k, "Process Group Name") ? &EventFields::pg_name : nullptr;
    default: return nullptr;
  }
}

// Kineto renamed its categories once; old traces say "Kernel", "Operator"...
std::string_view canonical_cat(std::string_view c) {
  if (c == "Kernel") return "kernel";
  if (c == "Memcpy") return "gpu_memcpy";
  if (c == "Memset") return "gpu_memset";
  if (c == "Operator") return "cpu_op";
  if (c == "Runtime") return "cuda_runtime";
  return c;
}

bool is_device_op_cat(std::string_view c) {
  return c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset";
}

bool is_kineto_cat(std::string_view c) {
  return is_device_op_cat(c) || c == "cpu_op" || c == "cuda_runtime" || c == "cuda_driver" ||
         c == "gpu_user_annotation" || c == "user_annotation" || c == "python_function" ||
         c == "ac2g";
}

// A µs timestamp as written ("1234.567891", "8.1219999999999999",
// "9.9999999999999995e-07", "1623142623460111"), split exactly into whole µs
// and ps so that epoch-based µs never overflow int64 ps.
struct TimeUs {
  std::int64_t us = 0;
  std::int64_t frac_ps = 0;  // same sign as us
};

bool parse_time_us(std::string_view tok, TimeUs& out) {
  const char* p = tok.data();
  const char* e = p + tok.size();
  bool neg = false;
  if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
  if (std::find_if(p, e, [](char c) { return c == 'e' || c == 'E'; }) != e) {
    double v = 0;
    auto r = std::from_chars(tok.data() + (tok[0] == '+' ? 1 : 0), e, v);
    if (r.ec != std::errc() || r.ptr != e || !std::isfinite(v) || std::fabs(v) > 9e15) return false;
    const double whole = std::trunc(v);
    out.us = static_cast<std::int64_t>(whole);
    out.frac_ps = std::llround((v - whole) * 1e6);
    if (out.frac_ps >= 1'000'000 || out.frac_ps <= -1'000'000) {
      out.us += out.frac_ps / 1'000'000;
      out.frac_ps %= 1'000'000;
    }
    return true;
  }
  std::uint64_t whole = 0;
  const char* d = p;
  while (p < e && *p >= '0' && *p <= '9') {
    if (whole > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return false;
    whole = whole * 10 + static_cast<std::uint64_t>(*p++ - '0');
  }
  const bool had_int = p != d;
  std::int64_t frac = 0;
  int digits = 0;
  bool round_up = false;
  if (p < e && *p == '.') {
    ++p;
    const char* f = p;
    while (p < e && *p >= '0' && *p <= '9') {
      if (digits < 6) {
        frac = frac * 10 + (*p - '0');
        ++digits;
      } else if (digits == 6) {
        round_up = *p >= '5';
        ++digits;
      }
      ++p;
    }
    if (p == f && !had_int) return false;
  } else if (!had_int) {
    return false;
  }
  if (p != e) return false;
  for (int i = std::min(digits, 6); i < 6; ++i) frac *= 10;
  if (round_up) ++frac;
  if (frac == 1'000'000) {
    frac = 0;
    ++whole;
  }
  if (whole > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
  out.us = neg ? -static_cast<std::int64_t>(whole) : static_cast<std::int64_t>(whole);
  out.frac_ps = neg ? -frac : frac;
  return true;
}

std::optional<std::int64_t> parse_int(std::string_view s) {
  std::int64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec == std::errc() && r.ptr == s.data() + s.size()) return v;
  // Integral values written as doubles ("6637568.0").
  double d = 0;
  auto rd = std::from_chars(s.data(), s.data() + s.size(), d);
  if (rd.ec == std::errc() && rd.ptr == s.data() + s.size() && std::isfinite(d) &&
      d == std::trunc(d) && std::fabs(d) < 9.2e18)
    return static_cast<std::int64_t>(d);
  return std::nullopt;
}

std::optional<std::uint64_t> parse_uint(std::string_view s) {
  std::uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec == std::errc() && r.ptr == s.data() + s.size()) return v;
  if (auto i = parse_int(s); i && *i >= 0) return static_cast<std::uint64_t>(*i);
  return std::nullopt;
}

struct IdKey {
  std::int64_t value = 0;
  bool is_string = false;
  friend bool operator==(const IdKey&, const IdKey&) = default;
  friend bool operator<(const IdKey& a, const IdKey& b) {
    return std::tie(a.is_string, a.value) < std::tie(b.is_string, b.value);
  }
  template <typename H>
  friend H AbslHashValue(H h, const IdKey& k) {
    return H::combine(std::move(h), k.value, k.is_string);
  }
};

struct LineKey {
  IdKey pid, tid;
  std::uint8_t lane = 0;  // 1: Kineto GPU annotations, kept apart from the kernels they span
  friend bool operator==(const LineKey&, const LineKey&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const LineKey& k) {
    return H::combine(std::move(h), k.pid, k.tid, k.lane);
  }
};

// What identifies an op in a JSON event: category, name and the args that
// name its HLO op. Looked up part by part, so the hot path copies nothing.
constexpr std::size_t kOpKeyParts = 8;
struct OpKeyView {
  std::array<std::string_view, kOpKeyParts> parts;
};
struct OpKey {
  std::array<std::string, kOpKeyParts> parts;
  explicit OpKey(const OpKeyView& v) {
    for (std::size_t i = 0; i < kOpKeyParts; ++i) parts[i] = std::string(v.parts[i]);
  }
};
struct OpKeyHash {
  using is_transparent = void;
  template <class K>
  std::size_t operator()(const K& k) const {
    std::size_t h = 0;
    for (const auto& p : k.parts)
      h = absl::HashOf(h, absl::string_view(p.data(), p.size()));
    return h;
  }
};
struct OpKeyEq {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    for (std::size_t i = 0; i < kOpKeyParts; ++i)
      if (std::string_view(a.parts[i]) != std::string_view(b.parts[i])) return false;
    return true;
  }
};

struct StagedEvent {
  std::int64_t start_ps = 0;
  std::int64_t duration_ps = 0;
  std::uint32_t op = 0;
  std::uint32_t own_call = kNoCall;  // collective args on the kernel itself
  std::uint64_t external_id = 0;
  std::uint64_t correlation = 0;
};

struct OpenBegin {
  std::int64_t start_ps;
  std::uint32_t op;
};

// A cpu_op as a candidate launcher: its span on its host thread and the call
// (name, Input Dims, Input type) it stands for.
struct CpuOpSpan {
  std::int64_t start_ps = 0;
  std::int64_t end_ps = 0;
  std::uint32_t call = kNoCall;
  std::int32_t parent = -1;  // index of the innermost span enclosing this one, once indexed
};

// An element of a staged line: a cpu_op in `cpu_ops` (found by its External
// id) or a runtime / driver call in `events` (found by its correlation id).
struct StagedRef {
  std::uint32_t line = 0;
  std::uint32_t index = 0;
};

struct StagedLine {
  LineKey key;
  bool device_ops = false;  // saw kernel / gpu_memcpy / gpu_memset
  std::vector<StagedEvent> events;
  std::vector<OpenBegin> open;
  // Kineto host threads: their cpu_ops in arrival order, and their indices
  // by start (longest first), to find the one enclosing a launch.
  std::vector<CpuOpSpan> cpu_ops;
  std::vector<std::uint32_t> cpu_ops_by_start;
};

struct ProcessMeta {
  std::string name;
  std::string labels;
};

class ChromeReader {
 public:
  ChromeReader(ByteStream& in, const std::string& origin, bool decompressed,
               const TraceReadOptions& options)
      : w_(in, options.max_json_event_bytes), sc_(w_), origin_(origin),
        decompressed_(decompressed), builder_(origin) {}

  absl::StatusOr<Trace> run();

 private:
  JsonWindow w_;
  JsonScanner sc_;
  std::string origin_;
  bool decompressed_;
  TraceBuilder builder_;
  std::string context_ = "the top-level value";
  std::uint64_t event_index_ = 0;
  EventFields f_;
  bool object_closed_ = false;

  // Staging.
  absl::flat_hash_map<std::string, std::int64_t> string_ids_;
  std::vector<std::string> strings_;
  absl::flat_hash_map<LineKey, std::uint32_t> line_index_;
  std::vector<StagedLine> lines_;
  LineKey last_key_{};
  std::uint32_t last_line_ = ~0u;
  std::map<IdKey, ProcessMeta> processes_;
  std::map<std::pair<IdKey, IdKey>, std::string> thread_names_;
  absl::flat_hash_map<OpKey, std::uint32_t, OpKeyHash, OpKeyEq> op_cache_;
  absl::flat_hash_map<std::uint64_t, StagedRef> cpu_op_by_external_;
  absl::flat_hash_map<std::uint64_t, StagedRef> launch_by_correlation_;
  absl::flat_hash_map<std::string, bool> warned_;
  bool have_base_ = false;
  std::int64_t base_us_ = 0;
  bool kineto_ = false;
  bool tsl_ = false;
  bool saw_trace_events_ = false;
  std::uint64_t unmatched_end_ = 0;
  std::uint64_t without_phase_ = 0;
  std::optional<std::int64_t> base_time_ns_;
  nlohmann::json device_properties_;

  std::string where(const char* at) const {
    return cat(" (byte ", w_.offset(at), decompressed_ ? " of the decompressed JSON)" : ")");
  }
  absl::Status scan_error() const {
    return absl::DataLossError(cat(origin_, ": ", context_, ": ", sc_.error, where(sc_.error_at)));
  }
  absl::Status field_error(std::string_view field, const char* at, std::string_view what) const {
    return absl::InvalidArgumentError(
        cat(origin_, ": traceEvents[", event_index_, "].", field, ": ", what, where(at)));
  }
  void warn_once(const std::string& key, std::string message) {
    if (warned_.emplace(key, true).second) builder_.trace().warnings.push_back(std::move(message));
  }

  // Runs `fn(p)` over contiguous bytes, refilling and re-running on kMore.
  template <class Fn>
  absl::Status unit(Fn fn, std::string_view truncated_in) {
    for (;;) {
      const char* start = w_.p;
      const char* p = start;
      sc_.scratch.clear();
      const R r = fn(p);
      if (r == R::kOk) {
        w_.p = p;
        return absl::OkStatus();
      }
      if (r == R::kErr) return scan_error();
      auto grew = w_.refill(start);
      if (!grew.ok()) return absl::ResourceExhaustedError(cat(origin_, ": ", std::string(grew.status().message())));
      if (!*grew)
        return absl::DataLossError(cat(origin_, ": truncated JSON: the data ends inside ",
                                       truncated_in, where(w_.end)));
    }
  }

  // Skips whitespace across refills; false at the end of the data.
  absl::StatusOr<bool> skip_ws_stream() {
    for (;;) {
      while (JsonScanner::is_ws(*w_.p)) ++w_.p;
      if (w_.p < w_.end) {
        if (*w_.p == '\0') return absl::DataLossError(cat(origin_, ": unexpected NUL byte", where(w_.p)));
        return true;
      }
      auto grew = w_.refill(w_.p);
      if (!grew.ok()) return grew.status();
      if (!*grew) return false;
    }
  }

  // Skips a value of any size without keeping it (e.g. a huge stackFrames).
  absl::Status skip_value_stream() {
    int depth = 0;
    bool in_string = false, escaped = false, started = false;
    for (;;) {
      const char* c = w_.p;
      for (; c < w_.end; ++c) {
        const char ch = *c;
        if (in_string) {
          if (escaped) escaped = false;
          else if (ch == '\\') escaped = true;
          else if (ch == '"') {
            in_string = false;
            if (depth == 0) {
              w_.p = c + 1;
              return absl::OkStatus();
            }
          }
          continue;
        }
        if (ch == '"') {
          in_string = true;
          started = true;
        } else if (ch == '{' || ch == '[') {
          ++depth;
          started = true;
        } else if (ch == '}' || ch == ']') {
          if (depth == 0) {
            w_.p = c;  // a scalar ended at the enclosing bracket
            return absl::OkStatus();
          }
          if (--depth == 0) {
            w_.p = c + 1;
            return absl::OkStatus();
          }
        } else if (ch == ',' && depth == 0 && started) {
          w_.p = c;
          return absl::OkStatus();
        } else if (!JsonScanner::is_ws(ch)) {
          started = true;
        }
      }
      w_.p = c;
      auto grew = w_.refill(w_.p);
      if (!grew.ok()) return grew.status();
      if (!*grew) {
        if (depth == 0 && started && !in_string) return absl::OkStatus();
        return absl::DataLossError(cat(origin_, ": truncated JSON: the data ends inside ", context_,
                                       where(w_.end)));
      }
    }
  }

  R scalar(const char*& p, Scalar& out) {
    ROOFLINE_JSON_TRY(sc_.ws(p));
    out.at = p;
    if (*p == '"') {
      out.kind = Scalar::kString;
      return sc_.string(p, out.text);
    }
    if (*p == '-' || (*p >= '0' && *p <= '9')) {
      out.kind = Scalar::kNumber;
      return sc_.number(p, out.text);
    }
    const char* s = p;
    ROOFLINE_JSON_TRY(sc_.skip(p));
    out.kind = Scalar::kOther;
    out.text = std::string_view(s, static_cast<std::size_t>(p - s));
    return R::kOk;
  }

  R args(const char*& p) {
    ROOFLINE_JSON_TRY(sc_.ws(p));
    if (*p != '{') {
      const char* at = p;
      ROOFLINE_JSON_TRY(sc_.skip(p));
      if (std::string_view(at, static_cast<std::size_t>(p - at)) == "null") return R::kOk;
      return sc_.fail(at, cat("args: expected an object, got ", json_kind(*at)));
    }
    ++p;
    ROOFLINE_JSON_TRY(sc_.ws(p));
    if (*p == '}') {
      ++p;
      return R::kOk;
    }
    for (;;) {
      ROOFLINE_JSON_TRY(sc_.ws(p));
      if (*p != '"') return sc_.fail(p, cat("expected a key in args, got ", sc_.describe(p)));
      std::string_view key;
      ROOFLINE_JSON_TRY(sc_.string(p, key));
      ROOFLINE_JSON_TRY(sc_.expect(p, ':', "after a key"));
      if (Scalar EventFields::*field = arg_field(key)) {
        ROOFLINE_JSON_TRY(scalar(p, f_.*field));
      } else {
        ROOFLINE_JSON_TRY(sc_.skip(p, 1));
      }
      ROOFLINE_JSON_TRY(sc_.ws(p));
      if (*p == ',') {
        ++p;
        continue;
      }
      if (*p == '}') {
        ++p;
        return R::kOk;
      }
      return sc_.fail(p, cat("expected ',' or '}' in args, got ", sc_.describe(p)));
    }
  }

  // One element of traceEvents into f_, then the ',' or ']' after it.
  R event(const char*& p, bool& last) {
    f_ = EventFields{};
    object_closed_ = false;
    ROOFLINE_JSON_TRY(sc_.ws(p));
    f_.at = p;
    if (*p != '{') return sc_.fail(p, cat("expected an event object, got ", json_kind(*p)));
    ++p;
    ROOFLINE_JSON_TRY(sc_.ws(p));
    if (*p != '}') {
      for (;;) {
        ROOFLINE_JSON_TRY(sc_.ws(p));
        if (*p != '"') return sc_.fail(p, cat("expected a key, got ", sc_.describe(p)));
        std::string_view key;
        ROOFLINE_JSON_TRY(sc_.string(p, key));
        ROOFLINE_JSON_TRY(sc_.expect(p, ':', "after a key"));
        ROOFLINE_JSON_TRY(sc_.ws(p));
        f_.any = true;
        const char* at = p;
        std::string_view* str = is(key, "ph")     ? &f_.ph
                                : is(key, "name") ? &f_.name
                                : is(key, "cat")  ? &f_.cat
                                                  : nullptr;
        Scalar* num = str != nullptr      ? nullptr
                      : is(key, "ts")     ? &f_.ts
                      : is(key, "dur")    ? &f_.dur
                      : is(key, "pid")    ? &f_.pid
                      : is(key, "tid")    ? &f_.tid
                                          : nullptr;
        if (str != nullptr) {
          if (*p != '"') return sc_.fail(at, cat(key, ": expected a string, got ", json_kind(*p)));
          ROOFLINE_JSON_TRY(sc_.string(p, *str));
        } else if (num != nullptr) {
          ROOFLINE_JSON_TRY(scalar(p, *num));
        } else if (is(key, "args")) {
          ROOFLINE_JSON_TRY(args(p));
        } else {
          ROOFLINE_JSON_TRY(sc_.skip(p, 1));
        }
        ROOFLINE_JSON_TRY(sc_.ws(p));
        if (*p == ',') {
          ++p;
          continue;
        }
        if (*p == '}') break;
        return sc_.fail(p, cat("expected ',' or '}' in an event, got ", sc_.describe(p)));
      }
    }
    ++p;  // '}'
    object_closed_ = true;
    ROOFLINE_JSON_TRY(sc_.ws(p));
    if (*p == ',') {
      ++p;
      last = false;
      return R::kOk;
    }
    if (*p == ']') {
      ++p;
      last = true;
      return R::kOk;
    }
    return sc_.fail(p, cat("expected ',' or ']' after an event, got ", sc_.describe(p)));
  }

  absl::Status events_array(bool bare) {
    saw_trace_events_ = true;
    for (;;) {
      ROOFLINE_ASSIGN_OR_RETURN(bool more, skip_ws_stream());
      if (!more) {
        // The Chrome "JSON Array Format" may omit the closing bracket.
        if (bare) return absl::OkStatus();
        return absl::DataLossError(cat(origin_, ": truncated JSON: the data ends inside traceEvents",
                                       " after ", event_index_, " events", where(w_.end)));
      }
      if (*w_.p == ']') {
        ++w_.p;
        return absl::OkStatus();
      }
      bool last = false;
      context_ = cat("traceEvents[", event_index_, "]");
      ROOFLINE_RETURN_IF_ERROR(unit(
          [&](const char*& p) {
            const R r = event(p, last);
            // A bare array may end right after an event, without ']'.
            if (r == R::kMore && bare && w_.eof() && object_closed_) {
              last = true;
              p = w_.end;
              return R::kOk;
            }
            return r;
          },
          context_));
      ROOFLINE_RETURN_IF_ERROR(commit());
      ++event_index_;
      if (last) return absl::OkStatus();
    }
  }

  absl::Status top_level_value(std::string_view key);
  absl::Status commit();
  absl::StatusOr<TimeUs> time_field(const Scalar& s, std::string_view field);
  absl::StatusOr<IdKey> id_field(const Scalar& s, std::string_view field);
  std::uint32_t line_for(const IdKey& pid, const IdKey& tid, std::uint8_t lane);
  std::uint32_t op_for(std::string_view cat);
  std::optional<std::int64_t> int_arg(const Scalar& s, std::string_view key);
  std::string str_arg(const Scalar& s, std::string_view key);
  std::optional<CallInfo> collective_args();
  void index_cpu_ops();
  std::uint32_t innermost_cpu_op(std::uint32_t line, const StagedEvent& launch) const;
  std::uint32_t launcher_of(const StagedEvent& device_op) const;
  void link_launchers();
  absl::Status finish_trace();
};

absl::StatusOr<TimeUs> ChromeReader::time_field(const Scalar& s, std::string_view field) {
  if (s.kind != Scalar::kNumber)
    return field_error(field, s.at, cat("expected a number, got ", json_kind(*s.at)));
  TimeUs t;
  if (!parse_time_us(s.text, t))
    return field_error(field, s.at, cat("'", s.text, "' is not a time in microseconds within range"));
  return t;
}

absl::StatusOr<IdKey> ChromeReader::id_field(const Scalar& s, std::string_view field) {
  if (!s.present()) return IdKey{};
  if (s.kind == Scalar::kNumber) {
    if (auto v = parse_int(s.text)) return IdKey{.value = *v, .is_string = false};
    return field_error(field, s.at, cat("expected an integer, got ", s.text));
  }
  if (s.kind == Scalar::kString) {
    auto [it, inserted] =
        string_ids_.try_emplace(std::string(s.text), static_cast<std::int64_t>(strings_.size()));
    if (inserted) strings_.emplace_back(s.text);
    return IdKey{.value = it->second, .is_string = true};
  }
  return field_error(field, s.at, cat("expected an integer or a string, got ", json_kind(*s.at)));
}

std::optional<std::int64_t> ChromeReader::int_arg(const Scalar& s, std::string_view key) {
  if (s.kind == Scalar::kNumber || s.kind == Scalar::kString) {
    if (auto v = parse_int(s.text)) return v;
  }
  if (s.kind == Scalar::kAbsent || (s.kind == Scalar::kOther && s.text == "null")) return std::nullopt;
  warn_once(cat("int:", key), cat(origin_, ": traceEvents[", event_index_, "].args.", key,
                                  ": expected an integer, got ", s.kind == Scalar::kString ? "\"" : "",
                                  s.text.substr(0, 40), s.kind == Scalar::kString ? "\"" : "",
                                  "; ignored here and wherever else it happens"));
  return std::nullopt;
}

std::string ChromeReader::str_arg(const Scalar& s, std::string_view key) {
  if (s.kind == Scalar::kString || s.kind == Scalar::kNumber) return std::string(s.text);
  if (s.kind == Scalar::kAbsent || (s.kind == Scalar::kOther && s.text == "null")) return {};
  warn_once(cat("str:", key), cat(origin_, ": traceEvents[", event_index_, "].args.", key,
                                  ": expected a string, got ", json_kind(s.text[0]),
                                  "; ignored here and wherever else it happens"));
  return {};
}

std::optional<CallInfo> ChromeReader::collective_args() {
  if (!f_.collective.present() && !f_.in_msg.present() && !f_.out_msg.present() &&
      !f_.group_size.present() && !f_.pg_name.present())
    return std::nullopt;
  CallInfo c;
  c.collective = str_arg(f_.collective, "Collective name");
  c.in_msg_nelems = int_arg(f_.in_msg, "In msg nelems");
  c.out_msg_nelems = int_arg(f_.out_msg, "Out msg nelems");
  c.group_size = int_arg(f_.group_size, "Group size");
  c.dtype = str_arg(f_.dtype, "dtype");
  c.process_group = str_arg(f_.pg_name, "Process Group Name");
  return c;
}

std::uint32_t ChromeReader::line_for(const IdKey& pid, const IdKey& tid, std::uint8_t lane) {
  const LineKey key{pid, tid, lane};
  if (last_line_ != ~0u && key == last_key_) return last_line_;
  auto [it, inserted] = line_index_.try_emplace(key, static_cast<std::uint32_t>(lines_.size()));
  if (inserted) {
    lines_.emplace_back();
    lines_.back().key = key;
  }
  last_key_ = key;
  last_line_ = it->second;
  return it->second;
}

std::uint32_t ChromeReader::op_for(std::string_view category) {
  auto text = [](const Scalar& s) { return s.kind == Scalar::kAbsent ? std::string_view() : s.text; };
  const OpKeyView key{{category, f_.name, text(f_.hlo_module), text(f_.hlo_op), text(f_.program_id),
                       text(f_.hlo_category), text(f_.long_name), text(f_.step_name)}};
  if (auto it = op_cache_.find(key); it != op_cache_.end()) return it->second;
  OpInfo op;
  op.name = std::string(f_.name);
  const std::string hlo_op = str_arg(f_.hlo_op, "hlo_op");
  if (!hlo_op.empty() && hlo_op != op.name) {
    op.kernel = std::move(op.name);
    op.name = hlo_op;
  }
  if (f_.step_name.present()) op.name = str_arg(f_.step_name, "step_name");
  op.module = str_arg(f_.hlo_module, "hlo_module");
  if (f_.program_id.present()) {
    if (auto v = parse_uint(f_.program_id.text); v && f_.program_id.kind != Scalar::kOther)
      op.program_id = *v;
    else
      warn_once("program_id", cat(origin_, ": traceEvents[", event_index_,
                                  "].args.program_id: expected an integer; ignored"));
  }
  op.category = str_arg(f_.hlo_category, "hlo_category");
  if (op.category.empty()) op.category = std::string(category);
  op.flops = int_arg(f_.flops, "flops");
  op.model_flops = int_arg(f_.model_flops, "model_flops");
  op.bytes_accessed = int_arg(f_.bytes_accessed, "bytes_accessed");
  op.hlo_text = str_arg(f_.long_name, "long_name");
  op.shape_with_layout = str_arg(f_.shape_with_layout, "shape_with_layout");
  op.framework_op = str_arg(f_.tf_op, "tf_op");
  op.source = str_arg(f_.source, "source");
  const std::uint32_t id = builder_.intern_op(std::move(op));
  op_cache_.emplace(OpKey(key), id);
  return id;
}

absl::Status ChromeReader::commit() {
  if (!f_.any) return absl::OkStatus();  // TSL ends traceEvents with {}
  if (f_.ph.empty()) {
    ++without_phase_;
    return absl::OkStatus();
  }
  const char ph = f_.ph[0];
  if (f_.ph.size() != 1) return absl::OkStatus();
  if (ph == 'M') {
    ROOFLINE_ASSIGN_OR_RETURN(IdKey pid, id_field(f_.pid, "pid"));
    if (f_.name == "process_name") {
      processes_[pid].name = str_arg(f_.a_name, "name");
      if (processes_[pid].name.find("/device:") != std::string::npos ||
          processes_[pid].name.find("/host:") != std::string::npos)
        tsl_ = true;
    } else if (f_.name == "process_labels") {
      processes_[pid].labels = str_arg(f_.a_labels, "labels");
    } else if (f_.name == "thread_name") {
      ROOFLINE_ASSIGN_OR_RETURN(IdKey tid, id_field(f_.tid, "tid"));
      thread_names_[{pid, tid}] = str_arg(f_.a_name, "name");
    }
    return absl::OkStatus();
  }
  if (ph != 'X' && ph != 'B' && ph != 'E') return absl::OkStatus();  // instants, counters, flows

  if (!f_.ts.present()) return field_error("ts", f_.at, "missing (required for phase X, B and E)");
  ROOFLINE_ASSIGN_OR_RETURN(TimeUs ts, time_field(f_.ts, "ts"));
  if (!have_base_) {
    // Whole µs since the epoch (older Kineto) would overflow int64 ps:
    // such traces are rebased on their first timestamp.
    have_base_ = true;
    base_us_ = (ts.us > (std::int64_t{1} << 40) || ts.us < -(std::int64_t{1} << 40)) ? ts.us : 0;
  }
  std::int64_t rel_us = 0, start_ps = 0;
  if (__builtin_sub_overflow(ts.us, base_us_, &rel_us) ||
      __builtin_mul_overflow(rel_us, std::int64_t{1'000'000}, &start_ps) ||
      __builtin_add_overflow(start_ps, ts.frac_ps, &start_ps))
    return field_error("ts", f_.ts.at, "more than 106 days from the first event: overflows int64 picoseconds");

  const std::string_view category = canonical_cat(f_.cat);
  if (is_kineto_cat(category)) kineto_ = true;
  // Kineto's span of the whole capture ("PyTorch Profiler (0)") is not activity.
  if (category == "Trace") return absl::OkStatus();
  ROOFLINE_ASSIGN_OR_RETURN(IdKey pid, id_field(f_.pid, "pid"));
  ROOFLINE_ASSIGN_OR_RETURN(IdKey tid, id_field(f_.tid, "tid"));

  if (ph == 'E') {
    StagedLine& line = lines_[line_for(pid, tid, 0)];
    if (line.open.empty()) {
      ++unmatched_end_;
      return absl::OkStatus();
    }
    const OpenBegin b = line.open.back();
    line.open.pop_back();
    if (start_ps < b.start_ps) {
      ++unmatched_end_;
      return absl::OkStatus();
    }
    line.events.push_back({.start_ps = b.start_ps, .duration_ps = start_ps - b.start_ps, .op = b.op});
    return absl::OkStatus();
  }

  std::int64_t duration_ps = 0;
  if (ph == 'X') {
    if (!f_.dur.present()) return field_error("dur", f_.at, "missing (required for phase X)");
    ROOFLINE_ASSIGN_OR_RETURN(TimeUs dur, time_field(f_.dur, "dur"));
    if (dur.us < 0 || dur.frac_ps < 0) return field_error("dur", f_.dur.at, cat("negative duration ", f_.dur.text));
    if (__builtin_mul_overflow(dur.us, std::int64_t{1'000'000}, &duration_ps) ||
        __builtin_add_overflow(duration_ps, dur.frac_ps, &duration_ps))
      return field_error("dur", f_.dur.at, "overflows int64 picoseconds");
    std::int64_t end_ps;
    if (__builtin_add_overflow(start_ps, duration_ps, &end_ps))
      return field_error("dur", f_.dur.at, "event end overflows int64 picoseconds");
  }

  const bool device_op = is_device_op_cat(category);
  const std::uint8_t lane = category == "gpu_user_annotation" ? 1 : 0;
  const std::uint32_t li = line_for(pid, tid, lane);
  const std::uint32_t op = op_for(category);
  if (ph == 'B') {
    lines_[li].open.push_back({start_ps, op});
    return absl::OkStatus();
  }

  StagedEvent e{.start_ps = start_ps, .duration_ps = duration_ps, .op = op};
  if (f_.external_id.present())
    if (auto v = int_arg(f_.external_id, "External id")) e.external_id = static_cast<std::uint64_t>(*v);
  if (f_.correlation.present())
    if (auto v = int_arg(f_.correlation, "correlation")) e.correlation = static_cast<std::uint64_t>(*v);
  if (device_op) {
    lines_[li].device_ops = true;
    if (auto c = collective_args()) e.own_call = builder_.intern_call(std::move(*c));
  } else if (category == "cpu_op" && !f_.name.starts_with("ProfilerStep#")) {
    // Old Kineto's ProfilerStep#N operators span whole steps; they mark
    // time, they launch nothing.
    CallInfo c = collective_args().value_or(CallInfo{});
    c.launcher = std::string(f_.name);
    if (f_.input_dims.present()) append_compact_json(c.input_dims, f_.input_dims.text);
    if (f_.input_types.present()) append_compact_json(c.input_types, f_.input_types.text);
    std::vector<CpuOpSpan>& spans = lines_[li].cpu_ops;
    if (e.external_id != 0)
      cpu_op_by_external_[e.external_id] = {li, static_cast<std::uint32_t>(spans.size())};
    spans.push_back({.start_ps = start_ps, .end_ps = start_ps + duration_ps,
                     .call = builder_.intern_call(std::move(c))});
  } else if (category == "cuda_runtime" || category == "cuda_driver") {
    if (e.correlation != 0)
      launch_by_correlation_[e.correlation] = {li, static_cast<std::uint32_t>(lines_[li].events.size())};
  }
  // Old Kineto records ProfilerStep#N as an operator, newer as an annotation.
  if ((category == "user_annotation" || category == "cpu_op") && f_.name.starts_with("ProfilerStep#"))
    builder_.trace().host_steps.push_back(
        {.name = std::string(f_.name), .start_ps = start_ps, .duration_ps = duration_ps});
  lines_[li].events.push_back(e);
  return absl::OkStatus();
}

absl::Status ChromeReader::top_level_value(std::string_view key) {
  // Small metadata values are read whole; anything else is skipped as it streams.
  const bool wanted = key == "deviceProperties" || key == "baseTimeNanoseconds" ||
                      key == "schemaVersion" || key == "distributedInfo";
  if (!wanted) {
    context_ = cat("the top-level key \"", key, "\"");
    return skip_value_stream();
  }
  std::string_view raw;
  context_ = cat("the top-level key \"", key, "\"");
  ROOFLINE_RETURN_IF_ERROR(unit(
      [&](const char*& p) {
        ROOFLINE_JSON_TRY(sc_.ws(p));
        const char* s = p;
        ROOFLINE_JSON_TRY(sc_.skip(p));
        raw = std::string_view(s, static_cast<std::size_t>(p - s));
        return R::kOk;
      },
      context_));
  kineto_ = kineto_ || key != "distributedInfo";
  nlohmann::json v = nlohmann::json::parse(raw.begin(), raw.end(), nullptr, false);
  if (v.is_discarded())
    return absl::InvalidArgumentError(cat(origin_, ": /", key, ": not valid JSON"));
  if (key == "deviceProperties") {
    if (!v.is_array())
      return absl::InvalidArgumentError(cat(origin_, ": /deviceProperties: expected an array, got ",
                                            v.type_name()));
    device_properties_ = std::move(v);
  } else if (key == "baseTimeNanoseconds") {
    if (!v.is_number_integer())
      return absl::InvalidArgumentError(
          cat(origin_, ": /baseTimeNanoseconds: expected an integer, got ", v.type_name()));
    base_time_ns_ = v.get<std::int64_t>();
  }
  return absl::OkStatus();
}

absl::StatusOr<Trace> ChromeReader::run() {
  {
    auto grew = w_.refill(w_.p);
    if (!grew.ok()) return grew.status();
  }
  if (w_.end - w_.p >= 3 && std::memcmp(w_.p, "\xEF\xBB\xBF", 3) == 0) w_.p += 3;  // BOM
  ROOFLINE_ASSIGN_OR_RETURN(bool any, skip_ws_stream());
  if (!any) return absl::DataLossError(cat(origin_, ": empty file, not a trace"));
  if (*w_.p == '[') {
    ++w_.p;
    ROOFLINE_RETURN_IF_ERROR(events_array(true));
  } else if (*w_.p == '{') {
    ++w_.p;
    bool first = true;
    for (;;) {
      std::string key;
      bool done = false;
      context_ = "the top-level object";
      ROOFLINE_RETURN_IF_ERROR(unit(
          [&](const char*& p) {
            ROOFLINE_JSON_TRY(sc_.ws(p));
            if (*p == '}' && first) {
              ++p;
              done = true;
              return R::kOk;
            }
            if (*p != '"') return sc_.fail(p, cat("expected a key, got ", sc_.describe(p)));
            std::string_view k;
            ROOFLINE_JSON_TRY(sc_.string(p, k));
            ROOFLINE_JSON_TRY(sc_.expect(p, ':', "after a key"));
            key.assign(k);
            return R::kOk;
          },
          "the top-level object"));
      if (done) break;
      first = false;
      if (key == "traceEvents") {
        ROOFLINE_ASSIGN_OR_RETURN(bool more, skip_ws_stream());
        if (!more || *w_.p != '[')
          return absl::InvalidArgumentError(cat(origin_, ": traceEvents: expected an array", where(w_.p)));
        ++w_.p;
        ROOFLINE_RETURN_IF_ERROR(events_array(false));
      } else {
        ROOFLINE_RETURN_IF_ERROR(top_level_value(key));
      }
      context_ = "the top-level object";
      ROOFLINE_RETURN_IF_ERROR(unit(
          [&](const char*& p) {
            ROOFLINE_JSON_TRY(sc_.ws(p));
            if (*p == ',') {
              ++p;
              return R::kOk;
            }
            if (*p == '}') {
              ++p;
              done = true;
              return R::kOk;
            }
            return sc_.fail(p, cat("expected ',' or '}' after a top-level value, got ", sc_.describe(p)));
          },
          "the top-level object"));
      if (done) break;
    }
  } else {
    return absl::InvalidArgumentError(cat(origin_, ": not a trace: JSON trace files start with '{' or '[', got ",
                                          sc_.describe(w_.p), where(w_.p)));
  }
  ROOFLINE_ASSIGN_OR_RETURN(bool trailing, skip_ws_stream());
  if (trailing)
    return absl::InvalidArgumentError(cat(origin_, ": unexpected data after the JSON value", where(w_.p)));
  if (!saw_trace_events_)
    return absl::NotFoundError(cat(origin_, ": no traceEvents: JSON, but not a Chrome trace"));
  ROOFLINE_RETURN_IF_ERROR(finish_trace());
  return std::move(builder_.trace());
}

std::string id_text(const IdKey& k, const std::vector<std::string>& strings) {
  return k.is_string ? strings[static_cast<std::size_t>(k.value)] : cat(k.value);
}

// Orders each thread's cpu_ops by start, longest first, and links each to the
// innermost one enclosing it, so that a launch finds its op by one binary
// search and a walk up the enclosing ops.
void ChromeReader::index_cpu_ops() {
  for (StagedLine& l : lines_) {
    std::vector<CpuOpSpan>& v = l.cpu_ops;
    std::vector<std::uint32_t>& order = l.cpu_ops_by_start;
    order.resize(v.size());
    for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return v[a].start_ps != v[b].start_ps ? v[a].start_ps < v[b].start_ps : v[a].end_ps > v[b].end_ps;
    });
    std::vector<std::uint32_t> stack;
    for (std::uint32_t i : order) {
      while (!stack.empty() && v[stack.back()].end_ps < v[i].end_ps) stack.pop_back();
      v[i].parent = stack.empty() ? -1 : static_cast<std::int32_t>(stack.back());
      stack.push_back(i);
    }
  }
}

// The innermost cpu_op on the launch's thread whose span holds the launch.
std::uint32_t ChromeReader::innermost_cpu_op(std::uint32_t line, const StagedEvent& launch) const {
  const std::vector<CpuOpSpan>& v = lines_[line].cpu_ops;
  const std::vector<std::uint32_t>& order = lines_[line].cpu_ops_by_start;
  auto after = std::upper_bound(order.begin(), order.end(), launch.start_ps,
                                [&](std::int64_t t, std::uint32_t i) { return t < v[i].start_ps; });
  std::int32_t i = after == order.begin() ? -1 : static_cast<std::int32_t>(*(after - 1));
  const std::int64_t end_ps = launch.start_ps + launch.duration_ps;
  while (i >= 0 && v[static_cast<std::size_t>(i)].end_ps < end_ps) i = v[static_cast<std::size_t>(i)].parent;
  return i >= 0 ? v[static_cast<std::size_t>(i)].call : kNoCall;
}

// The call of the cpu_op that launched a kernel, memcpy or memset. Kineto
// writes the launching op's External id on the work and on its runtime call;
// older Kineto wrote the correlation id there instead, a number from another
// sequence that may name an unrelated cpu_op. So an External id match counts
// only when that op holds the runtime call on the same thread (or, with no
// runtime call to check against, when the id is not just the correlation);
// otherwise the launcher is the innermost cpu_op holding the runtime call.
std::uint32_t ChromeReader::launcher_of(const StagedEvent& s) const {
  const StagedRef* launch_at = nullptr;
  if (s.correlation != 0)
    if (auto it = launch_by_correlation_.find(s.correlation); it != launch_by_correlation_.end())
      launch_at = &it->second;
  const StagedEvent* launch = launch_at ? &lines_[launch_at->line].events[launch_at->index] : nullptr;
  auto by_external = [&](std::uint64_t ext) -> std::uint32_t {
    if (ext == 0) return kNoCall;
    auto it = cpu_op_by_external_.find(ext);
    if (it == cpu_op_by_external_.end()) return kNoCall;
    const CpuOpSpan& op = lines_[it->second.line].cpu_ops[it->second.index];
    if (launch == nullptr) return ext == s.correlation ? kNoCall : op.call;
    const bool holds = it->second.line == launch_at->line && op.start_ps <= launch->start_ps &&
                       launch->start_ps + launch->duration_ps <= op.end_ps;
    return holds ? op.call : kNoCall;
  };
  std::uint32_t call = by_external(s.external_id);
  if (call == kNoCall && launch != nullptr && launch->external_id != s.external_id)
    call = by_external(launch->external_id);
  if (call == kNoCall && launch != nullptr) call = innermost_cpu_op(launch_at->line, *launch);
  return call;
}

// Kineto GPU work gets its call once all host events are in: the launching
// cpu_op's, merged with the collective arguments the kernel carries itself.
// Left in `own_call`; runs before anything moves or frees staged events.
void ChromeReader::link_launchers() {
  index_cpu_ops();
  Trace& t = builder_.trace();
  absl::flat_hash_map<std::uint64_t, std::uint32_t> merged_calls;
  for (StagedLine& l : lines_) {
    if (!l.device_ops && l.key.lane != 1) continue;
    for (StagedEvent& s : l.events) {
      const std::uint32_t launched = launcher_of(s);
      if (launched == kNoCall) continue;
      if (s.own_call == kNoCall) {
        s.own_call = launched;
        continue;
      }
      const std::uint64_t k = (std::uint64_t{launched} << 32) | s.own_call;
      auto it = merged_calls.find(k);
      if (it == merged_calls.end()) {
        CallInfo merged = t.calls[launched];
        const CallInfo& own = t.calls[s.own_call];
        merged.collective = own.collective;
        merged.in_msg_nelems = own.in_msg_nelems;
        merged.out_msg_nelems = own.out_msg_nelems;
        merged.group_size = own.group_size;
        merged.dtype = own.dtype;
        merged.process_group = own.process_group;
        it = merged_calls.emplace(k, builder_.intern_call(std::move(merged))).first;
      }
      s.own_call = it->second;
    }
  }
  for (StagedLine& l : lines_) {
    std::vector<CpuOpSpan>().swap(l.cpu_ops);
    std::vector<std::uint32_t>().swap(l.cpu_ops_by_start);
  }
  absl::flat_hash_map<std::uint64_t, StagedRef>().swap(cpu_op_by_external_);
  absl::flat_hash_map<std::uint64_t, StagedRef>().swap(launch_by_correlation_);
}

absl::Status ChromeReader::finish_trace() {
  Trace& t = builder_.trace();
  t.files = {origin_};
  const TraceFormat format = kineto_ ? TraceFormat::kKinetoJson
                             : tsl_  ? TraceFormat::kTslJson
                                     : TraceFormat::kChromeJson;
  t.formats = {format};
  if (format == TraceFormat::kKinetoJson) link_launchers();
  if (unmatched_end_ > 0) t.warnings.push_back(cat(origin_, ": ", unmatched_end_, " 'E' events without a matching 'B'; ignored"));
  if (without_phase_ > 0) t.warnings.push_back(cat(origin_, ": ", without_phase_, " events without 'ph'; ignored"));
  std::uint64_t open = 0;
  for (const StagedLine& l : lines_) open += l.open.size();
  if (open > 0) t.warnings.push_back(cat(origin_, ": ", open, " 'B' events never ended; ignored"));
  // Traces rebased on their first timestamp start at their earliest event.
  std::int64_t shift_ps = 0;
  if (base_us_ != 0) {
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    for (const StagedLine& l : lines_)
      for (const StagedEvent& e : l.events) first = std::min(first, e.start_ps);
    if (first != std::numeric_limits<std::int64_t>::max()) shift_ps = first;
    for (StagedLine& l : lines_)
      for (StagedEvent& e : l.events) e.start_ps -= shift_ps;
    for (Step& s : t.host_steps) s.start_ps -= shift_ps;
  }
  const std::int64_t origin_ns = base_us_ * 1000 + shift_ps / 1000;
  if (kineto_ && base_time_ns_) t.time_origin_ns = *base_time_ns_ + origin_ns;
  else if (base_us_ != 0) t.time_origin_ns = origin_ns;

  // Devices and hosts. In Kineto a GPU's pid is its index, and the odd host
  // thread shares it (python_function at pid 0, tid 0), so device-ness is a
  // property of the line there; in TSL JSON, of the process.
  struct Entity {
    bool device = false;
    Device d;
  };
  std::map<std::pair<IdKey, bool>, Entity> entities;
  auto line_is_device = [&](const StagedLine& l) {
    if (format == TraceFormat::kKinetoJson) return l.device_ops || l.key.lane == 1;
    if (format == TraceFormat::kTslJson) {
      auto it = processes_.find(l.key.pid);
      return it != processes_.end() && classify_plane(it->second.name).is_device;
    }
    return false;
  };
  for (const StagedLine& l : lines_) {
    const bool dev = line_is_device(l);
    entities[{l.key.pid, dev}].device = dev;
  }
  auto vendor_of = [](std::string_view model) -> std::string {
    if (model.find("NVIDIA") != std::string_view::npos || model.find("Tesla") != std::string_view::npos)
      return "Nvidia";
    if (model.find("AMD") != std::string_view::npos) return "AMD";
    return "";
  };
  for (auto& [key, e] : entities) {
    const IdKey& pid = key.first;
    const ProcessMeta* meta = processes_.count(pid) ? &processes_.at(pid) : nullptr;
    Device& d = e.d;
    if (format == TraceFormat::kTslJson) {
      const std::string name = meta ? meta->name : id_text(pid, strings_);
      PlaneKind k = classify_plane(name);
      d.name = name;
      if (e.device) {
        d.kind = k.kind;
        d.id = k.ordinal;
        if (d.kind == DeviceKind::kTpu) d.vendor = "Google";
      } else {
        d.kind = DeviceKind::kCpu;
      }
      continue;
    }
    if (e.device) {
      d.kind = DeviceKind::kGpu;
      d.id = pid.is_string ? 0 : static_cast<int>(pid.value);
      d.name = meta && !meta->labels.empty() ? meta->labels : cat("GPU ", id_text(pid, strings_));
      const nlohmann::json* props = nullptr;
      if (device_properties_.is_array()) {
        for (const auto& p : device_properties_)
          if (p.is_object() && p.contains("id") && p["id"].is_number_integer() && !pid.is_string &&
              p["id"].get<std::int64_t>() == pid.value)
            props = &p;
        if (props == nullptr && device_properties_.size() == 1 && device_properties_[0].is_object()) {
          // ROCm traces number devices by HIP ordinal (pid 2) while listing
          // the single visible GPU as id 0.
          props = &device_properties_[0];
          t.warnings.push_back(cat(origin_, ": device ", id_text(pid, strings_),
                                   " is not in deviceProperties; taken to be its only entry"));
        }
      }
      if (props) {
        auto get_num = [&](const char* k) -> std::optional<double> {
          if (props->contains(k) && (*props)[k].is_number()) return (*props)[k].get<double>();
          return std::nullopt;
        };
        if (props->contains("name") && (*props)["name"].is_string())
          d.model = (*props)["name"].get<std::string>();
        d.vendor = vendor_of(d.model);
        d.caps.memory_bytes = get_num("totalGlobalMem");
        if (auto v = get_num("numSms")) d.caps.core_count = static_cast<int>(*v);
        if (auto v = get_num("computeMajor")) d.caps.compute_capability_major = static_cast<int>(*v);
        if (auto v = get_num("computeMinor")) d.caps.compute_capability_minor = static_cast<int>(*v);
        // ROCm may report a generic name ("AMD Radeon Graphics") or one two
        // parts share ("AMD Instinct MI250X / MI250"); the CU count tells
        // them apart. CUDA's names are specific and stay authoritative.
        if (d.vendor == "AMD" && chip_for_device_name(d.model) == nullptr &&
            d.caps.compute_capability_major && d.caps.core_count) {
          std::string inferred =
              infer_gpu_model(d.vendor, *d.caps.compute_capability_major,
                              d.caps.compute_capability_minor.value_or(0), *d.caps.core_count,
                              d.caps.memory_bytes.value_or(0));
          if (!inferred.empty()) {
            t.warnings.push_back(cat(origin_, ": device ", id_text(pid, strings_), " is named '", d.model,
                                     "'; taken to be ", inferred, " from compute capability ",
                                     *d.caps.compute_capability_major, ".",
                                     d.caps.compute_capability_minor.value_or(0), " and ",
                                     *d.caps.core_count, " CUs"));
            d.model = std::move(inferred);
            d.model_inferred = true;
          }
        }
      }
    } else {
      d.kind = DeviceKind::kCpu;
      d.name = meta && !meta->name.empty() ? cat(meta->name, " (pid ", id_text(pid, strings_), ")")
                                           : cat("pid ", id_text(pid, strings_));
    }
  }

  // Lines in tid order within each pid.
  std::vector<std::uint32_t> order(lines_.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    const LineKey& x = lines_[a].key;
    const LineKey& y = lines_[b].key;
    return std::tie(x.pid, x.tid, x.lane) < std::tie(y.pid, y.tid, y.lane);
  });

  absl::flat_hash_map<std::uint32_t, std::uint32_t> host_ops;
  for (std::uint32_t li : order) {
    StagedLine& l = lines_[li];
    Entity& ent = entities[{l.key.pid, line_is_device(l)}];
    Device& d = ent.d;
    Line line;
    line.id = l.key.tid.is_string ? 0 : l.key.tid.value;
    auto tn = thread_names_.find({l.key.pid, l.key.tid});
    const std::string tid_text = id_text(l.key.tid, strings_);
    if (ent.device) {
      if (format == TraceFormat::kTslJson) {
        line.name = tn != thread_names_.end() ? tn->second : cat("thread ", tid_text);
        line.role = device_line_role(d.kind, line.name);
      } else {
        const bool annotations = l.key.lane == 1;
        line.name = annotations ? cat("annotations ", tid_text)
                    : tid_text.rfind("stream", 0) == 0 ? tid_text
                                                       : cat("stream ", tid_text);
        line.role = annotations ? LineRole::kAnnotations
                    : l.device_ops ? LineRole::kOps
                                   : LineRole::kOther;
      }
    } else {
      line.name = tn != thread_names_.end() && !tn->second.empty() ? tn->second : cat("thread ", tid_text);
      line.role = LineRole::kHostThread;
    }
    const std::uint32_t index = static_cast<std::uint32_t>(d.lines.size());
    d.lines.push_back(std::move(line));
    d.events.reserve(d.events.size() + l.events.size());
    for (const StagedEvent& s : l.events) {
      Event e{.start_ps = s.start_ps, .duration_ps = s.duration_ps, .self_ps = s.duration_ps,
              .op = s.op, .line = index, .correlation_id = s.correlation};
      if (!ent.device) {
        // Host events carrying an HLO op they launched (GPU launches in TSL
        // JSON) are named by what the thread did.
        const OpInfo& info = t.ops[e.op];
        if (!info.kernel.empty()) {
          auto it = host_ops.find(e.op);
          if (it == host_ops.end()) {
            OpInfo plain;
            plain.name = info.kernel;
            plain.category = info.category;
            it = host_ops.emplace(e.op, builder_.intern_op(std::move(plain))).first;
          }
          e.op = it->second;
        }
      } else if (format == TraceFormat::kKinetoJson) {
        e.call = s.own_call;  // the launcher's call, from link_launchers
      }
      d.events.push_back(e);
    }
    std::vector<StagedEvent>().swap(l.events);
  }
  for (auto& [key, e] : entities) {
    if (e.device) t.devices.push_back(std::move(e.d));
    else t.hosts.push_back(std::move(e.d));
  }
  return builder_.finish();
}

}  // namespace

absl::StatusOr<Trace> read_chrome_json(ByteStream& in, const std::string& origin, bool decompressed,
                                       const TraceReadOptions& options) {
  ChromeReader reader(in, origin, decompressed, options);
  return reader.run();
}

}  // namespace roofline::detail
