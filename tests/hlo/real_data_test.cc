// The real HloProtos in ../shared/data/real (SOURCES.md): they load, and our
// FLOPs and bytes agree with what XLA recorded for the same ops in the traces
// beside them (derived/*.csv).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "roofline/hlo/predict.hpp"
#include "roofline/hlo/reader.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using roofline::HloModule;

namespace {

// RFC-4180 rows: quoted fields may hold commas, "" is a quote.
std::vector<std::map<std::string, std::string>> read_csv(const fs::path& path) {
  std::ifstream f(path);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += text[++i];
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (!field.empty() || !rows.back().empty()) rows.back().push_back(field);
  std::vector<std::map<std::string, std::string>> out;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].size() != rows[0].size()) continue;
    std::map<std::string, std::string> m;
    for (std::size_t k = 0; k < rows[0].size(); ++k) m[rows[0][k]] = rows[r][k];
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<HloModule> read_all(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<HloModule> out;
  for (const fs::path& p : files) {
    auto m = roofline::read_hlo_file(p.string());
    INFO(p.string() << ": " << m.status().message());
    REQUIRE(m.ok());
    out.push_back(std::move(*m));
  }
  return out;
}

}  // namespace

TEST_CASE("real hlo: every extracted HloProto loads and predicts on its chip") {
  const fs::path real = roofline::testing::require_real("xprof/hlo_protos_extracted");
  struct Set {
    fs::path dir;
    const char* chip;
  };
  const Set sets[] = {{real, "tpu-v6e"},
                      {roofline::testing::require_real("tracelens/hlo_protos_extracted"), "mi300x"}};
  for (const Set& s : sets) {
    for (const HloModule& m : read_all(s.dir)) {
      INFO(m.config().origin);
      const roofline::HloModulePrediction p = roofline::predict(m, roofline::chip(s.chip));
      CHECK(!p.rows.empty());
      CHECK(p.total.t_lower_s > 0);
      CHECK(p.unknown_cost_instructions == 0);  // the GEMM and cuDNN custom calls are costed
      for (const roofline::HloComputation& c : m.computations())
        for (const roofline::HloInstruction& i : c.instructions) CHECK(i.opcode != roofline::HloOpcode::kUnknown);
    }
  }
}

// XLA's TPU cost model recorded `flops` and `bytes_accessed` for every op of
// the v6e trace (derived/tpu_v6e_x4_ops_from_xplane.csv, TPU:0, XLA Ops line).
TEST_CASE("real hlo: FLOPs and bytes agree with what XLA recorded on TPU v6e") {
  const auto csv = read_csv(roofline::testing::require_real("derived/tpu_v6e_x4_ops_from_xplane.csv"));
  const std::vector<HloModule> modules = read_all(roofline::testing::require_real("xprof/hlo_protos_extracted"));
  int compared = 0, copy_done = 0;
  for (const auto& row : csv) {
    if (row.at("device") != "/device:TPU:0" || row.at("line") != "XLA Ops") continue;
    const std::string& op = row.at("op");
    const roofline::HloInstruction* found = nullptr;
    for (const HloModule& m : modules)
      if (const roofline::HloInstruction* i = m.instruction(op)) found = i;
    INFO(op);
    REQUIRE(found != nullptr);
    const roofline::HloCost c = roofline::cost(*found);
    const double xla_flops = std::stod(row.at("flops"));
    const double xla_bytes = std::stod(row.at("bytes_accessed"));
    CHECK(c.flops == xla_flops);
    if (found->opcode == roofline::HloOpcode::kCopyDone) {
      // XLA charges both halves of the async copy the array's 5,368,709,120 B;
      // we charge the transfer once, on copy-start (the op that starts it).
      CHECK(c.hbm_bytes() == 0);
      CHECK(roofline::cost(found->operand(0)).hbm_bytes() == xla_bytes);
      ++copy_done;
      continue;
    }
    // broadcast_add_fusion*: read + write 5.37 GB (the scalar constant is not
    // memory); all-reduce: operand + result, and one add per element;
    // broadcast.2: writes 5.37 GB, its scalar operand sits in S(6), not HBM;
    // copy-start: the HBM side of the host transfer.
    CHECK(c.hbm_bytes() == xla_bytes);
    ++compared;
  }
  // 17 rows: 3 broadcast_add_fusions, the all-reduce, broadcast.2, 6 copy-starts
  // (compared) and 6 copy-dones.
  CHECK(compared == 11);
  CHECK(copy_done == 6);
}

// The MI300X GEMM modules ran hipBLASLt through `__cublas$gemm` custom calls;
// derived/mi300x_jax08_kernels_with_hlo_shapes.csv gives each GEMM's M, N, K
// (and 2MNK) and, for single-op modules, parameters + result bytes.
TEST_CASE("real hlo: MI300X GEMM FLOPs are 2MNK and single-op modules move parameters + result") {
  const fs::path dir = roofline::testing::require_real("tracelens/hlo_protos_extracted");
  const auto csv = read_csv(roofline::testing::require_real("derived/mi300x_jax08_kernels_with_hlo_shapes.csv"));
  int gemms = 0, byte_checks = 0;
  for (const auto& row : csv) {
    // "jit_dot(34)" in trace "mi300x_jax08_gemm.xplane.pb" -> mi300x_jax08_gemm.jit_dot_34_.hlo_proto.pb
    std::string module = row.at("module");
    const std::string trace = row.at("trace").substr(0, row.at("trace").find(".xplane.pb"));
    module.replace(module.find('('), 1, "_");
    module.replace(module.find(')'), 1, "_");
    const fs::path file = dir / (trace + "." + module + ".hlo_proto.pb");
    if (!fs::exists(file)) continue;  // RNG/setup modules were not extracted
    auto m = roofline::read_hlo_file(file.string());
    REQUIRE(m.ok());
    const roofline::HloInstruction* op = m->instruction(row.at("hlo_op"));
    INFO(file.filename().string() << " " << row.at("hlo_op"));
    REQUIRE(op != nullptr);
    const roofline::HloCost c = roofline::cost(*op);
    if (!row.at("gemm_flops").empty()) {
      CHECK(c.flops == std::stod(row.at("gemm_flops")));
      CHECK(c.category == roofline::HloCategory::kMatmul);
      ++gemms;
    }
    if (!row.at("est_bytes_params_plus_out").empty()) {
      // The CSV adds up the module's parameters and the op's result; a GEMM's
      // s8 workspace is scratch and in neither number.
      CHECK(c.hbm_bytes() == std::stod(row.at("est_bytes_params_plus_out")));
      ++byte_checks;
    }
  }
  CHECK(gemms == 6);         // 256^3 Triton fusion and five hipBLASLt shapes
  CHECK(byte_checks == 33);  // every row with an estimate whose module was extracted: GEMMs, elementwise, softmax pieces
}
