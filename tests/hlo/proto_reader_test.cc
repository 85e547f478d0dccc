#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "roofline/hlo/cost.hpp"
#include "roofline/hlo/reader.hpp"
#include "tests/hlo/hlo_proto_writer.hpp"
#include "tests/test_support.hpp"

using roofline::HloModule;
using roofline::testing::slurp;

namespace {

HloModule must_read(const std::string& name) {
  auto m = roofline::read_hlo_file(roofline::testing::test_data("hlo/" + name).string());
  INFO(name << ": " << m.status().message());
  REQUIRE(m.ok());
  return std::move(*m);
}

std::string proto_error(const std::string& bytes) {
  auto m = roofline::parse_hlo_proto(bytes, "x.pb");
  REQUIRE_FALSE(m.ok());
  return std::string(m.status().message());
}

}  // namespace

TEST_CASE("hlo proto: the content decides the format") {
  CHECK(roofline::detect_hlo_format("  // comment\nHloModule m\n") == roofline::HloFormat::kText);
  CHECK(roofline::detect_hlo_format(std::string("\x0a\x05jit_f", 7)) == roofline::HloFormat::kProto);
}

// The fixture script wrote each of these modules twice, as text and as the
// serialized HloModuleProto of the same compiled executable: both readers
// must build the same model and the same costs.
TEST_CASE("hlo proto: a module read from its proto equals the one read from its text") {
  for (const char* base : {"matmul", "mlp", "while_loop", "psum"}) {
    INFO(base);
    HloModule text = must_read(std::string(base) + ".hlo.txt");
    HloModule proto = must_read(std::string(base) + ".hlo.pb");
    CHECK(proto.name() == text.name());
    CHECK(proto.entry().name == text.entry().name);
    REQUIRE(proto.computations().size() == text.computations().size());
    CHECK(proto.instruction_count() == text.instruction_count());
    for (const roofline::HloComputation& tc : text.computations()) {
      const roofline::HloComputation* pc = proto.computation(tc.name);
      REQUIRE(pc != nullptr);
      REQUIRE(pc->root != nullptr);
      CHECK(pc->root->name == tc.root->name);
      for (const roofline::HloInstruction& ti : tc.instructions) {
        INFO(ti.name);
        const roofline::HloInstruction* pi = pc->find(ti.name);
        REQUIRE(pi != nullptr);
        CHECK(pi->opcode == ti.opcode);
        CHECK(roofline::to_string(pi->shape) == roofline::to_string(ti.shape));
        REQUIRE(pi->operands.size() == ti.operands.size());
        for (std::size_t k = 0; k < ti.operands.size(); ++k) CHECK(pi->operands[k]->name == ti.operands[k]->name);
        REQUIRE(pi->called_computations.size() == ti.called_computations.size());
        for (std::size_t k = 0; k < ti.called_computations.size(); ++k) {
          CHECK(pi->called_computations[k].role == ti.called_computations[k].role);
          CHECK(pi->called_computations[k].computation->name == ti.called_computations[k].computation->name);
        }
        for (const char* key : {"dimensions", "lhs_contracting_dims", "rhs_contracting_dims", "lhs_batch_dims",
                                "rhs_batch_dims", "kind", "index", "channel_id", "replica_groups", "window"})
          CHECK(pi->attribute(key) == ti.attribute(key));
        CHECK(pi->metadata.op_name == ti.metadata.op_name);
        CHECK(pi->metadata.source_line == ti.metadata.source_line);
        const roofline::HloCost a = roofline::cost(ti), b = roofline::cost(*pi);
        CHECK(a.flops == b.flops);
        CHECK(a.transcendentals == b.transcendentals);
        CHECK(a.hbm_bytes() == b.hbm_bytes());
        CHECK(a.trip_count == b.trip_count);
      }
    }
  }
}

TEST_CASE("hlo proto: a truncated or corrupt proto is refused at the byte where it breaks") {
  // Field 3 (computations) claims 5 bytes but only 2 follow.
  CHECK(proto_error(std::string("\x1a\x05\x0a\x01", 4)) == "x.pb: byte 0: truncated length-delimited field 3");
  // Read as HloProto the error is inside hlo_module (field 1) at byte 2; read
  // as a bare HloModuleProto (field 1 = its name) at byte 6: the later one is reported.
  CHECK(proto_error(std::string("\x0a\x04\x1a\x05\x0a\x01\x1a\x09", 8)) ==
        "x.pb: byte 6: truncated length-delimited field 3");
  // Wire type 7 does not exist.
  CHECK(proto_error(std::string("\x0f\x00", 2)) == "x.pb: byte 0: unsupported wire type 7 in field 1");
  // Well-formed protobuf with no computations is not an HLO module.
  CHECK(proto_error(std::string("\x0a\x03" "abc", 5)) ==
        "x.pb: byte 0: not an HloProto or HloModuleProto (no computations found)");
  // A real module cut in half.
  const std::string whole = slurp(roofline::testing::test_data("hlo/matmul.hlo.pb").string());
  const std::string half = whole.substr(0, whole.size() / 2);
  const std::string msg = proto_error(half);
  CHECK(msg.starts_with("x.pb: byte "));
  CHECK(msg.find("truncated") != std::string::npos);
}

TEST_CASE("hlo proto: packed integers that are not whole varints are refused where they start") {
  using Msg = roofline::testing::PbMessage;
  namespace f = roofline::testing::hlo_field;
  auto module = [](const std::string& operand_ids) {
    Msg m;
    m.s(f::kEntryComputationName, "main");
    Msg& c = m.add(f::kComputations);
    c.s(f::kComputationName, "main").i(f::kComputationId, 1).i(f::kRootId, 2);
    Msg& x = c.add(f::kInstructions);
    x.s(f::kName, "x").s(f::kOpcode, "parameter").i(f::kId, 1);
    x.one(f::kShape).i(f::kElementType, 11);
    Msg& n = c.add(f::kInstructions);
    n.s(f::kName, "n").s(f::kOpcode, "negate").i(f::kId, 2).s(f::kOperandIds, operand_ids);
    n.one(f::kShape).i(f::kElementType, 11);
    return m.str();
  };
  REQUIRE(roofline::parse_hlo_proto(module("\x01"), "x.pb").ok());
  // 0x81 promises another byte that is not there.
  CHECK_THAT(proto_error(module("\x81")), Catch::Matches("x\\.pb: byte [0-9]+: malformed packed integers in field 36"));
}

TEST_CASE("hlo proto: a field of another wire type than XLA's is skipped, as libprotobuf skips it") {
  using Msg = roofline::testing::PbMessage;
  namespace f = roofline::testing::hlo_field;
  Msg m;
  m.i(f::kModuleName, 7);  // a varint where the name's bytes belong
  m.s(f::kEntryComputationName, "main");
  Msg& c = m.add(f::kComputations);
  c.s(f::kComputationName, "main").i(f::kComputationId, 1).i(f::kRootId, 1);
  Msg& x = c.add(f::kInstructions);
  x.s(f::kName, "x").s(f::kOpcode, "parameter").i(f::kId, 1).s(f::kParameterNumber, "?");
  x.one(f::kShape).i(f::kElementType, 11);
  auto read = roofline::parse_hlo_proto(m.str(), "x.pb");
  INFO(read.status().message());
  REQUIRE(read.ok());
  CHECK(read->name().empty());
  REQUIRE(read->instruction("x") != nullptr);
  CHECK(read->instruction("x")->parameter_number == 0);
}

TEST_CASE("hlo proto: reading a missing file names it") {
  auto m = roofline::read_hlo_file("/nonexistent/module.hlo.pb");
  REQUIRE_FALSE(m.ok());
  CHECK(std::string(m.status().message()) == "/nonexistent/module.hlo.pb: cannot open HLO module: No such file or directory");
}
