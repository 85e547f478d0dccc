#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "roofline/chip.hpp"
#include "roofline/chip_identity.hpp"
#include "roofline/chip_io.hpp"
#include "tests/test_support.hpp"

using nlohmann::json;
using roofline::Chip;
using roofline::DType;

namespace {

// The ten chips of issue 2 carry bf16 and int8 peaks; the format itself
// asks only for fp32 (GPUs) and a bf16 or fp16 rate (a V100 has neither
// bf16 nor int8 tensor cores).
const std::set<std::string> kIssue2Chips = {
    "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-7x",
    "h100-sxm", "h200", "b200", "a100-sxm", "mi300x"};

const std::set<std::string> kRequiredChips = [] {
  std::set<std::string> all = kIssue2Chips;
  all.insert({"v100-sxm2", "mi250", "a100-sxm-40gb"});
  // Issue 39: the chips notebook and cloud users profile on.
  all.insert({"l4", "l40s", "rtx-4090", "t4", "a10g", "gh200", "gb200", "b300", "mi325x", "mi355x"});
  return all;
}();

}  // namespace

TEST_CASE("chip: every required chip is embedded and every spec file loads") {
  std::set<std::string> embedded;
  for (const Chip& c : roofline::embedded_chips()) embedded.insert(c.name);
  for (const std::string& name : kRequiredChips) CHECK(embedded.count(name) == 1);

  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(ROOFLINE_SOURCE_DIR) / "hardware")) {
    INFO(entry.path().string());
    absl::StatusOr<Chip> c = roofline::load_chip(entry.path().string());
    REQUIRE(c.ok());
    CHECK(c->name == entry.path().stem().string());
    // GPUs list their fp32 rate; TPUs time fp32 on the bf16 MXU (select_peak).
    CHECK(c->has(roofline::PeakClass::kFp32) == (c->kind == roofline::ChipKind::kGpu));
    CHECK(c->has(DType::kF32));
    CHECK((c->has(roofline::PeakClass::kBf16) || c->has(roofline::PeakClass::kFp16)));
    if (kIssue2Chips.count(c->name)) {
      CHECK(c->has(roofline::PeakClass::kBf16));
      CHECK(c->has(roofline::PeakClass::kInt8));
    }
    CHECK(!c->sources.empty());
    for (const auto& s : c->sources) CHECK(!s.read_on.empty());
  }
}

TEST_CASE("chip: the embedded table is exactly what the spec files say") {
  // The chips are compiled in as constexpr data generated from hardware/ at
  // build time; built back into Chips they must equal the files parsed now,
  // field by field (chip_to_json writes every field), in name order.
  std::vector<std::string> names;
  for (const Chip& c : roofline::embedded_chips()) {
    INFO(c.name);
    names.push_back(c.name);
    const auto path = std::filesystem::path(ROOFLINE_SOURCE_DIR) / "hardware" / (c.name + ".json");
    absl::StatusOr<Chip> file = roofline::load_chip(path.string());
    REQUIRE(file.ok());
    CHECK(roofline::chip_to_json(c) == roofline::chip_to_json(*file));
    CHECK(&roofline::chip(c.name) == &c);
  }
  CHECK(std::is_sorted(names.begin(), names.end()));
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(ROOFLINE_SOURCE_DIR) / "hardware"))
    files += entry.path().extension() == ".json";
  CHECK(names.size() == files);
}

TEST_CASE("chip: v5e figures are the scaling book's") {
  const Chip& v5e = roofline::chip("tpu-v5e");
  CHECK(v5e.peak_flops_per_s_for(DType::kBF16) == 1.97e14);
  CHECK(v5e.peak_flops_per_s_for(DType::kS8) == 3.94e14);
  CHECK(v5e.hbm_bytes_per_s == 8.2e11);
  CHECK(v5e.ici.link_bytes_per_s == 4.5e10);
  CHECK(v5e.ici.bidi_link_bytes_per_s() == 9e10);
  CHECK(v5e.ici.topology == roofline::Topology::kTorus2D);
  // v5e wraps only on axes of 16 (scaling book, TPU networking).
  CHECK(v5e.ici.wraps(16));
  CHECK_FALSE(v5e.ici.wraps(8));
  CHECK(roofline::chip("tpu-v5p").ici.wraps(8));
  CHECK_FALSE(roofline::chip("tpu-v5p").ici.wraps(2));
}

TEST_CASE("chip: ridge intensities match the book's critical intensities") {
  // v5e: 1.97e14 / 8.2e11 = 240.2 FLOPs/byte (scaling book, roofline chapter).
  CHECK(roofline::chip("tpu-v5e").ridge_flops_per_byte(DType::kBF16) ==
        Approx(240.24).epsilon(1e-3));
  // H100 SXM: 9.89e14 dense bf16 / 3.35e12 = 295; the book says "closer to 300".
  const double h100 = roofline::chip("h100-sxm").ridge_flops_per_byte(DType::kBF16);
  CHECK(h100 > 290);
  CHECK(h100 < 300);
}

TEST_CASE("chip: an unknown name lists the known chips") {
  auto c = roofline::find_chip("tpu-v5x");
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(std::string(c.status().message()), Catch::Contains("tpu-v5e") &&
                                                    Catch::Contains("h100-sxm") &&
                                                    Catch::Contains("tpu-v5x"));
  CHECK_THROWS_AS(roofline::chip("nope"), std::out_of_range);
}

TEST_CASE("chip: profiler device names map to chips") {
  auto name_of = [](const char* dev) {
    const Chip* c = roofline::chip_for_device_name(dev);
    return c ? c->name : std::string("none");
  };
  CHECK(name_of("TPU v6 Lite") == "tpu-v6e");
  CHECK(name_of("TPU v5 lite") == "tpu-v5e");
  CHECK(name_of("NVIDIA H100 80GB HBM3") == "h100-sxm");
  CHECK(name_of("NVIDIA B200") == "b200");
  CHECK(name_of("AMD Instinct MI300X VF") == "mi300x");
  CHECK(name_of("NVIDIA A100-SXM4-80GB") == "a100-sxm");
  CHECK(name_of("Commodore 64") == "none");
  // Kineto's name for a DGX Station GPU, the SXM2 part, and the model the
  // trace reader infers for an XPlane V100 (cc 7.0, 80 SMs).
  CHECK(name_of("Tesla V100-DGXS-32GB") == "v100-sxm2");
  CHECK(name_of("Tesla V100-SXM2-16GB") == "v100-sxm2");
  CHECK(name_of("Tesla V100") == "v100-sxm2");
  CHECK(name_of("AMD Instinct MI250") == "mi250");
  // A listed name must not run on into a longer model number: the V100S
  // and the MI250X (110 CUs per GCD) are other chips; ROCm's shared name
  // for both MI250 parts decides nothing.
  CHECK(name_of("Tesla V100S-PCIE-32GB") == "none");
  CHECK(name_of("AMD Instinct MI250X") == "none");
  CHECK(name_of("AMD Instinct MI250X / MI250") == "none");
  CHECK(name_of("TPU v5") == "tpu-v5p");
  CHECK(name_of("TPU v5 lite") == "tpu-v5e");
  // Issue 39's chips, by the names nvidia-smi, torch.cuda.get_device_name
  // and rocminfo print (each file's sources quote where): one part's name is
  // never another's, though "NVIDIA L4" starts "NVIDIA L40S", "NVIDIA
  // GB200" ends in "B200" and "NVIDIA GH200" ends in "H200".
  CHECK(name_of("Tesla T4") == "t4");
  CHECK(name_of("NVIDIA L4") == "l4");
  CHECK(name_of("NVIDIA L40S") == "l40s");
  CHECK(name_of("NVIDIA L40") == "none");  // the L40 (no FP8 rates) has no spec
  CHECK(name_of("NVIDIA A10G") == "a10g");
  CHECK(name_of("NVIDIA A10") == "none");  // the A10's tensor peaks are not the A10G's
  CHECK(name_of("NVIDIA GeForce RTX 4090") == "rtx-4090");
  // The laptop part of that name is a smaller chip: a reported
  // laptop GPU takes no desktop spec (ollama/ollama issue #10393's nvidia-smi).
  CHECK(name_of("NVIDIA GeForce RTX 4090 Laptop GPU") == "none");
  CHECK(name_of("NVIDIA GH200 480GB") == "gh200");
  CHECK(name_of("NVIDIA GH200 120GB") == "gh200");
  CHECK(name_of("GH200 120GB") == "gh200");
  CHECK(name_of("NVIDIA GH200 144G HBM3e") == "none");  // the 144 GB HBM3e part has no spec
  CHECK(name_of("NVIDIA GB200") == "gb200");
  CHECK(name_of("NVIDIA B300 SXM6 AC") == "b300");
  CHECK(name_of("NVIDIA GB300") == "none");
  CHECK(name_of("AMD Instinct MI325X") == "mi325x");
  CHECK(name_of("AMD Instinct MI355X") == "mi355x");
  CHECK(name_of("AMD Instinct MI350X") == "none");  // same die as the MI355X, lower clocks
}

TEST_CASE("chip: V100 has fp16 tensor cores but no bf16 or int8 rate") {
  const Chip& v100 = roofline::chip("v100-sxm2");
  // Datasheet r5, SXM2: 125 TFLOPS tensor (fp16), 15.7 FP32, 900 GB/s.
  CHECK(v100.peak_flops_per_s_for(DType::kF16) == 1.25e14);
  CHECK(v100.peak_flops_per_s_for(DType::kF32) == 1.57e13);
  CHECK_FALSE(v100.has(DType::kBF16));
  CHECK_FALSE(v100.has(DType::kS8));
  // Ridge fp16: 1.25e14 / 9e11 = 138.9 FLOP/B.
  CHECK(v100.ridge_flops_per_byte(DType::kF16) == Approx(138.89).epsilon(1e-3));
  // NVLink 2: 6 links x 25 GB/s one way.
  CHECK(v100.ici.egress_bytes_per_s() == Approx(1.5e11));
}

TEST_CASE("chip: an MI250 spec is one GCD, half the package's peaks") {
  const Chip& mi250 = roofline::chip("mi250");
  // ROCm mi250.md, MI250 OAM: matrix BF16 362.1 TFLOPS, matrix FP32 and
  // FP64 90.5 TFLOPS, 3.2768 TB/s; a device is one of the two GCDs.
  CHECK(mi250.peak_flops_per_s_for(DType::kBF16) == Approx(362.1e12 / 2));
  CHECK(mi250.peak_flops_per_s_for(DType::kF32) == Approx(90.5e12 / 2));
  CHECK(mi250.peak_flops_per_s_for(DType::kF64) == Approx(90.5e12 / 2));
  CHECK(mi250.hbm_bytes_per_s == Approx(3.2768e12 / 2));
  // 67092480 KB, the pool rocminfo reports for a 64 GB gfx90a die (mi250.json).
  CHECK(mi250.hbm_bytes == 67092480.0 * 1024);
  CHECK_FALSE(mi250.has(roofline::PeakClass::kTf32));
  // The two GCDs of a package: four Infinity Fabric links of 50 GB/s.
  CHECK(mi250.ici.domain_chips() == 2);
  CHECK(mi250.ici.egress_bytes_per_s() == Approx(2e11));
}

TEST_CASE("chip: JSON round-trips") {
  for (const Chip& c : roofline::embedded_chips()) {
    INFO(c.name);
    absl::StatusOr<Chip> back = roofline::parse_chip(roofline::chip_to_json(c), c.name);
    INFO(back.status().ToString());
    REQUIRE(back.ok());
    CHECK(back->peak_flops_per_s == c.peak_flops_per_s);
    CHECK(back->hbm_bytes_per_s == c.hbm_bytes_per_s);
    CHECK(back->ici.max_shape == c.ici.max_shape);
    CHECK(back->ici.wrap == c.ici.wrap);
    CHECK(back->compute_units == c.compute_units);
    CHECK(on_chip_capacity_bytes(*back) == on_chip_capacity_bytes(c));
    CHECK(back->sources.size() == c.sources.size());
  }
}

TEST_CASE("chip: what a GPU holds on chip, where its SMs and register file are given") {
  // L2 + SMs x (shared memory/L1 + registers [+ tensor memory]), each figure
  // from the spec; the SM counts and 262,144 B register files are what the
  // traces' deviceProperties report.
  CHECK(on_chip_capacity_bytes(roofline::chip("v100-sxm2")) == 6.144e6 + 80 * (1.28e5 + 262144));
  CHECK(on_chip_capacity_bytes(roofline::chip("a100-sxm")) == 4e7 + 108 * (1.92e5 + 262144));
  CHECK(on_chip_capacity_bytes(roofline::chip("h100-sxm")) == 5e7 + 132 * (2.56e5 + 262144));
  CHECK(on_chip_capacity_bytes(roofline::chip("b200")) == 1.26e8 + 148 * (2.56e5 + 262144 + 2.56e5));
  // No total without the SM count or the register file (a total that
  // leaves storage out would make a second pass look necessary where it is
  // not), nor on a TPU.
  Chip no_sms = roofline::chip("v100-sxm2");
  no_sms.compute_units = 0;
  CHECK(on_chip_capacity_bytes(no_sms) == 0);
  Chip no_registers = roofline::chip("v100-sxm2");
  std::erase_if(no_registers.on_chip, [](const roofline::OnChipMemory& m) { return m.name == "registers_per_sm"; });
  CHECK(on_chip_capacity_bytes(no_registers) == 0);
  CHECK(on_chip_capacity_bytes(roofline::chip("mi300x")) == 0);
  CHECK(on_chip_capacity_bytes(roofline::chip("tpu-v5p")) == 0);
}

TEST_CASE("chip: malformed specs are refused with the field named") {
  const json base = json::parse(roofline::chip_to_json(roofline::chip("tpu-v5e")));
  struct Broken {
    const char* what;
    std::function<void(json&)> mutate;
    const char* message;
  };
  const std::vector<Broken> cases = {
      {"negative bandwidth", [](json& j) { j["hbm_bytes_per_s"] = -8.2e11; },
       "broken.json: /hbm_bytes_per_s: expected a positive number"},
      {"zero peak", [](json& j) { j["peak_flops_per_s"]["bf16"] = 0; },
       "/peak_flops_per_s/bf16: expected a positive number"},
      // A tiny peak or a denormal bandwidth would make every time inf.
      {"peak of 1e-300", [](json& j) { j["peak_flops_per_s"]["bf16"] = 1e-300; },
       "broken.json: /peak_flops_per_s/bf16: expected a rate from 1 to 1e+18 FLOP/s"},
      {"denormal bandwidth", [](json& j) { j["hbm_bytes_per_s"] = 4.9e-324; },
       "broken.json: /hbm_bytes_per_s: expected a positive number"},
      {"denormal link bandwidth", [](json& j) { j["interconnect"]["link_bytes_per_s"] = 1e-310; },
       "broken.json: /interconnect/link_bytes_per_s: expected a positive number"},
      {"unknown dtype", [](json& j) { j["peak_flops_per_s"]["bf17"] = 1e14; },
       "/peak_flops_per_s/bf17: unknown dtype"},
      {"wrong type", [](json& j) { j["hbm_bytes"] = "16 GB"; },
       "/hbm_bytes: expected a positive number"},
      {"missing field", [](json& j) { j.erase("hbm_bytes"); }, "/hbm_bytes: missing required field"},
      {"missing bf16 and fp16 (v5e lists no fp16)", [](json& j) { j["peak_flops_per_s"].erase("bf16"); },
       "/peak_flops_per_s/bf16: missing required field (a spec needs a bf16 or an fp16 peak)"},
      {"fp32 on a TPU", [](json& j) { j["peak_flops_per_s"]["fp32"] = 1.97e14; },
       "/peak_flops_per_s/fp32: a TPU spec has no fp32 peak"},
      {"a GPU without fp32", [](json& j) { j["kind"] = "gpu"; j["interconnect"]["topology"] = "switch"; },
       "/peak_flops_per_s/fp32: missing required field (GPUs list their fp32 rate)"},
      {"unknown field", [](json& j) { j["hbm_bandwidth"] = 1; }, "/hbm_bandwidth: unknown field"},
      {"bad topology", [](json& j) { j["interconnect"]["topology"] = "torus-4d"; },
       "/interconnect/topology: expected one of"},
      {"shape rank", [](json& j) { j["interconnect"]["max_shape"] = {16, 16, 16}; },
       "/interconnect/max_shape: a torus-2d needs 2 dimension(s)"},
      {"fractional links", [](json& j) { j["interconnect"]["links_per_chip"] = 2.5; },
       "/interconnect/links_per_chip: expected a positive integer"},
      {"wrap rule", [](json& j) { j["interconnect"]["wraparound"] = {{"rule", "sometimes"}}; },
       "/interconnect/wraparound/rule"},
      {"wrap size", [](json& j) { j["interconnect"]["wraparound"] = {{"rule", "axis-equals"}}; },
       "/interconnect/wraparound/axis_size: missing required field"},
      {"unsourced figure",
       [](json& j) {
         for (auto& s : j["sources"]) {
           json kept = json::array();
           for (auto& f : s["fields"])
             if (f != "hbm_bytes_per_s") kept.push_back(f);
           if (kept.empty()) kept.push_back("name");
           s["fields"] = kept;
         }
       },
       "/sources: no source backs 'hbm_bytes_per_s'"},
      {"no sources", [](json& j) { j["sources"] = json::array(); }, "/sources: expected a non-empty array"},
      {"tier without holds_working_set", [](json& j) { j["on_chip"]["vmem"] = {{"bytes", 1.34217728e8}}; },
       "/on_chip/vmem/holds_working_set: missing required field"},
      {"tier holds 'yes'",
       [](json& j) { j["on_chip"]["vmem"] = {{"bytes", 1.34217728e8}, {"holds_working_set", "yes"}}; },
       "/on_chip/vmem/holds_working_set: expected true or false"},
      {"tier bandwidth of 0",
       [](json& j) { j["on_chip"]["vmem"] = {{"bytes", 1.34217728e8}, {"bytes_per_s", 0}, {"holds_working_set", false}}; },
       "/on_chip/vmem/bytes_per_s: expected a positive number"},
      {"unknown tier key",
       [](json& j) { j["on_chip"]["vmem"] = {{"bytes", 1.34217728e8}, {"latency_s", 1e-9}, {"holds_working_set", false}}; },
       "/on_chip/vmem/latency_s: unknown field"},
      // v5e's bf16 peak is 1.97e14: a sparse-style figure twice that is a slip.
      {"achieved above the peak", [](json& j) { j["achieved"]["matmul_flops_per_s"]["bf16"] = 3.94e14; },
       "/achieved/matmul_flops_per_s/bf16: an achieved rate above the peak"},
      {"achieved for a unit the chip lacks", [](json& j) { j["achieved"]["matmul_flops_per_s"]["fp8"] = 1e14; },
       "/achieved/matmul_flops_per_s/fp8: no peak_flops_per_s/fp8 to measure it against"},
      {"achieved HBM above the peak", [](json& j) { j["achieved"]["hbm_bytes_per_s"] = 9e11; },
       "/achieved/hbm_bytes_per_s: an achieved rate above the HBM bandwidth"},
      {"launch floor in microseconds", [](json& j) { j["achieved"]["launch_s"] = 5; },
       "/achieved/launch_s: expected a time below 1 s"},
      {"unknown achieved key", [](json& j) { j["achieved"]["mfu"] = 0.5; }, "/achieved/mfu: unknown field"},
      {"unsourced achieved figure", [](json& j) { j["achieved"]["launch_s"] = 5e-6; },
       "/sources: no source backs 'achieved/launch_s'"},
      {"DCN latency in microseconds", [](json& j) { j["dcn_latency_s"] = 10; },
       "/dcn_latency_s: expected a time below 1 s"},
      {"negative DCN latency", [](json& j) { j["dcn_latency_s"] = -1e-5; },
       "/dcn_latency_s: expected a positive number"},
      {"unsourced DCN latency", [](json& j) { j["dcn_latency_s"] = 1e-5; },
       "/sources: no source backs 'dcn_latency_s'"},
      {"unsourced die", [](json& j) { j["die"] = "GA100"; }, "/sources: no source backs 'die'"},
      {"zero compute units", [](json& j) { j["compute_units"] = 0; }, "/compute_units: expected a positive integer"},
      {"unsourced compute units", [](json& j) { j["compute_units"] = 64; },
       "/sources: no source backs 'compute_units'"},
      {"empty die", [](json& j) { j["die"] = ""; }, "/die: expected a non-empty string"},
      {"die not a string", [](json& j) { j["die"] = 100; }, "/die: expected a string"},
      // v5e's DCN is 3.125e9 B/s per chip.
      {"achieved DCN above the line rate", [](json& j) { j["achieved"]["dcn_bytes_per_s"] = 4e9; },
       "/achieved/dcn_bytes_per_s: an achieved rate above the DCN bandwidth"},
      {"not an object", [](json& j) { j = json::array(); }, "broken.json: /: expected an object"},
  };
  for (const Broken& b : cases) {
    INFO(b.what);
    json j = base;
    b.mutate(j);
    absl::StatusOr<Chip> c = roofline::parse_chip(j.dump(), "broken.json");
    REQUIRE_FALSE(c.ok());
    CHECK_THAT(std::string(c.status().message()), Catch::Contains(b.message));
  }
}

TEST_CASE("chip: int8 is optional, and fp16 stands in for bf16") {
  const json base = json::parse(roofline::chip_to_json(roofline::chip("h100-sxm")));
  json no_int8 = base;
  no_int8["peak_flops_per_s"].erase("int8");
  absl::StatusOr<Chip> a = roofline::parse_chip(no_int8.dump(), "no_int8.json");
  REQUIRE(a.ok());
  CHECK_FALSE(a->has(roofline::PeakClass::kInt8));

  json fp16_only = no_int8;
  fp16_only["peak_flops_per_s"].erase("bf16");
  fp16_only["achieved"]["matmul_flops_per_s"].erase("bf16");  // a rate needs its peak
  absl::StatusOr<Chip> b = roofline::parse_chip(fp16_only.dump(), "fp16_only.json");
  REQUIRE(b.ok());
  CHECK_FALSE(b->has(roofline::PeakClass::kBf16));
  CHECK(b->peak_flops_per_s_for(DType::kF16) == 9.89e14);  // H100 dense fp16
}

TEST_CASE("chip: a file that is not JSON names the file and the byte") {
  const auto path = std::filesystem::temp_directory_path() / "roofline_chip_test_truncated.json";
  {
    std::ofstream out(path);
    out << R"({"name": "x", "hbm_bytes": )";
  }
  absl::StatusOr<Chip> c = roofline::load_chip(path.string());
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(std::string(c.status().message()),
             Catch::Contains(path.string()) && Catch::Contains("byte"));
  std::filesystem::remove(path);

  // A number too large for a double: refused, not thrown (found by the fuzzer).
  // The message names the byte where the number starts.
  absl::StatusOr<Chip> huge = roofline::parse_chip(R"({"hbm_bytes": 9e99999999999599959})", "huge.json");
  REQUIRE_FALSE(huge.ok());
  CHECK_THAT(std::string(huge.status().message()), Catch::StartsWith("huge.json: byte 14: invalid JSON: "));

  absl::StatusOr<Chip> missing = roofline::load_chip("/nonexistent/chip.json");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(std::string(missing.status().message()), Catch::Contains("/nonexistent/chip.json"));
}

TEST_CASE("chip: a key said twice is refused, with its path") {
  // nlohmann keeps the last of two equal keys; a strict spec must not.
  const std::string spec = roofline::chip_to_json(roofline::chip("tpu-v5e"));
  const std::size_t at = spec.find("\"bf16\"", spec.find("\"peak_flops_per_s\""));
  REQUIRE(at != std::string::npos);
  const std::string twice = spec.substr(0, at) + "\"bf16\": 1e15, " + spec.substr(at);
  absl::StatusOr<Chip> c = roofline::parse_chip(twice, "twice.json");
  REQUIRE_FALSE(c.ok());
  CHECK(std::string(c.status().message()) ==
        "twice.json: /peak_flops_per_s/bf16: duplicate key (a spec is strict: say each figure once)");
  // Equal keys in different objects are fine, and so are arrays of objects.
  CHECK(roofline::parse_chip(spec, "once.json").ok());
}

// The built-in calibration (default_calibration) divides these by the
// peaks: a rate above its peak would be an efficiency above 1, and a figure
// without a source would be a guess. Sources are required to name the
// achieved figure exactly (not through a prefix such as "achieved"), so a
// reader of the spec sees which publication backs which number.
TEST_CASE("chip: every embedded chip's achieved rates are below its peaks, each with its own source") {
  const auto sourced = [](const Chip& c, const std::string& field) {
    for (const roofline::SpecSource& s : c.sources)
      if (std::find(s.fields.begin(), s.fields.end(), field) != s.fields.end()) return true;
    return false;
  };
  int filled = 0;
  for (const Chip& c : roofline::embedded_chips()) {
    INFO(c.name);
    const roofline::AchievedRates& a = c.achieved;
    for (int i = 0; i < roofline::kPeakClassCount; ++i) {
      const double v = a.matmul_flops_per_s[i];
      if (v <= 0) continue;
      const std::string field =
          "achieved/matmul_flops_per_s/" + std::string(roofline::peak_class_name(static_cast<roofline::PeakClass>(i)));
      INFO(field);
      CHECK(v < c.peak_flops_per_s[i]);
      CHECK(sourced(c, field));
      ++filled;
    }
    const struct {
      const char* field;
      double value, peak;
    } rates[] = {{"achieved/hbm_bytes_per_s", a.hbm_bytes_per_s, c.hbm_bytes_per_s},
                 {"achieved/link_bytes_per_s", a.link_bytes_per_s, c.ici.link_bytes_per_s},
                 {"achieved/pcie_bytes_per_s", a.pcie_bytes_per_s, c.pcie_bytes_per_s}};
    for (const auto& r : rates) {
      if (r.value <= 0) continue;
      INFO(r.field);
      CHECK(r.value < r.peak);
      CHECK(sourced(c, r.field));
      ++filled;
    }
    const struct {
      const char* field;
      double value;
    } floors[] = {{"achieved/launch_s", a.launch_s},
                  {"achieved/collective_launch_s", a.collective_launch_s},
                  {"achieved/copy_launch_s", a.copy_launch_s}};
    for (const auto& f : floors) {
      if (f.value <= 0) continue;
      INFO(f.field);
      CHECK(f.value < 1e-3);  // a launch floor is microseconds
      CHECK(sourced(c, f.field));
      ++filled;
    }
    // Every on-chip bandwidth that times ops has its own source too, and
    // beats HBM (else it would never be chosen).
    for (const roofline::OnChipMemory& m : c.on_chip) {
      if (m.bytes_per_s <= 0) continue;
      INFO(m.name);
      CHECK(sourced(c, "on_chip/" + m.name + "/bytes_per_s"));
      CHECK(m.bytes_per_s > c.hbm_bytes_per_s);
    }
  }
  // 19 published rates today: 5 TPUs x 2 (bf16 matmul, link), H100 and H200
  // 2 each, V100 2 (HBM, link), the two A100s 1 each (link), B200 1 (bf16
  // matmul); the AMD chips none. A table emptied by a bad edit fails here.
  CHECK(filled >= 19);
}

TEST_CASE("chip: an on-chip tier as a plain number is a capacity that times nothing") {
  json j = json::parse(roofline::chip_to_json(roofline::chip("v100-sxm2")));
  j["on_chip"]["l2"] = 6.144e6;  // the form every spec used before tiers had bandwidths
  absl::StatusOr<Chip> c = roofline::parse_chip(j.dump(), "old.json");
  REQUIRE(c.ok());
  REQUIRE(c->on_chip.size() == 3);  // l2, registers_per_sm, smem_per_sm
  const roofline::OnChipMemory& l2 = c->on_chip[0];
  CHECK(l2.name == "l2");
  CHECK(l2.bytes == 6.144e6);
  CHECK(l2.bytes_per_s == 0);
  CHECK_FALSE(l2.holds_working_set);
  // So a small op is timed at HBM again, as before tiers existed.
  CHECK(roofline::select_memory_tier(*c, 1e6).tier == roofline::kHbmTier);
  CHECK(roofline::select_memory_tier(roofline::chip("v100-sxm2"), 1e6).tier == 0);
}

TEST_CASE("chip: the built-in tiers: GPU caches hold a working set, TPU VMEM does not") {
  const auto tier = [](const char* chip, const char* name) {
    for (const roofline::OnChipMemory& m : roofline::chip(chip).on_chip)
      if (m.name == name) return m;
    FAIL("no tier " << name << " on " << chip);
    return roofline::OnChipMemory{};
  };
  CHECK(tier("v100-sxm2", "l2").holds_working_set);
  CHECK(tier("v100-sxm2", "l2").bytes_per_s == 3.133e12);
  CHECK(tier("h100-sxm", "l2").bytes_per_s == 8.986e12);
  CHECK(tier("a100-sxm", "l2").bytes_per_s == 7.219e12);
  CHECK(tier("mi300x", "infinity_cache").bytes_per_s == 1.7e13);
  CHECK_FALSE(tier("mi300x", "l2").holds_working_set);
  CHECK(tier("b200", "l2").holds_working_set);
  CHECK(tier("b200", "l2").bytes_per_s == 0);  // no published figure: times nothing
  for (const char* tpu : {"tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-7x"}) {
    INFO(tpu);
    CHECK_FALSE(tier(tpu, "vmem").holds_working_set);
    for (const roofline::OnChipMemory& m : roofline::chip(tpu).on_chip) CHECK_FALSE(m.holds_working_set);
  }
}

TEST_CASE("chip: HBM capacity is what the part holds, in binary units") {
  // Google Cloud's TPU pages give GiB (v4: "32 GiB"; TPU7x page: v5p 95,
  // v6e 32, TPU7x 192 GiB); nvidia-smi reports the GPUs' totals in MiB.
  constexpr double kGiB = 1024.0 * 1024 * 1024, kMiB = 1024.0 * 1024;
  CHECK(roofline::chip("tpu-v4").hbm_bytes == 32 * kGiB);  // 34359738368, not 3.2e10
  CHECK(roofline::chip("tpu-v5e").hbm_bytes == 16 * kGiB);
  CHECK(roofline::chip("tpu-v5p").hbm_bytes == 95 * kGiB);
  CHECK(roofline::chip("tpu-v6e").hbm_bytes == 32 * kGiB);
  CHECK(roofline::chip("tpu-7x").hbm_bytes == 192 * kGiB);
  CHECK(roofline::chip("a100-sxm").hbm_bytes == 81920 * kMiB);
  CHECK(roofline::chip("a100-sxm-40gb").hbm_bytes == 40960 * kMiB);
  CHECK(roofline::chip("h100-sxm").hbm_bytes == 81559 * kMiB);
  CHECK(roofline::chip("h200").hbm_bytes == 143771 * kMiB);
  CHECK(roofline::chip("b200").hbm_bytes == 183359 * kMiB);
  CHECK(roofline::chip("v100-sxm2").hbm_bytes == 32510 * kMiB);
  CHECK(roofline::chip("mi300x").hbm_bytes == 201310208.0 * 1024);  // rocminfo pool, KB
  for (const Chip& c : roofline::embedded_chips()) {
    INFO(c.name);
    bool sourced = false;
    for (const roofline::SpecSource& s : c.sources)
      for (const std::string& f : s.fields) sourced = sourced || f == "hbm_bytes";
    CHECK(sourced);
  }
}

TEST_CASE("chip: DCN latency and achieved DCN rate are optional, and round-trip") {
  json j = json::parse(roofline::chip_to_json(roofline::chip("tpu-v5p")));
  j["dcn_latency_s"] = 2e-5;
  j["achieved"]["dcn_bytes_per_s"] = 5e9;
  j["sources"].push_back({{"fields", {"dcn_latency_s", "achieved/dcn_bytes_per_s"}},
                          {"reference", "test figures"},
                          {"read_on", "2026-11-23"}});
  absl::StatusOr<Chip> c = roofline::parse_chip(j.dump(), "dcn.json");
  REQUIRE(c.ok());
  CHECK(c->dcn_latency_s == 2e-5);
  CHECK(c->achieved.dcn_bytes_per_s == 5e9);
  absl::StatusOr<Chip> back = roofline::parse_chip(roofline::chip_to_json(*c), "dcn.json");
  REQUIRE(back.ok());
  CHECK(back->dcn_latency_s == 2e-5);
  CHECK(back->achieved.dcn_bytes_per_s == 5e9);
}

TEST_CASE("chip: the die a part is built on is optional, sourced, and shared by the parts of one die") {
  CHECK(roofline::chip("a100-sxm").die == "GA100");
  CHECK(roofline::chip("a100-sxm-40gb").die == "GA100");
  CHECK(roofline::chip("h100-sxm").die == "GH100");
  CHECK(roofline::chip("h200").die == "GH100");
  CHECK(roofline::chip("tpu-v5e").die.empty());
  // Parts of one die have the same compute: the same peaks.
  CHECK(roofline::chip("a100-sxm").peak_flops_per_s == roofline::chip("a100-sxm-40gb").peak_flops_per_s);
  CHECK(roofline::chip("h100-sxm").peak_flops_per_s == roofline::chip("h200").peak_flops_per_s);
  absl::StatusOr<Chip> back = roofline::parse_chip(roofline::chip_to_json(roofline::chip("h200")), "h200.json");
  REQUIRE(back.ok());
  CHECK(back->die == "GH100");
}
