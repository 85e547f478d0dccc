#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "roofline/detail/cat.hpp"
#include "roofline/format/terminal.hpp"
#include "absl/strings/str_join.h"
#include "src/cli/command.hpp"

namespace roofline::cli {

absl::StatusOr<Args> Args::parse(const std::vector<std::string>& argv,
                                 const std::vector<OptionSpec>& spec) {
  Args a;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& tok = argv[i];
    if (tok.size() == 2 && tok[0] == '-' && tok[1] != '-') {
      const OptionSpec* opt = nullptr;
      for (const OptionSpec& o : spec)
        if (!o.short_name.empty() && o.short_name == tok.substr(1)) opt = &o;
      if (!opt) return absl::InvalidArgumentError(detail::cat("unknown option ", tok));
      if (i + 1 >= argv.size())
        return absl::InvalidArgumentError(detail::cat(tok, " needs a value (", opt->value_name, ")"));
      if (a.values_.count(opt->name))
        return absl::InvalidArgumentError(detail::cat(tok, " given twice"));
      a.values_[opt->name] = argv[++i];
      continue;
    }
    if (tok.size() < 3 || tok.rfind("--", 0) != 0) {
      a.positional_.push_back(tok);
      continue;
    }
    std::string name = tok.substr(2), value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    const OptionSpec* opt = nullptr;
    for (const OptionSpec& o : spec)
      if (o.name == name) opt = &o;
    if (!opt) return absl::InvalidArgumentError(detail::cat("unknown option --", name));
    if (opt->value_name.empty()) {
      if (inline_value) return absl::InvalidArgumentError(detail::cat("--", name, " takes no value"));
      value = "true";
    } else if (!inline_value) {
      if (i + 1 >= argv.size())
        return absl::InvalidArgumentError(detail::cat("--", name, " needs a value (", opt->value_name, ")"));
      value = argv[++i];
    }
    if (a.values_.count(name))
      return absl::InvalidArgumentError(detail::cat("--", name, " given twice"));
    a.values_[name] = value;
  }
  return a;
}

std::optional<std::string> Args::get(std::string_view name) const {
  auto it = values_.find(std::string(name));
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::get_or(std::string_view name, std::string fallback) const {
  auto v = get(name);
  return v ? *v : fallback;
}

absl::StatusOr<std::string> Args::require(std::string_view name) const {
  auto v = get(name);
  if (!v) return absl::InvalidArgumentError(detail::cat("missing required option --", name));
  return *v;
}

absl::StatusOr<long long> Args::get_int(std::string_view name, std::optional<long long> fallback,
                                        IntRange range) const {
  auto v = get(name);
  if (!v) {
    if (fallback) return *fallback;
    return absl::InvalidArgumentError(detail::cat("missing required option --", name));
  }
  const auto bad = [&] {
    const bool whole = range.min == std::numeric_limits<long long>::min() &&
                       range.max == std::numeric_limits<long long>::max();
    return absl::InvalidArgumentError(whole ? detail::cat("--", name, ": expected an integer, got '", *v, "'")
                                            : detail::cat("--", name, ": expected an integer from ", range.min,
                                                          " to ", range.max, ", got '", *v, "'"));
  };
  if (v->empty()) return bad();
  errno = 0;
  char* end = nullptr;
  long long x = std::strtoll(v->c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) {
    // Exponent forms people write for sizes, e.g. 1e9, when exact. The
    // range is checked on the double before any cast: casting 1e30 or nan
    // to an integer is undefined.
    const double d = std::strtod(v->c_str(), &end);
    if (*end != '\0' || !std::isfinite(d) || d != std::trunc(d) || d >= 0x1p63 || d < -0x1p63) return bad();
    x = static_cast<long long>(d);
  }
  if (x < range.min || x > range.max) return bad();
  return x;
}

absl::StatusOr<double> Args::get_double(std::string_view name,
                                        std::optional<double> fallback) const {
  auto v = get(name);
  if (!v) {
    if (fallback) return *fallback;
    return absl::InvalidArgumentError(detail::cat("missing required option --", name));
  }
  char* end = nullptr;
  double d = std::strtod(v->c_str(), &end);
  if (v->empty() || *end != '\0' || !std::isfinite(d))
    return absl::InvalidArgumentError(detail::cat("--", name, ": expected a finite number, got '", *v, "'"));
  return d;
}

absl::StatusOr<std::string> Args::format(const std::vector<std::string>& allowed) const {
  std::string f = get_or("format", allowed.front());
  for (const std::string& a : allowed)
    if (a == f) return f;
  return absl::InvalidArgumentError(
      detail::cat("--format: expected one of ", absl::StrJoin(allowed, "|"), ", got '", f, "'"));
}

int fail(const absl::Status& status) {
  std::fprintf(stderr, "roofline: %s\n", for_terminal(std::string_view(status.message().data(), status.message().size())).c_str());
  return absl::IsInvalidArgument(status) || absl::IsNotFound(status) ? 2 : 1;
}

int fail_usage(const std::string& message) {
  std::fprintf(stderr, "roofline: %s\n", for_terminal(message).c_str());
  return 2;
}

int write_output(const Args& args, std::string_view text) {
  if (auto out = args.get("output")) {
    std::ofstream f(*out, std::ios::binary);
    if (!f || !f.write(text.data(), static_cast<std::streamsize>(text.size())) || !f.flush())
      return fail(absl::PermissionDeniedError("cannot write " + *out));
    return 0;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace roofline::cli
