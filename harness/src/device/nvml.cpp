// NVML through its table of entry points (nvml.hpp); the table comes from
// load_nvml, the driver's library on a GPU (cuda/nvml_load.cpp) and the
// simulated GPU's readings in the cpu build (sim/nvml_sim.cpp).
#include "nvml.hpp"

namespace kg::detail {
namespace {

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

}  // namespace

int NvmlDevice::sm_clock_mhz() const {
  unsigned int mhz = 0;
  if (!known() || functions_->clock_info(handle_, kNvmlClockSm, &mhz) != kNvmlSuccess) return 0;
  return static_cast<int>(mhz);
}

int NvmlDevice::application_sm_clock_mhz() const {
  unsigned int mhz = 0;
  if (!known() || functions_->applications_clock == nullptr ||
      functions_->applications_clock(handle_, kNvmlClockSm, &mhz) != kNvmlSuccess)
    return 0;
  return static_cast<int>(mhz);
}

std::int64_t NvmlDevice::clock_event_reasons() const {
  unsigned long long reasons = 0;
  if (!known() || functions_->clocks_event_reasons == nullptr ||
      functions_->clocks_event_reasons(handle_, &reasons) != kNvmlSuccess)
    return -1;
  // The bits NVML defines are all far below the sign bit.
  return static_cast<std::int64_t>(reasons & 0x7fffffffffffffffull);
}

Nvml::Nvml(NvmlFunctions functions) : functions_(functions) {
  available_ = functions_.init != nullptr && functions_.device_by_pci_bus_id != nullptr &&
               functions_.clock_info != nullptr && functions_.init() == kNvmlSuccess;
}

const Nvml& Nvml::instance() {
  static const Nvml nvml(load_nvml());
  return nvml;
}

NvmlDevice Nvml::device(const std::string& pci_bus_id) const {
  void* handle = nullptr;
  if (!available_ || pci_bus_id.empty() ||
      functions_.device_by_pci_bus_id(pci_bus_id.c_str(), &handle) != kNvmlSuccess || handle == nullptr)
    return {};
  return NvmlDevice(&functions_, handle);
}

std::string Nvml::driver_version() const {
  char version[96] = {};
  if (!available_ || functions_.driver_version == nullptr ||
      functions_.driver_version(version, sizeof version) != kNvmlSuccess)
    return "";
  return version;
}

}  // namespace kg::detail
