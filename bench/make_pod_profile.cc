// make_pod_profile: a multi-host profile built from a real trace's events,
// for timing `roofline stats` / `report` at pod scale (bench/pod_scale.sh).
//
//   make_pod_profile --format kineto|xplane --hosts 64 --bytes-per-host 256M --out DIR
//                    [--from FILE] [--seed S]
//
// Writes DIR/host00.pt.trace.json ... (Kineto) or DIR/host00.xplane.pb ...
// (XPlane), one file per host. Each file is the source trace with all its
// events written K times, K the smallest count that brings the file to
// --bytes-per-host (K, M, G are powers of 1024) by the source's sizes (ids and
// times may then be a digit longer); every host has the same K.
// Repeat r (0-based) is the source shifted by r periods, a period being the
// source's span (first event start to last event end) plus 10% (room for the
// straggler) plus 1 ms, rounded up to a whole microsecond. Output is
// deterministic: the same arguments give the same bytes.
//
// Kineto (default source ../shared/data/real/hta/a100-80gb_16rank_rank0.json.gz,
// gunzip'd on the fly; the output is plain JSON): the source's text is kept
// byte for byte (key order, whitespace) but for these numbers:
//   * ts (+ r periods), dur; times are written in us with up to 3 decimals;
//   * ProfilerStep#N -> N + r * S, S = max N - min N + 1 of the source (5 for
//     the A100 trace: #550..#554, so repeat r holds #550+5r .. #554+5r);
//   * correlation, External id and flow "id" -> id + r * 10^d (10^d > every
//     id of the source), so each kernel links to its own repeat's launch;
//   * distributedInfo.rank = the host index, world_size = --hosts.
// Metadata events (ph M, i) and the capture span (cat Trace, its dur made to
// cover all repeats) are written once. Devices keep their ids (every host
// has its GPU 0, as ranks on separate nodes).
//
// XPlane (default source ../shared/data/real/xprof/tpu_v6e_x4_inference_2.xplane.pb):
// the XSpace is copied at the wire level; every XLine's events are written K
// times (offset_ps + r periods; the device_offset_ps stats that time TPU XLA
// Ops the same), a line's duration_ps (if any) grows by (K-1) periods, plane
// metadata and stats are copied once, and hostnames = the file's stem.
//
// Planted straggler, both formats (H = --hosts, S = --seed, default 0):
//   * In repeat r the slow host is (r + S) mod H. Its events in that repeat
//     run 10% slower: an event's start t and end u, measured from the
//     source's first event t0, become t0 + 1.1 (t - t0) and t0 + 1.1 (u - t0)
//     (integer ns for Kineto, ps for XPlane, rounded down), device clock
//     included. So each of its steps lasts 1.1x, and it is the slowest host of
//     every step of repeat r (Kineto: ProfilerStep#(N0 + S' r) ..
//     #(N0 + S' r + S' - 1), N0 the source's first step number, S' the steps
//     per repeat).
//   * On every other host, the collectives wait for it:
//     - Kineto: in each ProfilerStep, the first kernel named ncclKernel* or
//       ncclDevKernel* whose ts lies in [step start, next step start) lasts
//       0.1 x the step's dur longer (the straggler's step is that much
//       longer), and the later events of its stream (same pid and tid) in the
//       repeat start that much later, so nothing on the stream overlaps. The
//       A100 trace has one per step (80 SendRecv kernels, 15 in each step's
//       range; the first lasts 21.0 ms more in ProfilerStep#550).
//     - XPlane: on each /device: plane's XLA Ops line, the first collective
//       op of the repeat (by device_offset_ps; an event whose metadata's
//       display name starts with, or whose HLO text has " <op>(", " <op>-start("
//       for op all-reduce, all-gather, reduce-scatter, all-to-all,
//       collective-permute...) lasts 0.1 x the span longer (the straggler's
//       repeat is that much longer), host and device clocks, and the line's
//       later events move by as much. The v6e trace: the first of the three
//       all-reduces on each of TPU:0..3 (121.7 ms) waits 9.815 s more.
//   The straggler itself gets no wait. The summary line printed at the end
//   repeats what was planted, with the figures of the source used.
//
// Errors: a bad argument or an unreadable source -> one line on stderr, exit
// 2; a failed write -> exit 1.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "bench/pod_profile_common.hpp"

namespace {

namespace pod = roofline::pod;

#ifndef ROOFLINE_SHARED_DIR
#define ROOFLINE_SHARED_DIR "../shared"
#endif

constexpr const char* kUsage =
    "usage: make_pod_profile --format kineto|xplane --hosts N --bytes-per-host SIZE --out DIR "
    "[--from FILE] [--seed S]\n"
    "  SIZE: bytes, or with K, M, G (powers of 1024), e.g. 256M\n";

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "make_pod_profile: %s (--help for usage)\n", what.c_str());
  std::exit(2);
}

bool parse_u64(std::string_view t, std::uint64_t& v) {
  if (t.empty() || t.find_first_not_of("0123456789") != std::string_view::npos || t.size() > 18) return false;
  v = std::stoull(std::string(t));
  return true;
}

bool parse_size(std::string_view t, std::uint64_t& v) {
  int shift = 0;
  if (!t.empty()) {
    switch (t.back()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: break;
    }
  }
  if (shift != 0) t.remove_suffix(1);
  if (!parse_u64(t, v) || v == 0 || v > (std::uint64_t{1} << (50 - shift))) return false;
  v <<= shift;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string format, hosts_text, size_text, seed_text = "0";
  pod::PodOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 >= argc) usage_error(std::string(a.rfind("--", 0) == 0 ? "missing value for " : "unknown argument ") + argv[i]);
    const std::string v = argv[++i];
    if (a == "--format") format = v;
    else if (a == "--hosts") hosts_text = v;
    else if (a == "--bytes-per-host") size_text = v;
    else if (a == "--out") o.out_dir = v;
    else if (a == "--from") o.source_path = v;
    else if (a == "--seed") seed_text = v;
    else usage_error("unknown argument " + std::string(a));
  }
  if (format != "kineto" && format != "xplane")
    usage_error(format.empty() ? "--format is required" : "--format " + format + ": expected kineto or xplane");
  std::uint64_t hosts = 0;
  if (!parse_u64(hosts_text, hosts) || hosts == 0 || hosts > 100000)
    usage_error(hosts_text.empty() ? "--hosts is required" : "--hosts " + hosts_text + ": expected 1 to 100000");
  o.hosts = static_cast<int>(hosts);
  if (!parse_size(size_text, o.bytes_per_host))
    usage_error(size_text.empty() ? "--bytes-per-host is required"
                                  : "--bytes-per-host " + size_text + ": expected a positive size such as 256M");
  if (!parse_u64(seed_text, o.seed)) usage_error("--seed " + seed_text + ": expected a non-negative integer");
  if (o.out_dir.empty()) usage_error("--out is required");
  if (o.source_path.empty())
    o.source_path = std::string(ROOFLINE_SHARED_DIR) + (format == "kineto" ? "/data/real/hta/a100-80gb_16rank_rank0.json.gz"
                                                                            : "/data/real/xprof/tpu_v6e_x4_inference_2.xplane.pb");
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec) usage_error("--out " + o.out_dir + ": " + ec.message());

  const auto t0 = std::chrono::steady_clock::now();
  pod::PodSummary summary;
  const absl::Status st = format == "kineto" ? pod::write_kineto_pod(o, summary) : pod::write_xplane_pod(o, summary);
  if (!st.ok()) {
    std::fprintf(stderr, "make_pod_profile: %s\n", std::string(st.message()).c_str());
    return absl::IsNotFound(st) || absl::IsInvalidArgument(st) ? 2 : 1;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: %d hosts x %lld repeats of %s (%llu events each), %.3f GB in %.1f s (%.0f MB/s)\n", format.c_str(),
              o.hosts, static_cast<long long>(summary.repeats), o.source_path.c_str(),
              static_cast<unsigned long long>(summary.events_per_repeat), static_cast<double>(summary.bytes_written) / 1e9,
              s, static_cast<double>(summary.bytes_written) / 1e6 / s);
  std::printf("straggler of repeat r: host (r + %llu) mod %d; %s\n", static_cast<unsigned long long>(o.seed), o.hosts,
              summary.planted.c_str());
  return 0;
}
