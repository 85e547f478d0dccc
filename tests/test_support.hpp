// Shared helpers for the tests: where the real profiles are, and how a test
// that needs them skips (CTest reports exit code 4 as "Skipped").
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace roofline::testing {

inline std::filesystem::path shared_real_dir() {
  return std::filesystem::path(ROOFLINE_SHARED_DIR) / "data" / "real";
}

inline std::filesystem::path test_data(const std::string& name) {
  return std::filesystem::path(ROOFLINE_TEST_DATA) / name;
}

// Ends this test process with CTest's skip code when the real traces are not
// beside the checkout, saying why.
inline std::filesystem::path require_real(const std::string& relative) {
  const auto p = shared_real_dir() / relative;
  if (!std::filesystem::exists(p)) {
    std::printf("SKIPPED: %s is absent (the real profiles live in ../shared/data/real beside the checkout)\n",
                p.string().c_str());
    std::fflush(stdout);
    std::_Exit(4);
  }
  return p;
}

// An empty folder of its own under the system's temp folder, for files a
// test writes: `<test>_<pid>_<name>`, so that parallel tests and runs never
// share one.
inline std::filesystem::path fresh_temp_dir(const std::string& test, const std::string& name) {
  std::filesystem::path p =
      std::filesystem::temp_directory_path() / ("roofline_" + test + "_" + std::to_string(::getpid()) + "_" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p;
}

// A job's folder of 4 ranks (rank0..rank3: Kineto fixtures, plain and
// gzip'd, two kinds) and a config.json that holds no trace (skipped, with a
// warning, when a directory or a pattern finds it), in a fresh_temp_dir.
inline std::filesystem::path rank_folder(const std::string& test) {
  const std::filesystem::path root = fresh_temp_dir(test, "ranks");
  for (int r = 0; r < 4; ++r)
    std::filesystem::copy_file(test_data(r % 2 ? "trace/old_kineto_epoch.json" : "trace/kineto_small.json.gz"),
                               root / ("rank" + std::to_string(r) + (r % 2 ? ".pt.trace.json" : ".pt.trace.json.gz")));
  std::ofstream(root / "config.json") << R"({"batch_size": 32})";
  return root;
}

// A whole file's bytes; empty when it cannot be read.
inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace roofline::testing
