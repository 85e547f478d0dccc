#include <catch2/catch.hpp>

#include "roofline/hlo/replica_groups.hpp"

using Groups = std::vector<std::vector<std::int64_t>>;

TEST_CASE("replica groups: the explicit form lists the groups") {
  auto g = roofline::parse_replica_groups("{{0,1},{2,3}}");
  REQUIRE(g.ok());
  CHECK(g->groups == Groups{{0, 1}, {2, 3}});
  CHECK(g->num_groups == 2);
  CHECK(g->group_size == 2);
  CHECK_FALSE(g->all_devices);
}

TEST_CASE("replica groups: {} is one group of every device, sized by the module") {
  auto g = roofline::parse_replica_groups("{}");
  REQUIRE(g.ok());
  CHECK(g->all_devices);
  CHECK(g->group_size == 0);
  CHECK(g->num_groups == 1);
}

TEST_CASE("replica groups: iota [G,S]<=[N] is G consecutive runs of S devices") {
  auto g = roofline::parse_replica_groups("[2,4]<=[8]");
  REQUIRE(g.ok());
  CHECK(g->groups == Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
  CHECK(g->group_size == 4);
  auto one = roofline::parse_replica_groups("[1,8]<=[8]");
  REQUIRE(one.ok());
  CHECK(one->groups == Groups{{0, 1, 2, 3, 4, 5, 6, 7}});
}

TEST_CASE("replica groups: iota with a transpose pairs devices across the reshaped axes") {
  // iota(8) as [2,4] = {{0,1,2,3},{4,5,6,7}}, transposed to [4,2]: rows {0,4},{1,5},{2,6},{3,7}
  // (the groups the v6e trace's all-reduce used).
  auto g = roofline::parse_replica_groups("[4,2]<=[2,4]T(1,0)");
  REQUIRE(g.ok());
  CHECK(g->groups == Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
  CHECK(g->num_groups == 4);
  CHECK(g->group_size == 2);
  // Three axes: iota(8) as [2,2,2] with axes (2,0,1): index (i,j,k) of the
  // result reads element (j,k,i), i.e. 4j + 2k + i.
  auto three = roofline::parse_replica_groups("[4,2]<=[2,2,2]T(2,0,1)");
  REQUIRE(three.ok());
  CHECK(three->groups == Groups{{0, 2}, {4, 6}, {1, 3}, {5, 7}});
}

TEST_CASE("replica groups: malformed text is refused with the offset") {
  auto bad = roofline::parse_replica_groups("{{0,1},{2,3}");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()) == "offset 12: expected ',' or '}'");
  CHECK_FALSE(roofline::parse_replica_groups("[2,4]<=[6]").ok());        // 8 != 6 devices
  CHECK_FALSE(roofline::parse_replica_groups("[4,2]<=[2,4]T(0,0)").ok()); // not a permutation
  CHECK_FALSE(roofline::parse_replica_groups("[4,2]<=[2,4]T(1)").ok());   // too short
  CHECK_FALSE(roofline::parse_replica_groups("@mesh<[\"x\"=8]> {x}").ok());
}

TEST_CASE("replica groups: very large iota tables keep their sizes without listing devices") {
  auto g = roofline::parse_replica_groups("[65536,65536]<=[4294967296]");
  REQUIRE(g.ok());
  CHECK(g->groups.empty());
  CHECK(g->group_size == 65536);
  CHECK(g->num_groups == 65536);
}

TEST_CASE("source-target pairs parse as lists of pairs") {
  auto p = roofline::parse_int_lists("{{0,1},{1,2},{2,0}}");
  REQUIRE(p.ok());
  CHECK(*p == Groups{{0, 1}, {1, 2}, {2, 0}});
}
