// Readers of measured traces into roofline::Trace (roofline/trace/trace.hpp).
//
//   auto t = roofline::read_trace("log/plugins/profile/2025_11_19_22_37_11");
//   if (!t.ok()) { std::cerr << t.status().message() << "\n"; return 1; }
//
// The format is chosen by content, not by extension: gzip magic, then the
// first non-blank character ('{' or '[' is Chrome trace-event JSON), else an
// XSpace protobuf. A directory is searched for profile files (see
// read_trace). Errors name the file and the place: "x.xplane.pb: byte 400012:
// truncated length-delimited field", "t.json.gz: traceEvents[12].dur: expected
// a number, got a string".
//
// Streaming: JSON is tokenized from a fixed window of the (decompressed)
// input, so memory grows with the events and distinct ops kept, not with the
// file; an XSpace is decoded in place from a read-only memory map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/trace/trace.hpp"

namespace roofline {

// Where a read of several files stands, for a progress display: after each
// file is read (in the order they finish, not file order).
struct TraceReadProgress {
  std::size_t files_done = 0;
  std::size_t files_total = 0;
  // Sizes on disk (compressed, for .gz); 0 for a pipe.
  std::uint64_t bytes_done = 0;
  std::uint64_t bytes_total = 0;
  std::string file = {};  // the file just read
};

// Limits on what a file may make us hold. A hostile or broken file (a gzip
// bomb, 40 M copies of one event) meets one of them and the read fails with
// a located error naming the limit, never an abort; a real file past one
// raises it (the CLI's --max-decompressed-bytes, --max-inflated-bytes,
// --max-events). The defaults keep a read under about 1 GB of memory.
struct TraceReadOptions {
  // Gunzipped bytes streamed through the JSON tokenizer, and the bytes of
  // plain JSON on a pipe (counted as read): costs time, not memory (about
  // 4 s per GiB here).
  std::uint64_t max_decompressed_bytes = std::uint64_t{64} << 30;
  // Gunzipped bytes held in memory at once: a gzip'd XSpace (decoded from
  // memory) and the gzip'd XStat strings of one file, in total; and an
  // XSpace read from a pipe, held to be decoded.
  std::uint64_t max_inflated_bytes = std::uint64_t{512} << 20;
  // Timed events kept (about 70 bytes each while reading JSON; measured).
  std::uint64_t max_events = 5'000'000;
  // Distinct ops of a JSON trace. A report costs about 2.4 kB of memory per
  // op, and its JSON output about 9 kB (1 M distinct ops: 2.4 GB and 9.1 GB,
  // measured); the real traces we know have at most 470.
  std::uint64_t max_ops = 100'000;
  // Largest single JSON trace event (args included) the tokenizer buffers.
  std::uint64_t max_json_event_bytes = std::uint64_t{256} << 20;
  // Inflate .gz input on a second thread while the first tokenizes (only
  // while the files read at once leave a core for it: jobs * 2 <= cores).
  bool background_inflate = true;
  // Keep the host timelines (Trace::hosts: host threads' events, the bulk
  // of a PyTorch trace). The report reads none of them, and drops them as
  // each file is read, so that a pod's many files never hold them together;
  // host steps (ProfilerStep ranges) and what linked kernels to their
  // launches are kept either way. An XPlane with a device plane then does
  // not look into its host planes' lines at all (they never become XLA:CPU
  // devices there). Its devices and their events are the full read's, and
  // so are the ops those name (their indices may differ); but ops only host
  // events name are not in Trace::ops, warnings about host events are not
  // given, a damaged host line or event, which the full read refuses, goes
  // unseen, and the time base (Trace::time_origin_ns) is taken from the
  // lines read, so that event times may count from another origin than a
  // full read's where host lines are far from the device's.
  bool host_timelines = true;
  // When set, an XSpace that has a device plane and whose host planes
  // (/host:CPU) hold more than this many bytes is read as though
  // host_timelines were false, with a warning that says so. Unset (the
  // library's default): host timelines as host_timelines says. `roofline
  // stats` sets kStatsHostTimelinesUpToBytes (roofline/measure/stats_partial.hpp):
  // of a TPU host's profile the host planes are two thirds of the bytes,
  // and what stats draws from them (what the host did in each device's
  // largest idle gaps) took 1.6x the time of a read without them on a
  // 64-host pod (docs/traces.md, "A pod-scale profile"). The test is per
  // file, so a file reads the same alone, among others or as a partial.
  // Without a device plane the host planes are the devices: read always.
  std::optional<std::uint64_t> host_timelines_up_to_bytes = std::nullopt;
  // Files of a directory or a list read at once, one task per file; 0 is
  // std::thread::hardware_concurrency(). The result does not depend on it:
  // the parts are merged in file order. Memory: up to `jobs` parsed files
  // are held before they are merged (and the limits above apply per file).
  unsigned jobs = 0;
  // Called on the calling thread (the one that merges) after each file of a
  // directory or list is read; not for a single file. Empty: no calls.
  std::function<void(const TraceReadProgress&)> progress = nullptr;
};

// Reads a file or a directory. For a directory: every *.xplane.pb under it;
// Chrome JSON files (*.trace.json[.gz], *.pt.trace.json[.gz], *.json[.gz])
// only in folders without an .xplane.pb, since jax writes both for one run.
// When several capture folders (plugins/profile/<run>/) hold profiles, the
// last by name (jax names them by time) is read and a warning says so; other
// folders are all read, as hosts of one job. JSON files that
// hold no trace (configs, summaries) are skipped with a warning; a damaged
// trace fails the read (when several are, the first in file order names the
// error). A directory's files are read options.jobs at a time.
absl::StatusOr<Trace> read_trace(const std::string& path, const TraceReadOptions& options = {});

// Several files, directories and glob(3) patterns ("logs/*/plugins/profile",
// "rank*.pt.trace.json") read as the hosts of one job, merged as read_trace
// merges the files of a directory: each file's stem names the host of
// devices that do not name theirs (rank3.pt.trace.json -> "rank3"). An entry
// that exists is taken as a path even if it holds '*', '?' or '['; a pattern
// that matches nothing is an error naming it; a file met twice is read once.
// JSON that holds no trace is skipped with a warning when a directory or a
// pattern found it, an error when named. One entry naming one path is
// read_trace(path). The Trace's source is the entries joined by spaces.
//
//   auto t = roofline::read_traces({"run/host*.xplane.pb"}, {.jobs = 8});
absl::StatusOr<Trace> read_traces(const std::vector<std::string>& paths_or_globs,
                                  const TraceReadOptions& options = {});

// An XSpace (.xplane.pb); `origin` names the bytes in errors.
absl::StatusOr<Trace> parse_xplane(std::string_view bytes, std::string_view origin,
                                   const TraceReadOptions& options = {});

// Chrome trace-event JSON text (plain, not gzip'd): TSL/XProf, Kineto or generic.
absl::StatusOr<Trace> parse_chrome_trace(std::string_view json, std::string_view origin,
                                         const TraceReadOptions& options = {});

// Any single trace in memory, gzip'd or not, format sniffed as read_trace does.
absl::StatusOr<Trace> parse_trace_bytes(std::string_view bytes, std::string_view origin,
                                        const TraceReadOptions& options = {});

}  // namespace roofline
