// The throttle rule (kernelgate/detail/throttle_rule.hpp).
#include "kernelgate/detail/throttle_rule.hpp"

#include <cstdio>
#include <utility>

namespace kg {
namespace {

constexpr std::pair<std::uint64_t, const char*> kReasonNames[] = {
    {clock_event::kGpuIdle, "gpu_idle"},
    {clock_event::kApplicationsClocksSetting, "applications_clocks_setting"},
    {clock_event::kSwPowerCap, "sw_power_cap"},
    {clock_event::kHwSlowdown, "hw_slowdown"},
    {clock_event::kSyncBoost, "sync_boost"},
    {clock_event::kSwThermalSlowdown, "sw_thermal_slowdown"},
    {clock_event::kHwThermalSlowdown, "hw_thermal_slowdown"},
    {clock_event::kHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    {clock_event::kDisplayClockSetting, "display_clock_setting"},
};

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

std::vector<std::string> clock_event_reason_names(std::uint64_t reasons) {
  std::vector<std::string> names;
  for (int bit = 0; bit < 64; ++bit) {
    const std::uint64_t mask = std::uint64_t{1} << bit;
    if (!(reasons & mask)) continue;
    std::string name;
    for (const auto& [value, known] : kReasonNames)
      if (value == mask) name = known;
    if (name.empty()) {
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(mask));
      name = hex;
    }
    names.push_back(name);
  }
  return names;
}

ThrottleVerdict judge_throttle(const TimedLaunch& sample, double fraction) {
  const bool set_below_boost = sample.sm_clock_set_mhz > 0;
  const int reference_mhz = set_below_boost ? sample.sm_clock_set_mhz : sample.sm_clock_max_mhz;
  if (sample.sm_clock_mhz <= 0 || reference_mhz <= 0) return {};
  if (sample.sm_clock_mhz >= fraction * reference_mhz) return {};
  const std::string where = std::to_string(sample.sm_clock_mhz) + " MHz, under " +
                            std::to_string(static_cast<int>(fraction * 100 + 0.5)) + "% of the " +
                            (set_below_boost ? "set" : "boost") + " clock of " + std::to_string(reference_mhz) +
                            " MHz";
  if (sample.clock_event_reasons < 0) return {true, where + " (the driver gives no reason)"};
  const std::uint64_t throttling = static_cast<std::uint64_t>(sample.clock_event_reasons) & clock_event::kThrottling;
  if (throttling == 0) return {};  // set there, idling or sync boost: not a throttled sample
  return {true, where + ", throttled by " + joined(clock_event_reason_names(throttling))};
}

}  // namespace kg
