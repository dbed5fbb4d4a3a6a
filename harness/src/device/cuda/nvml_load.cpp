// load_nvml (../nvml.hpp) on a GPU: the driver's library, through dlopen,
// since NVML comes with the driver and not the toolkit.
#include <dlfcn.h>

#include "../nvml.hpp"

namespace kg::detail {
namespace {

template <typename Function>
void bind(Function& entry, void* library, const char* name) {
  if (entry == nullptr) entry = reinterpret_cast<Function>(dlsym(library, name));
}

}  // namespace

NvmlFunctions load_nvml() {
  NvmlFunctions functions;
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return functions;
  bind(functions.init, library, "nvmlInit_v2");
  bind(functions.device_by_pci_bus_id, library, "nvmlDeviceGetHandleByPciBusId_v2");
  bind(functions.clock_info, library, "nvmlDeviceGetClockInfo");
  bind(functions.applications_clock, library, "nvmlDeviceGetApplicationsClock");
  bind(functions.clocks_event_reasons, library, "nvmlDeviceGetCurrentClocksEventReasons");
  bind(functions.clocks_event_reasons, library, "nvmlDeviceGetCurrentClocksThrottleReasons");
  bind(functions.driver_version, library, "nvmlSystemGetDriverVersion");
  return functions;
}

}  // namespace kg::detail
