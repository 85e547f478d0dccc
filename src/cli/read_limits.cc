// Read limits as command-line options (read_limits.hpp).
#include "src/cli/read_limits.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "roofline/detail/cat.hpp"
#include "roofline/format/units.hpp"

namespace roofline::cli {

std::vector<OptionSpec> with_read_limits(std::vector<OptionSpec> options) {
  const TraceReadOptions d;
  using detail::cat;
  const std::vector<OptionSpec> limits = {
      {"max-events", "N", cat("timed events kept from a trace (default ", d.max_events, ")")},
      {"max-ops", "N", cat("distinct ops of a JSON trace (default ", d.max_ops, ")")},
      {"max-inflated-bytes", "N",
       cat("gunzipped bytes held in memory: a gzip'd XSpace, gzip'd XStat strings (default ", d.max_inflated_bytes,
           ")")},
      {"max-decompressed-bytes", "N",
       cat("gunzipped bytes streamed from a .json.gz (default ", d.max_decompressed_bytes, ")")},
      {"jobs", "N",
       "files of a directory or list read at once, each held parsed until merged (default: one per core)"},
  };
  options.insert(options.end(), limits.begin(), limits.end());
  return options;
}

absl::StatusOr<TraceReadOptions> trace_read_options(const Args& args) {
  TraceReadOptions o;
  const IntRange positive{1, std::numeric_limits<long long>::max()};
  auto take = [&](const char* name, std::uint64_t& into) -> absl::Status {
    if (!args.has(name)) return absl::OkStatus();
    auto v = args.get_int(name, std::nullopt, positive);
    if (!v.ok()) return v.status();
    into = static_cast<std::uint64_t>(*v);
    return absl::OkStatus();
  };
  for (const auto& [name, field] : {std::pair<const char*, std::uint64_t*>{"max-events", &o.max_events},
                                    {"max-ops", &o.max_ops},
                                    {"max-inflated-bytes", &o.max_inflated_bytes},
                                    {"max-decompressed-bytes", &o.max_decompressed_bytes}}) {
    if (absl::Status s = take(name, *field); !s.ok()) return s;
  }
  if (args.has("jobs")) {
    auto v = args.get_int("jobs", std::nullopt, IntRange{1, 4096});
    if (!v.ok()) return v.status();
    o.jobs = static_cast<unsigned>(*v);
  }
  return o;
}

ProgressLine::ProgressLine(TraceReadOptions& options) {
  if (::isatty(STDERR_FILENO) != 1) return;
  options.progress = [this](const TraceReadProgress& p) {
    if (p.files_total < 2) return;
    // "reading 12/64 files, 3.1 GB of 52 GB [=====     ]": sizes on disk.
    constexpr int kWidth = 24;
    const double share = p.bytes_total ? static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total)
                                       : static_cast<double>(p.files_done) / static_cast<double>(p.files_total);
    const int filled = std::clamp(static_cast<int>(share * kWidth), 0, kWidth);
    const std::string bar = std::string(static_cast<std::size_t>(filled), '=') +
                            std::string(static_cast<std::size_t>(kWidth - filled), ' ');
    std::fprintf(stderr, "\rreading %zu/%zu files, %s of %s [%s]\x1b[K", p.files_done, p.files_total,
                 format_bytes(static_cast<double>(p.bytes_done)).c_str(),
                 format_bytes(static_cast<double>(p.bytes_total)).c_str(), bar.c_str());
    std::fflush(stderr);
    drawn_ = true;
  };
}

ProgressLine::~ProgressLine() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\x1b[K");  // the line cleared, for what follows
  std::fflush(stderr);
}


}  // namespace roofline::cli
