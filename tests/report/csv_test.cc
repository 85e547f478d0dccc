// The CSV writers: the same names as the JSON keys, one quoting rule.
#include <catch2/catch.hpp>

#include <string>

#include "roofline/hlo/reader.hpp"
#include "roofline/report/csv.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_support.hpp"

using roofline::testing::run_cli;

namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

TEST_CASE("csv writer: a report row quotes text with commas and keeps unknown figures empty") {
  roofline::Report r;
  roofline::OpReport op;
  op.name = "fusion.1";
  op.module = "jit_f";
  op.count = 2;
  op.measured_s = 1e-3;
  op.reason = "no cost model for aten::foo [[1, 2]]";
  r.ops.push_back(op);
  const std::string csv = roofline::to_csv(r);
  CHECK(first_line(csv) ==
        "name,module,category,hlo_category,count,measured_s,predicted_s,t_math_s,t_hbm_s,t_ici_s,bound,ratio,"
        "flop_util,bw_util,lost_s,flops,hbm_bytes,xla_flops,xla_bytes,match,reason,target_predicted_s,shapes,"
        "host_bytes,t_host_s,expected_s,expected_ratio,lost_expected_s,cost_class,target_expected_s,scope,scope_source");
  CHECK(csv.substr(csv.find('\n') + 1) ==
        "fusion.1,jit_f,,,2,0.001,,,,,,,,,,,,,,unmatched,\"no cost model for aten::foo [[1, 2]]\",,,,,,,,,,,\n");
}

TEST_CASE("csv writer: hlo and stats tables use the JSON key names") {
  auto m = roofline::read_hlo_file(roofline::testing::test_data("hlo/mlp.hlo.txt").string());
  REQUIRE(m.ok());
  const roofline::Chip& chip = roofline::chip("tpu-v5e");
  const roofline::HloModulePrediction mp = roofline::predict(*m, chip);
  std::vector<const roofline::HloPredictionRow*> rows;
  for (const auto& row : mp.rows) rows.push_back(&row);
  const std::string hlo = roofline::to_csv(rows, chip);
  CHECK(first_line(hlo) ==
        "name,opcode,category,shape,computation,executions,aggregate,flops,transcendentals,hbm_bytes,host_bytes,"
        "t_math_s,t_hbm_s,t_ici_s,t_lower_s,t_upper_s,bound,notes,expected_s,cost_class");
  CHECK(static_cast<std::size_t>(std::count(hlo.begin(), hlo.end(), '\n')) == rows.size() + 1);
  const std::string trace = "'" + roofline::testing::test_data("trace/kineto_small.json").string() + "'";
  auto stats = run_cli("stats " + trace + " --format csv");
  REQUIRE(stats.exit_code == 0);
  CHECK(first_line(stats.out) ==
        "module,program_id,name,kernel,category,class,async,count,total_s,mean_s,median_s,min_s,max_s,share,"
        "xla_flops,xla_bytes");
  // Kernel names with commas ("(ncclDevComm*, unsigned long, ncclWork*)") are quoted.
  CHECK(stats.out.find("\"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)\"") !=
        std::string::npos);
}
