// The parts read_traces is made of, for readers that do something with each
// file as it is read: list the inputs, read them on threads in file order,
// merge the traces part by part. roofline/measure builds the partials and
// the report's measurement of many files on them, dropping each file's
// events on the thread that read it. Reader-side plumbing, in detail: no
// stable API.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "roofline/trace/read.hpp"
#include "roofline/trace/read_plan.hpp"
#include "roofline/trace/trace.hpp"

namespace roofline::detail {

// Event arrays handed from one file's read to the next on the same thread
// (src/trace/event_buffers.hpp says why). Which timelines'
// arrays keep_for_next_file keeps:
enum class KeptTimelines { kDevices, kDevicesAndHosts };

// Replaces this thread's keep with the event arrays of `t`'s devices (and
// hosts), which are left empty: arrays the previous file's read did not
// take back are freed, so a thread keeps one file's worth at most. Arrays
// under 1 MiB are freed, and so are those past 16 or past 512 MiB.
void keep_for_next_file(Trace& t, KeptTimelines which);

// The bytes of the arrays this thread keeps (their capacity).
std::size_t kept_event_bytes();

// Frees what this thread keeps: a read of many files ends with it (its pool's
// threads end, or, reading on the calling thread, run_in_order calls it).
void free_kept_events();

// One file to read and merge. `found`: a directory or a pattern found it, so
// JSON that holds no trace is skipped rather than an error.
struct InputFile {
  std::string path;
  bool found = false;
  std::uint64_t size_bytes = 0;
};

// One file, whatever its format (read_trace of a path that is no directory);
// `plan` narrows the read of an XSpace file that is not gzip'd (and only
// that: `plan->decoded` says whether it was followed).
absl::StatusOr<Trace> read_file(const std::string& path, const TraceReadOptions& options,
                                XPlaneReadPlan* plan = nullptr);

// Reads files on up to options.jobs threads, turns each into what the
// caller keeps with `task` on the thread that read it (the Trace itself, or
// its partial statistics, so the trace is dropped there), and hands each
// result to `consume` on the calling thread in file order, so that what is
// merged does not depend on the threads. A worker takes file i only while i < merged +
// workers: at most `workers` files are read or held unmerged at once, which
// bounds memory when one early file is slow. consume returns false to stop
// (an error): workers finish the file they hold and take no other.
//   task:    Part(std::size_t file, const TraceReadOptions& options): reads
//            the file with `options` (those given, less the progress
//            callback, and a background inflate only where cores are left)
//   consume: bool(std::size_t file, Part part)
template <class Task, class Consume>
void run_in_order(const std::vector<InputFile>& files, const TraceReadOptions& options, Task task, Consume consume) {
  using Part = std::invoke_result_t<Task&, std::size_t, const TraceReadOptions&>;
  const std::size_t n = files.size();
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers = std::min<std::size_t>(options.jobs == 0 ? cores : options.jobs, n);
  TraceReadProgress progress{.files_total = n};
  for (const InputFile& f : files) progress.bytes_total += f.size_bytes;
  auto report = [&](std::size_t i) {
    if (!options.progress) return;
    ++progress.files_done;
    progress.bytes_done += files[i].size_bytes;
    progress.file = files[i].path;
    options.progress(progress);
  };
  if (workers <= 1) {
    // What the tasks kept for the next file's read (keep_for_next_file)
    // goes with the read, as a pool thread's keep goes with the thread.
    struct FreeKept {
      ~FreeKept() { free_kept_events(); }
    } free_kept;
    for (std::size_t i = 0; i < n; ++i) {
      Part part = task(i, options);
      report(i);
      if (!consume(i, std::move(part))) return;
    }
    return;
  }
  // Each .gz file may inflate on a thread of its own: only while that leaves
  // no more threads than cores.
  TraceReadOptions file_options = options;
  file_options.progress = nullptr;
  file_options.background_inflate = options.background_inflate && workers * 2 <= cores;

  struct Done {
    std::optional<Part> part;
    std::exception_ptr thrown;  // rethrown on the calling thread, as a sequential read would throw
  };
  std::mutex mu;
  std::condition_variable finished_cv, window_cv;
  std::vector<std::optional<Done>> results(n);
  std::vector<std::size_t> finish_order;
  std::size_t next = 0, merged = 0;
  bool stop = false;

  auto work = [&] {
    for (;;) {
      std::size_t i;
      {
        std::unique_lock lock(mu);
        window_cv.wait(lock, [&] { return stop || next >= n || next < merged + workers; });
        if (stop || next >= n) return;
        i = next++;
      }
      Done d;
      try {
        d.part.emplace(task(i, file_options));
      } catch (...) {
        d.thrown = std::current_exception();
      }
      {
        std::lock_guard lock(mu);
        results[i] = std::move(d);
        finish_order.push_back(i);
      }
      finished_cv.notify_one();
    }
  };
  // Destroyed before `pool` (reverse order of declaration): on any return
  // or exception it wakes the workers to stop, then the jthreads join them.
  std::vector<std::jthread> pool;
  pool.reserve(workers);
  struct Stopper {
    std::mutex& mu;
    bool& stop;
    std::condition_variable& cv;
    ~Stopper() {
      {
        std::lock_guard lock(mu);
        stop = true;
      }
      cv.notify_all();
    }
  } stopper{mu, stop, window_cv};
  for (std::size_t w = 0; w < workers; ++w) pool.emplace_back(work);

  std::size_t reported = 0;
  while (merged < n) {
    std::vector<std::size_t> newly;
    std::vector<Done> ready;
    {
      std::unique_lock lock(mu);
      finished_cv.wait(lock, [&] { return finish_order.size() > reported; });
      newly.assign(finish_order.begin() + static_cast<std::ptrdiff_t>(reported), finish_order.end());
      reported = finish_order.size();
      for (std::size_t i = merged; i < n && results[i]; ++i) {
        ready.push_back(std::move(*results[i]));
        results[i].reset();
      }
    }
    for (std::size_t i : newly) report(i);
    for (Done& d : ready) {
      if (d.thrown) std::rethrow_exception(d.thrown);
      if (!consume(merged, std::move(*d.part))) return;
      {
        std::lock_guard lock(mu);
        ++merged;
      }
      window_cv.notify_all();
    }
  }
}

// run_in_order of read_file: `map` turns each file's read into its Part.
//   map:     Part(std::size_t file, absl::StatusOr<Trace> read)
template <class Map, class Consume>
void read_in_order(const std::vector<InputFile>& files, const TraceReadOptions& options, Map map, Consume consume) {
  run_in_order(
      files, options,
      [&](std::size_t i, const TraceReadOptions& file_options) {
        return map(i, read_file(files[i].path, file_options));
      },
      consume);
}

// The files one read_traces(paths_or_globs) reads, in order, and what the
// listing had to say. `single`: one entry naming one file, read as
// read_trace reads it (no host named after the file).
struct InputListing {
  std::string source;  // the entries joined by spaces
  std::vector<InputFile> files;
  std::vector<std::string> warnings;
  bool single = false;
};
absl::StatusOr<InputListing> list_inputs(const std::vector<std::string>& paths_or_globs);

// Merging the files' traces as read_traces does: append each part in file
// order, devices that name no host taking `host_fallback` (host_of_part:
// the file's stem when there are several files, else none); then put the
// listing's and the skipped files' warnings first and sort the devices by
// (host, kind, id), stably. merge_part says where the part's ops and calls
// went; finish_merge the sorted order (order[new index] = old index).
struct PartRemap {
  std::vector<std::uint32_t> ops, calls;
};
// read_traces' name for a file's host: "vm.trace.json.gz" -> "vm".
std::string file_stem(const std::string& path);
std::string host_of_part(const std::vector<InputFile>& files, std::size_t i);
// The order one read lists devices in: order[new index] = old index.
std::vector<std::size_t> listing_order(const std::vector<Device>& devices);

// The trace the parts merge into; its ops and calls interned as the
// readers intern them (src/trace/trace_builder.hpp).
class TraceBuilder;
class TraceMerge {
 public:
  explicit TraceMerge(std::string source);
  ~TraceMerge();
  TraceMerge(const TraceMerge&) = delete;
  TraceMerge& operator=(const TraceMerge&) = delete;
  Trace& trace();
  TraceBuilder& builder() { return *builder_; }

 private:
  std::unique_ptr<TraceBuilder> builder_;
};
PartRemap merge_part(TraceMerge& into, Trace part, const std::string& host_fallback);
std::vector<std::size_t> finish_merge(Trace& t, std::vector<std::string> warnings, std::size_t listing_warnings);

// `hosts`' host timelines (a read of the same file with only its host
// lines) into `t` (a read of its devices), their ops interned among t's,
// after them. False, and `t` unchanged, when an op of the host's is one of
// the devices' (the same name, module, program, kernel, category and HLO
// text): a whole read would have interned it once, from whichever plane
// came first, so its figures and its place among the ops could differ.
bool join_host_timelines(Trace& t, Trace& hosts);

// What a reader's consume does first with a file that did not read: other
// JSON beside the traces (configs, summaries) that a directory or a pattern
// found is skipped, "skipped <why>" added to `skipped`, and reading goes on
// (true); a damaged trace is kept in `error` and stops it (false). Nothing
// for a file that read:
//   if (auto go_on = detail::unread(files[i], part.status(), skipped, error)) return *go_on;
std::optional<bool> unread(const InputFile& file, const absl::Status& read, std::vector<std::string>& skipped,
                           absl::Status& error);
// The error when every file was skipped: the last warning says why.
absl::Status no_trace_among(const std::string& source, std::size_t files, const std::vector<std::string>& warnings);

}  // namespace roofline::detail
