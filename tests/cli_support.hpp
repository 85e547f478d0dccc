// Runs the roofline CLI as a user would and captures what it prints.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace roofline::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline CliResult run_cli(const std::string& args) {
  static int counter = 0;
  const std::string err_path =
      "/tmp/roofline_cli_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  const std::string cmd = std::string("'") + ROOFLINE_CLI_PATH + "' " + args + " 2>" + err_path;
  CliResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (FILE* e = std::fopen(err_path.c_str(), "r")) {
    while ((n = std::fread(buf.data(), 1, buf.size(), e)) > 0) r.err.append(buf.data(), n);
    std::fclose(e);
  }
  std::remove(err_path.c_str());
  return r;
}

}  // namespace roofline::testing
