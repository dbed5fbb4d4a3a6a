// NVML through its table of entry points, with a fake driver in place of
// libnvidia-ml: the handle is looked up once per GPU, the clocks-event
// reasons are read where the driver has them, and a missing library or
// entry leaves the readings unknown.
#include <gtest/gtest.h>

#include "nvml.hpp"

namespace kg::detail {
namespace {

// The fake driver's state: one GPU at kBusId.
constexpr const char* kBusId = "00000000:19:00.0";
struct FakeDriver {
  int handle_lookups = 0;
  unsigned int sm_mhz = 1410;
  unsigned long long reasons = 0x2;  // applications clocks setting
  bool init_fails = false;
};
FakeDriver driver;
int gpu_handle;  // its address is the GPU's handle

int fake_init() { return driver.init_fails ? 999 : 0; }
int fake_device_by_pci_bus_id(const char* bus_id, void** device) {
  ++driver.handle_lookups;
  if (std::string(bus_id) != kBusId) return 6;  // NVML_ERROR_NOT_FOUND
  *device = &gpu_handle;
  return 0;
}
int fake_clock_info(void* device, int clock, unsigned int* mhz) {
  if (device != &gpu_handle || clock != 1) return 2;
  *mhz = driver.sm_mhz;
  return 0;
}
int fake_applications_clock(void*, int, unsigned int*) { return 3; }  // NVML_ERROR_NOT_SUPPORTED
int fake_clocks_event_reasons(void* device, unsigned long long* reasons) {
  if (device != &gpu_handle) return 2;
  *reasons = driver.reasons;
  return 0;
}

NvmlFunctions fake_nvml() {
  driver = FakeDriver{};
  return {.init = fake_init,
          .device_by_pci_bus_id = fake_device_by_pci_bus_id,
          .clock_info = fake_clock_info,
          .applications_clock = fake_applications_clock,
          .clocks_event_reasons = fake_clocks_event_reasons,
          .driver_version = nullptr};
}

TEST(Nvml, AGpuIsLookedUpOnceAndReadThroughItsHandle) {
  const Nvml nvml(fake_nvml());
  ASSERT_TRUE(nvml.available());
  const NvmlDevice gpu = nvml.device(kBusId);
  ASSERT_TRUE(gpu.known());
  for (int sample = 0; sample < 100; ++sample) {  // two readings per timed sample
    EXPECT_EQ(gpu.sm_clock_mhz(), 1410);
    EXPECT_EQ(gpu.clock_event_reasons(), 0x2);
  }
  EXPECT_EQ(driver.handle_lookups, 1);
  driver.sm_mhz = 990;
  driver.reasons = 0x48;  // hardware slowdown, hardware thermal slowdown
  EXPECT_EQ(gpu.sm_clock_mhz(), 990);
  EXPECT_EQ(gpu.clock_event_reasons(), 0x48);
}

TEST(Nvml, WhatTheDriverCannotSayStaysUnknown) {
  const Nvml nvml(fake_nvml());
  const NvmlDevice gpu = nvml.device(kBusId);
  EXPECT_EQ(gpu.application_sm_clock_mhz(), 0);  // not supported on this GPU
  EXPECT_EQ(nvml.driver_version(), "");          // no such entry
  EXPECT_FALSE(nvml.device("00000000:3b:00.0").known());
  EXPECT_FALSE(nvml.device("").known());
  // A driver without the reasons entry: the readings go on, reasons unknown.
  NvmlFunctions older = fake_nvml();
  older.clocks_event_reasons = nullptr;
  const Nvml old_driver(older);
  EXPECT_EQ(old_driver.device(kBusId).sm_clock_mhz(), 1410);
  EXPECT_EQ(old_driver.device(kBusId).clock_event_reasons(), -1);
}

TEST(Nvml, NoLibraryOrAFailedInitLeavesEveryReadingUnknown) {
  const Nvml missing{NvmlFunctions{}};
  EXPECT_FALSE(missing.available());
  const NvmlDevice gpu = missing.device(kBusId);
  EXPECT_FALSE(gpu.known());
  EXPECT_EQ(gpu.sm_clock_mhz(), 0);
  EXPECT_EQ(gpu.clock_event_reasons(), -1);
  NvmlFunctions failing = fake_nvml();
  driver.init_fails = true;
  const Nvml uninitialised(failing);
  EXPECT_FALSE(uninitialised.available());
  EXPECT_FALSE(uninitialised.device(kBusId).known());
  EXPECT_EQ(driver.handle_lookups, 0);
}

}  // namespace
}  // namespace kg::detail
