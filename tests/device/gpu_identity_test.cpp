// Hardware keys, CTest's GPU allocation, device specs and the environment
// record of a GPU run: the parts of the cuda device that need no GPU.
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/gpu_identity.hpp"
#include "kernelgate/detail/hardware.hpp"

namespace kg {
namespace {

// Driver names and the keys they give: every key of the table (each GPU's
// own baselines), and derived keys for the others.
const std::map<std::string, std::string> kKeysOfDriverNames = {
    {"NVIDIA A100-SXM4-80GB", "a100-sxm"},
    {"NVIDIA L40S", "l40s"},
    {"NVIDIA H100 80GB HBM3", "h100-sxm"},  // how the SXM part reports itself
    {"NVIDIA H100 SXM5 80GB", "h100-sxm"},
    {"H100 SXM", "h100-sxm"},
    {"NVIDIA H100 PCIe", "h100-pcie"},
    {"  nvidia h100 pcie  ", "h100-pcie"},
    {"NVIDIA H100 NVL", "h100-nvl"},
    {"NVIDIA H200", "h200"},
    {"NVIDIA H200 141GB HBM3e", "h200"},
    {"NVIDIA B200", "b200"},
    // A superchip's GPU has memory, clocks and power of its own: a GH200's
    // is neither the H200's (its name contains "H200") nor the H100 SXM's, a
    // GB200's not the B200's (its name contains "B200").
    {"NVIDIA GH200 480GB", "gh200"},
    {"NVIDIA GH200 144G HBM3e", "gh200"},
    {"GH200", "gh200"},
    {"NVIDIA GB200", "gb200"},
    // The 40 GB SXM part has HBM2 at 1.56 TB/s, the 80 GB PCIe card 1.94:
    // neither may gate against the 80 GB SXM figures.
    {"NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"},
    {"NVIDIA A100 80GB PCIe", "a100-80gb-pcie"},
    {"NVIDIA L40", "l40"},
    {"NVIDIA GeForce RTX 4090", "geforce-rtx-4090"},
    {"Tesla V100-PCIE-16GB", "tesla-v100-pcie-16gb"},
    // NVL boards differ in memory and power from SXM and PCIe.
    {"NVIDIA H200 NVL", "h200-nvl"},
    // A bare "H100" says neither SXM nor PCIe: guessing would gate against the wrong figures.
    {"NVIDIA H100", "h100"},
};

TEST(HardwareKey, MapsTheDriverNamesToTheirKeys) {
  for (const auto& [name, key] : kKeysOfDriverNames) EXPECT_EQ(hardware_key_from_gpu_name(name), key) << name;
}

// Every key of the table is what some driver name maps to, and has a label
// of its own GPU: a card the table knows never falls to a derived key.
TEST(HardwareKey, EveryKeyOfTheTableIsReachedFromADriverName) {
  std::set<std::string> reached;
  for (const auto& [name, key] : kKeysOfDriverNames) reached.insert(key);
  for (const HardwareSpec& spec : known_hardware()) {
    if (spec.key == kCpuHardwareKey) continue;
    EXPECT_TRUE(reached.contains(spec.key)) << spec.key << " has no driver name in this test";
    EXPECT_NE(hardware_label(spec.key), "gpu") << spec.key;
  }
}

TEST(HardwareKey, RejectsNamesWithoutLettersOrDigits) {
  EXPECT_THROW(hardware_key_from_gpu_name(""), Error);
  EXPECT_THROW(hardware_key_from_gpu_name(" -- "), Error);
}

// The simulated GPU's keys are "sim-" and the simulated card's key; no key a
// driver's name gives, nor the cpu's, is one of them.
TEST(HardwareKey, OnlyTheSimulatedGpusKeysAreSimulated) {
  for (const char* key : {"sim-h100-sxm", "sim-h100-pcie", "sim-h200"}) EXPECT_TRUE(is_simulated_hardware(key)) << key;
  for (const char* key : {"h100-sxm", "h100-pcie", "h200", "gh200", "cpu", "", "sim", "simulated", "xsim-h200"})
    EXPECT_FALSE(is_simulated_hardware(key)) << key;
  EXPECT_FALSE(is_simulated_hardware(hardware_key_from_gpu_name("NVIDIA H100 80GB HBM3")));
  EXPECT_EQ(hardware_label("sim-h100-sxm"), "sim");  // never a GPU class's tests
}

TEST(HardwareKey, LabelsGroupTheKeysAsCTestDoes) {
  const std::map<std::string, std::string> labels = {
      {"a100-sxm", "a100"}, {"l40s", "l40s"},   {"h100-sxm", "h100"},   {"h100-pcie", "h100"},
      {"h100-nvl", "h100"}, {"h200", "h200"},   {"gh200", "gh200"},     {"b200", "b200"},
      {"gb200", "gb200"},   {"cpu", "cpu"},     {"h200-nvl", "gpu"},    {"a100-sxm4-40gb", "gpu"}};
  for (const auto& [key, label] : labels) EXPECT_EQ(hardware_label(key), label) << key;
}

TEST(CTestResourceGroups, ParsesTheAllocatedGpuId) {
  EXPECT_EQ(parse_ctest_gpu_allocation("id:0,slots:1"), 0);
  EXPECT_EQ(parse_ctest_gpu_allocation("id:3,slots:1"), 3);
  EXPECT_EQ(parse_ctest_gpu_allocation("slots:1,id:7"), 7);
  EXPECT_EQ(parse_ctest_gpu_allocation("id:2,slots:1;id:5,slots:1"), 2);
}

TEST(CTestResourceGroups, MalformedValuesNameTheVariable) {
  for (const char* bad : {"", "slots:1", "id:,slots:1", "id:gpu0,slots:1", "id:-1,slots:1"}) {
    try {
      parse_ctest_gpu_allocation(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("CTEST_RESOURCE_GROUP_0_GPUS"), std::string::npos) << e.what();
    }
  }
}

// A fake environment, so the tests never depend on the process's.
struct FakeEnv {
  std::map<std::string, std::string> values;
  std::function<const char*(const char*)> getter() const {
    return [this](const char* name) -> const char* {
      auto it = values.find(name);
      return it == values.end() ? nullptr : it->second.c_str();
    };
  }
};

TEST(CTestResourceGroups, ReadsTheAssignmentFromTheEnvironment) {
  FakeEnv none;
  EXPECT_EQ(ctest_assigned_gpu(none.getter()), std::nullopt);

  FakeEnv assigned{{{"CTEST_RESOURCE_GROUP_COUNT", "1"}, {"CTEST_RESOURCE_GROUP_0_GPUS", "id:2,slots:1"}}};
  EXPECT_EQ(ctest_assigned_gpu(assigned.getter()), 2);

  FakeEnv zero_groups{{{"CTEST_RESOURCE_GROUP_COUNT", "0"}, {"CTEST_RESOURCE_GROUP_0_GPUS", "id:2,slots:1"}}};
  EXPECT_EQ(ctest_assigned_gpu(zero_groups.getter()), std::nullopt);

  FakeEnv no_gpus{{{"CTEST_RESOURCE_GROUP_COUNT", "1"}}};
  EXPECT_EQ(ctest_assigned_gpu(no_gpus.getter()), std::nullopt);

  FakeEnv bad_count{{{"CTEST_RESOURCE_GROUP_COUNT", "many"}}};
  EXPECT_THROW(ctest_assigned_gpu(bad_count.getter()), Error);
}

TEST(DeviceSpec, CudaOrdinals) {
  FakeEnv none;
  EXPECT_EQ(cuda_ordinal_from_spec("cuda:0", none.getter()), 0);
  EXPECT_EQ(cuda_ordinal_from_spec("cuda:12", none.getter()), 12);
  EXPECT_EQ(cuda_ordinal_from_spec("cuda", none.getter()), 0);
  FakeEnv assigned{{{"CTEST_RESOURCE_GROUP_COUNT", "1"}, {"CTEST_RESOURCE_GROUP_0_GPUS", "id:1,slots:1"}}};
  EXPECT_EQ(cuda_ordinal_from_spec("cuda", assigned.getter()), 1);
  // An explicit ordinal wins over CTest's assignment.
  EXPECT_EQ(cuda_ordinal_from_spec("cuda:3", assigned.getter()), 3);
  for (const char* bad : {"cuda:", "cuda:x", "cuda:-1", "cuda:1a", "gpu:0", "CUDA:0"})
    EXPECT_THROW(cuda_ordinal_from_spec(bad, none.getter()), Error) << bad;
}

TEST(Versions, FormatsAsReleasesAreNamed) {
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  EXPECT_EQ(format_cuda_version(12080), "12.8");
  EXPECT_EQ(format_cuda_version(12040), "12.4");
  EXPECT_EQ(format_cuda_version(0), "");
  EXPECT_EQ(format_cudnn_version(91900), "9.19.0");
  EXPECT_EQ(format_cudnn_version(90102), "9.1.2");
  EXPECT_EQ(format_cudnn_version(0), "");
}

GpuEnvironment h200_environment() {
  GpuEnvironment e;
  e.device = "cuda:0";
  e.name = "NVIDIA H200";
  e.hardware = hardware_key_from_gpu_name(e.name);
  e.pci_bus_id = "0000:19:00.0";
  e.compute_capability_major = 9;
  e.compute_capability_minor = 0;
  e.sm_count = 132;
  e.l2_cache_bytes = 50331648;
  e.memory_bytes = 150754820096;
  e.memory_clock_khz = 3201000;
  e.memory_bus_width_bits = 6144;
  e.sm_clock_max_khz = 1980000;
  e.sm_clock_mhz = 1980;
  e.driver = "570.86.15";
  e.cuda_driver_api = 12080;
  e.cuda_runtime = 13000;
  e.cudnn_runtime = 91900;
  e.cudnn_headers = 91900;
  e.cuda_compiler = "nvcc 13.0.88";
  e.host_compiler = "g++ 12.2.0";
  return e;
}

TEST(Environment, WritesEveryFieldWithUnitsInTheKeys) {
  const nlohmann::ordered_json j = environment_json(h200_environment());
  EXPECT_EQ(j.at("gpu"), "NVIDIA H200");
  EXPECT_EQ(j.at("hardware"), "h200");
  EXPECT_EQ(j.at("compute_capability"), "9.0");
  EXPECT_EQ(j.at("sm_count"), 132);
  EXPECT_EQ(j.at("l2_cache_bytes"), 50331648);
  EXPECT_EQ(j.at("memory_clock_mhz"), 3201);
  EXPECT_EQ(j.at("memory_bus_width_bits"), 6144);
  // 2 * 3.201 GHz * 768 bytes = 4916.7 GB/s
  EXPECT_DOUBLE_EQ(j.at("memory_bandwidth_peak_gbps").get<double>(), 4916.7);
  EXPECT_EQ(j.at("sm_clock_max_mhz"), 1980);
  EXPECT_EQ(j.at("sm_clock_mhz"), 1980);
  EXPECT_EQ(j.at("driver"), "570.86.15");
  EXPECT_EQ(j.at("cuda_driver_api"), "12.8");
  EXPECT_EQ(j.at("cuda_runtime"), "13.0");
  EXPECT_EQ(j.at("cudnn"), "9.19.0");
  EXPECT_EQ(j.at("cuda_compiler"), "nvcc 13.0.88");
  EXPECT_EQ(j.at("host_compiler"), "g++ 12.2.0");
  // Order is part of the report format: identity first, then hardware, then software.
  EXPECT_EQ(j.begin().key(), "device");
}

TEST(Environment, UnknownReadingsAreNullNotZero) {
  GpuEnvironment e = h200_environment();
  e.sm_clock_mhz = 0;  // no NVML on this machine
  e.driver.clear();
  e.memory_clock_khz = 0;
  const nlohmann::ordered_json j = environment_json(e);
  EXPECT_TRUE(j.at("sm_clock_mhz").is_null());
  EXPECT_TRUE(j.at("driver").is_null());
  EXPECT_TRUE(j.at("memory_clock_mhz").is_null());
  EXPECT_TRUE(j.at("memory_bandwidth_peak_gbps").is_null());
  EXPECT_EQ(j.at("sm_count"), 132);
}

TEST(Environment, NamesTheComputeMode) {
  GpuEnvironment e = h200_environment();
  e.compute_mode = 3;
  EXPECT_EQ(environment_json(e).at("compute_mode"), "EXCLUSIVE_PROCESS");
  e.compute_mode = -1;  // the attribute could not be read
  EXPECT_TRUE(environment_json(e).at("compute_mode").is_null());
}

// A GPU no candidate can use is named, with its mode, before any runs.
TEST(ComputeMode, AProhibitedGpuOrAnExclusiveOneHeldElsewhereIsAProblem) {
  EXPECT_EQ(compute_mode_problem("cuda:0", 2, false),
            "cuda:0 is in PROHIBITED compute mode: no process may use it (its administrator sets DEFAULT or "
            "EXCLUSIVE_PROCESS with nvidia-smi -c)");
  EXPECT_EQ(compute_mode_problem("cuda:1", 3, true),
            "cuda:1 is in EXCLUSIVE_PROCESS compute mode and another process holds it: run when it is free, or "
            "on another GPU");
  // Exclusive and free: each candidate's child takes it in turn.
  EXPECT_EQ(compute_mode_problem("cuda:1", 3, false), "");
  EXPECT_EQ(compute_mode_problem("cuda:0", 0, false), "");
  // Refused in DEFAULT mode: the mode is not why; the caller names the CUDA error.
  EXPECT_EQ(compute_mode_problem("cuda:0", 0, true), "");
  EXPECT_EQ(compute_mode_name(1), "EXCLUSIVE_THREAD");
  EXPECT_EQ(compute_mode_name(-1), "");
}

TEST(SmClock, WarnsWhenItMovedMoreThanTenPercent) {
  EXPECT_FALSE(sm_clock_moved(1980, 1980));
  EXPECT_FALSE(sm_clock_moved(1980, 1800));  // 9.1% of the larger reading
  EXPECT_TRUE(sm_clock_moved(1980, 1755));   // 11.4%
  EXPECT_TRUE(sm_clock_moved(1410, 1980));   // boosted while timing
  EXPECT_FALSE(sm_clock_moved(0, 1980));     // unknown reading: no claim
  EXPECT_TRUE(sm_clock_moved(1000, 1060, 0.05));
  const std::string warning = sm_clock_warning(1980, 1410);
  EXPECT_NE(warning.find("1980"), std::string::npos);
  EXPECT_NE(warning.find("1410"), std::string::npos);
  EXPECT_NE(warning.find("-28.8%"), std::string::npos) << warning;
}

}  // namespace
}  // namespace kg
