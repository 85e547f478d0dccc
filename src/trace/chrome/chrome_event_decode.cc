#include "src/trace/chrome/chrome_event_decode.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "roofline/detail/cat.hpp"
#include "roofline/detail/status_macros.hpp"

namespace roofline::detail {

namespace {

// "9.9999999999999995e-07": through a double, then split.
bool parse_exponent_time_us(std::string_view tok, TimeUs& out) {
  const char* e = tok.data() + tok.size();
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

}  // namespace

bool parse_time_us(std::string_view tok, TimeUs& out) {
  const char* p = tok.data();
  const char* e = p + tok.size();
  bool neg = false;
  if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
  if (std::find_if(p, e, [](char c) { return c == 'e' || c == 'E'; }) != e) return parse_exponent_time_us(tok, out);
  std::uint64_t whole = 0;
  const char* d = p;
  while (p < e && *p >= '0' && *p <= '9') {
    if (whole > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return false;
    whole = whole * 10 + static_cast<std::uint64_t>(*p++ - '0');
  }
  const bool had_int = p != d;
  // Six fraction digits are ps; the seventh rounds.
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
  if (rd.ec == std::errc() && rd.ptr == s.data() + s.size() && std::isfinite(d) && d == std::trunc(d) &&
      std::fabs(d) < 9.2e18)
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

std::string_view canonical_cat(std::string_view c) {
  if (c == "Kernel") return "kernel";
  if (c == "Memcpy") return "gpu_memcpy";
  if (c == "Memset") return "gpu_memset";
  if (c == "Operator") return "cpu_op";
  if (c == "Runtime") return "cuda_runtime";
  return c;
}

bool is_device_op_cat(std::string_view c) { return c == "kernel" || c == "gpu_memcpy" || c == "gpu_memset"; }

bool is_kineto_cat(std::string_view c) {
  return is_device_op_cat(c) || c == "cpu_op" || c == "cuda_runtime" || c == "cuda_driver" ||
         c == "gpu_user_annotation" || c == "user_annotation" || c == "python_function" || c == "ac2g";
}

absl::Status EventDecoder::field_error(std::string_view field, const char* at, std::string_view what) const {
  return absl::InvalidArgumentError(
      cat(stream_.origin(), ": traceEvents[", event_index_, "].", field, ": ", what, stream_.where(at)));
}

void EventDecoder::warn_once(const std::string& key, std::string message) {
  if (warned_.emplace(key, true).second) warnings_.push_back(std::move(message));
}

absl::StatusOr<TimeUs> EventDecoder::time(const Scalar& s, std::string_view field) {
  if (s.kind != Scalar::kNumber) return field_error(field, s.at, cat("expected a number, got ", json_kind(*s.at)));
  TimeUs t;
  if (!parse_time_us(s.text, t))
    return field_error(field, s.at, cat("'", s.text, "' is not a time in microseconds within range"));
  return t;
}

absl::StatusOr<std::int64_t> EventDecoder::start_ps(const EventFields& f) {
  if (!f.ts.present()) return field_error("ts", f.at, "missing (required for phase X, B and E)");
  ROOFLINE_ASSIGN_OR_RETURN(TimeUs ts, time(f.ts, "ts"));
  if (!have_base_) {
    // Whole µs since the epoch (older Kineto) would overflow int64 ps:
    // such traces are rebased on their first timestamp.
    have_base_ = true;
    staging_.base_us = (ts.us > (std::int64_t{1} << 40) || ts.us < -(std::int64_t{1} << 40)) ? ts.us : 0;
  }
  std::int64_t rel_us = 0, ps = 0;
  if (__builtin_sub_overflow(ts.us, staging_.base_us, &rel_us) ||
      __builtin_mul_overflow(rel_us, std::int64_t{1'000'000}, &ps) || __builtin_add_overflow(ps, ts.frac_ps, &ps))
    return field_error("ts", f.ts.at, "more than 106 days from the first event: overflows int64 picoseconds");
  return ps;
}

absl::StatusOr<std::int64_t> EventDecoder::duration_ps(const EventFields& f, std::int64_t start_ps) {
  if (!f.dur.present()) return field_error("dur", f.at, "missing (required for phase X)");
  ROOFLINE_ASSIGN_OR_RETURN(TimeUs dur, time(f.dur, "dur"));
  if (dur.us < 0 || dur.frac_ps < 0) return field_error("dur", f.dur.at, cat("negative duration ", f.dur.text));
  std::int64_t ps = 0;
  if (__builtin_mul_overflow(dur.us, std::int64_t{1'000'000}, &ps) || __builtin_add_overflow(ps, dur.frac_ps, &ps))
    return field_error("dur", f.dur.at, "overflows int64 picoseconds");
  std::int64_t end_ps;
  if (__builtin_add_overflow(start_ps, ps, &end_ps))
    return field_error("dur", f.dur.at, "event end overflows int64 picoseconds");
  return ps;
}

absl::StatusOr<bool> EventDecoder::timed(const EventFields& f, char ph, TimedEvent& out) {
  out.ph = ph;
  ROOFLINE_ASSIGN_OR_RETURN(out.start_ps, start_ps(f));
  out.category = canonical_cat(f.cat);
  // Kineto's span of the whole capture ("PyTorch Profiler (0)") is not activity.
  if (out.category == "Trace") return false;
  ROOFLINE_ASSIGN_OR_RETURN(out.pid, id(f.pid, "pid"));
  ROOFLINE_ASSIGN_OR_RETURN(out.tid, id(f.tid, "tid"));
  out.duration_ps = 0;
  if (ph == 'X') {
    ROOFLINE_ASSIGN_OR_RETURN(out.duration_ps, duration_ps(f, out.start_ps));
  }
  return true;
}

absl::StatusOr<IdKey> EventDecoder::id(const Scalar& s, std::string_view field) {
  if (!s.present()) return IdKey{};
  if (s.kind == Scalar::kNumber) {
    if (auto v = parse_int(s.text)) return IdKey{.value = *v, .is_string = false};
    return field_error(field, s.at, cat("expected an integer, got ", s.text));
  }
  if (s.kind == Scalar::kString) return staging_.ids.intern(s.text);
  return field_error(field, s.at, cat("expected an integer or a string, got ", json_kind(*s.at)));
}

std::optional<std::int64_t> EventDecoder::int_arg(const Scalar& s, std::string_view key) {
  if (s.kind == Scalar::kNumber || s.kind == Scalar::kString) {
    if (auto v = parse_int(s.text)) return v;
  }
  if (s.kind == Scalar::kAbsent || (s.kind == Scalar::kOther && s.text == "null")) return std::nullopt;
  const std::string_view quote = s.kind == Scalar::kString ? "\"" : "";
  warn_once(cat("int:", key), cat(stream_.origin(), ": traceEvents[", event_index_, "].args.", key,
                                  ": expected an integer, got ", quote, s.text.substr(0, 40), quote,
                                  "; ignored here and wherever else it happens"));
  return std::nullopt;
}

std::optional<std::int64_t> EventDecoder::count_arg(const Scalar& s, std::string_view key) {
  const std::optional<std::int64_t> v = int_arg(s, key);
  if (!v || *v >= 0) return v;
  // A negative FLOP or byte count would turn into a negative MFU or time.
  warn_once(cat("negative:", key), cat(stream_.origin(), ": traceEvents[", event_index_, "].args.", key,
                                       ": negative count ", *v, "; ignored here and wherever else it happens"));
  return std::nullopt;
}

std::string EventDecoder::str_arg(const Scalar& s, std::string_view key) {
  if (s.kind == Scalar::kString || s.kind == Scalar::kNumber) return std::string(s.text);
  if (s.kind == Scalar::kAbsent || (s.kind == Scalar::kOther && s.text == "null")) return {};
  warn_once(cat("str:", key), cat(stream_.origin(), ": traceEvents[", event_index_, "].args.", key,
                                  ": expected a string, got ", json_kind(s.text[0]),
                                  "; ignored here and wherever else it happens"));
  return {};
}

std::optional<CallInfo> EventDecoder::collective_args(const EventFields& f) {
  if (!has_collective_args(f)) return std::nullopt;
  CallInfo c;
  c.copy_bytes = count_arg(f.copy_bytes, "bytes");
  c.collective = str_arg(f.collective, "Collective name");
  c.in_msg_nelems = count_arg(f.in_msg, "In msg nelems");
  c.out_msg_nelems = count_arg(f.out_msg, "Out msg nelems");
  c.group_size = count_arg(f.group_size, "Group size");
  c.dtype = str_arg(f.dtype, "dtype");
  c.process_group = str_arg(f.pg_name, "Process Group Name");
  return c;
}

OpInfo EventDecoder::op_info(const EventFields& f, std::string_view category) {
  OpInfo op;
  op.name = std::string(f.name);
  const std::string hlo_op = str_arg(f.hlo_op, "hlo_op");
  if (!hlo_op.empty() && hlo_op != op.name) {
    op.kernel = std::move(op.name);
    op.name = hlo_op;
  }
  if (f.step_name.present()) op.name = str_arg(f.step_name, "step_name");
  op.module = str_arg(f.hlo_module, "hlo_module");
  if (f.program_id.present()) {
    if (auto v = parse_uint(f.program_id.text); v && f.program_id.kind != Scalar::kOther)
      op.program_id = *v;
    else
      warn_once("program_id", cat(stream_.origin(), ": traceEvents[", event_index_,
                                  "].args.program_id: expected an integer; ignored"));
  }
  op.category = str_arg(f.hlo_category, "hlo_category");
  if (op.category.empty()) op.category = std::string(category);
  op.flops = count_arg(f.flops, "flops");
  op.model_flops = count_arg(f.model_flops, "model_flops");
  op.bytes_accessed = count_arg(f.bytes_accessed, "bytes_accessed");
  op.hlo_text = str_arg(f.long_name, "long_name");
  op.shape_with_layout = str_arg(f.shape_with_layout, "shape_with_layout");
  op.framework_op = str_arg(f.tf_op, "tf_op");
  op.source = str_arg(f.source, "source");
  return op;
}

}  // namespace roofline::detail
