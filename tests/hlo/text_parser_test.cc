#include <catch2/catch.hpp>

#include <filesystem>

#include "roofline/hlo/reader.hpp"
#include "tests/hlo/hlo_test_support.hpp"
#include "tests/test_support.hpp"

using roofline::HloModule;
using roofline::HloOpcode;

namespace {

using roofline::testing::must_parse;
using roofline::testing::must_read;
using roofline::testing::parse_error;

}  // namespace

TEST_CASE("hlo text: the hand-written corner cases load") {
  HloModule m = must_read("edge_cases.hlo");
  CHECK(m.name() == "edge_cases");
  CHECK(m.config().replica_count == 2);
  CHECK(m.config().num_partitions == 4);
  CHECK(m.computations().size() == 3);
  CHECK(m.entry().name == "main.9");
  CHECK(m.entry().is_entry);
  CHECK(m.instruction_count() == 3 + 3 + 12);  // add, max, and the 12 of main.9

  // Short-form names (no '%') resolve like long-form ones.
  const roofline::HloComputation* add = m.computation("add");
  REQUIRE(add != nullptr);
  REQUIRE(add->root != nullptr);
  CHECK(add->root->name == "sum");
  CHECK(add->root->operands.size() == 2);
  CHECK(add->root->operands[0]->name == "x");

  // Without ROOT the last instruction is the root; the execution thread is kept.
  const roofline::HloComputation* max = m.computation("max");
  REQUIRE(max != nullptr);
  CHECK(max->root->name == "m");
  CHECK(max->execution_thread == "main");

  // Operand shapes written inline are accepted and checked for syntax only.
  const roofline::HloInstruction* dot = m.instruction("dot.2");
  REQUIRE(dot != nullptr);
  CHECK(dot->opcode == HloOpcode::kDot);
  CHECK(dot->operand_names.size() == 2);
  CHECK(dot->operand(1).name == "convert.1");
  CHECK(dot->attribute("lhs_contracting_dims") == "{1}");
  CHECK(dot->attribute("operand_precision") == "{default,default}");
  CHECK_FALSE(dot->has_attribute("window"));

  // Constants keep their literal; reducers are resolved by role.
  CHECK(m.instruction("c")->literal == "{ {1, 2}, {3, 4} }");
  CHECK(m.instruction("init")->literal == "-inf");
  CHECK(m.instruction("r")->called("to_apply") == max);

  // Async sugar: reduce-scatter-start is an async-start wrapping reduce-scatter.
  const roofline::HloInstruction* rs = m.instruction("rs-start");
  REQUIRE(rs != nullptr);
  CHECK(rs->opcode == HloOpcode::kAsyncStart);
  CHECK(rs->wrapped_opcode == HloOpcode::kReduceScatter);
  CHECK(rs->attribute("replica_groups") == "[4,2]<=[2,4]T(1,0)");
  CHECK(rs->attribute("backend_config") == R"("{\"collective_backend_config\":{\"is_sync\":false}}")");
  CHECK(m.instruction("rs-done")->opcode == HloOpcode::kAsyncDone);
  CHECK(m.instruction("rs-done")->operand(0).name == "rs-start");

  // Custom calls keep the target and the raw JSON backend_config.
  const roofline::HloInstruction* cc = m.instruction("cc");
  CHECK(cc->attribute("custom_call_target") == "\"__cublas$gemm\"");
  CHECK(cc->attribute("backend_config").starts_with("{\"gemm_backend_config\""));

  // Metadata: explicit source, escaped quotes, and stack frames resolved.
  CHECK(m.instruction("p0")->metadata.op_name == "x");
  CHECK(m.instruction("p0")->metadata.source_file == "/home/user/model.py");
  CHECK(m.instruction("p0")->metadata.source_line == 3);
  const roofline::OpMetadata& md = m.instruction("convert.1")->metadata;
  CHECK(md.op_name == "jit(step)/convert \"w\"");
  CHECK(md.stack_frame_id == 2);
  CHECK(md.source_file == "/home/user/layers.py");
  CHECK(md.source_line == 42);

  // Attributes nobody models are kept as text.
  CHECK(m.instruction("p1")->attribute("sharding") == "{devices=[2,1]<=[2]}");
  CHECK(m.entry().root->name == "t");
  CHECK(m.entry().root->operand(1).name == "rs-done");
}

TEST_CASE("hlo text: every module the JAX fixture script wrote loads") {
  for (const auto& e : std::filesystem::directory_iterator(roofline::testing::test_data("hlo"))) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with(".hlo.txt") && !name.ends_with("after_optimizations.txt")) continue;
    INFO(name);
    HloModule m = must_read(name);
    CHECK(m.entry().root != nullptr);
    CHECK(m.instruction_count() > 0);
    for (const roofline::HloComputation& c : m.computations())
      for (const roofline::HloInstruction& i : c.instructions) {
        INFO(i.name);
        CHECK(i.opcode != HloOpcode::kUnknown);
        CHECK(i.operands.size() == i.operand_names.size());
      }
  }
}

TEST_CASE("hlo text: JAX's fixtures keep what the cost model reads") {
  HloModule loop = must_read("while_loop.hlo.txt");
  const roofline::HloInstruction* w = loop.instruction("while.1");
  REQUIRE(w != nullptr);
  CHECK(w->called("body")->name == "region_0.2.clone.clone.clone");
  CHECK(w->called("condition")->name == "region_1.3.clone.clone");
  CHECK(w->attribute("backend_config").find("\"known_trip_count\":{\"n\":\"10\"}") != std::string_view::npos);
  // Newer JAX writes stack_frame_id; the table resolves it to a file and line.
  CHECK(w->metadata.stack_frame_id == 7);
  CHECK(w->metadata.source_file.ends_with("make_hlo_fixtures.py"));
  CHECK(w->metadata.source_line > 0);

  HloModule conv = must_read("conv.hlo.txt");
  const roofline::HloInstruction* c = conv.instruction("conv_general_dilated.0");
  REQUIRE(c != nullptr);
  CHECK(c->attribute("window") == "{size=3x3 pad=1_1x1_1}");
  CHECK(c->attribute("dim_labels") == "b01f_01io->b01f");
  CHECK(conv.instruction("ynn_fusion")->attribute("kind") == "kCustom");
}

TEST_CASE("hlo text: a module with no computation or a stray token is refused with line and column") {
  CHECK(parse_error("") == "bad.hlo:1:1: expected 'HloModule' at the start of the module, found the end of the input");
  CHECK(parse_error("HloModule m\n") == "bad.hlo:2:1: expected a computation, found the end of the input");
  CHECK(parse_error("HloModule m\nENTRY e {\n  p = f32[8 parameter(0)\n}\n") ==
        "bad.hlo:3:13: expected ',' or ']' after a dimension, found 'parameter(0)'");
  CHECK(parse_error("HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} parameter(0), sharding={replicated\n") ==
        "bad.hlo:4:1: expected '}', found the end of the input");
  CHECK(parse_error("HloModule m\nENTRY e {\n  ROOT p = f32[8]{0} add(%a, %b)\n}\n") ==
        "bad.hlo:3:27: instruction 'p' uses 'a', which is not defined");
  CHECK(parse_error("HloModule m\nENTRY e {\n  ROOT r = f32[] reduce(%a), to_apply=%nowhere\n  a = f32[] parameter(0)\n}\n") ==
        "bad.hlo:3:40: instruction 'r' calls 'nowhere', which is not defined");
  CHECK(parse_error("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  a = f32[] parameter(1)\n}\n") ==
        "bad.hlo:4:3: instruction 'a' is defined twice");
  CHECK(parse_error("HloModule m\nENTRY e {\n  a = f32[] parameter(0) junk\n}\n") ==
        "bad.hlo:3:26: expected ',' or the end of the instruction, found 'junk'");
  CHECK(parse_error("HloModule m, num_partitions=zero\nENTRY e {\n  a = f32[] parameter(0)\n}\n") ==
        "bad.hlo:1:29: num_partitions must be a positive integer");
}

TEST_CASE("hlo text: operands must come from the same computation") {
  const std::string text =
      "HloModule m\n"
      "c {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n"
      "ENTRY e {\n  ROOT z = f32[] negate(y)\n}\n";
  CHECK(parse_error(text) == "bad.hlo:7:25: instruction 'z' uses 'y' from computation 'c'");
  // The same when the other computation comes later in the file (found by the fuzzer).
  const std::string later =
      "HloModule m\n"
      "ENTRY e {\n  ROOT z = f32[] negate(y)\n}\n"
      "c {\n  x = f32[] parameter(0)\n  ROOT y = f32[] negate(x)\n}\n";
  CHECK(parse_error(later) == "bad.hlo:3:25: instruction 'z' uses 'y' from computation 'c'");
}

TEST_CASE("hlo text: the dump header style and the short style both parse") {
  HloModule m = must_parse(
      "HloModule jit_f, entry_computation_layout={(f32[8]{0})->f32[8]{0}}\n\n"
      "ENTRY main.5 {\n  Arg_0.1 = f32[8]{0} parameter(0)\n  ROOT tanh.2 = f32[8]{0} tanh(Arg_0.1)\n}\n");
  CHECK(m.entry().root->opcode == HloOpcode::kTanh);
  CHECK(m.attributes().size() == 1);
  CHECK(m.attributes()[0].key == "entry_computation_layout");
}
