// Host-side GPU identification: hardware keys, CTest's GPU allocation, device
// specs and the environment record. Pure logic, no CUDA: it builds and is
// tested in the cpu build too (tests/cuda/).
#include "kernelgate/detail/gpu_identity.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "kernelgate/error.hpp"
#include "kernelgate/detail/hardware.hpp"

namespace kg {
namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// The whole text as a non-negative int, or nullopt.
std::optional<int> parse_ordinal(std::string_view text) {
  int value = -1;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

const char* read_env(const std::function<const char*(const char*)>& getenv, const char* name) {
  return getenv ? getenv(name) : std::getenv(name);
}

std::string trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return std::string(text);
}

}  // namespace

std::string hardware_key_from_gpu_name(std::string_view gpu_name) {
  const std::string name = upper(trim(gpu_name));
  if (name.empty()) throw Error("cannot derive a hardware key from an empty GPU name");
  // Superchips report the superchip's name; the key is its GPU's, which has
  // the superchip's own memory, clocks and power budget, so it is neither a
  // B200 nor an H100 or H200. Before the board rules: "GB200" contains
  // "B200", "GH200" contains "H200".
  if (contains(name, "GB200")) return "gb200";
  if (contains(name, "GH200")) return "gh200";
  if (contains(name, "B200")) return "b200";
  // NVL boards are PCIe cards with their own memory and power limits: the
  // H100 NVL has its key (h100-nvl), the H200 NVL falls through to a derived
  // one ("h200-nvl"), never the SXM, PCIe or H200 baselines.
  const bool nvl = contains(name, "NVL");
  if (contains(name, "H100")) {
    if (nvl) return "h100-nvl";
    if (contains(name, "PCIE")) return "h100-pcie";
    // The SXM part reports itself as "NVIDIA H100 80GB HBM3".
    if (contains(name, "SXM") || contains(name, "HBM3")) return "h100-sxm";
  }
  if (contains(name, "H200") && !nvl) return "h200";
  // "NVIDIA A100-SXM4-80GB"; the 40 GB SXM part (HBM2, 1.56 TB/s) and the
  // PCIe boards get derived keys.
  if (contains(name, "A100") && contains(name, "SXM") && contains(name, "80GB")) return "a100-sxm";
  if (contains(name, "L40S")) return "l40s";

  std::string key;
  const std::string trimmed = trim(gpu_name);
  std::string_view rest = trimmed;
  if (upper(rest).rfind("NVIDIA ", 0) == 0) rest.remove_prefix(7);
  bool pending_dash = false;
  for (char c : rest) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      if (pending_dash && !key.empty()) key += '-';
      pending_dash = false;
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      pending_dash = true;
    }
  }
  if (key.empty()) throw Error("cannot derive a hardware key from GPU name '" + std::string(gpu_name) + "'");
  return key;
}

bool is_simulated_hardware(std::string_view hardware_key) { return hardware_key.starts_with("sim-"); }

bool is_simulated_device(std::string_view device) { return device.starts_with("sim:"); }

std::string hardware_label(std::string_view hardware_key) {
  if (is_simulated_hardware(hardware_key)) return "sim";
  if (const HardwareSpec* spec = find_hardware(std::string(hardware_key))) return spec->label;
  return "gpu";
}

int parse_ctest_gpu_allocation(std::string_view value) {
  // CTest writes "id:<id>,slots:<n>" per allocation, allocations joined by ';'.
  const std::string text = trim(value);
  const std::string first = text.substr(0, text.find(';'));
  std::optional<int> id;
  std::size_t start = 0;
  while (start <= first.size()) {
    const std::size_t comma = std::min(first.find(',', start), first.size());
    const std::string field = trim(std::string_view(first).substr(start, comma - start));
    if (field.rfind("id:", 0) == 0) id = parse_ordinal(std::string_view(field).substr(3));
    start = comma + 1;
  }
  if (!id)
    throw Error("CTEST_RESOURCE_GROUP_0_GPUS='" + std::string(value) +
                "': expected 'id:<CUDA ordinal>,slots:<n>' (see docs/gpu-runner.md for the resource spec file)");
  return *id;
}

std::optional<int> ctest_assigned_gpu(const std::function<const char*(const char*)>& getenv) {
  const char* count = read_env(getenv, "CTEST_RESOURCE_GROUP_COUNT");
  if (count == nullptr || *count == '\0') return std::nullopt;
  const std::optional<int> groups = parse_ordinal(trim(count));
  if (!groups) throw Error("CTEST_RESOURCE_GROUP_COUNT='" + std::string(count) + "' is not a count");
  if (*groups == 0) return std::nullopt;
  const char* gpus = read_env(getenv, "CTEST_RESOURCE_GROUP_0_GPUS");
  // A resource group without GPUs (another resource type): CTest assigned none.
  if (gpus == nullptr || *gpus == '\0') return std::nullopt;
  return parse_ctest_gpu_allocation(gpus);
}

int cuda_ordinal_from_spec(std::string_view spec, const std::function<const char*(const char*)>& getenv) {
  if (spec == "cuda") return ctest_assigned_gpu(getenv).value_or(0);
  if (spec.rfind("cuda:", 0) == 0) {
    if (std::optional<int> ordinal = parse_ordinal(spec.substr(5))) return *ordinal;
  }
  throw Error("device '" + std::string(spec) + "': expected cuda or cuda:N with N a GPU ordinal");
}

std::string format_cuda_version(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string format_cudnn_version(std::size_t version) {
  if (version == 0) return "";
  return std::to_string(version / 10000) + "." + std::to_string((version % 10000) / 100) + "." +
         std::to_string(version % 100);
}

double peak_memory_bandwidth_gbps(const GpuEnvironment& environment) {
  // Double data rate: two transfers per clock over the whole bus.
  return 2.0 * environment.memory_clock_khz * 1e3 * (environment.memory_bus_width_bits / 8.0) / 1e9;
}

nlohmann::ordered_json environment_json(const GpuEnvironment& e) {
  using nlohmann::ordered_json;
  auto known_int = [](std::int64_t value) { return value > 0 ? ordered_json(value) : ordered_json(nullptr); };
  auto known_text = [](const std::string& value) { return value.empty() ? ordered_json(nullptr) : ordered_json(value); };
  ordered_json j;
  j["device"] = e.device;
  j["gpu"] = e.name;
  j["hardware"] = e.hardware;
  j["pci_bus_id"] = known_text(e.pci_bus_id);
  j["compute_capability"] = e.compute_capability_major > 0
                                ? ordered_json(std::to_string(e.compute_capability_major) + "." +
                                               std::to_string(e.compute_capability_minor))
                                : ordered_json(nullptr);
  j["sm_count"] = known_int(e.sm_count);
  j["l2_cache_bytes"] = known_int(e.l2_cache_bytes);
  j["memory_bytes"] = known_int(e.memory_bytes);
  j["memory_clock_mhz"] = e.memory_clock_khz > 0 ? ordered_json(e.memory_clock_khz / 1000) : ordered_json(nullptr);
  j["memory_bus_width_bits"] = known_int(e.memory_bus_width_bits);
  const double bandwidth = peak_memory_bandwidth_gbps(e);
  j["memory_bandwidth_peak_gbps"] = bandwidth > 0 ? ordered_json(std::round(bandwidth * 10) / 10) : ordered_json(nullptr);
  j["sm_clock_max_mhz"] = e.sm_clock_max_khz > 0 ? ordered_json(e.sm_clock_max_khz / 1000) : ordered_json(nullptr);
  j["sm_clock_mhz"] = known_int(e.sm_clock_mhz);
  j["sm_clock_application_mhz"] = known_int(e.sm_clock_max_app_mhz);
  j["ecc"] = e.ecc_enabled;
  j["compute_mode"] = known_text(compute_mode_name(e.compute_mode));
  j["driver"] = known_text(e.driver);
  j["cuda_driver_api"] = known_text(format_cuda_version(e.cuda_driver_api));
  j["cuda_runtime"] = known_text(format_cuda_version(e.cuda_runtime));
  j["cudnn"] = known_text(format_cudnn_version(e.cudnn_runtime));
  j["cudnn_headers"] = known_text(format_cudnn_version(e.cudnn_headers));
  j["cuda_compiler"] = known_text(e.cuda_compiler);
  j["host_compiler"] = known_text(e.host_compiler);
  return j;
}

std::string compute_mode_name(int compute_mode) {
  switch (compute_mode) {
    case 0: return "DEFAULT";
    case 1: return "EXCLUSIVE_THREAD";
    case 2: return "PROHIBITED";
    case 3: return "EXCLUSIVE_PROCESS";
    default: return "";
  }
}

std::string compute_mode_problem(const std::string& device, int compute_mode, bool context_refused) {
  const std::string mode = compute_mode_name(compute_mode);
  if (mode == "PROHIBITED")
    return device + " is in PROHIBITED compute mode: no process may use it (its administrator sets DEFAULT or "
                    "EXCLUSIVE_PROCESS with nvidia-smi -c)";
  if (context_refused && (mode == "EXCLUSIVE_PROCESS" || mode == "EXCLUSIVE_THREAD"))
    return device + " is in " + mode + " compute mode and another process holds it: run when it is free, or on "
                    "another GPU";
  return "";
}

bool sm_clock_moved(int before_mhz, int after_mhz, double tolerance) {
  if (before_mhz <= 0 || after_mhz <= 0) return false;
  const double larger = std::max(before_mhz, after_mhz);
  return std::abs(after_mhz - before_mhz) / larger > tolerance;
}

std::string sm_clock_warning(int before_mhz, int after_mhz) {
  char change[32];
  const double percent = before_mhz > 0 ? 100.0 * (after_mhz - before_mhz) / before_mhz : 0.0;
  std::snprintf(change, sizeof change, "%+.1f%%", percent);
  return "SM clock moved from " + std::to_string(before_mhz) + " to " + std::to_string(after_mhz) +
         " MHz (" + change + ") while timing: latency figures may not compare";
}

}  // namespace kg
