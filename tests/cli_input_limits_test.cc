// Streams that do not end, or end far past what a command reads, given to
// every command that reads a file a user names (issue 38): each stops with
// one located error, and the command's peak memory stays far below what it
// was fed. Each command gets 300 MB of zeros through a pipe (`head -c`, so
// the test ends even where a command would read on); before the input was
// counted while read, each held all 300 MB (or, on /dev/zero itself, ran
// out of memory at about 4.2 GB).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

namespace {

struct Run {
  int exit_code = -1;
  std::string err;
  long max_rss_kb = 0;  // the peak resident set of the pipeline's processes
};

// `sh -c pipeline`, where "CLI" in `pipeline` is the roofline binary.
// wait4 gives the shell's usage with its reaped children's: its maxrss is
// the largest of any process of the pipeline.
Run run_pipeline(std::string pipeline) {
  for (std::size_t at; (at = pipeline.find("CLI")) != std::string::npos;)
    pipeline.replace(at, 3, std::string("'") + ROOFLINE_CLI_PATH + "'");
  const std::string err_path = "/tmp/roofline_cli_input_" + std::to_string(::getpid()) + ".err";
  const std::string command = "(" + pipeline + ") >/dev/null 2>'" + err_path + "'";
  Run r;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  if (pid < 0 || ::wait4(pid, &status, 0, &usage) != pid) return r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.max_rss_kb = usage.ru_maxrss;
  std::ifstream e(err_path);
  r.err.assign(std::istreambuf_iterator<char>(e), std::istreambuf_iterator<char>());
  std::remove(err_path.c_str());
  return r;
}

// 300 MB of zeros; what a command holds of it shows in its peak memory.
constexpr const char* kZeros = "head -c 300000000 /dev/zero | ";
// A command's own peak is tens of MB (the embedded chips, the HLO tables);
// holding the stream would be 300 MB more.
constexpr long kMostKb = 150 * 1024;

}  // namespace

TEST_CASE("cli: 300 MB of zeros on a pipe are refused at their first bytes, by every reader", "[cli][limits]") {
  struct Case {
    const char* command;
    const char* error;
  };
  for (const Case& c : {
           Case{"CLI stats /dev/stdin", "/dev/stdin: not a trace: neither gzip, JSON nor an XSpace protobuf"},
           Case{"CLI report /dev/stdin --chip tpu-v5e", "/dev/stdin: not a trace"},
           Case{"CLI hlo /dev/stdin --chip tpu-v5e", "/dev/stdin: byte 0: neither HLO text"},
           Case{"CLI chip /dev/stdin", "/dev/stdin: byte 0: invalid JSON: a chip spec is a JSON object"},
           Case{"CLI predict matmul --chip /dev/stdin --m 8 --k 8 --n 8", "/dev/stdin: byte 0: invalid JSON"},
           Case{"CLI plan --model /dev/stdin --chip tpu-v5p --chips 8 --batch-tokens 8192",
                "/dev/stdin: byte 0: invalid JSON: a model config is a JSON object"},
           Case{"CLI merge /dev/stdin", "/dev/stdin: byte 0: invalid JSON: a stats partial is a JSON object"},
           Case{"CLI predict matmul --chip tpu-v5e --m 8 --k 8 --n 8 --calibration /dev/stdin",
                "/dev/stdin: byte 0: invalid JSON: a calibration file is a JSON object"},
       }) {
    const Run r = run_pipeline(std::string(kZeros) + c.command);
    INFO(c.command << "\n" << r.err << "peak " << r.max_rss_kb << " kB");
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains(c.error));
    CHECK(r.max_rss_kb < kMostKb);
  }
}

TEST_CASE("cli: a JSON trace streaming past --max-decompressed-bytes stops at the limit, not at its end",
          "[cli][limits]") {
  // The start of a trace, then 300 MB of blanks: valid JSON so far, so only
  // the count stops it (100 MB in).
  const Run r = run_pipeline(
      "{ printf '{\"traceEvents\": ['; head -c 300000000 /dev/zero | tr '\\0' ' '; } | "
      "CLI stats /dev/stdin --max-decompressed-bytes 100000000");
  INFO(r.err << "peak " << r.max_rss_kb << " kB");
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains(
                        "/dev/stdin: more than 100000000 bytes on the stream, over the read limit (raise it with "
                        "--max-decompressed-bytes"));
  CHECK(r.max_rss_kb < kMostKb);
}
