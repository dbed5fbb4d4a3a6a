#pragma once
// The host-side logic of GPU identification that needs no GPU and no CUDA
// headers, so it builds and is unit-tested in every build: which baselines a
// GPU reads (its hardware key), which GPU CTest gave a test, how a device spec
// names a GPU, and how the environment of a GPU run is written into reports.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kg {

// Hardware key of the baselines from the name the driver reports (the keys
// of kernelgate/detail/hardware.hpp's table):
//   "NVIDIA A100-SXM4-80GB"                                       -> a100-sxm
//   "NVIDIA L40S"                                                 -> l40s
//   "NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB", "H100 SXM" -> h100-sxm
//   "NVIDIA H100 PCIe"                                            -> h100-pcie
//   "NVIDIA H100 NVL"                                             -> h100-nvl
//   "NVIDIA H200", "NVIDIA H200 141GB HBM3e"                      -> h200
//   "NVIDIA GH200 480GB", "NVIDIA GH200 144G HBM3e"               -> gh200
//   "NVIDIA B200"                                                 -> b200
//   "NVIDIA GB200"                                                -> gb200
// A superchip (GH200, GB200) reports the superchip's name; its key names the
// superchip's GPU, a die of its own memory, clocks and power budget fed by
// the Grace CPU over NVLink-C2C: neither an H100 or H200 nor a B200, so its
// baselines are its own. Each board of a GPU has its own key (an H100 NVL's
// memory and power limits are neither the SXM's nor the PCIe card's).
// Any other GPU gets a key derived from its name: lower case, "NVIDIA "
// dropped, runs of other characters turned into one '-' ("NVIDIA A100-SXM4-40GB"
// -> "a100-sxm4-40gb", "NVIDIA H200 NVL" -> "h200-nvl"). Throws kg::Error for
// an empty name.
std::string hardware_key_from_gpu_name(std::string_view gpu_name);

// Whether a hardware key is the simulated GPU's: "sim-" and the key of the
// card it simulates ("sim-h100-sxm"). Such a run is the cuda device's code on
// a simulated runtime, kernels in interpret mode: never a measurement, so its
// records are `simulated`, no baseline file is kept for its key, and none of
// its figures is published into any other key's file.
bool is_simulated_hardware(std::string_view hardware_key);
// Whether a device name or spec is the simulated GPU's: "sim:" and the key
// of the card it simulates ("sim:h100-sxm"), the name its hardware key
// (sim-h100-sxm) goes with.
bool is_simulated_device(std::string_view device);

// The CTest label a hardware key belongs to: the table's label for a known
// key (h100-sxm, h100-pcie and h100-nvl -> "h100", b200 -> "b200", the cpu
// device's "cpu" -> "cpu"), the simulated GPU's sim-<key> -> "sim", any other
// GPU -> "gpu".
std::string hardware_label(std::string_view hardware_key);

// The GPU id CTest assigned from the value of CTEST_RESOURCE_GROUP_0_GPUS,
// e.g. "id:1,slots:1" -> 1 (docs/gpu-runner.md: the resource spec file names
// GPUs by their CUDA ordinal). With several allocations ("id:0,slots:1;id:2,slots:1")
// the first is taken. Throws kg::Error naming the variable for a malformed value.
int parse_ctest_gpu_allocation(std::string_view value);

// The GPU CTest assigned to this test, when it runs with RESOURCE_GROUPS:
// CTEST_RESOURCE_GROUP_COUNT >= 1 and CTEST_RESOURCE_GROUP_0_GPUS set.
// `getenv` is injectable for tests; by default the process environment.
std::optional<int> ctest_assigned_gpu(
    const std::function<const char*(const char*)>& getenv = nullptr);

// The ordinal a cuda device spec names: "cuda:N" -> N; "cuda" -> the GPU CTest
// assigned, else 0. Throws kg::Error for anything else ("cuda:x", "cuda:-1").
int cuda_ordinal_from_spec(std::string_view spec,
                           const std::function<const char*(const char*)>& getenv = nullptr);

// "13.0" from cudaRuntimeGetVersion/cudaDriverGetVersion's 13000.
std::string format_cuda_version(int version);
// "9.19.0" from cudnnGetVersion's 91900 (cuDNN 9 encodes major*10000 + minor*100 + patch).
std::string format_cudnn_version(std::size_t version);

// What the cuda device measures about its GPU; fields it could not read stay
// at their "unknown" value (0 or empty) and are written as null.
struct GpuEnvironment {
  std::string device;      // "cuda:0"
  std::string name;        // as the driver reports it
  std::string hardware;    // hardware key
  std::string pci_bus_id;  // "0000:19:00.0"
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int sm_count = 0;
  std::int64_t l2_cache_bytes = 0;
  std::int64_t memory_bytes = 0;
  int memory_clock_khz = 0;       // peak memory clock
  int memory_bus_width_bits = 0;
  int sm_clock_max_khz = 0;       // peak SM clock
  int sm_clock_mhz = 0;           // current SM clock (NVML), 0 when NVML is missing
  int sm_clock_max_app_mhz = 0;   // application clock limit (NVML)
  std::string driver;             // driver release, e.g. "570.86.15" (NVML)
  int cuda_driver_api = 0;        // cudaDriverGetVersion
  int cuda_runtime = 0;           // cudaRuntimeGetVersion
  std::size_t cudnn_runtime = 0;  // cudnnGetVersion
  std::size_t cudnn_headers = 0;  // CUDNN_VERSION the build saw
  std::string cuda_compiler;      // "nvcc 13.0.88"
  std::string host_compiler;      // "g++ 12.2.0"
  bool ecc_enabled = false;
  int compute_mode = -1;          // cudaDevAttrComputeMode's value; -1 when unknown
};

// The compute mode's name as nvidia-smi gives it: "DEFAULT",
// "EXCLUSIVE_PROCESS", "PROHIBITED" (0, 3 and 2 of cudaComputeMode; 1 is the
// exclusive-thread mode of old drivers); "" when unknown.
std::string compute_mode_name(int compute_mode);

// Why no candidate can run on the GPU `device` (one line), or "" when
// nothing is known against it: a PROHIBITED GPU admits no context at all; an
// exclusive one that refused this process's context (`context_refused`) is
// held by another process. A refusal in DEFAULT mode is not the mode's doing: "".
std::string compute_mode_problem(const std::string& device, int compute_mode, bool context_refused);

// Peak memory bandwidth in GB/s: double data rate over the bus (0 when unknown).
double peak_memory_bandwidth_gbps(const GpuEnvironment& environment);

// The report's "environment" object of a GPU run (docs/gpu-runner.md lists the keys).
nlohmann::ordered_json environment_json(const GpuEnvironment& environment);

// The SM clock moved by more than `tolerance` (relative to the larger of the
// two readings) between two readings; false when either reading is unknown (0).
bool sm_clock_moved(int before_mhz, int after_mhz, double tolerance = 0.10);
// "SM clock moved from 1980 to 1410 MHz (-28.8%) while timing: latency figures may not compare"
std::string sm_clock_warning(int before_mhz, int after_mhz);

}  // namespace kg
