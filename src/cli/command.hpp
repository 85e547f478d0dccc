// The CLI is one binary with subcommands. Each subcommand lives in its own
// cmd_<name>.cc and registers itself with ROOFLINE_CLI_COMMAND, so adding one
// touches no shared file.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace roofline::cli {

// The values an integer option may take; a value outside is refused before
// it is cast, never wrapped or truncated.
struct IntRange {
  long long min = std::numeric_limits<long long>::min();
  long long max = std::numeric_limits<long long>::max();
};
inline constexpr IntRange kIntRange{std::numeric_limits<int>::min(), std::numeric_limits<int>::max()};

struct OptionSpec {
  std::string name;          // without the leading "--"
  std::string value_name;    // "N", "NAME|PATH"; empty for a flag
  std::string help;
  std::string short_name = {};  // "o" for -o
};

// Parsed command line of one subcommand: positionals and --name value pairs
// (also --name=value). Unknown options are refused when parsing.
class Args {
 public:
  static absl::StatusOr<Args> parse(const std::vector<std::string>& argv,
                                    const std::vector<OptionSpec>& spec);

  bool has(std::string_view name) const { return values_.count(std::string(name)) > 0; }
  std::optional<std::string> get(std::string_view name) const;
  std::string get_or(std::string_view name, std::string fallback) const;
  // A required option; the error names it.
  absl::StatusOr<std::string> require(std::string_view name) const;
  // An integer (exponent forms such as 1e9 are taken when exact) within
  // `range`; the error names the option and the range.
  absl::StatusOr<long long> get_int(std::string_view name, std::optional<long long> fallback,
                                    IntRange range = {}) const;
  // A finite number: inf and nan are refused.
  absl::StatusOr<double> get_double(std::string_view name, std::optional<double> fallback) const;
  // --format, checked against the formats a command supports.
  absl::StatusOr<std::string> format(const std::vector<std::string>& allowed) const;

  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> positional_;
};

struct Command {
  std::string name;         // "predict matmul" style names are two words
  std::string usage;        // one line: "roofline chips [--format text|json]"
  std::string summary;      // one sentence for `roofline --help`
  std::vector<OptionSpec> options;
  // Returns the process exit code. Errors go to stderr as one line.
  std::function<int(const Args&)> run;
};

// Registers at static-initialisation time; see ROOFLINE_CLI_COMMAND.
struct Registrar {
  explicit Registrar(Command c);
};
const std::vector<Command>& commands();

// Prints "roofline: <message>" on stderr and returns 2 (bad input) or 1.
int fail(const absl::Status& status);
int fail_usage(const std::string& message);

// `text` to the file -o/--output names, else to stdout; 0, or fail()'s code
// when the file cannot be written.
int write_output(const Args& args, std::string_view text);

}  // namespace roofline::cli

#define ROOFLINE_CLI_CONCAT_INNER_(a, b) a##b
#define ROOFLINE_CLI_CONCAT_(a, b) ROOFLINE_CLI_CONCAT_INNER_(a, b)
#define ROOFLINE_CLI_COMMAND(...)                                               \
  static const ::roofline::cli::Registrar ROOFLINE_CLI_CONCAT_(roofline_cmd_, __LINE__)( \
      ::roofline::cli::Command __VA_ARGS__)
