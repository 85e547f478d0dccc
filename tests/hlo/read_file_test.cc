// Reading an HLO file: what is not a file says so, with the path.
#include <catch2/catch.hpp>

#include "roofline/hlo/reader.hpp"
#include "tests/test_support.hpp"

TEST_CASE("hlo: a directory given as an HLO file is named as one", "[hlo][read]") {
  const std::string dir = roofline::testing::test_data("jax").string();
  auto m = roofline::read_hlo_file(dir);
  REQUIRE_FALSE(m.ok());
  CHECK(m.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(m.status().message()) ==
        dir + ": is a directory; give one module's file (a dump folder holds one *.txt or *.pb per module)");
  auto missing = roofline::read_hlo_file(dir + "/none.hlo.txt");
  REQUIRE_FALSE(missing.ok());
  CHECK(std::string(missing.status().message()) == dir + "/none.hlo.txt: cannot open HLO module: No such file or directory");
}
