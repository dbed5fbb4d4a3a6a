// load_nvml (../nvml.hpp) in the cpu build: where this process opened a
// simulated GPU, NVML's entry points answer for its card from the scripted
// clock (kg::interp::sim::clock_now); elsewhere there is no NVML.
#include <cstdio>
#include <cstring>

#include "../nvml.hpp"
#include "kernelgate/interpret/cuda_shims.hpp"
#include "kernelgate/interpret/simulated_gpu.hpp"

namespace kg::detail {
namespace {

constexpr int kSuccess = 0, kInvalidArgument = 2, kNotFound = 6, kInsufficientSize = 7;
constexpr int kClockSm = 1;
int the_card;  // its address is the card's handle

int simulated_init() { return kSuccess; }

int simulated_device_by_pci_bus_id(const char* bus_id, void** device) {
  char ours[32] = {};
  if (cudaDeviceGetPCIBusId(ours, sizeof ours, 0) != cudaSuccess || std::strcmp(bus_id, ours) != 0) return kNotFound;
  *device = &the_card;
  return kSuccess;
}

int simulated_clock_info(void* device, int clock, unsigned int* mhz) {
  if (device != &the_card || clock != kClockSm || mhz == nullptr) return kInvalidArgument;
  *mhz = static_cast<unsigned int>(interp::sim::clock_now().sm_mhz);
  return kSuccess;
}

// No application clock is set: a locked clock (nvidia-smi -lgc) leaves it at boost.
int simulated_applications_clock(void* device, int clock, unsigned int* mhz) {
  if (device != &the_card || clock != kClockSm || mhz == nullptr) return kInvalidArgument;
  *mhz = static_cast<unsigned int>(interp::sim::card().boost_clock_mhz);
  return kSuccess;
}

int simulated_clocks_event_reasons(void* device, unsigned long long* reasons) {
  if (device != &the_card || reasons == nullptr) return kInvalidArgument;
  *reasons = interp::sim::clock_now().event_reasons;
  return kSuccess;
}

int simulated_driver_version(char* version, unsigned int length) {
  const char* text = "simulated";
  if (version == nullptr || length <= std::strlen(text)) return kInsufficientSize;
  std::snprintf(version, length, "%s", text);
  return kSuccess;
}

}  // namespace

NvmlFunctions load_nvml() {
  if (!interp::sim::is_open()) return {};
  return {.init = simulated_init,
          .device_by_pci_bus_id = simulated_device_by_pci_bus_id,
          .clock_info = simulated_clock_info,
          .applications_clock = simulated_applications_clock,
          .clocks_event_reasons = simulated_clocks_event_reasons,
          .driver_version = simulated_driver_version};
}

}  // namespace kg::detail
