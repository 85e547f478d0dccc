// The bytes and FLOPs a PyTorch op is charged from its Input Dims, Input
// type and Concrete Inputs (docs/report.md, "Bytes an op moves"), and one
// cost per framework op that launches several kernels.
#include <catch2/catch.hpp>

#include <string>
#include <variant>
#include <vector>

#include "roofline/match/cost_source.hpp"
#include "roofline/match/group.hpp"
#include "roofline/match/identify.hpp"
#include "roofline/match/match.hpp"
#include "roofline/trace/read.hpp"
#include "tests/match/report_support.hpp"
#include "tests/test_support.hpp"

using roofline::CallInfo;
using roofline::CostSource;
using roofline::ElementwiseModel;

namespace {

CallInfo aten(std::string op, std::string dims, std::string types, std::string concrete = "") {
  CallInfo c;
  c.launcher = std::move(op);
  c.input_dims = std::move(dims);
  c.input_types = std::move(types);
  c.concrete_inputs = std::move(concrete);
  return c;
}

ElementwiseModel memory(const CostSource& c) {
  REQUIRE(c.model.has_value());
  REQUIRE(std::holds_alternative<ElementwiseModel>(*c.model));
  return std::get<ElementwiseModel>(*c.model);
}

}  // namespace

TEST_CASE("bytes: tensor * scalar with out= reads the tensor once and writes the out= tensor once") {
  // mul(self[11192,8192] f32, 2.0, out=[11192,8192] f32): the A100 trace's
  // AUnaryFunctor. Read 91,684,864 x 4 B, write the same; the scalar is one
  // element of its type (double: 8 B).
  const ElementwiseModel m = memory(roofline::cost_from_input_dims(
      aten("aten::mul", "[[11192,8192],[],[11192,8192]]", R"(["float","double","float"])"), "k"));
  CHECK(m.read_bytes == 11192.0 * 8192 * 4 + 8);
  CHECK(m.written_bytes == 11192.0 * 8192 * 4);
  CHECK(m.flops == 11192.0 * 8192);
}

TEST_CASE("bytes: a broadcast operand is read at its own size, the result at the broadcast shape") {
  // add(x[64,1024] bf16, bias[1024] bf16, alpha): 64*1024*2 + 1024*2 read,
  // 64*1024*2 written.
  const ElementwiseModel m = memory(roofline::cost_from_input_dims(
      aten("aten::add", "[[64,1024],[1024],[]]", R"(["c10::BFloat16","c10::BFloat16","Scalar"])"), "k"));
  CHECK(m.read_bytes == 64.0 * 1024 * 2 + 1024 * 2);
  CHECK(m.written_bytes == 64.0 * 1024 * 2);
  // [4,1] and [1,8] broadcast to [4,8]: 32 results, not the larger input's 8.
  const ElementwiseModel outer = memory(roofline::cost_from_input_dims(
      aten("aten::mul", "[[4,1],[1,8]]", R"(["float","float"])"), "k"));
  CHECK(outer.read_bytes == (4 + 8) * 4.0);
  CHECK(outer.written_bytes == 32 * 4.0);
  // A comparison writes bools.
  const ElementwiseModel eq = memory(roofline::cost_from_input_dims(
      aten("aten::eq", "[[1000],[1000]]", R"(["float","float"])"), "k"));
  CHECK(eq.written_bytes == 1000.0);
}

TEST_CASE("bytes: an in-place op reads self and other and writes self") {
  // add_(param[256,256,3,3] f32, grad[256,256,3,3] f32, alpha): 589,824
  // elements: read 2 x 2,359,296 B, write 2,359,296 B.
  const ElementwiseModel m = memory(roofline::cost_from_input_dims(
      aten("aten::add_", "[[256,256,3,3],[256,256,3,3],[]]", R"(["float","float","Scalar"])"), "k"));
  CHECK(m.read_bytes == 2 * 589824.0 * 4);
  CHECK(m.written_bytes == 589824.0 * 4);
  // copy_(self, src) reads src at its type and writes self at its own.
  const ElementwiseModel copy = memory(roofline::cost_from_input_dims(
      aten("aten::copy_", "[[1024],[1024],[]]", R"(["c10::BFloat16","float","bool"])"), "k"));
  CHECK(copy.read_bytes == 1024.0 * 4);
  CHECK(copy.written_bytes == 1024.0 * 2);
}

TEST_CASE("bytes: index_select reads the rows it selects, not its table") {
  // The H100 BERT trace: index_select(weight[30522,512] bf16, dim 0, index[141]):
  // 141 rows of 512 bf16 read and written, 141 int64 indices read.
  const CostSource c = roofline::cost_from_input_dims(
      aten("aten::index_select", "[[30522,512],[],[141]]", R"(["c10::BFloat16","Scalar","long int"])",
           R"(["","0",""])"),
      "indexSelectLargeIndex");
  const ElementwiseModel m = memory(c);
  CHECK(m.read_bytes == 141.0 * 512 * 2 + 141 * 8);
  CHECK(m.written_bytes == 141.0 * 512 * 2);
  // Without the dim recorded: the smallest slice, here dim 0's rows of 512
  // (dim 1 would take columns of 30522).
  const ElementwiseModel unknown = memory(roofline::cost_from_input_dims(
      aten("aten::index_select", "[[30522,512],[],[141]]", R"(["c10::BFloat16","Scalar","long int"])"), "k"));
  CHECK(unknown.written_bytes == 141.0 * 512 * 2);
}

TEST_CASE("bytes: norms are memory-bound: the activations read and written once") {
  // cudnn_batch_norm(x[32,64,112,112], weight, bias, running_mean, running_var)
  // f32: 25,690,112 elements read and written, plus four 64-channel vectors read.
  const ElementwiseModel bn = memory(roofline::cost_from_input_dims(
      aten("aten::cudnn_batch_norm", "[[32,64,112,112],[64],[64],[64],[64],[],[],[]]", ""), "k"));
  CHECK(bn.read_bytes == 25690112.0 * 4 + 4 * 64 * 4);
  CHECK(bn.written_bytes == 25690112.0 * 4);
  CHECK(bn.flops == 0);
  // Backward (input, grad_output, weight, running x2, saved x2, eps, reserve):
  // reads both activations and five vectors, writes grad_input and the
  // weight's and bias's gradients.
  const ElementwiseModel back = memory(roofline::cost_from_input_dims(
      aten("aten::cudnn_batch_norm_backward", "[[32,64,56,56],[32,64,56,56],[64],[64],[64],[64],[64],[],[0]]", ""),
      "k"));
  CHECK(back.read_bytes == 2 * 6422528.0 * 4 + 5 * 64 * 4);
  CHECK(back.written_bytes == 6422528.0 * 4 + 2 * 64 * 4);
}

TEST_CASE("bytes: a training batch norm is expected to read its input again where the chip cannot hold it") {
  // cudnn_batch_norm(x[32,256,56,56] f32, ...): 102,760,448 B of input,
  // which cuDNN's NCHW training kernels read once for the statistics and
  // once to normalise. A V100 holds 6,144,000 B of L2 and 80 SMs x (128,000 B
  // shared memory/L1 + 262,144 B registers) = 37,355,520 B, so 65,404,928 B
  // are expected to be read a second time.
  const double x = 32.0 * 256 * 56 * 56 * 4;
  const std::string dims = "[[32,256,56,56],[256],[256],[256],[256],[],[],[]]";
  const ElementwiseModel tr = memory(roofline::cost_from_input_dims(
      aten("aten::cudnn_batch_norm", dims, ""), "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>"));
  CHECK(tr.reread_bytes == x);
  const roofline::Chip& v100 = roofline::chip("v100-sxm2");
  CHECK(roofline::on_chip_capacity_bytes(v100) == 6144000.0 + 80 * (128000.0 + 262144.0));
  CHECK(roofline::second_pass_bytes(tr, v100) == x - 37355520.0);
  // In the expectation only: the bound is one pass, which a kernel working
  // channel by channel (401 kB a channel here) could reach.
  const roofline::Prediction p = roofline::predict(tr, v100);
  CHECK(p.hbm_bytes == tr.read_bytes + tr.written_bytes);
  CHECK(p.t_hbm_cold_s == Approx((tr.read_bytes + tr.written_bytes + (x - 37355520.0)) / 9e11));
  CHECK(p.t_hbm_s < (tr.read_bytes + tr.written_bytes) / 9e11 + 1e-12);
  // An H100 holds 50 MB + 132 x (256,000 + 262,144) B = 118.4 MB: one pass.
  CHECK(roofline::second_pass_bytes(tr, roofline::chip("h100-sxm")) == 0);
  // A chip whose registers or SM count its spec lacks: no claim.
  CHECK(roofline::on_chip_capacity_bytes(roofline::chip("mi300x")) == 0);
  CHECK(roofline::second_pass_bytes(tr, roofline::chip("mi300x")) == 0);
  // Inference (cuDNN's bn_fw_inf kernel, or training False recorded) normalises
  // with the running statistics in one pass; so does a training flag the trace
  // does not record behind a kernel that does not say.
  CHECK(memory(roofline::cost_from_input_dims(aten("aten::cudnn_batch_norm", dims, ""), "cudnn::bn_fw_inf_1C11_kernel_NCHW"))
            .reread_bytes == 0);
  CHECK(memory(roofline::cost_from_input_dims(aten("aten::native_batch_norm", dims, "",
                                                   R"(["","","","","","False","0.1","1e-05"])"),
                                              "k"))
            .reread_bytes == 0);
  CHECK(memory(roofline::cost_from_input_dims(aten("aten::native_batch_norm", dims, "",
                                                   R"(["","","","","","True","0.1","1e-05"])"),
                                              "k"))
            .reread_bytes == x);
  CHECK(memory(roofline::cost_from_input_dims(aten("aten::cudnn_batch_norm", dims, ""), "k")).reread_bytes == 0);
  // Backward: the input and the gradient, both needed whole for the two
  // reductions before any gradient is written.
  const ElementwiseModel back = memory(roofline::cost_from_input_dims(
      aten("aten::cudnn_batch_norm_backward", "[[32,256,56,56],[32,256,56,56],[256],[256],[256],[256],[256],[],[0]]",
           ""),
      "k"));
  CHECK(back.reread_bytes == 2 * x);
  // A layer norm reduces over a row, which one kernel holds: one pass.
  CHECK(memory(roofline::cost_from_input_dims(aten("aten::native_layer_norm", "[[64,4096,1024],[],[1024],[1024],[]]",
                                                   ""),
                                              "k"))
            .reread_bytes == 0);
}

TEST_CASE("attention: is_causal from Concrete Inputs halves the scores; unknown masking says so") {
  // _flash_attention_forward(q, k, v, ..., dropout_p, is_causal at 8, ...),
  // the H100 Qwen trace: B=16, T=S=559, H=16, D=64.
  const std::string dims = "[[16,559,16,64],[16,559,16,64],[16,559,16,64],[],[],[],[],[],[],[],[],[],[],[],[]]";
  const std::string types = R"(["c10::BFloat16","c10::BFloat16","c10::BFloat16","","","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar","","","",""])";
  const CostSource causal = roofline::cost_from_input_dims(
      aten("aten::_flash_attention_forward", dims, types, R"(["","","","","","559","559","0.","True","False","0.125","","","",""])"),
      "flash_fwd_kernel");
  REQUIRE(causal.model.has_value());
  const auto& a = std::get<roofline::AttentionModel>(*causal.model);
  // 4 * B * H * S(S+1)/2 * D = 4 * 16 * 16 * 156,520 * 64
  CHECK(a.flops() == 4.0 * 16 * 16 * (559.0 * 560 / 2) * 64);
  CHECK_THAT(causal.note, Catch::Contains("causal (trace)"));
  const CostSource unknown =
      roofline::cost_from_input_dims(aten("aten::_flash_attention_forward", dims, types), "flash_fwd_kernel");
  const auto& u = std::get<roofline::AttentionModel>(*unknown.model);
  CHECK(u.flops() == 4.0 * 16 * 16 * 559 * 559 * 64);
  CHECK_THAT(unknown.note, Catch::EndsWith("masking unknown: full T×S counted"));
  // Causal with T != S: PyTorch aligns top left, FlashAttention bottom
  // right; the fewer pairs. T=2, S=4: top left 1 + 2 = 3, bottom right 3 + 4 = 7.
  CHECK(roofline::attended_pairs(2, 4, roofline::AttentionKernelMask::kCausalEither) == 3);
  CHECK(roofline::attended_pairs(2, 4, roofline::AttentionKernelMask::kCausalBottomRight) == 7);
}

TEST_CASE("convolution: FLOPs from the output's extent, found in its backward when the trace has no strides") {
  // The V100 ResNet-50 stem: x[32,3,224,224] * w[64,3,7,7], stride 2,
  // padding 3 -> [32,64,112,112]: 2 * 32 * 64 * 112*112 * 3 * 49 FLOPs.
  const double flops = 2.0 * 32 * 64 * 112 * 112 * 3 * 49;
  const std::vector<CallInfo> calls = {
      aten("aten::cudnn_convolution_backward", "[[32,3,224,224],[32,64,112,112],[64,3,7,7],[],[],[],[],[],[],[],[]]", "")};
  const CostSource fwd = roofline::cost_from_input_dims(
      aten("aten::cudnn_convolution", "[[32,3,224,224],[64,3,7,7],[],[],[],[],[],[],[]]", ""), "volta_scudnn", calls);
  REQUIRE(fwd.model.has_value());
  const auto& c = std::get<roofline::ConvolutionModel>(*fwd.model);
  CHECK(c.flops == flops);
  CHECK(c.read_bytes == (32.0 * 3 * 224 * 224 + 64 * 3 * 49) * 4);
  CHECK(c.written_bytes == 32.0 * 64 * 112 * 112 * 4);
  CHECK_THAT(fwd.note, Catch::Contains("output from its backward's gradient"));
  CHECK(roofline::cost_class(*fwd.model) == roofline::CostClass::kMatmul);
  // The same from Concrete Inputs (conv2d: stride at 3, padding at 4).
  const CostSource concrete = roofline::cost_from_input_dims(
      aten("aten::conv2d", "[[32,3,224,224],[64,3,7,7],[],[],[],[],[]]", "",
           R"(["","","","[2, 2]","[3, 3]","[1, 1]","1"])"),
      "k");
  CHECK(std::get<roofline::ConvolutionModel>(*concrete.model).flops == flops);
  // Neither: stride 1, no padding, said so: 218 x 218 outputs.
  const CostSource assumed = roofline::cost_from_input_dims(
      aten("aten::cudnn_convolution", "[[32,3,224,224],[64,3,7,7],[],[],[],[],[],[],[]]", ""), "k");
  CHECK(std::get<roofline::ConvolutionModel>(*assumed.model).flops == 2.0 * 32 * 64 * 218 * 218 * 3 * 49);
  CHECK_THAT(assumed.note, Catch::Contains("stride 1, no padding assumed"));
  // backward_weight finds the weight's shape in the full backward; one pass.
  const CostSource wgrad = roofline::cost_from_input_dims(
      aten("aten::cudnn_convolution_backward_weight", "[[],[32,64,112,112],[32,3,224,224],[],[],[],[],[],[],[]]", ""),
      "k", calls);
  CHECK(std::get<roofline::ConvolutionModel>(*wgrad.model).flops == flops);
  // Winograd kernels (by name) do (4 + 3 - 1)^2 / (4 * 3)^2 = 1/4 of a 3x3's multiplies.
  const CostSource wino = roofline::cost_from_input_dims(
      aten("aten::cudnn_convolution", "[[32,256,14,14],[256,256,3,3],[],[],[],[],[],[],[]]", ""),
      "volta_sgemm_64x64_nn\nvoid cudnn::winograd_nonfused::winogradForwardData4x4<float, float>",
      std::vector<CallInfo>{aten("aten::cudnn_convolution_backward",
                                 "[[32,256,14,14],[32,256,14,14],[256,256,3,3],[],[],[],[],[],[],[],[]]", "")});
  CHECK(std::get<roofline::ConvolutionModel>(*wino.model).flops == 2.0 * 32 * 256 * 14 * 14 * 256 * 9 / 4);
}

TEST_CASE("group: the kernels one framework op launched are one op, costed once") {
  // aten::addmm launching cuBLAS split-K (GEMM, then splitKreduce) twice,
  // and an aten::add launching one kernel.
  const std::string trace = R"({"deviceProperties":[{"id":0,"name":"Tesla V100-SXM2-16GB"}],"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":0,"dur":50,
     "args":{"External id":1,"Input Dims":[[1000],[32,2048],[2048,1000],[],[]],"Input type":["float","float","float","Scalar","Scalar"]}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"correlation":11,"External id":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":4,"dur":2,"args":{"correlation":12,"External id":1}},
    {"ph":"X","cat":"kernel","name":"volta_sgemm_128x64_nn","pid":0,"tid":7,"ts":100,"dur":30,"args":{"correlation":11,"External id":1,"device":0,"stream":7}},
    {"ph":"X","cat":"kernel","name":"splitKreduce_kernel","pid":0,"tid":7,"ts":131,"dur":4,"args":{"correlation":12,"External id":1,"device":0,"stream":7}},
    {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":60,"dur":50,
     "args":{"External id":2,"Input Dims":[[1000],[32,2048],[2048,1000],[],[]],"Input type":["float","float","float","Scalar","Scalar"]}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":61,"dur":2,"args":{"correlation":21,"External id":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":64,"dur":2,"args":{"correlation":22,"External id":2}},
    {"ph":"X","cat":"kernel","name":"volta_sgemm_128x64_nn","pid":0,"tid":7,"ts":200,"dur":32,"args":{"correlation":21,"External id":2,"device":0,"stream":7}},
    {"ph":"X","cat":"kernel","name":"splitKreduce_kernel","pid":0,"tid":7,"ts":233,"dur":4,"args":{"correlation":22,"External id":2,"device":0,"stream":7}}
  ]})";
  auto t = roofline::parse_chrome_trace(trace, "splitk.json");
  REQUIRE(t.ok());
  auto devices = roofline::select_devices(*t, std::nullopt);
  REQUIRE(devices.ok());
  const roofline::OpGroups g = roofline::group_ops(*t, roofline::measure(*t, std::nullopt), *devices);
  REQUIRE(g.groups.size() == 1);
  const roofline::OpGroup& op = g.groups.front();
  CHECK(op.per_kernel.size() == 2);
  CHECK(op.count() == 2);
  CHECK(t->ops[op.op].name == "volta_sgemm_128x64_nn");  // the longest-running kernel names the op
  // Mean run: (30 + 4 + 32 + 4) us over 2 runs.
  CHECK(op.median_s() == Approx(35e-6));
  roofline::ReportOptions o;
  o.chip = &roofline::chip("v100-sxm2");
  auto r = roofline::make_report(*t, o);
  REQUIRE(r.ok());
  REQUIRE(r->ops.size() == 1);
  CHECK_THAT(r->ops[0].reason, Catch::StartsWith("2 kernels; aten::addmm"));
  // One GEMM per run: 2 * 32 * 2048 * 1000 FLOPs.
  CHECK(r->ops[0].prediction.flops == 2 * 2.0 * 32 * 2048 * 1000);
}

TEST_CASE("real V100 ResNet-50: convolutions and norms predicted; no bound above the measured median") {
  const roofline::Report r = roofline::testing::report_of("kineto/v100_resnet50_worker0.pt.trace.json.gz");
  double busy = 0, predicted = 0;
  for (const roofline::OpReport& op : r.ops) {
    busy += op.measured_s;
    if (op.predicted) predicted += op.measured_s;
    // A median of 0 is a kernel shorter than the trace's 1 us resolution.
    if (!op.predicted || op.async || op.prediction.t_lower_s <= 0 || op.median_s <= 0) continue;
    const double bound = op.prediction.t_lower_s / static_cast<double>(op.count);
    if (bound <= op.median_s) continue;
    INFO(op.module << " " << op.shapes << " " << op.reason << ": bound/median " << bound / op.median_s);
    // Measured before issue 11: 82% of busy time unpredicted, splitKreduce
    // 3.2-4.8x its bound, optimizer add_ 1.1-1.4x. With one cost per
    // framework op, the byte rules and a cache's partial service of working
    // sets a little larger than L2 (select_memory_tier), no op of this
    // trace is over its bound.
    CHECK(bound <= op.median_s);
  }
  // Measured: 99.85% of busy time predicted.
  CHECK(predicted / busy > 0.99);
}
