#pragma once
// Which timed samples a throttled GPU spoiled, apart from NVML and the GPU so
// the rule is unit-tested in every build (docs/gpu-runner.md, "Timing").
//
// A sample is judged by why its SM clock was where it was, not by how far it
// sat under the boost clock alone: a GPU whose clock is locked or set lower
// (nvidia-smi -lgc, application clocks) runs every sample at that clock, and
// its samples compare with each other. NVML says why: the clocks-event
// reasons. Power capping, thermal slowdown, hardware slowdown and the power
// brake are throttling; a clock setting, sync boost and idling are not.
#include <cstdint>
#include <string>
#include <vector>

#include "kernelgate/detail/device.hpp"

namespace kg {

// NVML's clocks-event reason bits (nvmlClocksEventReasons; the same values as
// the older nvmlClocksThrottleReasons).
namespace clock_event {
inline constexpr std::uint64_t kGpuIdle = 0x1;
inline constexpr std::uint64_t kApplicationsClocksSetting = 0x2;  // also locked clocks (-lgc)
inline constexpr std::uint64_t kSwPowerCap = 0x4;
inline constexpr std::uint64_t kHwSlowdown = 0x8;
inline constexpr std::uint64_t kSyncBoost = 0x10;
inline constexpr std::uint64_t kSwThermalSlowdown = 0x20;
inline constexpr std::uint64_t kHwThermalSlowdown = 0x40;
inline constexpr std::uint64_t kHwPowerBrakeSlowdown = 0x80;
inline constexpr std::uint64_t kDisplayClockSetting = 0x100;
// The reasons that mean the clock was pulled below where it is set to run.
inline constexpr std::uint64_t kThrottling =
    kSwPowerCap | kHwSlowdown | kSwThermalSlowdown | kHwThermalSlowdown | kHwPowerBrakeSlowdown;
}  // namespace clock_event

// The reasons' names, in bit order: "sw_power_cap", "applications_clocks_setting",
// ...; a bit NVML may add later as "0x200".
std::vector<std::string> clock_event_reason_names(std::uint64_t reasons);

struct ThrottleVerdict {
  bool throttled = false;
  std::string cause;  // why, in words, when throttled
};

// Whether `sample` ran throttled. Its clock is compared with the clock the
// GPU is set to run at (sm_clock_set_mhz where known, else the boost clock):
// below `fraction` of it, the sample is throttled when the driver names a
// throttling reason, or when the driver gives no reasons at all. Never
// throttled when the clocks are unknown.
ThrottleVerdict judge_throttle(const TimedLaunch& sample, double fraction);

}  // namespace kg
