// Read limits as command-line options (read_limits.hpp).
#include "src/cli/read_limits.hpp"

#include "roofline/detail/cat.hpp"

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
  return o;
}

}  // namespace roofline::cli
