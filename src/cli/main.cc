// roofline: one binary, subcommands registered by the cmd_*.cc files.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "src/cli/command.hpp"

namespace roofline::cli {
namespace {

std::vector<Command>& mutable_commands() {
  static std::vector<Command> cmds;
  return cmds;
}

void print_help(const Command& c) {
  std::printf("usage: %s\n\n%s\n", c.usage.c_str(), c.summary.c_str());
  if (!c.options.empty()) std::printf("\noptions:\n");
  auto left = [](const OptionSpec& o) { return "--" + o.name + (o.value_name.empty() ? "" : " " + o.value_name); };
  // One column for the options' help, past the longest option.
  int width = 28;
  for (const OptionSpec& o : c.options) width = std::max(width, static_cast<int>(left(o).size()));
  for (const OptionSpec& o : c.options) std::printf("  %-*s %s\n", width, left(o).c_str(), o.help.c_str());
  std::printf("  %-*s %s\n", width, "--help", "show this help");
}

void print_overview() {
  std::printf(
      "roofline: how fast should this be, and why is it slower?\n\n"
      "usage: roofline <command> [options]   (roofline <command> --help for details)\n\n"
      "commands:\n");
  std::vector<const Command*> sorted;
  for (const Command& c : commands()) sorted.push_back(&c);
  std::sort(sorted.begin(), sorted.end(),
            [](const Command* a, const Command* b) { return a->name < b->name; });
  for (const Command* c : sorted) std::printf("  %-20s %s\n", c->name.c_str(), c->summary.c_str());
}

}  // namespace

Registrar::Registrar(Command c) { mutable_commands().push_back(std::move(c)); }
const std::vector<Command>& commands() { return mutable_commands(); }

int main_impl(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_overview();
    return args.empty() ? 2 : 0;
  }
  // Longest match first: "predict matmul" before "predict".
  const Command* best = nullptr;
  std::size_t best_words = 0;
  for (const Command& c : commands()) {
    std::vector<std::string> words;
    for (std::size_t s = 0, e; s <= c.name.size(); s = e + 1) {
      e = c.name.find(' ', s);
      if (e == std::string::npos) e = c.name.size();
      words.push_back(c.name.substr(s, e - s));
    }
    if (words.size() > args.size() || words.size() <= best_words) continue;
    if (std::equal(words.begin(), words.end(), args.begin())) {
      best = &c;
      best_words = words.size();
    }
  }
  if (!best) return fail_usage("unknown command '" + args[0] + "' (try roofline --help)");
  std::vector<std::string> rest(args.begin() + static_cast<long>(best_words), args.end());
  if (std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
      std::find(rest.begin(), rest.end(), "-h") != rest.end()) {
    print_help(*best);
    return 0;
  }
  absl::StatusOr<Args> parsed = Args::parse(rest, best->options);
  if (!parsed.ok()) return fail_usage(best->name + ": " + std::string(parsed.status().message()));
  return best->run(*parsed);
}

}  // namespace roofline::cli

// A command whose output could not be written (a full disk, a closed pipe,
// `> /dev/full`) has failed, whatever it computed: say so and exit non-zero.
int main(int argc, char** argv) {
  const int rc = roofline::cli::main_impl(argc, argv);
  // An output larger than stdout's buffer fails while the command prints,
  // and the final flush then has nothing left to write: keep the errno of
  // that failed write, when it is one a write gives, to name the reason.
  const int earlier = errno;
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (!flushed || std::ferror(stdout)) {
    const bool write_errno = earlier == ENOSPC || earlier == EPIPE || earlier == EIO || earlier == EFBIG ||
                             earlier == EDQUOT || earlier == EBADF;
    const int reason = errno != 0 ? errno : write_errno ? earlier : 0;
    std::fprintf(stderr, "roofline: writing to standard output failed: %s\n",
                 reason != 0 ? std::strerror(reason) : "write error");
    return rc != 0 ? rc : 1;
  }
  return rc;
}
