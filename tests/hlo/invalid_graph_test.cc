// HLO that parses but is no program (issue 38): use cycles, recursion, a
// proto computation without a root or a module without an entry. Each was
// costed, exit 0; each is now one located error.
#include <catch2/catch.hpp>

#include <string>

#include "roofline/hlo/reader.hpp"
#include "tests/hlo/hlo_proto_writer.hpp"
#include "tests/hlo/hlo_test_support.hpp"

namespace {

using roofline::testing::parse_error;
using Msg = roofline::testing::PbMessage;
namespace f = roofline::testing::hlo_field;

std::string proto_error(const std::string& bytes) {
  auto m = roofline::parse_hlo_proto(bytes, "x.pb");
  return m.ok() ? "ok" : std::string(m.status().message());
}

// An f32[] instruction of `c`.
Msg& scalar(Msg& c, const char* name, const char* opcode, std::int64_t id) {
  Msg& x = c.add(f::kInstructions);
  x.s(f::kName, name).s(f::kOpcode, opcode).i(f::kId, id);
  x.one(f::kShape).i(f::kElementType, 11);
  return x;
}

}  // namespace

TEST_CASE("hlo text: an instruction that uses itself, or a use cycle, is refused where it is defined") {
  CHECK(parse_error("HloModule m\nENTRY e {\n  ROOT a = f32[] negate(a)\n}\n") ==
        "bad.hlo:3:8: instruction 'a' uses itself");
  CHECK(parse_error("HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  a = f32[] add(p, b)\n"
                    "  b = f32[] negate(c)\n  ROOT c = f32[] negate(a)\n}\n") ==
        "bad.hlo:6:8: instructions of computation 'e' use each other in a cycle: 'a' -> 'b' -> 'c' -> 'a'");
}

TEST_CASE("hlo text: computations that call each other, or a while body that runs itself, are refused") {
  CHECK(parse_error("HloModule m\n"
                    "f {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=g\n}\n"
                    "g {\n  x = f32[] parameter(0)\n  ROOT y = f32[] call(x), to_apply=f\n}\n"
                    "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=f\n}\n") ==
        "bad.hlo:8:8: instruction 'y' closes a cycle of calls (HLO has no recursion): 'f' -> 'g' -> 'f'");
  CHECK(parse_error("HloModule m\n"
                    "cond {\n  x = s32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n"
                    "body {\n  x = s32[] parameter(0)\n  ROOT w = s32[] while(x), condition=cond, body=body\n}\n"
                    "ENTRY e {\n  p = s32[] parameter(0)\n  ROOT r = s32[] while(p), condition=cond, body=body\n}\n") ==
        "bad.hlo:8:8: instruction 'w' of computation 'body' calls 'body' itself (HLO has no recursion)");
}

TEST_CASE("hlo proto: a use cycle, a computation without a root and a module without an entry are refused") {
  auto module = [](bool entry, std::int64_t root_id, std::int64_t operand_of_x) {
    Msg m;
    if (entry) m.s(f::kEntryComputationName, "main").i(f::kEntryComputationId, 1);
    Msg& c = m.add(f::kComputations);
    c.s(f::kComputationName, "main").i(f::kComputationId, 1).i(f::kRootId, root_id);
    Msg& x = scalar(c, "x", "negate", 1);
    x.packed(f::kOperandIds, {operand_of_x});
    scalar(c, "n", "negate", 2).packed(f::kOperandIds, {1});
    scalar(c, "p", "parameter", 3);
    return m.str();
  };
  CHECK(proto_error(module(true, 2, 3)) == "ok");
  CHECK(proto_error(module(true, 2, 1)) == "x.pb: instruction 'x' uses itself");
  CHECK(proto_error(module(true, 2, 2)) ==
        "x.pb: instructions of computation 'main' use each other in a cycle: 'x' -> 'n' -> 'x'");
  CHECK_THAT(proto_error(module(true, 7, 3)),
             Catch::Matches("x\\.pb: byte [0-9]+: computation 'main': root_id 7 is none of its instructions' ids "
                            "\\(a computation without a root\\)"));
  CHECK(proto_error(module(false, 2, 3)) ==
        "x.pb: the module names no entry computation (entry_computation_name, entry_computation_id)");
}
