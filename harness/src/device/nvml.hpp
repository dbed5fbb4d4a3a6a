#pragma once
// NVML, the driver's management library: the readings the CUDA runtime does
// not give (the current SM clock and why it is there, the application clock,
// the driver release). NVML comes with the driver, not the toolkit, so it is
// loaded at run time through a table of its entry points: without it every
// reading is unknown and timing still works. The table is also the seam the
// tests use to stand in for the driver (tests/device/nvml_test.cpp), so this
// file is built in both builds.
#include <cstdint>
#include <string>

namespace kg::detail {

// The entry points kernelgate uses, with the C signatures of nvml.h (which
// the toolkit does not ship). A null entry is one the library lacks.
struct NvmlFunctions {
  int (*init)() = nullptr;                                                  // nvmlInit_v2
  int (*device_by_pci_bus_id)(const char* bus_id, void** device) = nullptr;  // nvmlDeviceGetHandleByPciBusId_v2
  int (*clock_info)(void* device, int clock, unsigned int* mhz) = nullptr;  // nvmlDeviceGetClockInfo
  int (*applications_clock)(void* device, int clock, unsigned int* mhz) = nullptr;
  // nvmlDeviceGetCurrentClocksEventReasons, or its older name
  // nvmlDeviceGetCurrentClocksThrottleReasons on drivers before it.
  int (*clocks_event_reasons)(void* device, unsigned long long* reasons) = nullptr;
  int (*driver_version)(char* version, unsigned int length) = nullptr;  // nvmlSystemGetDriverVersion
};

// The gpu build: libnvidia-ml.so.1's entry points, an empty table where it
// cannot be loaded (cuda/nvml_load.cpp). The cpu build: the simulated GPU's
// readings where the process opened one, else an empty table (sim/nvml_sim.cpp).
NvmlFunctions load_nvml();

// One GPU's readings through the handle its owner looked up once, so a
// reading costs one NVML call (the timed loop reads twice per sample).
class NvmlDevice {
 public:
  NvmlDevice() = default;  // a GPU NVML does not know: every reading unknown
  bool known() const { return handle_ != nullptr; }
  int sm_clock_mhz() const;              // 0 when unknown
  int application_sm_clock_mhz() const;  // 0 when unknown or not supported
  // NVML's clocks-event reason bits (kernelgate/detail/throttle_rule.hpp); -1 when
  // the driver cannot say.
  std::int64_t clock_event_reasons() const;

 private:
  friend class Nvml;
  NvmlDevice(const NvmlFunctions* functions, void* handle) : functions_(functions), handle_(handle) {}
  const NvmlFunctions* functions_ = nullptr;
  void* handle_ = nullptr;
};

class Nvml {
 public:
  // Initialises NVML through `functions`; never throws. Unavailable when
  // the table lacks the entries every reading needs or init fails.
  explicit Nvml(NvmlFunctions functions);
  // The process's NVML, loaded once.
  static const Nvml& instance();

  bool available() const { return available_; }
  // The GPU at `pci_bus_id` as cudaDeviceGetPCIBusId writes it; unknown
  // when NVML is unavailable or does not find it. Valid while this lives.
  NvmlDevice device(const std::string& pci_bus_id) const;
  std::string driver_version() const;  // "580.159.04"; empty when unknown

 private:
  NvmlFunctions functions_;
  bool available_ = false;
};

}  // namespace kg::detail
