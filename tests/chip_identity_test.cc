// identify_chip: what a profiler reported about a device -> the model shown
// and the embedded chip. The reported figures below are those of the real
// profiles in ../shared/data/real (their Kineto deviceProperties, their XPlane
// plane stats), so this table is checked without reading them.
#include <catch2/catch.hpp>

#include <string>

#include "roofline/chip.hpp"
#include "roofline/chip_identity.hpp"

using namespace roofline;

namespace {

std::string chip_of(const IdentifiedChip& id) { return id.chip ? id.chip->name : "(none)"; }

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

TEST_CASE("identify: every reported name in the real profiles denotes its chip") {
  struct Case {
    const char* vendor;
    const char* model;
    int cc_major, cc_minor, cores;
    double memory_bytes;
    const char* chip;
  };
  // Vendors as the readers record them: Kineto's from the name, TPU planes "Google".
  const Case cases[] = {
      {"Google", "TPU v6 Lite", 0, 0, 0, 0, "tpu-v6e"},                              // xprof/tpu_v6e_x4
      {"Nvidia", "NVIDIA A100-SXM4-80GB", 8, 0, 108, 84990623744, "a100-sxm"},      // hta/a100-80gb_16rank
      {"Nvidia", "Tesla V100-DGXS-32GB", 7, 0, 80, 34084028416, "v100-sxm2"},       // kineto/v100_resnet50
      {"Nvidia", "NVIDIA B200", 10, 0, 148, 191503138816, "b200"},                  // tracelens/b200x8_vllm
      {"Nvidia", "NVIDIA H100 80GB HBM3", 9, 0, 132, 85018279936, "h100-sxm"},      // tracelens/h100_*
      {"AMD", "AMD Instinct MI300X VF", 9, 4, 304, 205571227648, "mi300x"},         // tracelens/mi300x_qwen
      {"AMD", "AMD Instinct MI300X", 9, 4, 304, 206141652992, "mi300x"},            // tracelens/mi300x_sglang
  };
  for (const Case& c : cases) {
    INFO(c.model);
    DeviceIdentity d{.vendor = c.vendor, .model = c.model};
    if (c.cores > 0) {
      d.compute_capability_major = c.cc_major;
      d.compute_capability_minor = c.cc_minor;
      d.core_count = c.cores;
      d.memory_bytes = c.memory_bytes;
    }
    const IdentifiedChip id = identify_chip(d);
    CHECK(id.model == c.model);  // a name that denotes a chip is shown as reported
    CHECK_FALSE(id.inferred);
    CHECK(chip_of(id) == c.chip);
    CHECK(id.chip == chip_for_device_name(c.model));
  }
}

TEST_CASE("identify: ROCm's generic name is known by its CU count (hta/mi250_minitoy)") {
  // gfx90a (9.0) with 104 CUs and 64 GiB: one MI250 GCD, whatever ROCm called it.
  for (const char* name : {"AMD Radeon Graphics", "AMD Instinct MI250X / MI250"}) {
    INFO(name);
    const IdentifiedChip id = identify_chip({.vendor = "AMD",
                                             .model = name,
                                             .compute_capability_major = 9,
                                             .compute_capability_minor = 0,
                                             .core_count = 104,
                                             .memory_bytes = 68702699520});
    CHECK(id.model == "AMD Instinct MI250");
    CHECK(id.inferred);
    CHECK(chip_of(id) == "mi250");
  }
  // 110 CUs is an MI250X GCD, which has no spec: the reported name stays.
  const IdentifiedChip x = identify_chip({.vendor = "AMD",
                                          .model = "AMD Instinct MI250X / MI250",
                                          .compute_capability_major = 9,
                                          .compute_capability_minor = 0,
                                          .core_count = 110});
  CHECK(x.model == "AMD Instinct MI250X / MI250");
  CHECK_FALSE(x.inferred);
  CHECK(x.chip == nullptr);
  // Without the capabilities nothing can be inferred either.
  const IdentifiedChip bare = identify_chip({.vendor = "AMD", .model = "AMD Radeon Graphics"});
  CHECK(bare.model == "AMD Radeon Graphics");
  CHECK_FALSE(bare.inferred);
  CHECK(bare.chip == nullptr);
}

TEST_CASE("identify: XLA's GPU planes name no model; the capabilities do") {
  // xprof/v100_tf_bert_multiworker: no vendor stat, cc 7.0, 80 SMs.
  const IdentifiedChip v100 = identify_chip({.compute_capability_major = 7,
                                             .compute_capability_minor = 0,
                                             .core_count = 80,
                                             .memory_bytes = 32 * kGiB});
  CHECK(v100.model == "Tesla V100");
  CHECK(v100.inferred);
  CHECK(chip_of(v100) == "v100-sxm2");
  // tracelens/mi300x_jax08_*: vendor AMD, gfx942, 304 CUs, 192 GiB.
  const IdentifiedChip mi300x = identify_chip({.vendor = "AMD",
                                               .compute_capability_major = 9,
                                               .compute_capability_minor = 4,
                                               .core_count = 304,
                                               .memory_bytes = 192 * kGiB});
  CHECK(mi300x.model == "AMD Instinct MI300X");
  CHECK(mi300x.inferred);
  CHECK(chip_of(mi300x) == "mi300x");
}

TEST_CASE("identify: the capability signatures, memory telling parts of one die apart") {
  struct Case {
    const char* vendor;
    int cc_major, cc_minor, cores;
    double gb;
    const char* model;  // "" when unknown
    const char* chip;
  };
  const Case cases[] = {
      {"Nvidia", 8, 0, 108, 40, "NVIDIA A100-SXM4-40GB", "a100-sxm-40gb"},
      {"Nvidia", 8, 0, 108, 80, "NVIDIA A100-SXM4-80GB", "a100-sxm"},
      {"Nvidia", 9, 0, 132, 80, "NVIDIA H100 80GB HBM3", "h100-sxm"},
      {"Nvidia", 9, 0, 132, 141, "NVIDIA H200", "h200"},
      {"NVIDIA Corporation", 10, 0, 148, 180, "NVIDIA B200", "b200"},
      {"", 9, 0, 132, 80, "NVIDIA H100 80GB HBM3", "h100-sxm"},  // no vendor: CUPTI, NVIDIA
      {"AMD", 9, 4, 304, 256, "AMD Instinct MI325X", "mi325x"},   // 256 GiB HBM3E
      {"AMD", 9, 4, 228, 128, "AMD Instinct MI300A", "(none)"},
      {"AMD", 9, 0, 104, 64, "AMD Instinct MI250", "mi250"},
      {"AMD", 9, 0, 110, 64, "", "(none)"},     // MI250X GCD
      {"AMD", 9, 0, 132, 80, "", "(none)"},     // an NVIDIA signature from an AMD device
      {"Intel", 9, 0, 132, 80, "", "(none)"},   // nor from any other vendor
      {"Nvidia", 9, 0, 114, 80, "", "(none)"},  // H100 PCIe: no spec
  };
  for (const Case& c : cases) {
    INFO(c.vendor << " " << c.cc_major << "." << c.cc_minor << " x" << c.cores << " " << c.gb << " GB");
    const IdentifiedChip id = identify_chip({.vendor = c.vendor,
                                             .compute_capability_major = c.cc_major,
                                             .compute_capability_minor = c.cc_minor,
                                             .core_count = c.cores,
                                             .memory_bytes = c.gb * 1e9});
    CHECK(id.model == c.model);
    CHECK(id.inferred == !std::string(c.model).empty());
    CHECK(chip_of(id) == c.chip);
  }
}

TEST_CASE("identify: the names profilers print for issue 39's chips denote them") {
  // Names, compute capabilities, SM/CU counts and memory totals as public
  // outputs print them (each spec's sources cite where): nvidia-smi and
  // torch.cuda.get_device_properties for NVIDIA, rocminfo's marketing name
  // for AMD. Memory in bytes: nvidia-smi's MiB totals, ROCm's GiB.
  struct Case {
    const char* vendor;
    const char* model;
    int cc_major, cc_minor, cores;
    double memory_bytes;
    const char* chip;
  };
  const Case cases[] = {
      {"Nvidia", "Tesla T4", 7, 5, 40, 15360 * 1048576.0, "t4"},                // Colab torch output
      {"Nvidia", "NVIDIA L4", 8, 9, 58, 23034 * 1048576.0, "l4"},              // modal-client PR #2797
      {"Nvidia", "NVIDIA A10G", 8, 6, 80, 23028 * 1048576.0, "a10g"},          // NVIDIA/DCGM issue #232
      {"Nvidia", "NVIDIA L40S", 8, 9, 142, 46068 * 1048576.0, "l40s"},         // provider-configs PR #99
      {"Nvidia", "NVIDIA GeForce RTX 4090", 8, 9, 128, 24564 * 1048576.0, "rtx-4090"},  // RLinf issue #255
      {"Nvidia", "NVIDIA GH200 480GB", 9, 0, 132, 97871 * 1048576.0, "gh200"},  // CoreWeave gd-1xgh200
      {"Nvidia", "NVIDIA GH200 120GB", 9, 0, 132, 97871 * 1048576.0, "gh200"},  // quad-GH200 node
      {"Nvidia", "NVIDIA GB200", 10, 0, 0, 189471 * 1048576.0, "gb200"},       // sglang issue #11208
      {"Nvidia", "NVIDIA B300 SXM6 AC", 10, 3, 148, 275040 * 1048576.0, "b300"},
      {"AMD", "AMD Instinct MI325X", 9, 4, 304, 256 * kGiB, "mi325x"},          // rocminfo Marketing Name
      {"AMD", "AMD Instinct MI355X", 9, 5, 256, 288 * kGiB, "mi355x"},
  };
  for (const Case& c : cases) {
    INFO(c.model);
    DeviceIdentity d{.vendor = c.vendor, .model = c.model, .memory_bytes = c.memory_bytes};
    d.compute_capability_major = c.cc_major;
    d.compute_capability_minor = c.cc_minor;
    if (c.cores > 0) d.core_count = c.cores;
    const IdentifiedChip id = identify_chip(d);
    CHECK(id.model == c.model);
    CHECK_FALSE(id.inferred);
    CHECK(id.warning.empty());
    CHECK(chip_of(id) == c.chip);
    // The reported memory fits the spec's: what the driver reports is what
    // the spec holds (hbm_bytes), to ROCm's unrounded GiB for the AMD parts.
    REQUIRE(id.chip != nullptr);
    CHECK(id.chip->hbm_bytes == c.memory_bytes);
    if (c.cores > 0 && id.chip->compute_units > 0) CHECK(id.chip->compute_units == c.cores);
  }
  // A gfx950 with 256 CUs is an MI350X or an MI355X (same die, other
  // clocks): the capabilities alone decide nothing.
  const IdentifiedChip gfx950 = identify_chip(
      {.vendor = "AMD", .compute_capability_major = 9, .compute_capability_minor = 5, .core_count = 256});
  CHECK(gfx950.model.empty());
  CHECK(gfx950.chip == nullptr);
  // A laptop GPU takes no desktop spec whose name its own contains.
  CHECK(chip_of(identify_chip({.vendor = "Nvidia", .model = "NVIDIA GeForce RTX 4090 Laptop GPU"})) == "(none)");
}

TEST_CASE("identify: NVIDIA and TPU names are never replaced, even when they name no chip") {
  // An H800 has an H100's cc and SM count; its name is specific and stays.
  const IdentifiedChip h800 = identify_chip({.vendor = "Nvidia",
                                             .model = "NVIDIA H800",
                                             .compute_capability_major = 9,
                                             .compute_capability_minor = 0,
                                             .core_count = 132,
                                             .memory_bytes = 80e9});
  CHECK(h800.model == "NVIDIA H800");
  CHECK_FALSE(h800.inferred);
  CHECK(h800.chip == nullptr);
  // No spec for TPU v2 (docs/chip_spec.md says why); v3 has one.
  const IdentifiedChip tpu = identify_chip({.vendor = "Google", .model = "TPU v2"});
  CHECK(tpu.model == "TPU v2");
  CHECK(tpu.chip == nullptr);
  CHECK(chip_of(identify_chip({.vendor = "Google", .model = "TPU v3"})) == "tpu-v3");
}

TEST_CASE("identify: names match case-insensitively and not into a longer model number") {
  CHECK(chip_of(identify_chip({.model = "tpu v6 lite"})) == "tpu-v6e");
  CHECK(chip_of(identify_chip({.model = "Tesla V100-SXM2-16GB"})) == "v100-sxm2");
  CHECK(chip_of(identify_chip({.model = "Tesla V100S-PCIE-32GB"})) == "(none)");
  CHECK(chip_of(identify_chip({.model = "AMD Instinct MI250X"})) == "(none)");
  CHECK(chip_of(identify_chip({.model = "XLA:CPU"})) == "(none)");
}

TEST_CASE("identify: a device that reported nothing is nothing") {
  const IdentifiedChip id = identify_chip({});
  CHECK(id.model.empty());
  CHECK_FALSE(id.inferred);
  CHECK(id.chip == nullptr);
  // A core count without a compute capability decides nothing.
  CHECK(identify_chip({.vendor = "Nvidia", .core_count = 132}).model.empty());
}

TEST_CASE("identify: an A100 that does not name its size is told by its memory (A100-PG509-200)") {
  // hta/a100_alexnet_trace.json.gz, a100_triton_example and
  // a100x2_resnet_ddp_nccl_data report this board name with totalGlobalMem
  // 42,297,524,224 B (39.4 GiB), 108 SMs, cc 8.0: the 40 GB part.
  const IdentifiedChip pg509 = identify_chip({.vendor = "Nvidia",
                                              .model = "NVIDIA A100-PG509-200",
                                              .compute_capability_major = 8,
                                              .compute_capability_minor = 0,
                                              .core_count = 108,
                                              .memory_bytes = 42297524224.0});
  CHECK(pg509.model == "NVIDIA A100-PG509-200");  // shown as reported
  CHECK_FALSE(pg509.inferred);
  CHECK(chip_of(pg509) == "a100-sxm-40gb");
  CHECK(pg509.chip->hbm_bytes_per_s == 1.555e12);  // the datasheet's 40 GB SXM figure, not the 80 GB part's
  CHECK(pg509.warning.empty());
  // The same board name with 80 GB is the 80 GB part.
  CHECK(chip_of(identify_chip({.model = "NVIDIA A100-PG509-200", .memory_bytes = 85e9})) == "a100-sxm");
  // A name that states its size decides without the memory.
  CHECK(chip_of(identify_chip({.model = "NVIDIA A100-SXM4-40GB"})) == "a100-sxm-40gb");
  CHECK(chip_of(identify_chip({.model = "NVIDIA A100-SXM4-80GB"})) == "a100-sxm");
  CHECK(identify_chip({.model = "NVIDIA A100-SXM4-40GB"}).warning.empty());
}

TEST_CASE("identify: an A100 whose size nothing says is the 80 GB part, with a warning") {
  const IdentifiedChip named = identify_chip({.vendor = "Nvidia", .model = "NVIDIA A100-PG509-200"});
  CHECK(chip_of(named) == "a100-sxm");
  CHECK(named.warning ==
        "'NVIDIA A100-PG509-200' does not say its memory size and the trace does not report it; taking "
        "a100-sxm (HBM 2.039 TB/s), not a100-sxm-40gb (HBM 1.555 TB/s)");
  // Capabilities without the memory size: the same choice and warning.
  const IdentifiedChip inferred = identify_chip(
      {.vendor = "Nvidia", .compute_capability_major = 8, .compute_capability_minor = 0, .core_count = 108});
  CHECK(inferred.inferred);
  CHECK(chip_of(inferred) == "a100-sxm");
  CHECK_THAT(inferred.warning, Catch::StartsWith("'NVIDIA A100' does not say its memory size"));
}
