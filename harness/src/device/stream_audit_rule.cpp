// The stream audit's rule (kernelgate/stream_audit_rule.hpp).
#include "kernelgate/stream_audit_rule.hpp"

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

}  // namespace kg
