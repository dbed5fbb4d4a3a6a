#pragma once
// NVML readings the CUDA runtime does not give: the CURRENT SM clock (the
// runtime only knows the peak), the application clock and the driver release.
// NVML comes with the driver, not the toolkit, so it is loaded at run time:
// without it the readings are unknown (0 / empty) and timing still works.
#include <string>

namespace kg::cuda_detail {

class Nvml {
 public:
  // Loads libnvidia-ml.so.1 once per process; never throws.
  static const Nvml& instance();

  bool available() const { return available_; }
  // MHz; 0 when unknown. `pci_bus_id` as cudaDeviceGetPCIBusId writes it.
  int sm_clock_mhz(const std::string& pci_bus_id) const;
  int application_sm_clock_mhz(const std::string& pci_bus_id) const;
  std::string driver_version() const;  // "570.86.15"; empty when unknown

 private:
  Nvml();
  void* device(const std::string& pci_bus_id) const;

  bool available_ = false;
  void* library_ = nullptr;
  int (*get_handle_by_pci_bus_id_)(const char*, void**) = nullptr;
  int (*get_clock_info_)(void*, int, unsigned int*) = nullptr;
  int (*get_applications_clock_)(void*, int, unsigned int*) = nullptr;
  int (*get_driver_version_)(char*, unsigned int) = nullptr;
};

}  // namespace kg::cuda_detail
