// The stream audit's rules (kernelgate/detail/stream_audit_rule.hpp).
#include "kernelgate/detail/stream_audit_rule.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace kg {

std::string judge_stream_audit(const std::vector<DeviceActivity>& activities, std::uint32_t harness_stream_id,
                               std::uint64_t harness_done_ns) {
  // Another stream first: it is the more direct breach and usually the cause
  // of the late work too.
  for (const DeviceActivity& activity : activities) {
    if (activity.stream_id != harness_stream_id)
      return activity.what + " ran on stream " + std::to_string(activity.stream_id) +
             ", not on the harness stream " + std::to_string(harness_stream_id);
  }
  for (const DeviceActivity& activity : activities) {
    if (activity.start_ns > harness_done_ns)
      return activity.what + " started " + std::to_string((activity.start_ns - harness_done_ns) / 1000) +
             " us after the candidate's work on the harness stream had finished: work left running after it returned";
  }
  return "";
}

namespace {

// The median of the finite values; 0 when there is none.
double median(std::vector<double> values) {
  std::erase_if(values, [](double value) { return !std::isfinite(value); });
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  return (*middle + *std::max_element(values.begin(), middle)) / 2;
}

}  // namespace

BusyAfterTiming judge_busy_after_timing(const std::vector<double>& timed_ms,
                                        const std::vector<double>& busy_after_ms) {
  BusyAfterTiming verdict{.busy_median_ms = median(busy_after_ms), .timed_median_ms = median(timed_ms), .finding = {}};
  const double busy = verdict.busy_median_ms;
  const double timed = verdict.timed_median_ms;
  if (busy <= kBusyAfterFloorMs || busy <= kBusyAfterFraction * timed) return verdict;
  std::ostringstream message;
  message.precision(3);
  message << "after the timed region the device stayed busy a median " << busy << " ms per sample (the samples timed "
          << "a median " << timed << " ms, over " << busy_after_ms.size()
          << " samples): work left running outside the harness's stream, which its events do not time";
  verdict.finding = message.str();
  return verdict;
}

std::optional<std::string> cupti_version_problem(std::uint32_t api_version) {
  const std::string loaded = "the stream audit cannot use the CUPTI library loaded, API version " +
                             std::to_string(api_version);
  if (api_version < kOldestAuditedCuptiApi)
    return loaded + ", older than its records are checked against (" + std::to_string(kOldestAuditedCuptiApi) +
           ", CUDA 12.4): install CUDA 12.4 or later";
  if (api_version == kCuda13GaCuptiApi)
    return loaded + " (CUDA 13.0 GA), which can deadlock in disabling an activity kind and crash in " +
           "cuptiActivityFlushAll, both of which the audit does after every audited launch: install CUDA 13.0 " +
           "Update 1 (CUPTI API version 130001) or later";
  return std::nullopt;
}

}  // namespace kg
