// Kineto JSON pod profile: the source trace's text, event by event, with the
// numbers that must change per repeat and per host cut out as slots (ts, dur,
// ProfilerStep#N, correlation / External id / flow id, distributedInfo). Each
// output file is the source's text with its traceEvents repeated K times and
// the slots filled in, written straight to disk: memory is the source and
// its slot table, whatever the output size.
#include <algorithm>
#include <charconv>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bench/pod_profile_common.hpp"
#include "roofline/detail/status_macros.hpp"

namespace roofline::pod {
namespace {

enum class Slot : std::uint8_t { kNone, kTs, kDur, kSpanDur, kStep, kId, kRank, kWorld, kEvents };

// Literal source text [begin, begin + len), then a slot (kNone: nothing).
struct Piece {
  std::uint32_t begin = 0;
  std::uint32_t len = 0;
  Slot slot = Slot::kNone;
  std::int64_t value = 0;  // kStep: N; kId: the source id
};

struct Event {
  std::uint32_t piece_begin = 0, piece_end = 0;
  bool timed = false;  // has a numeric ts
  bool once = false;   // metadata and the capture span: written in repeat 0 only
  std::int64_t ts_ns = 0, dur_ns = 0;
  std::int64_t shift_ns = 0, extra_ns = 0;  // planted wait (hosts that are not the straggler)
};

// Raw JSON text, walked just far enough to find values; no DOM.
class Json {
 public:
  Json(std::string_view s, const std::string& path) : s_(s), path_(path) {}

  std::size_t ws(std::size_t i) const {
    while (i < s_.size() && (s_[i] == ' ' || s_[i] == '\n' || s_[i] == '\r' || s_[i] == '\t')) ++i;
    return i;
  }
  absl::Status error(std::size_t i, const std::string& what) const {
    return absl::InvalidArgumentError(path_ + ": byte " + std::to_string(i) + ": " + what);
  }
  // i at '"'; returns the index after the closing quote.
  absl::StatusOr<std::size_t> string_end(std::size_t i) const {
    for (++i; i < s_.size(); ++i) {
      if (s_[i] == '\\') ++i;
      else if (s_[i] == '"') return i + 1;
    }
    return error(i, "unterminated string");
  }
  absl::StatusOr<std::size_t> value_end(std::size_t i) const {
    if (i >= s_.size()) return error(i, "expected a value");
    if (s_[i] == '"') return string_end(i);
    if (s_[i] == '{' || s_[i] == '[') {
      int depth = 0;
      for (; i < s_.size(); ++i) {
        const char c = s_[i];
        if (c == '"') {
          ROOFLINE_ASSIGN_OR_RETURN(i, string_end(i));
          --i;
        } else if (c == '{' || c == '[') {
          ++depth;
        } else if (c == '}' || c == ']') {
          if (--depth == 0) return i + 1;
        }
      }
      return error(i, "unterminated object or array");
    }
    const std::size_t b = i;
    while (i < s_.size() && std::string_view(",}] \n\r\t").find(s_[i]) == std::string_view::npos) ++i;
    if (i == b) return error(b, "expected a value");
    return i;
  }
  // Calls f(key, value_begin, value_end) for each member of the object at i;
  // returns the index after it. Keys are compared raw (those looked for have
  // no escapes).
  template <class F>
  absl::StatusOr<std::size_t> members(std::size_t i, F&& f) const {
    if (i >= s_.size() || s_[i] != '{') return error(i, "expected '{'");
    i = ws(i + 1);
    if (i < s_.size() && s_[i] == '}') return i + 1;
    for (;;) {
      if (i >= s_.size() || s_[i] != '"') return error(i, "expected a member name");
      ROOFLINE_ASSIGN_OR_RETURN(const std::size_t k_end, string_end(i));
      const std::string_view key = s_.substr(i + 1, k_end - i - 2);
      i = ws(k_end);
      if (i >= s_.size() || s_[i] != ':') return error(i, "expected ':'");
      const std::size_t vb = ws(i + 1);
      ROOFLINE_ASSIGN_OR_RETURN(const std::size_t ve, value_end(vb));
      ROOFLINE_RETURN_IF_ERROR(f(key, vb, ve));
      i = ws(ve);
      if (i < s_.size() && s_[i] == '}') return i + 1;
      if (i >= s_.size() || s_[i] != ',') return error(i, "expected ',' or '}'");
      i = ws(i + 1);
    }
  }
  std::string_view text(std::size_t b, std::size_t e) const { return s_.substr(b, e - b); }

 private:
  std::string_view s_;
  const std::string& path_;
};

bool parse_int(std::string_view t, std::int64_t& v) {
  const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

// Microseconds as Kineto writes them ("1683564901552624", "12.345") to
// integer nanoseconds; digits past the third decimal are dropped.
bool parse_us(std::string_view t, std::int64_t& ns) {
  const std::size_t dot = t.find('.');
  std::int64_t whole = 0;
  if (!parse_int(t.substr(0, dot), whole) || whole < 0) return false;
  std::int64_t frac = 0;
  if (dot != std::string_view::npos) {
    std::string_view f = t.substr(dot + 1);
    if (f.empty() || f.find_first_not_of("0123456789") != std::string_view::npos) return false;
    for (int d = 0; d < 3; ++d) frac = frac * 10 + (d < static_cast<int>(f.size()) ? f[static_cast<std::size_t>(d)] - '0' : 0);
  }
  ns = whole * 1000 + frac;
  return true;
}

char* put_int(char* p, std::int64_t v) { return std::to_chars(p, p + 24, v).ptr; }

char* put_us(char* p, std::int64_t ns) {
  p = put_int(p, ns / 1000);
  if (const std::int64_t f = ns % 1000; f != 0) {
    *p++ = '.';
    *p++ = static_cast<char>('0' + f / 100);
    *p++ = static_cast<char>('0' + f / 10 % 10);
    *p++ = static_cast<char>('0' + f % 10);
  }
  return p;
}

struct Source {
  std::string text;
  std::vector<Piece> pieces;  // all events' pieces, then the top level's
  std::vector<Event> events;
  std::uint32_t top_begin = 0;  // the top level's pieces: [top_begin, pieces.size())
  std::string sep;              // between two events, as the source has it
  std::int64_t s0_ns = 0, span_ns = 0, period_ns = 0;
  std::int64_t id_stride = 1;   // added to every id per repeat
  std::int64_t step_first = 0, step_count = 0;
  std::uint64_t fixed_bytes = 0, repeat_bytes = 0;
  std::string planted;
};

struct RawEvent {
  std::string_view ph, cat, name, pid, tid;
  std::vector<Piece> slots;  // begin = value begin, len = value length
};

absl::Status parse_event(const Json& j, std::size_t b, std::size_t e, Source& src, RawEvent& raw, Event& ev) {
  raw = RawEvent{};
  auto add = [&](std::size_t vb, std::size_t ve, Slot s, std::int64_t v) {
    raw.slots.push_back({static_cast<std::uint32_t>(vb), static_cast<std::uint32_t>(ve - vb), s, v});
  };
  auto id_slot = [&](std::size_t vb, std::size_t ve) {
    std::int64_t v = 0;
    if (parse_int(j.text(vb, ve), v) && v > 0) add(vb, ve, Slot::kId, v);
  };
  std::size_t ts_b = 0, ts_e = 0, dur_b = 0, dur_e = 0;
  ROOFLINE_ASSIGN_OR_RETURN(
      const std::size_t end, j.members(b, [&](std::string_view key, std::size_t vb, std::size_t ve) -> absl::Status {
        if (key == "ph") raw.ph = j.text(vb, ve);
        else if (key == "cat") raw.cat = j.text(vb, ve);
        else if (key == "pid") raw.pid = j.text(vb, ve);
        else if (key == "tid") raw.tid = j.text(vb, ve);
        else if (key == "ts") ts_b = vb, ts_e = ve;
        else if (key == "dur") dur_b = vb, dur_e = ve;
        else if (key == "id") id_slot(vb, ve);
        else if (key == "name") {
          raw.name = j.text(vb, ve);
          constexpr std::string_view kStep = "\"ProfilerStep#";
          std::int64_t n = 0;
          if (raw.name.size() > kStep.size() + 1 && raw.name.substr(0, kStep.size()) == kStep &&
              parse_int(raw.name.substr(kStep.size(), raw.name.size() - kStep.size() - 1), n) && n >= 0)
            add(vb + kStep.size(), ve - 1, Slot::kStep, n);
        } else if (key == "args" && vb < ve && j.text(vb, vb + 1) == "{") {
          ROOFLINE_ASSIGN_OR_RETURN(
              std::size_t ignored, j.members(vb, [&](std::string_view k, std::size_t ab, std::size_t ae) -> absl::Status {
                if (k == "External id" || k == "correlation") id_slot(ab, ae);
                return absl::OkStatus();
              }));
          (void)ignored;
        }
        return absl::OkStatus();
      }));
  if (end != e) return j.error(b, "event object ends unexpectedly");
  ev.once = raw.ph == "\"M\"" || raw.ph == "\"i\"" || raw.ph == "\"I\"" || raw.cat == "\"Trace\"";
  if (ts_e > ts_b && parse_us(j.text(ts_b, ts_e), ev.ts_ns)) {
    ev.timed = true;
    if (!ev.once) add(ts_b, ts_e, Slot::kTs, 0);
  }
  if (ev.timed && dur_e > dur_b && parse_us(j.text(dur_b, dur_e), ev.dur_ns))
    add(dur_b, dur_e, raw.cat == "\"Trace\"" ? Slot::kSpanDur : Slot::kDur, 0);
  if (ev.once)  // written as they are, but for the capture span's length
    raw.slots.erase(std::remove_if(raw.slots.begin(), raw.slots.end(),
                                   [](const Piece& p) { return p.slot != Slot::kSpanDur; }),
                    raw.slots.end());
  std::sort(raw.slots.begin(), raw.slots.end(), [](const Piece& a, const Piece& c) { return a.begin < c.begin; });
  ev.piece_begin = static_cast<std::uint32_t>(src.pieces.size());
  std::size_t cursor = b;
  for (const Piece& s : raw.slots) {
    src.pieces.push_back({static_cast<std::uint32_t>(cursor), static_cast<std::uint32_t>(s.begin - cursor), s.slot, s.value});
    cursor = s.begin + s.len;
  }
  src.pieces.push_back({static_cast<std::uint32_t>(cursor), static_cast<std::uint32_t>(e - cursor), Slot::kNone, 0});
  ev.piece_end = static_cast<std::uint32_t>(src.pieces.size());
  return absl::OkStatus();
}

bool is_nccl_kernel(const RawEvent& r) {
  return r.cat == "\"kernel\"" && (r.name.rfind("\"ncclKernel", 0) == 0 || r.name.rfind("\"ncclDevKernel", 0) == 0);
}

// The planted wait: on hosts that are not the straggler, the first NCCL
// kernel of each ProfilerStep (by ts, within [step start, next step start))
// lasts 10% of the step longer, and the later events of its stream in the
// repeat start that much later, so nothing on the stream overlaps.
void plant_waits(Source& src, const std::vector<RawEvent>& raws) {
  struct Step {
    std::int64_t n, ts_ns, dur_ns;
  };
  std::map<std::int64_t, Step> by_n;  // the earliest range of each N (host over GPU annotation)
  for (std::size_t i = 0; i < src.events.size(); ++i) {
    const Event& ev = src.events[i];
    if (ev.once || !ev.timed) continue;
    for (std::uint32_t p = ev.piece_begin; p < ev.piece_end; ++p)
      if (src.pieces[p].slot == Slot::kStep) {
        auto [it, fresh] = by_n.try_emplace(src.pieces[p].value, Step{src.pieces[p].value, ev.ts_ns, ev.dur_ns});
        if (!fresh && ev.ts_ns < it->second.ts_ns) it->second = Step{src.pieces[p].value, ev.ts_ns, ev.dur_ns};
      }
  }
  std::vector<Step> steps;
  for (const auto& [n, s] : by_n) steps.push_back(s);
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.ts_ns < b.ts_ns; });
  if (!steps.empty()) {
    src.step_first = by_n.begin()->first;
    src.step_count = by_n.rbegin()->first - src.step_first + 1;
  }
  std::vector<std::size_t> first(steps.size(), SIZE_MAX);
  for (std::size_t i = 0; i < src.events.size(); ++i) {
    const Event& ev = src.events[i];
    if (ev.once || !ev.timed || !is_nccl_kernel(raws[i])) continue;
    auto it = std::upper_bound(steps.begin(), steps.end(), ev.ts_ns,
                               [](std::int64_t t, const Step& s) { return t < s.ts_ns; });
    if (it == steps.begin()) continue;  // before the first step
    const std::size_t s = static_cast<std::size_t>(it - steps.begin()) - 1;
    if (first[s] == SIZE_MAX || ev.ts_ns < src.events[first[s]].ts_ns) first[s] = i;
  }
  std::int64_t planted = 0;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    if (first[s] == SIZE_MAX) continue;
    const std::size_t c = first[s];
    const std::int64_t wait = steps[s].dur_ns / 10;
    src.events[c].extra_ns += wait;
    for (std::size_t i = 0; i < src.events.size(); ++i) {
      Event& ev = src.events[i];
      if (i == c || ev.once || !ev.timed || raws[i].pid != raws[c].pid || raws[i].tid != raws[c].tid) continue;
      if (ev.ts_ns > src.events[c].ts_ns || (ev.ts_ns == src.events[c].ts_ns && i > c)) ev.shift_ns += wait;
    }
    ++planted;
  }
  src.planted = std::to_string(planted) + " of " + std::to_string(steps.size()) +
                " steps per repeat have an NCCL kernel that waits (10% of the step) on the other hosts";
}

absl::StatusOr<Source> load(const std::string& path) {
  Source src;
  ROOFLINE_ASSIGN_OR_RETURN(src.text, read_source(path));
  if (src.text.size() >= (std::uint64_t{1} << 32)) return absl::InvalidArgumentError(path + ": over 4 GiB of JSON");
  const Json j(src.text, path);
  std::size_t events_b = 0, events_e = 0;
  std::vector<Piece> top;  // slots of the top level
  std::vector<RawEvent> raws;
  const std::size_t start = j.ws(0);
  ROOFLINE_ASSIGN_OR_RETURN(
      const std::size_t end, j.members(start, [&](std::string_view key, std::size_t vb, std::size_t ve) -> absl::Status {
        if (key == "distributedInfo" && j.text(vb, vb + 1) == "{") {
          ROOFLINE_ASSIGN_OR_RETURN(std::size_t ignored,
                                    j.members(vb, [&](std::string_view k, std::size_t ab, std::size_t ae) -> absl::Status {
                                      std::int64_t v = 0;
                                      if (parse_int(j.text(ab, ae), v) && (k == "rank" || k == "world_size"))
                                        top.push_back({static_cast<std::uint32_t>(ab), static_cast<std::uint32_t>(ae - ab),
                                                       k == "rank" ? Slot::kRank : Slot::kWorld, v});
                                      return absl::OkStatus();
                                    }));
          (void)ignored;
          return absl::OkStatus();
        }
        if (key != "traceEvents") return absl::OkStatus();
        if (j.text(vb, vb + 1) != "[") return j.error(vb, "traceEvents is not an array");
        std::size_t i = j.ws(vb + 1);
        std::size_t prev_end = 0;
        while (i < ve && src.text[i] != ']') {
          ROOFLINE_ASSIGN_OR_RETURN(const std::size_t e, j.value_end(i));
          if (src.text[i] != '{') return j.error(i, "a trace event that is not an object");
          if (src.events.empty()) events_b = i;
          else if (src.sep.empty()) src.sep = std::string(j.text(prev_end, i));
          Event ev;
          raws.emplace_back();
          ROOFLINE_RETURN_IF_ERROR(parse_event(j, i, e, src, raws.back(), ev));
          src.events.push_back(ev);
          prev_end = events_e = e;
          i = j.ws(e);
          if (i < ve && src.text[i] == ',') i = j.ws(i + 1);
        }
        return absl::OkStatus();
      }));
  (void)end;
  if (src.events.empty()) return absl::InvalidArgumentError(path + ": no traceEvents");
  if (src.sep.empty()) src.sep = ",";

  top.push_back({static_cast<std::uint32_t>(events_b), static_cast<std::uint32_t>(events_e - events_b), Slot::kEvents, 0});
  std::sort(top.begin(), top.end(), [](const Piece& a, const Piece& b) { return a.begin < b.begin; });
  src.top_begin = static_cast<std::uint32_t>(src.pieces.size());
  std::size_t cursor = 0;
  for (const Piece& s : top) {
    src.pieces.push_back({static_cast<std::uint32_t>(cursor), static_cast<std::uint32_t>(s.begin - cursor), s.slot, s.value});
    cursor = s.begin + s.len;
  }
  src.pieces.push_back({static_cast<std::uint32_t>(cursor), static_cast<std::uint32_t>(src.text.size() - cursor), Slot::kNone, 0});

  // The repeat's time axis: from the first event to the last end.
  std::int64_t lo = INT64_MAX, hi = INT64_MIN, max_id = 0;
  for (const Event& ev : src.events) {
    if (ev.once || !ev.timed) continue;
    lo = std::min(lo, ev.ts_ns);
    hi = std::max(hi, ev.ts_ns + ev.dur_ns);
  }
  if (lo > hi) return absl::InvalidArgumentError(path + ": no timed trace events");
  for (const Piece& p : src.pieces)
    if (p.slot == Slot::kId) max_id = std::max(max_id, p.value);
  while (src.id_stride <= max_id) src.id_stride *= 10;
  src.s0_ns = lo;
  src.span_ns = hi - lo;
  // Room for the straggler's 10% and a 1 ms gap, in whole microseconds so
  // that shifted times stay integers where the source's are.
  src.period_ns = (src.span_ns + src.span_ns / 10 + 1'000'000 + 999) / 1000 * 1000;
  plant_waits(src, raws);

  // Sizes as in the source (ids and times written later may be a digit longer).
  src.fixed_bytes = src.text.size() - (events_e - events_b);
  for (const Event& ev : src.events) {
    const Piece& last = src.pieces[ev.piece_end - 1];
    const std::uint64_t n = src.sep.size() + (last.begin + last.len - src.pieces[ev.piece_begin].begin);
    (ev.once ? src.fixed_bytes : src.repeat_bytes) += n;
  }
  return src;
}

class Writer {
 public:
  Writer(const Source& s, const PodOptions& o, std::int64_t repeats, int host, OutputFile& out)
      : s_(s), o_(o), k_(repeats), host_(host), out_(out) {}

  void file() { pieces(s_.top_begin, static_cast<std::uint32_t>(s_.pieces.size()), nullptr, 0, false); }

 private:
  void pieces(std::uint32_t b, std::uint32_t e, const Event* ev, std::int64_t r, bool slow) {
    for (std::uint32_t i = b; i < e; ++i) {
      const Piece& p = s_.pieces[i];
      out_.append(std::string_view(s_.text).substr(p.begin, p.len));
      if (p.slot == Slot::kNone) continue;
      if (p.slot == Slot::kEvents) {
        events();
        continue;
      }
      char* w = out_.reserve(32);
      char* end = w;
      switch (p.slot) {
        case Slot::kTs:
          end = put_us(w, slow ? stretch(ev->ts_ns, s_.s0_ns) + r * s_.period_ns : ev->ts_ns + r * s_.period_ns + ev->shift_ns);
          break;
        case Slot::kDur:
          end = put_us(w, slow ? stretch(ev->ts_ns + ev->dur_ns, s_.s0_ns) - stretch(ev->ts_ns, s_.s0_ns)
                              : ev->dur_ns + ev->extra_ns);
          break;
        case Slot::kSpanDur: end = put_us(w, ev->dur_ns + (k_ - 1) * s_.period_ns); break;
        case Slot::kStep: end = put_int(w, p.value + r * s_.step_count); break;
        case Slot::kId: end = put_int(w, p.value + r * s_.id_stride); break;
        case Slot::kRank: end = put_int(w, host_); break;
        case Slot::kWorld: end = put_int(w, o_.hosts); break;
        case Slot::kNone:
        case Slot::kEvents: break;
      }
      out_.commit(static_cast<std::size_t>(end - w));
    }
  }
  void events() {
    bool first = true;
    for (std::int64_t r = 0; r < k_; ++r) {
      const bool slow = straggler_host(r, o_) == host_;
      for (const Event& ev : s_.events) {
        if (ev.once && r > 0) continue;
        if (!first) out_.append(s_.sep);
        first = false;
        pieces(ev.piece_begin, ev.piece_end, &ev, r, slow);
      }
    }
  }

  const Source& s_;
  const PodOptions& o_;
  std::int64_t k_;
  int host_;
  OutputFile& out_;
};

}  // namespace

absl::Status write_kineto_pod(const PodOptions& o, PodSummary& summary) {
  ROOFLINE_ASSIGN_OR_RETURN(const Source src, load(o.source_path));
  const std::uint64_t need = o.bytes_per_host > src.fixed_bytes ? o.bytes_per_host - src.fixed_bytes : 0;
  summary.repeats = std::max<std::int64_t>(1, static_cast<std::int64_t>((need + src.repeat_bytes - 1) / src.repeat_bytes));
  for (const Event& ev : src.events) summary.events_per_repeat += ev.once ? 0 : 1;
  summary.planted = src.planted + "; " + std::to_string(src.step_count) + " ProfilerStep numbers per repeat from #" +
                    std::to_string(src.step_first) + "; period " + std::to_string(src.period_ns / 1000) + " us";
  for (int h = 0; h < o.hosts; ++h) {
    ROOFLINE_ASSIGN_OR_RETURN(OutputFile out, OutputFile::create(o.out_dir + "/" + host_name(h, o.hosts) + ".pt.trace.json"));
    Writer(src, o, summary.repeats, h, out).file();
    summary.bytes_written += out.bytes_written();
    ROOFLINE_RETURN_IF_ERROR(out.close());
  }
  return absl::OkStatus();
}

}  // namespace roofline::pod
