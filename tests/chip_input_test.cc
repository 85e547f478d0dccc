// Hostile chip specs (issue 38): nesting, impossible figures, a name that
// is not the file's, paths that are not there or not files.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/chip.hpp"
#include "roofline/chip_io.hpp"

using nlohmann::json;
using roofline::Chip;

namespace {

std::string error_of(const absl::StatusOr<Chip>& c) { return c.ok() ? "ok" : std::string(c.status().message()); }

long peak_rss_kb() {
  struct rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// A spec file in the temp folder, removed with it.
struct TempSpec {
  std::filesystem::path path;
  TempSpec(const std::string& name, const std::string& text)
      : path(std::filesystem::temp_directory_path() / name) {
    std::ofstream(path) << text;
  }
  ~TempSpec() { std::filesystem::remove(path); }
};

}  // namespace

TEST_CASE("chip: a spec nested deeper than 64 levels is refused at the byte, in bounded memory") {
  // An array 20k deep where a capacity belongs. The duplicate-key check kept
  // each level's whole path (10k levels: 143 MB; 100k: 4.3 GB, then abort);
  // now the depth is refused before nlohmann builds anything.
  const long before_kb = peak_rss_kb();
  const std::string deep = R"({"name": "x", "on_chip": {"l2": )" + std::string(20000, '[') +
                           std::string(20000, ']') + "}}";
  CHECK(error_of(roofline::parse_chip(deep, "deep.json")) == "deep.json: byte 94: JSON nested deeper than 64 levels");
  CHECK(peak_rss_kb() - before_kb < 20 * 1024);
  // 64 levels are still read (and refused for what they hold, not their depth).
  const std::string deep64 = R"({"name": "x", "on_chip": {"l2": )" + std::string(62, '[') + std::string(62, ']') + "}}";
  CHECK_THAT(error_of(roofline::parse_chip(deep64, "ok.json")), !Catch::Contains("nested"));
}

TEST_CASE("chip: rates and capacities beyond any chip's are refused with their path") {
  const json base = json::parse(roofline::chip_to_json(roofline::chip("tpu-v5e")));
  struct Bad {
    const char* pointer;
    double value;
    const char* says;
  };
  for (const Bad& b : {
           Bad{"/interconnect/link_bytes_per_s", 1e308,
               "/interconnect/link_bytes_per_s: expected a rate from 1 to 1e+15 bytes/s"},
           Bad{"/hbm_bytes_per_s", 1e16, "/hbm_bytes_per_s: expected a rate from 1 to 1e+15 bytes/s"},
           Bad{"/peak_flops_per_s/bf16", 1e19, "/peak_flops_per_s/bf16: expected a rate from 1 to 1e+18 FLOP/s"},
           Bad{"/hbm_bytes", 1e300, "/hbm_bytes: expected a capacity of at most 1e+14 bytes"},
           Bad{"/interconnect/hop_latency_s", 5, "/interconnect/hop_latency_s: expected a time below 1 s"}}) {
    json j = base;
    j[json::json_pointer(b.pointer)] = b.value;
    INFO(b.pointer);
    CHECK(error_of(roofline::parse_chip(j.dump(), "v5e.json")) == std::string("v5e.json: ") + b.says);
  }
}

TEST_CASE("chip: a spec file's name is its chip's name") {
  const std::string spec = roofline::chip_to_json(roofline::chip("tpu-v5e"));
  const TempSpec other("roofline_chip_input_other.json", spec);
  CHECK(error_of(roofline::load_chip(other.path.string())) ==
        other.path.string() + ": /name: 'tpu-v5e' must be the file name without .json ('roofline_chip_input_other')");
  const TempSpec same("tpu-v5e.json", spec);
  CHECK(error_of(roofline::load_chip(same.path.string())) == "ok");
}

TEST_CASE("chip: a path that is not there, a directory or a stream of zeros says so") {
  const absl::StatusOr<Chip> missing = roofline::resolve_chip("/nope/spec.json");
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK_THAT(error_of(missing), Catch::StartsWith("/nope/spec.json: cannot open chip spec"));
  const std::string dir = std::filesystem::temp_directory_path().string();
  CHECK(error_of(roofline::load_chip(dir)) == dir + ": is a directory, not a chip spec");
  // /dev/zero never ends: refused at its first byte.
  CHECK(error_of(roofline::resolve_chip("/dev/zero")) ==
        "/dev/zero: byte 0: invalid JSON: a chip spec is a JSON object, this starts with byte 0x00");
  // A name is still a name.
  CHECK_THAT(error_of(roofline::resolve_chip("tpu-v5x")), Catch::StartsWith("unknown chip 'tpu-v5x'"));
}
