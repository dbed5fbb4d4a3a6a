// NVML through dlopen: only the few entry points the clock readings need, with
// their C signatures from nvml.h (which the toolkit here does not ship).
#include "nvml_clock.hpp"

#include <dlfcn.h>

namespace kg::cuda_detail {
namespace {

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

template <typename Function>
Function symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

}  // namespace

const Nvml& Nvml::instance() {
  static const Nvml nvml;
  return nvml;
}

Nvml::Nvml() {
  library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) return;
  auto init = symbol<int (*)()>(library_, "nvmlInit_v2");
  get_handle_by_pci_bus_id_ = symbol<int (*)(const char*, void**)>(library_, "nvmlDeviceGetHandleByPciBusId_v2");
  get_clock_info_ = symbol<int (*)(void*, int, unsigned int*)>(library_, "nvmlDeviceGetClockInfo");
  get_applications_clock_ = symbol<int (*)(void*, int, unsigned int*)>(library_, "nvmlDeviceGetApplicationsClock");
  get_driver_version_ = symbol<int (*)(char*, unsigned int)>(library_, "nvmlSystemGetDriverVersion");
  available_ = init != nullptr && get_handle_by_pci_bus_id_ != nullptr && get_clock_info_ != nullptr &&
               init() == kNvmlSuccess;
}

void* Nvml::device(const std::string& pci_bus_id) const {
  if (!available_ || pci_bus_id.empty()) return nullptr;
  void* handle = nullptr;
  return get_handle_by_pci_bus_id_(pci_bus_id.c_str(), &handle) == kNvmlSuccess ? handle : nullptr;
}

int Nvml::sm_clock_mhz(const std::string& pci_bus_id) const {
  void* handle = device(pci_bus_id);
  unsigned int mhz = 0;
  if (handle == nullptr || get_clock_info_(handle, kNvmlClockSm, &mhz) != kNvmlSuccess) return 0;
  return static_cast<int>(mhz);
}

int Nvml::application_sm_clock_mhz(const std::string& pci_bus_id) const {
  void* handle = device(pci_bus_id);
  unsigned int mhz = 0;
  if (handle == nullptr || get_applications_clock_ == nullptr ||
      get_applications_clock_(handle, kNvmlClockSm, &mhz) != kNvmlSuccess)
    return 0;
  return static_cast<int>(mhz);
}

std::string Nvml::driver_version() const {
  char version[96] = {};
  if (!available_ || get_driver_version_ == nullptr || get_driver_version_(version, sizeof version) != kNvmlSuccess)
    return "";
  return version;
}

}  // namespace kg::cuda_detail
