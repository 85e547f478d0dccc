// The JSON writers of every output: one key per quantity, every key printed
// by any command documented in docs/json.md.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/hlo/reader.hpp"
#include "roofline/ops/matmul.hpp"
#include "roofline/report/json.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using roofline::testing::run_cli;

namespace {

nlohmann::json parsed(const roofline::Json& j) { return nlohmann::json::parse(j.dump()); }

void collect_keys(const nlohmann::json& j, std::set<std::string>& keys) {
  if (j.is_object())
    for (const auto& [k, v] : j.items()) {
      keys.insert(k);
      collect_keys(v, keys);
    }
  else if (j.is_array())
    for (const auto& v : j) collect_keys(v, keys);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("json writer: a prediction carries every roofline figure under its one key") {
  const roofline::Matmul mm{.m = 32768, .k = 8192, .n = 32768};
  const roofline::Prediction p = roofline::predict(mm, roofline::chip("tpu-v5e"));
  const nlohmann::json j = parsed(roofline::to_json(p));
  for (const char* key : {"flops", "hbm_bytes", "ici_bytes", "t_math_s", "t_hbm_s", "t_ici_s", "t_lower_s",
                          "t_upper_s", "bound", "dtype", "intensity_flops_per_byte", "ridge_flops_per_byte"})
    CHECK(j.contains(key));
  CHECK(j.size() == 12);
  // 2 x 32768 x 8192 x 32768 / 1.97e14 = 89.3 ms.
  CHECK(j["t_math_s"].get<double>() == p.t_math_s);
  CHECK(j["bound"] == "compute");
  CHECK(j["dtype"] == "bf16");
}

TEST_CASE("json writer: put() writes only the figures an output asks for") {
  roofline::Prediction p;
  p.flops = 2;
  p.hbm_bytes = 4;
  roofline::Json j = roofline::Json::object({{"part", "mlp"}});
  roofline::put(j, p, {roofline::PredictionKey::kFlops, roofline::PredictionKey::kHbmBytes});
  CHECK(j.dump() == "{\n  \"flops\": 2.0,\n  \"hbm_bytes\": 4.0,\n  \"part\": \"mlp\"\n}");
  CHECK(roofline::json_key(roofline::PredictionKey::kIciBytes) == "ici_bytes");
}

TEST_CASE("json writer: an HLO row names HBM traffic hbm_bytes, as every other output does") {
  auto m = roofline::read_hlo_file(roofline::testing::test_data("hlo/matmul.hlo.txt").string());
  REQUIRE(m.ok());
  const roofline::Chip& chip = roofline::chip("h100-sxm");
  const roofline::HloModulePrediction mp = roofline::predict(*m, chip);
  REQUIRE_FALSE(mp.rows.empty());
  for (const roofline::HloPredictionRow& r : mp.rows) {
    const nlohmann::json j = parsed(roofline::to_json(r, chip));
    CHECK(j["hbm_bytes"].get<double>() == r.prediction.hbm_bytes);
    CHECK_FALSE(j.contains("bytes"));
  }
}

TEST_CASE("json writer: a collective's link bytes are ici_bytes") {
  const roofline::CollectiveTime t{.t_ici_s = 1e-3, .bytes_per_link = 4e6, .hops = 3};
  const nlohmann::json j = parsed(roofline::to_json(t));
  CHECK(j["ici_bytes"] == 4e6);
  CHECK(j["hops"] == 3);
  CHECK(j["bound"] == "communication");
  CHECK_FALSE(j.contains("bytes_per_link"));
}

// Every key any command prints is in the one schema, and no command prints a
// name the schema retired.
TEST_CASE("json schema: every key of every command is documented in docs/json.md") {
  const std::string trace = "'" + roofline::testing::test_data("trace/kineto_small.json").string() + "'";
  const std::string hlo = "'" + roofline::testing::test_data("hlo/psum.hlo.txt").string() + "'";
  const char* edge = "hlo/edge_cases.hlo";
  std::set<std::string> keys;
  for (const std::string& args :
       {std::string("predict matmul --chip tpu-v5e --m 64 --k 64 --n 64 --format json"),
        std::string("hlo ") + hlo + " --chip tpu-v5e --format json",
        std::string("hlo '") + roofline::testing::test_data(edge).string() + "' --chip tpu-v5e --format json",
        std::string("predict collective --op permute --chip tpu-v5e --mesh X=8,Y=4 --axes Y --bytes 1e9 --hops 2 "
                    "--format json"),
        std::string("predict 'x[B_X, D_Y] @ w[D_Y, F]' --chip tpu-v5e --mesh X=8,Y=4 --dims B=8192,D=8192,F=32768 "
                    "--format json"),
        std::string("plan --model llama-3-8b --chip tpu-v5e --chips 8 --batch-tokens 65536 --top 1 --format json"),
        std::string("plan --model llama-3-70b --chip tpu-v5e --chips 1 --batch-tokens 8192 --format json"),
        std::string("stats ") + trace + " --format json",
        std::string("report ") + trace + " --target-chip b200 --format json",
        std::string("report '") + roofline::testing::test_data("trace/torch_xla_scopes.json").string() +
            "' --chip tpu-v5e --by scope --format json"}) {
    INFO(args);
    auto r = run_cli(args);
    REQUIRE(r.exit_code == 0);
    collect_keys(nlohmann::json::parse(r.out), keys);
  }
  const std::string schema = read_file(std::string(ROOFLINE_SOURCE_DIR) + "/docs/json.md");
  for (const std::string& k : keys) {
    INFO(k);
    CHECK(schema.find("`" + k + "`") != std::string::npos);
  }
  for (const char* retired : {"bytes", "bytes_per_link", "intensity", "ridge_intensity", "bytes_accessed",
                              "window_s"}) {
    INFO(retired);
    CHECK(keys.count(retired) == 0);
  }
  CHECK(keys.count("hbm_bytes") == 1);
  CHECK(keys.count("ici_bytes") == 1);
}
