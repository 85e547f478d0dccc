// Hostile command-line values and failed writes: one clear line on stderr
// and a non-zero exit, never a wrapped number, undefined cast or exit 0.
#include <catch2/catch.hpp>

#include "tests/cli_support.hpp"

using roofline::testing::run_cli;

TEST_CASE("cli args: an integer out of range is refused, not truncated") {
  // 4294967297 = 2^32 + 1 would wrap to 1 as an int and list one row.
  const auto r = run_cli("plan --model llama-3-8b --chip tpu-v5e --chips 64 --batch-tokens 1048576 --top 4294967297");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("--top: expected an integer from -2147483648 to 2147483647, got '4294967297'"));
}

TEST_CASE("cli args: numbers no integer holds are refused before any cast") {
  for (const char* m : {"1e30", "nan", "inf", "-1e300", "1.5", "9.3e18"}) {
    INFO(m);
    const auto r = run_cli(std::string("predict matmul --chip tpu-v5e --m ") + m + " --k 8192 --n 8192");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(std::string("--m: expected an integer, got '") + m + "'"));
  }
  // An exact exponent form is still an integer.
  CHECK(run_cli("predict matmul --chip tpu-v5e --m 8e3 --k 8192 --n 8192").exit_code == 0);
}

TEST_CASE("cli args: a non-finite size is refused") {
  for (const char* b : {"inf", "-inf", "nan"}) {
    INFO(b);
    const auto r =
        run_cli(std::string("predict collective --op all-gather --chip tpu-v5e --mesh X=8,Y=4 --axes Y --bytes ") + b);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(std::string("--bytes: expected a finite number, got '") + b + "'"));
  }
}

TEST_CASE("cli: a failed write to standard output is a failure") {
  // /dev/full accepts the open and fails every write with ENOSPC. `chips`
  // prints more than stdout's buffer holds, so its write fails while it
  // prints; `predict matmul` prints less, so only the final flush fails.
  for (const char* command : {"chips", "predict matmul --chip tpu-v5e --m 8 --k 8 --n 8"}) {
    INFO(command);
    const auto r = run_cli(std::string(command) + " >/dev/full");
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("roofline: writing to standard output failed: No space left on device"));
  }
}
